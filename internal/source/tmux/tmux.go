// Package tmux reads panes from a tmux server: their ids, processes,
// titles and visible screens. It only observes; it never types.
package tmux

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os/exec"
	"strings"
)

// Pane is one tmux pane as list-panes describes it.
type Pane struct {
	ID         string // tmux pane id, e.g. "%12"
	PID        string // pid of the pane's first process (#{pane_pid})
	Title      string // #{pane_title}, set by the program with OSC 2
	WindowName string // #{window_name}
	Session    string // #{session_name}
	Command    string // #{pane_current_command}: the foreground program
	Path       string // #{pane_current_path}
	Dead       bool   // #{pane_dead}: the program exited, the pane remains
}

// Client runs the tmux binary against one server.
type Client struct {
	// Socket is the server's socket name, as `tmux -L NAME`; "" means the
	// user's default server.
	Socket string
	// Binary is the tmux executable; "" means "tmux" on $PATH.
	Binary string
	// Exec makes the command that runs the tmux binary with args; nil
	// runs it on this machine (exec.CommandContext). A remote host's
	// client runs it through ssh (internal/hosts). The returned command
	// must not have its standard streams set: the client sets them.
	Exec func(ctx context.Context, name string, args ...string) *exec.Cmd
}

// ErrNoServer means no tmux server runs on the socket: there are no panes.
var ErrNoServer = errors.New("no tmux server running")

// listFormat separates fields with a unit separator, which tmux passes
// through and no title or path is expected to hold.
const sep = "\x1f"

var listFormat = strings.Join([]string{
	"#{pane_id}", "#{pane_pid}", "#{pane_dead}", "#{session_name}", "#{window_name}",
	"#{pane_current_command}", "#{pane_current_path}", "#{pane_title}",
}, sep)

// ListPanes returns every pane of every session on the server. With no
// server running it returns ErrNoServer.
func (c *Client) ListPanes(ctx context.Context) ([]Pane, error) {
	out, err := c.run(ctx, "list-panes", "-a", "-F", listFormat)
	if err != nil {
		return nil, err
	}
	var panes []Pane
	for line := range strings.SplitSeq(strings.TrimRight(out, "\n"), "\n") {
		if line == "" {
			continue
		}
		f := strings.SplitN(line, sep, 8)
		if len(f) != 8 {
			return nil, fmt.Errorf("tmux list-panes: unexpected line %q (is this tmux 2.6 or newer?)", line)
		}
		panes = append(panes, Pane{
			ID: f[0], PID: f[1], Dead: f[2] == "1", Session: f[3], WindowName: f[4],
			Command: f[5], Path: f[6], Title: f[7],
		})
	}
	return panes, nil
}

// Capture returns the visible screen of pane id as plain text (no escape
// sequences, trailing blanks kept), as `tmux capture-pane -p` prints it.
func (c *Client) Capture(ctx context.Context, id string) (string, error) {
	return c.run(ctx, "capture-pane", "-p", "-t", id)
}

func (c *Client) run(ctx context.Context, args ...string) (string, error) {
	bin := c.Binary
	if bin == "" {
		bin = "tmux"
	}
	sub := args[0]
	if c.Socket != "" {
		args = append([]string{"-L", c.Socket}, args...)
	}
	var cmd *exec.Cmd
	if c.Exec != nil {
		cmd = c.Exec(ctx, bin, args...)
	} else {
		cmd = exec.CommandContext(ctx, bin, args...)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if strings.Contains(msg, "no server running") || strings.Contains(msg, "error connecting to") {
			return "", ErrNoServer
		}
		var ee *exec.Error
		if errors.As(err, &ee) || errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("run %s: %w (install tmux, or put it on $PATH)", bin, err)
		}
		return "", fmt.Errorf("tmux %s: %s: %w", sub, msg, err)
	}
	return stdout.String(), nil
}

// Describe returns one pane's description, as ListPanes gives it.
func (c *Client) Describe(ctx context.Context, id string) (Pane, error) {
	out, err := c.run(ctx, "display-message", "-p", "-t", id, listFormat)
	if err != nil {
		return Pane{}, err
	}
	f := strings.SplitN(strings.TrimRight(out, "\n"), sep, 8)
	if len(f) != 8 || f[0] != id {
		return Pane{}, fmt.Errorf("tmux: pane %s not found", id)
	}
	return Pane{ID: f[0], PID: f[1], Dead: f[2] == "1", Session: f[3], WindowName: f[4],
		Command: f[5], Path: f[6], Title: f[7]}, nil
}

// SendKeys types keys into pane id, each a tmux key name ("Down", "Enter",
// "Escape") or, with literal, text typed as is. This is the only place
// attn writes to a terminal; callers gate it (internal/reply).
func (c *Client) SendKeys(ctx context.Context, id string, literal bool, keys ...string) error {
	args := []string{"send-keys", "-t", id}
	if literal {
		args = append(args, "-l")
	}
	_, err := c.run(ctx, append(args, keys...)...)
	return err
}

// Run runs one tmux command (args without the socket flag, e.g.
// "capture-pane", "-p", "-J", "-t", "%3") against the client's server
// and returns its standard output. Errors are those of ListPanes:
// ErrNoServer, a missing binary, or tmux's own message.
func (c *Client) Run(ctx context.Context, args ...string) (string, error) {
	if len(args) == 0 {
		return "", errors.New("tmux: no command given")
	}
	return c.run(ctx, args...)
}

// Paste pastes text into pane id as one bracketed paste (when the
// program asked for bracketed paste, as agent CLIs do), so that newlines
// in text do not submit it line by line. It goes through a tmux buffer
// named for this call, deleted after the paste. Callers gate it
// (internal/reply).
func (c *Client) Paste(ctx context.Context, id, text string) error {
	var b [6]byte
	rand.Read(b[:])
	name := "attn-" + hex.EncodeToString(b[:])
	if _, err := c.run(ctx, "set-buffer", "-b", name, "--", text); err != nil {
		return err
	}
	_, err := c.run(ctx, "paste-buffer", "-p", "-d", "-b", name, "-t", id)
	return err
}
