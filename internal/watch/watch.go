// Package watch is the screen watcher: every poll it lists the tmux
// server's panes, reads each screen, classifies it, and hands the snapshot
// to the blocked decider; what it announces goes to the delivery queue. It
// runs only while at least one device is registered: with none it touches
// no tmux server.
package watch

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/attn-dev/attn/internal/agent"
	"github.com/attn-dev/attn/internal/detect"
	"github.com/attn-dev/attn/internal/notification"
	"github.com/attn-dev/attn/internal/pipeline"
	"github.com/attn-dev/attn/internal/source/tmux"
)

// Panes lists and reads panes (implemented by *tmux.Client).
type Panes interface {
	ListPanes(ctx context.Context) ([]tmux.Pane, error)
	Capture(ctx context.Context, id string) (string, error)
}

// Decider turns snapshots into announcements (implemented by
// *pipeline.Blocked).
type Decider interface {
	Observe(ctx context.Context, host string, now time.Time, panes []pipeline.Observation) []pipeline.Announcement
	Retract(ctx context.Context, fingerprint string)
}

// Queue takes notifications to deliver without blocking (implemented by
// *deliver.Deliverer).
type Queue interface {
	Enqueue(n notification.Notification) error
}

// DeviceCounter says how many devices are registered.
type DeviceCounter interface {
	CountDevices(ctx context.Context) (int, error)
}

// BlockedTTL is how long a push service may hold a blocked notification:
// a stale question has probably been answered elsewhere (DESIGN.md).
const BlockedTTL = 10 * time.Minute

// Watcher polls one tmux server.
type Watcher struct {
	Host    string // this host's name
	Panes   Panes
	Decider Decider
	Queue   Queue
	Devices DeviceCounter
	Poll    time.Duration
	Now     func() time.Time
	Log     *slog.Logger
}

// Run polls until ctx ends.
func (w *Watcher) Run(ctx context.Context) {
	t := time.NewTicker(w.Poll)
	defer t.Stop()
	for {
		if err := w.Tick(ctx); err != nil && ctx.Err() == nil {
			w.Log.Warn("screen poll failed; will retry", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Tick runs one poll: list, capture, classify, decide, enqueue.
func (w *Watcher) Tick(ctx context.Context) error {
	n, err := w.Devices.CountDevices(ctx)
	if err != nil {
		return fmt.Errorf("count devices: %w", err)
	}
	if n == 0 {
		return nil
	}
	panes, err := w.Panes.ListPanes(ctx)
	if err != nil && !errors.Is(err, tmux.ErrNoServer) {
		return err
	}
	obs := make([]pipeline.Observation, 0, len(panes))
	for _, p := range panes {
		if p.Dead {
			continue
		}
		screen, err := w.Panes.Capture(ctx, p.ID)
		if err != nil {
			// The pane may have closed between list and capture; it is
			// simply absent from this snapshot.
			w.Log.Debug("capture failed", "pane", p.ID, "err", err)
			continue
		}
		r := detect.Classify(screen, p.Title)
		obs = append(obs, pipeline.Observation{
			Ref:         agent.PaneRef{Host: w.Host, Pane: p.ID},
			Incarnation: p.PID,
			Name:        Name(p, w.Host),
			Reading:     r,
		})
	}
	now := w.Now()
	anns := w.Decider.Observe(ctx, w.Host, now, obs)
	w.Log.Debug("poll done", "panes", len(obs), "announced", len(anns))
	for _, a := range anns {
		n := Blocked(a, now)
		if err := w.Queue.Enqueue(n); err != nil {
			// Leave the wait unannounced: the next poll tries again while
			// it is still current, rather than losing it.
			w.Decider.Retract(ctx, a.Fingerprint)
			w.Log.Warn("delivery queue full; will retry", "pane", a.Ref.String())
			continue
		}
		w.Log.Info("blocked agent announced", "pane", a.Ref.String(), "name", a.Name,
			"agent", a.Reading.Agent, "waited", now.Sub(a.Since).Round(time.Millisecond))
	}
	return nil
}

// Blocked builds the notification for an announced wait: titled with the
// agent's name; the body is what is asked, which CLI, on which host.
func Blocked(a pipeline.Announcement, now time.Time) notification.Notification {
	what := a.Reading.Headline
	if q := a.Reading.Question; q != nil && q.Prompt != "" {
		what = q.Prompt
	}
	if what == "" {
		what = "waiting for you"
	}
	cli := a.Reading.Agent
	if cli == "" {
		cli = "agent"
	}
	return notification.Notification{
		Kind:        notification.KindBlocked,
		Title:       a.Name,
		Body:        fmt.Sprintf("%s\n%s on %s", what, cli, a.Ref.Host),
		Tag:         "block:" + a.Ref.String(),
		Renotify:    true,
		Host:        a.Ref.Host,
		Pane:        a.Ref.Pane,
		Agent:       a.Reading.Agent,
		Question:    a.Reading.Question,
		Fingerprint: a.Fingerprint,
		Urgency:     "high",
		TTL:         BlockedTTL,
		Created:     now,
	}
}
