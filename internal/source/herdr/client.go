// Package herdr reads agents from a herdr server, an agent-aware terminal
// multiplexer, over its unix socket ($HERDR_SOCKET_PATH), and types into
// them through it.
//
// The protocol is newline-delimited JSON (../shared/PROTOCOLS.md,
// "herdr"): a request {"id","method","params"} is answered by
// {"id","result"} or {"id","error":{"code","message"}}; every result
// carries a "type". events.subscribe, on a connection of its own, is
// acknowledged with {"type":"subscription_started"} and then pushes lines
// {"event","data"} until the connection closes. pane.agent_status_changed
// is subscribed per pane (pane_id); lifecycle events (pane.created,
// pane.closed, …) for all panes.
//
// Client makes calls, each with a timeout, over one connection that it
// opens on first use and again after it breaks. Subscribe opens an event
// stream. Source adapts a herdr server for the daemon: it lists and reads
// panes (the watcher's Panes), describes them and types into them (the
// reply service's Terminal), and follows status events (the watcher's
// EventSource), reconnecting with backoff.
package herdr

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"
)

// DefaultTimeout bounds one call when Client.Timeout is zero.
const DefaultTimeout = 5 * time.Second

// maxLine bounds one line of the protocol (an agent.read of a large
// scrollback is the longest).
const maxLine = 16 << 20

// Error is an error answer of the herdr server.
type Error struct {
	Method  string // the method called
	Code    string // e.g. "pane_not_found", "invalid_params"
	Message string
}

func (e *Error) Error() string {
	return fmt.Sprintf("herdr %s: %s (%s)", e.Method, e.Message, e.Code)
}

// NotFound reports whether err says the pane or agent does not exist
// (any more).
func NotFound(err error) bool {
	var e *Error
	if !errors.As(err, &e) {
		return false
	}
	switch e.Code {
	case "not_found", "pane_not_found", "agent_not_found", "target_not_found":
		return true
	}
	return false
}

// ErrTimeout is wrapped by the error of a call herdr did not answer in
// time.
var ErrTimeout = errors.New("herdr did not answer in time")

// errorBody reads an error object; herdr's codes are strings, a number is
// taken too.
type errorBody struct {
	Code    json.RawMessage `json:"code"`
	Message string          `json:"message"`
}

func (b errorBody) code() string {
	var s string
	if json.Unmarshal(b.Code, &s) == nil {
		return s
	}
	return string(b.Code)
}

