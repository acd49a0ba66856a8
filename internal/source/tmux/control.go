package tmux

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// Control follows a tmux server in control mode (`tmux -C`) and reports
// which panes changed, so that a watcher reads only those. It attaches one
// control-mode client per session (tmux tells a control client about the
// panes of its own session only), each with the flags ignore-size (it
// never resizes a window) and read-only (it never types), and reads:
//
//   - %output and %extended-output: a pane printed something; its id is
//     reported;
//   - %layout-change, %window-add, %window-close, %unlinked-window-add,
//     %unlinked-window-close, %window-pane-changed,
//     %session-window-changed: panes came or went; "" is reported (list
//     the panes again);
//   - %sessions-changed: "" is reported, and a client is attached to each
//     new session.
//
// It only observes: it sends tmux no command. The clients show in `tmux
// list-clients` while attached. It needs tmux 3.2 or newer (attach -f).
type Control struct {
	// Socket is the server's socket name, as `tmux -L NAME`; "" means the
	// user's default server.
	Socket string
	// Binary is the tmux executable; "" means "tmux" on $PATH.
	Binary string
	// Log, when set, hears of clients coming and going.
	Log *slog.Logger
	// Recheck is how often a server with no session, or no server, is
	// looked at again for one (default 1 s).
	Recheck time.Duration
}

// ErrNoSessions means the server has no session to attach to: control
// mode has nothing to follow yet.
var ErrNoSessions = errors.New("tmux server has no session to follow in control mode")

// ctlExit says a control client ended: its session closed (%exit), the
// server went away, or tmux refused to attach.
type ctlExit struct {
	session string
	err     error
}

// Watch attaches control-mode clients to every session of the server and
// sends pane ids on changed until ctx ends; then it returns ctx.Err(),
// every client it started stopped. "" is sent when panes may have come or
// gone: windows or sessions opened or closed, the server went away or
// appeared. While there is no server, or no session, it looks again every
// Recheck (there is no pane to miss meanwhile). It returns early only when
// tmux fails in a way waiting does not mend: no tmux binary, or one too old
// for control mode's attach flags (tmux 3.2). It never blocks on changed
// past ctx.
func (c *Control) Watch(ctx context.Context, changed chan<- string) error {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer wg.Wait() // after cancel: every client stopped
	defer cancel()
	list := &Client{Socket: c.Socket, Binary: c.Binary}
	exits := make(chan ctlExit)
	restate := make(chan struct{}, 1) // %sessions-changed, coalesced
	clients := map[string]bool{}      // session id → a client runs
	// attach follows the sessions not yet followed; started says how many.
	attach := func() (started int, err error) {
		out, err := list.run(ctx, "list-sessions", "-F", "#{session_id}")
		if err != nil {
			if serverGone(err.Error()) {
				return 0, ErrNoServer // it was exiting as we asked
			}
			return 0, err
		}
		for id := range strings.FieldsSeq(out) {
			if clients[id] {
				continue
			}
			clients[id] = true
			started++
			c.logf("tmux control mode: following session", "session", id)
			wg.Go(func() {
				err := c.follow(ctx, id, changed, restate)
				select {
				case exits <- ctlExit{id, err}:
				case <-ctx.Done():
				}
			})
		}
		if len(clients) == 0 {
			return 0, ErrNoSessions
		}
		return started, nil
	}
	first := true
	for {
		var recheck <-chan time.Time
		switch started, err := attach(); {
		case errors.Is(err, ErrNoServer), errors.Is(err, ErrNoSessions):
			// Nothing to follow, hence no pane to miss: look again soon.
			recheck = time.After(c.recheck())
		case err != nil:
			return err
		case started > 0 && !first:
			// A server or session came while none was followed: its
			// panes are new to the watcher.
			if !send(ctx, changed, "") {
				return ctx.Err()
			}
		}
		first = false
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-recheck:
		case <-restate:
			if !send(ctx, changed, "") {
				return ctx.Err()
			}
		case e := <-exits:
			delete(clients, e.session)
			c.logf("tmux control mode: session client ended", "session", e.session, "err", e.err)
			if e.err != nil && !errors.Is(e.err, ErrNoServer) {
				return e.err // e.g. a tmux too old for control mode's flags
			}
			if !send(ctx, changed, "") { // its panes are gone
				return ctx.Err()
			}
		}
	}
}

