package herdr

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/attn-dev/attn/internal/source/tmux"
)

// SocketEnv names the environment variable that holds herdr's socket
// path; herdr sets it in its panes, and attn follows herdr when it is set.
const SocketEnv = "HERDR_SOCKET_PATH"

// Source is a herdr server as the daemon uses it: the watcher's Panes
// (ListPanes, Capture) and EventSource (Watch), and the reply service's
// Terminal (Describe, Capture, SendKeys). Its panes are named by herdr's
// ids ("w1:p1"), which never look like tmux's ("%3"): Mux serves both.
type Source struct {
	Client *Client
	Log    *slog.Logger
	// OnStatus, when set, hears every status change herdr pushes, before
	// its pane goes to Watch's channel (the daemon turns blocked and done
	// into watcher hints: the screen stays the truth).
	OnStatus func(StatusChange)
	// RetryMin and RetryMax bound the wait between reconnections
	// (defaults 500 ms and 30 s), doubling from one to the other.
	RetryMin, RetryMax time.Duration
}

// FromEnv returns a Source for the herdr socket named by $HERDR_SOCKET_PATH
// (getenv: os.Getenv when nil), or nil when it is unset.
func FromEnv(getenv func(string) string, log *slog.Logger) *Source {
	if getenv == nil {
		getenv = os.Getenv
	}
	path := getenv(SocketEnv)
	if path == "" {
		return nil
	}
	return &Source{Client: &Client{Path: path}, Log: log}
}

// Pane describes agent a as a tmux pane, the shape the watcher and the
// reply service read: the agent CLI's name stands for the foreground
// command (herdr knows which CLI runs), the terminal and agent session
// for the process (a new agent in the pane is a new incarnation).
func Pane(a Agent) tmux.Pane {
	inc := a.TerminalID
	if inc == "" {
		inc = a.PaneID
	}
	if a.Session.Value != "" {
		inc += "/" + a.Session.Value
	}
	title := a.TitleStripped
	if title == "" {
		title = a.Title
	}
	window := a.Name
	if window == "" {
		window = a.TabLabel
	}
	session := a.WorkspaceLabel
	if session == "" {
		session = a.WorkspaceID
	}
	return tmux.Pane{ID: a.PaneID, PID: inc, Title: title, WindowName: window, Session: session,
		Command: a.Agent, Path: a.Cwd}
}

// ListPanes lists herdr's panes (agent.list).
func (s *Source) ListPanes(ctx context.Context) ([]tmux.Pane, error) {
	agents, err := s.Client.Agents(ctx)
	if err != nil {
		return nil, err
	}
	panes := make([]tmux.Pane, 0, len(agents))
	for _, a := range agents {
		panes = append(panes, Pane(a))
	}
	return panes, nil
}

// Capture returns a pane's visible screen without escape sequences
// (agent.read, source visible).
func (s *Source) Capture(ctx context.Context, pane string) (string, error) {
	return s.Client.Read(ctx, pane, SourceVisible, 0)
}

// Describe returns one pane's description (agent.get).
func (s *Source) Describe(ctx context.Context, pane string) (tmux.Pane, error) {
	a, err := s.Client.Agent(ctx, pane)
	if err != nil {
		if NotFound(err) {
			return tmux.Pane{}, fmt.Errorf("herdr: pane %s not found: %w", pane, err)
		}
		return tmux.Pane{}, err
	}
	return Pane(a), nil
}

// herdrKeys maps tmux key names, as internal/reply writes them, to
// herdr's.
var herdrKeys = map[string]string{
	"Enter": "enter", "Escape": "escape", "Up": "up", "Down": "down", "Left": "left", "Right": "right",
	"Tab": "tab", "BTab": "shift+tab", "BSpace": "backspace", "Space": "space", "C-c": "ctrl+c", "C-d": "ctrl+d",
}

