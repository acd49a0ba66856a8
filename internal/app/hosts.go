package app

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/attn-dev/attn/internal/agent"
	"github.com/attn-dev/attn/internal/api"
	"github.com/attn-dev/attn/internal/hosts"
	"github.com/attn-dev/attn/internal/mcp"
	"github.com/attn-dev/attn/internal/notification"
	"github.com/attn-dev/attn/internal/reply"
	"github.com/attn-dev/attn/internal/source/hook"
	"github.com/attn-dev/attn/internal/source/tmux"
	"github.com/attn-dev/attn/internal/tracker"
	"github.com/attn-dev/attn/internal/watch"
)

// Environment of the hosts attn reaches (read at start; see README,
// "Hosts"):
//
//	ATTN_HOSTNAME      the own host's hostname (default: the machine's)
//	ATTN_SSH_CONFIG    the SSH config to read aliases from (default ~/.ssh/config)
//	ATTN_SSH           the ssh binary (default: ssh on $PATH)
//	ATTN_REMOTE_HOSTS  "off": the own host only
const (
	EnvHostname    = "ATTN_HOSTNAME"
	EnvSSHConfig   = "ATTN_SSH_CONFIG"
	EnvSSH         = "ATTN_SSH"
	EnvRemoteHosts = "ATTN_REMOTE_HOSTS"
)

// fleet is the daemon's hosts: the manager, one screen watcher per
// reachable host, and the routes from remote hooks to them.
type fleet struct {
	hosts *hosts.Manager
	log   *slog.Logger
	now   func() time.Time
	local *tmux.Client

	mu       sync.Mutex
	watchers map[string]*watch.Watcher // by host; the own host's too
	tracker  *lockedTracker
}

// newFleet names the hosts from the environment and the SSH config.
func newFleet(opt Options, log *slog.Logger) (*fleet, error) {
	local := &tmux.Client{Socket: opt.TmuxSocket}
	m, err := hosts.New(hosts.Options{
		Hostname:  os.Getenv(EnvHostname),
		SSHConfig: os.Getenv(EnvSSHConfig),
		Remote:    !strings.EqualFold(os.Getenv(EnvRemoteHosts), "off"),
		SSH:       &hosts.SSH{Binary: os.Getenv(EnvSSH)},
		StateDir:  opt.StateDir,
		Local:     local,
		Now:       opt.Now,
		Log:       log,
	})
	if err != nil {
		return nil, err
	}
	return &fleet{hosts: m, log: log, now: opt.Now, local: local, watchers: map[string]*watch.Watcher{}}, nil
}

// lockTracker makes the tracker safe for the watchers of every host.
func (f *fleet) lockTracker(t *tracker.Tracker) watch.Tracker {
	f.tracker = &lockedTracker{t: t}
	return f.tracker
}

// terminal is the reply service's terminal for a host.
func (f *fleet) terminal(host string) (reply.Terminal, error) {
	c, err := f.hosts.Client(host)
	if err != nil {
		return nil, err
	}
	if host == f.hosts.Own() {
		return f.local, nil
	}
	return c, nil
}

// run watches every reachable host until ctx ends: own's with the
// daemon's watcher, others' with watchers made like it; a host that goes
// away leaves the board (its tracker memory stays: a host that comes back
// is no flood).
func (f *fleet) run(ctx context.Context, own *watch.Watcher) {
	f.mu.Lock()
	f.watchers[own.Host] = own
	f.mu.Unlock()
	m := f.hosts
	serve := func(ctx context.Context, host string, c *hosts.Client) {
		if host == own.Host {
			own.Run(ctx)
			return
		}
		w := &watch.Watcher{Host: host, Panes: c, Tracker: own.Tracker, Engine: own.Engine, Devices: own.Devices,
			Board: own.Board, Poll: own.Poll, Now: own.Now, Log: own.Log.With("host", host)}
		f.mu.Lock()
		f.watchers[host] = w
		f.mu.Unlock()
		w.Run(ctx)
		f.mu.Lock()
		delete(f.watchers, host)
		f.mu.Unlock()
	}
	down := func(host string) {
		if own.Board != nil {
			own.Board.Replace(host, f.now(), nil)
		}
	}
	m.OnServe(serve, down)
	m.Start(ctx)
	<-ctx.Done()
	m.Wait()
}

// remoteHook hands a hook event from another host (POST
// /api/hosts/{host}/hook) to that host's watcher.
func (f *fleet) remoteHook(host string, ev hook.Event) {
	log := f.log.With("host", host, "agent", ev.Agent, "kind", ev.Kind, "pane", ev.Pane)
	if ev.Kind != hook.KindBlocked && ev.Kind != hook.KindFinished {
		log.Debug("agent hook: nothing to do", "reason", ev.Reason)
		return
	}
	if ev.Pane == "" {
		log.Debug("agent hook from outside tmux: ignored")
		return
	}
	f.mu.Lock()
	w := f.watchers[host]
	f.mu.Unlock()
	if w == nil {
		log.Info("agent hook for a host not watched now (unreachable, or still being probed): the next poll reads the screen")
		return
	}
	if !w.Hint(watch.Hint{Pane: ev.Pane, Finished: ev.Kind == hook.KindFinished, Blocked: ev.Kind == hook.KindBlocked}) {
		log.Warn("agent hook dropped: too many pending; the next poll reads the screen anyway")
	}
}

// mcpHandler builds the MCP server: notify is the same call as POST
// /api/notify, titled from the calling pane on its own host.
func (f *fleet) mcpHandler(notifier api.Notifier, replies *reply.Service, now func() time.Time) http.Handler {
	notify := func(ctx context.Context, req mcp.NotifyRequest) (mcp.NotifyResult, error) {
		var n notification.Notification
		var why string
		areq := api.NotifyRequest{Message: req.Message, Title: req.Title, Pane: req.Pane}
		if c, err := f.hosts.Client(req.Host); err == nil {
			n, why = (&askedBuilder{host: req.Host, panes: c.Client, now: now}).build(ctx, areq)
		} else {
			areq.Pane = ""
			n, _ = (&askedBuilder{host: req.Host, now: now}).build(ctx, areq)
			n.Pane = req.Pane
			if req.Pane != "" && req.Title == "" {
				why = fmt.Sprintf("titled attn: %v", err)
			}
		}
		rep := notifier.Asked(ctx, n)
		detail := rep.Detail
		if why != "" {
			detail = strings.TrimPrefix(detail+"; "+why, "; ")
		}
		return mcp.NotifyResult{Sent: rep.Sent, Transports: rep.Transports, Title: n.Title, Detail: detail}, nil
	}
	return mcp.Handler(mcp.New(mcp.Config{Hosts: f.hosts, Notify: notify, Replies: replies, Log: f.log}))
}

// lockedTracker serializes the watchers of every host on one tracker
// (whose state is per host, but whose maps are shared).
type lockedTracker struct {
	mu sync.Mutex
	t  *tracker.Tracker
}

func (l *lockedTracker) Observe(ctx context.Context, host string, now time.Time, panes []tracker.Observation) []tracker.Transition {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.t.Observe(ctx, host, now, panes)
}

func (l *lockedTracker) HookFinished(ref agent.PaneRef, now time.Time) []tracker.Transition {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.t.HookFinished(ref, now)
}

func (l *lockedTracker) HookBlocked(ref agent.PaneRef, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.t.HookBlocked(ref, now)
}

func (l *lockedTracker) Retract(ctx context.Context, fingerprint string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.t.Retract(ctx, fingerprint)
}
