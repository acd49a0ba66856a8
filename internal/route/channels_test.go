package route

import (
	"context"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/attn-dev/attn/internal/channel"
	"github.com/attn-dev/attn/internal/deliver"
	"github.com/attn-dev/attn/internal/notification"
)

type fakeChannels struct {
	mu       sync.Mutex
	targets  []channel.Target
	waited   []string
	queued   []string
	full     bool
	outcome  string
	delivers chan struct{} // closed when Deliver may answer (nil: at once)
}

func tnames(ts []channel.Target) string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return strings.Join(out, ",")
}

func (f *fakeChannels) Targets(context.Context) ([]channel.Target, error) { return f.targets, nil }
func (f *fakeChannels) Deliver(_ context.Context, n notification.Notification, ts []channel.Target) []deliver.DeviceOutcome {
	if f.delivers != nil {
		<-f.delivers
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.waited = append(f.waited, tnames(ts))
	var out []deliver.DeviceOutcome
	for _, t := range ts {
		out = append(out, deliver.DeviceOutcome{Name: t.Name, Channel: t.Kind, Outcome: f.outcome})
	}
	return out
}
func (f *fakeChannels) Enqueue(_ context.Context, n notification.Notification, ts []channel.Target) (int, []deliver.DeviceOutcome) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.full {
		var out []deliver.DeviceOutcome
		for _, t := range ts {
			out = append(out, deliver.DeviceOutcome{Name: t.Name, Channel: t.Kind, Outcome: "failed", Detail: "its queue is full"})
		}
		return 0, out
	}
	f.queued = append(f.queued, tnames(ts))
	return len(ts), nil
}

func withChannels(r *Router) *fakeChannels {
	ch := &fakeChannels{outcome: "delivered", targets: []channel.Target{
		{ID: 1, Name: "ntfy-phone", Kind: "ntfy", Kinds: map[string]bool{}},
		{ID: 2, Name: "tg", Kind: "telegram", Kinds: map[string]bool{"blocked": false, "finished": true}},
	}}
	r.Channels = ch
	return ch
}

func TestChannelsByTheirKindChoices(t *testing.T) {
	r, _, push, log := newRouter()
	ch := withChannels(r)
	r.Route(context.Background(), blocked, false)
	finished := blocked
	finished.Kind = notification.KindFinished
	r.Route(context.Background(), finished, false)
	if got := strings.Join(ch.queued, " | "); got != "ntfy-phone | tg" {
		t.Fatalf("queued %q: want blocked to ntfy-phone, finished (off by default) to tg only", got)
	}
	if len(push.queued) != 1 {
		t.Fatalf("devices %q: finished is off for them", push.queued)
	}
	if got := log.summary(); !strings.HasPrefix(got, "tg:suppressed:kind-off:telegram ntfy-phone:suppressed:kind-off:ntfy phone:") {
		t.Fatalf("decisions %q", got)
	}
	rep := r.Route(context.Background(), notification.Notification{Kind: notification.KindTest, Created: now}, false)
	if !rep.Queued || ch.queued[2] != "ntfy-phone,tg" {
		t.Fatalf("test notification: %q", ch.queued)
	}
}

func TestChannelsWithoutDevices(t *testing.T) {
	r, devs, _, log := newRouter()
	devs.devs = nil
	ch := withChannels(r)
	rep := r.Route(context.Background(), blocked, true)
	if !rep.Sent || strings.Join(rep.Transports, ",") != "ntfy" || ch.waited[0] != "ntfy-phone" {
		t.Fatalf("report %+v", rep)
	}
	if strings.Contains(log.summary(), "no-device") {
		t.Fatal("no-device logged with a channel configured")
	}
}

func TestChannelsConcurrentWithWebPush(t *testing.T) {
	r, _, push, _ := newRouter()
	ch := withChannels(r)
	ch.delivers = make(chan struct{})
	go func() {
		// Web Push is asked while the channel is still busy.
		for {
			runtime.Gosched()
			push.mu.Lock()
			n := len(push.waited)
			push.mu.Unlock()
			if n > 0 {
				close(ch.delivers)
				return
			}
		}
	}()
	rep := r.Route(context.Background(), blocked, true)
	if !rep.Sent || len(rep.Devices) != 5 || strings.Join(rep.Transports, ",") != "webpush,ntfy" {
		t.Fatalf("report %+v", rep)
	}
}

func TestChannelQueueFull(t *testing.T) {
	r, devs, push, _ := newRouter()
	ch := withChannels(r)
	ch.full = true
	// Devices took it: not retried (the channel's refusal is logged).
	if rep := r.Route(context.Background(), blocked, false); rep.QueueFull || !rep.Queued {
		t.Fatalf("report %+v", rep)
	}
	// Nothing took it: retried while current.
	devs.devs = nil
	if rep := r.Route(context.Background(), blocked, false); !rep.QueueFull || rep.Sent {
		t.Fatalf("report %+v", rep)
	}
	// Web Push full but a channel took it: not retried (no duplicates).
	r2, _, push2, _ := newRouter()
	r2.Channels = ch
	ch.full = false
	push2.queueErr = deliver.ErrQueueFull
	if rep := r2.Route(context.Background(), blocked, false); rep.QueueFull || !rep.Queued {
		t.Fatalf("report %+v", rep)
	}
	_ = push
}