// SendKeys types into a pane: keys are tmux key names (pressed through
// agent.send_keys under herdr's names) or, with literal, text (typed
// through pane.send_text). A single character that is no key name is
// typed as text. It is the only place attn writes to a herdr pane;
// callers gate it (internal/reply).
func (s *Source) SendKeys(ctx context.Context, pane string, literal bool, keys ...string) error {
	if literal {
		return s.Client.SendText(ctx, pane, strings.Join(keys, ""))
	}
	var named []string
	flush := func() error {
		if len(named) == 0 {
			return nil
		}
		err := s.Client.SendKeys(ctx, pane, named...)
		named = nil
		return err
	}
	for _, k := range keys {
		if h, ok := herdrKeys[k]; ok {
			named = append(named, h)
			continue
		}
		if len([]rune(k)) != 1 {
			return fmt.Errorf("herdr: key %q has no herdr name: nothing typed past it", k)
		}
		if err := flush(); err != nil {
			return err
		}
		if err := s.Client.SendText(ctx, pane, k); err != nil {
			return err
		}
	}
	return flush()
}

func (s *Source) retry() (time.Duration, time.Duration) {
	lo, hi := s.RetryMin, s.RetryMax
	if lo <= 0 {
		lo = 500 * time.Millisecond
	}
	if hi < lo {
		hi = max(lo, 30*time.Second)
	}
	return lo, hi
}

// Watch follows herdr's events until ctx ends, and returns ctx.Err(): it
// subscribes to the lifecycle events of every pane and to the status of
// each pane it lists, sends a pane's id on changed when its status
// changes (after OnStatus), and "" when panes come or go (then
// subscribes anew for the new set). A broken connection or a refused
// subscription is logged and retried with backoff; "" is sent after each
// reconnection (what changed meanwhile is unknown).
func (s *Source) Watch(ctx context.Context, changed chan<- string) error {
	lo, hi := s.retry()
	wait := lo
	for {
		connected, err := s.follow(ctx, changed)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if connected {
			wait = lo
		}
		if s.Log != nil {
			s.Log.Warn("herdr events stopped; reconnecting", "socket", s.Client.Path, "err", err, "in", wait)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		wait = min(wait*2, hi)
	}
}

// subscribe lists the panes and opens a stream for their events.
func (s *Source) subscribe(ctx context.Context) (*Stream, error) {
	agents, err := s.Client.Agents(ctx)
	if err != nil {
		return nil, err
	}
	subs := []Subscription{{Type: EventPaneCreated}, {Type: EventPaneClosed}, {Type: EventPaneExited}, {Type: EventAgentDetected}}
	for _, a := range agents {
		subs = append(subs, Subscription{Type: EventStatusChanged, PaneID: a.PaneID})
	}
	return s.Client.Subscribe(ctx, subs)
}

// follow runs one subscription (renewed as panes come and go) until it
// breaks; connected says whether it got as far as an acknowledgement.
func (s *Source) follow(ctx context.Context, changed chan<- string) (connected bool, err error) {
	stream, err := s.subscribe(ctx)
	if err != nil {
		return false, err
	}
	defer func() { stream.Close() }()
	if !send(ctx, changed, "") {
		return true, ctx.Err()
	}
	for {
		select {
		case <-ctx.Done():
			return true, ctx.Err()
		case ev, ok := <-stream.Events():
			if !ok {
				return true, stream.Err()
			}
			if sc, ok := ev.StatusChange(); ok {
				if s.OnStatus != nil {
					s.OnStatus(sc)
				}
				if !send(ctx, changed, sc.PaneID) {
					return true, ctx.Err()
				}
				continue
			}
			switch ev.Type {
			case EventPaneCreated, EventPaneClosed, EventPaneExited, EventAgentDetected:
				// Subscribe for the new set of panes, then let go of the
				// old stream: no gap, at worst an event twice.
				next, err := s.subscribe(ctx)
				if err != nil {
					return true, err
				}
				stream.Close()
				stream = next
				if !send(ctx, changed, "") {
					return true, ctx.Err()
				}
			}
		}
	}
}

// send hands id on unless ctx ends first.
func send(ctx context.Context, changed chan<- string, id string) bool {
	select {
	case changed <- id:
		return true
	case <-ctx.Done():
		return false
	}
}