func (c *Control) recheck() time.Duration {
	if c.Recheck > 0 {
		return c.Recheck
	}
	return time.Second
}

func (c *Control) logf(msg string, args ...any) {
	if c.Log != nil {
		c.Log.Debug(msg, args...)
	}
}

// send hands id to the watcher unless ctx ends first.
func send(ctx context.Context, changed chan<- string, id string) bool {
	select {
	case changed <- id:
		return true
	case <-ctx.Done():
		return false
	}
}

// serverGone reports whether tmux's message says the server is not there
// (any more).
func serverGone(msg string) bool {
	for _, s := range []string{"no server running", "error connecting to", "server exited unexpectedly", "lost server"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// controlLineMax is how much of a control-mode line is looked at: the
// notification and the pane id are at its start; the rest (a pane's
// output, octal-escaped) is skipped unread.
const controlLineMax = 256

// follow runs one control-mode client attached to session until it exits
// or ctx ends, reporting what it hears.
func (c *Control) follow(ctx context.Context, session string, changed chan<- string, restate chan<- struct{}) error {
	bin := c.Binary
	if bin == "" {
		bin = "tmux"
	}
	var args []string
	if c.Socket != "" {
		args = append(args, "-L", c.Socket)
	}
	args = append(args, "-C", "attach-session", "-f", "ignore-size,read-only", "-t", session)
	cmd := exec.CommandContext(ctx, bin, args...)
	stdin, err := cmd.StdinPipe() // held open: a control client ends at EOF
	if err != nil {
		return err
	}
	// When ctx ends, close its standard input: the client detaches
	// cleanly; it is killed only if it is still there 2 s later.
	cmd.Cancel = stdin.Close
	cmd.WaitDelay = 2 * time.Second
	defer stdin.Close()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("run %s -C: %w (install tmux 3.2 or newer, or put it on $PATH)", bin, err)
	}
	rerr := c.read(ctx, bufio.NewReaderSize(stdout, 4096), changed, restate)
	stdin.Close()
	werr := cmd.Wait()
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case rerr != nil && !errors.Is(rerr, io.EOF):
		return rerr
	case werr != nil:
		msg := strings.TrimSpace(stderr.String())
		if serverGone(msg) {
			return ErrNoServer
		}
		return fmt.Errorf("tmux -C attach-session -t %s: %s: %w (control mode needs tmux 3.2 or newer)", session, msg, werr)
	}
	return nil
}

// read parses control-mode notifications until EOF.
func (c *Control) read(ctx context.Context, r *bufio.Reader, changed chan<- string, restate chan<- struct{}) error {
	var head []byte
	for {
		line, err := r.ReadSlice('\n')
		head = append(head[:0], line[:min(len(line), controlLineMax)]...)
		for errors.Is(err, bufio.ErrBufferFull) { // a long line: skip the rest
			_, err = r.ReadSlice('\n')
		}
		if err != nil {
			return err
		}
		id, ok := notification(head)
		switch {
		case !ok:
		case id == "%sessions-changed":
			select {
			case restate <- struct{}{}:
			default: // one pending is enough
			}
		default:
			if !send(ctx, changed, id) {
				return ctx.Err()
			}
		}
	}
}

// structural notifications: the set of panes may have changed.
var structural = map[string]bool{
	"%layout-change": true, "%window-add": true, "%window-close": true,
	"%unlinked-window-add": true, "%unlinked-window-close": true,
	"%window-pane-changed": true, "%session-window-changed": true,
}

// notification reads the start of one control-mode line: the pane id of
// an %output or %extended-output line, "" for a structural change,
// "%sessions-changed" for that one; ok is false for anything else
// (command replies, %begin/%end blocks, other notifications).
func notification(line []byte) (id string, ok bool) {
	line = bytes.TrimRight(line, "\r\n")
	name, rest, _ := bytes.Cut(line, []byte(" "))
	switch string(name) {
	case "%output", "%extended-output":
		pane, _, _ := bytes.Cut(rest, []byte(" "))
		if len(pane) < 2 || pane[0] != '%' {
			return "", false
		}
		return string(pane), true
	case "%sessions-changed":
		return "%sessions-changed", true
	}
	if structural[string(name)] {
		return "", true
	}
	return "", false
}