// response is one line answering a request.
type response struct {
	ID     string          `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *errorBody      `json:"error"`
}

// Client calls a herdr server. Safe for concurrent use.
type Client struct {
	// Path is the server's unix socket.
	Path string
	// Timeout bounds each call (connecting included); 0 means
	// DefaultTimeout.
	Timeout time.Duration

	mu   sync.Mutex
	link *link // nil: connect on the next call
	seq  uint64
}

// link is one connection and the calls waiting on it.
type link struct {
	conn    net.Conn
	wmu     sync.Mutex // one line written at a time
	pending map[string]chan response
	dead    bool
}

func (c *Client) timeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return DefaultTimeout
}

// dial opens a connection to the server.
func (c *Client) dial(ctx context.Context) (net.Conn, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", c.Path)
	if err != nil {
		return nil, fmt.Errorf("connect to herdr at %s: %w (is herdr running? $HERDR_SOCKET_PATH names its socket)", c.Path, err)
	}
	return conn, nil
}

// readLoop hands each answer to its caller until the connection breaks,
// then fails every call still waiting on it.
func (c *Client) readLoop(l *link) {
	sc := bufio.NewScanner(l.conn)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	for sc.Scan() {
		var r response
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil || r.ID == "" {
			continue // not an answer (an event on the wrong connection, noise)
		}
		c.mu.Lock()
		ch, ok := l.pending[r.ID]
		delete(l.pending, r.ID)
		c.mu.Unlock()
		if ok {
			ch <- r
		}
	}
	err := sc.Err()
	if err == nil {
		err = errors.New("herdr closed the connection")
	}
	c.mu.Lock()
	l.dead = true
	if c.link == l {
		c.link = nil
	}
	for id, ch := range l.pending {
		ch <- response{ID: id, Error: &errorBody{Code: json.RawMessage(`"connection_lost"`), Message: err.Error() + "; the next call connects again"}}
		delete(l.pending, id)
	}
	c.mu.Unlock()
	l.conn.Close()
}

// Close closes the connection; the next call opens a new one.
func (c *Client) Close() error {
	c.mu.Lock()
	l := c.link
	c.link = nil
	c.mu.Unlock()
	if l != nil {
		return l.conn.Close()
	}
	return nil
}

// request is one request line.
type request struct {
	ID     string `json:"id"`
	Method string `json:"method"`
	Params any    `json:"params"`
}

// Call sends method with params (nil: {}) and decodes the result into
// result (nil: discarded). It returns an *Error when herdr answers with
// one, and an error wrapping ErrTimeout when herdr does not answer within
// the timeout. A connection found broken when writing (herdr restarted
// since the last call: nothing was sent) is opened anew once; one that
// breaks while waiting fails the call, and the next call connects again.
func (c *Client) Call(ctx context.Context, method string, params, result any) error {
	ctx, cancel := context.WithTimeout(ctx, c.timeout())
	defer cancel()
	err := c.call(ctx, method, params, result)
	var we *writeError
	if errors.As(err, &we) {
		err = c.call(ctx, method, params, result)
	}
	return err
}

// writeError is a request that could not be written: nothing reached
// herdr.
type writeError struct{ err error }

func (e *writeError) Error() string { return e.err.Error() }
func (e *writeError) Unwrap() error { return e.err }

func (c *Client) call(ctx context.Context, method string, params, result any) error {
	ch := make(chan response, 1)
	c.mu.Lock()
	l := c.link
	if l == nil {
		conn, err := c.dial(ctx)
		if err != nil {
			c.mu.Unlock()
			return err
		}
		l = &link{conn: conn, pending: map[string]chan response{}}
		c.link = l
		go c.readLoop(l)
	}
	c.seq++
	id := "attn-" + strconv.FormatUint(c.seq, 10)
	l.pending[id] = ch
	c.mu.Unlock()
	if params == nil {
		params = struct{}{}
	}
	forget := func() {
		c.mu.Lock()
		delete(l.pending, id)
		c.mu.Unlock()
	}
	line, err := json.Marshal(request{ID: id, Method: method, Params: params})
	if err != nil {
		forget()
		return fmt.Errorf("herdr %s: encode params: %w", method, err)
	}
	deadline, _ := ctx.Deadline()
	l.wmu.Lock()
	l.conn.SetWriteDeadline(deadline)
	_, err = l.conn.Write(append(line, '\n'))
	l.wmu.Unlock()
	if err != nil {
		forget()
		c.mu.Lock()
		if c.link == l {
			c.link = nil // the next call dials
		}
		c.mu.Unlock()
		l.conn.Close() // the read loop fails the others
		return &writeError{fmt.Errorf("herdr %s: send to %s: %w (is herdr still running?)", method, c.Path, err)}
	}
	select {
	case r := <-ch:
		if r.Error != nil {
			return &Error{Method: method, Code: r.Error.code(), Message: r.Error.Message}
		}
		if result != nil {
			if err := json.Unmarshal(r.Result, result); err != nil {
				return fmt.Errorf("herdr %s: unexpected result %s: %w (is this herdr too old or too new for attn?)", method, clip(r.Result), err)
			}
		}
		return nil
	case <-ctx.Done():
		forget()
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return fmt.Errorf("herdr %s after %v: %w (is herdr at %s stuck?)", method, c.timeout(), ErrTimeout, c.Path)
		}
		return ctx.Err()
	}
}

func clip(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}

// Agent is one pane as herdr describes it (agent.list, agent.get).
type Agent struct {
	PaneID         string `json:"pane_id"` // e.g. "w1:p1"
	TerminalID     string `json:"terminal_id"`
	WorkspaceID    string `json:"workspace_id"`
	WorkspaceLabel string `json:"workspace_label"`
	TabID          string `json:"tab_id"`
	TabLabel       string `json:"tab_label"`
	Name           string `json:"name"`  // the agent's name, if given one
	Agent          string `json:"agent"` // which CLI, e.g. "claude"; "" for a plain shell
	// Status is idle, working, blocked, done (idle and not yet seen) or
	// unknown.
	Status         string `json:"agent_status"`
	Title          string `json:"terminal_title"`
	TitleStripped  string `json:"terminal_title_stripped"`
	Cwd            string `json:"cwd"`
	StateChangeSeq int64  `json:"state_change_seq"`
	Session        struct {
		Value string `json:"value"`
	} `json:"agent_session"`
}

// The agent statuses herdr reports.
const (
	StatusIdle    = "idle"
	StatusWorking = "working"
	StatusBlocked = "blocked"
	StatusDone    = "done"
	StatusUnknown = "unknown"
)

// Ping checks that the server answers.
func (c *Client) Ping(ctx context.Context) error {
	return c.Call(ctx, "ping", nil, nil)
}

// Agents lists every pane with its agent (agent.list).
func (c *Client) Agents(ctx context.Context) ([]Agent, error) {
	var r struct {
		Agents []Agent `json:"agents"`
	}
	if err := c.Call(ctx, "agent.list", nil, &r); err != nil {
		return nil, err
	}
	return r.Agents, nil
}

// Agent describes one pane (agent.get).
func (c *Client) Agent(ctx context.Context, pane string) (Agent, error) {
	var r struct {
		Agent Agent `json:"agent"`
	}
	if err := c.Call(ctx, "agent.get", map[string]any{"target": pane}, &r); err != nil {
		return Agent{}, err
	}
	if r.Agent.PaneID == "" {
		r.Agent.PaneID = pane
	}
	return r.Agent, nil
}

// The sources agent.read reads from.
const (
	SourceVisible = "visible" // the screen as shown
	SourceRecent  = "recent"  // the last lines of scrollback
)

// Read returns a pane's text without escape sequences (agent.read):
// source SourceVisible for the screen as shown; lines bounds SourceRecent
// (0: herdr's default).
func (c *Client) Read(ctx context.Context, pane, source string, lines int) (string, error) {
	params := map[string]any{"target": pane, "source": source, "strip_ansi": true}
	if lines > 0 {
		params["lines"] = lines
	}
	var r struct {
		Read struct {
			Text *string `json:"text"`
		} `json:"read"`
		Text *string `json:"text"`
	}
	if err := c.Call(ctx, "agent.read", params, &r); err != nil {
		return "", err
	}
	switch {
	case r.Read.Text != nil:
		return *r.Read.Text, nil
	case r.Text != nil:
		return *r.Text, nil
	}
	return "", fmt.Errorf("herdr agent.read: no text in the result (is this herdr too old or too new for attn?)")
}

// SendKeys presses keys in a pane (agent.send_keys), each a herdr key
// name: "enter", "escape", "up", "down", "left", "right", "tab",
// "backspace", "space", "ctrl+c".
func (c *Client) SendKeys(ctx context.Context, pane string, keys ...string) error {
	return c.Call(ctx, "agent.send_keys", map[string]any{"target": pane, "keys": keys}, nil)
}

// SendText types text into a pane as is (pane.send_text).
func (c *Client) SendText(ctx context.Context, pane, text string) error {
	return c.Call(ctx, "pane.send_text", map[string]any{"pane_id": pane, "text": text}, nil)
}
