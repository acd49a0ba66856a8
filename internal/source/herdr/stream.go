package herdr

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"
)

// Subscription is one entry of events.subscribe.
type Subscription struct {
	Type string `json:"type"` // e.g. EventStatusChanged
	// PaneID is required by pane.agent_status_changed, refused by the
	// lifecycle events.
	PaneID string `json:"pane_id,omitempty"`
}

// The events attn follows.
const (
	EventStatusChanged = "pane.agent_status_changed"
	EventPaneCreated   = "pane.created"
	EventPaneClosed    = "pane.closed"
	EventPaneExited    = "pane.exited"
	EventAgentDetected = "pane.agent_detected"
)

// Event is one pushed event line.
type Event struct {
	Type string          // normalized: "pane.closed" also for herdr's "pane_closed"
	Data json.RawMessage // the event's data object
}

// StatusChange is the data of a pane.agent_status_changed event.
type StatusChange struct {
	PaneID string `json:"pane_id"`
	Agent  string `json:"agent"`
	Status string `json:"agent_status"`
}

// StatusChange decodes a pane.agent_status_changed event; ok is false for
// any other event.
func (e Event) StatusChange() (StatusChange, bool) {
	if e.Type != EventStatusChanged {
		return StatusChange{}, false
	}
	var sc StatusChange
	if json.Unmarshal(e.Data, &sc) != nil || sc.PaneID == "" {
		return StatusChange{}, false
	}
	return sc, true
}

// normalizeEvent spells a pushed event's type as subscriptions do: herdr
// pushes some lifecycle events as "pane_closed", status changes as
// "pane.agent_status_changed".
func normalizeEvent(t string) string {
	if strings.Contains(t, ".") {
		return t
	}
	for _, area := range []string{"pane_", "tab_", "workspace_", "worktree_"} {
		if rest, ok := strings.CutPrefix(t, area); ok {
			return strings.TrimSuffix(area, "_") + "." + rest
		}
	}
	return t
}

// Stream is an open event subscription.
type Stream struct {
	conn   net.Conn
	events chan Event
	done   chan struct{} // closed by Close
	once   sync.Once
	mu     sync.Mutex
	err    error
}

// Subscribe opens a connection of its own, subscribes to subs and waits
// for herdr's acknowledgement (bounded by the client's timeout). A refused
// subscription is an *Error. The stream then delivers events until it is
// closed or the connection breaks.
func (c *Client) Subscribe(ctx context.Context, subs []Subscription) (*Stream, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout())
	defer cancel()
	conn, err := c.dial(ctx)
	if err != nil {
		return nil, err
	}
	// Until the acknowledgement, ctx bounds everything.
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Now()) })
	line, _ := json.Marshal(request{ID: "attn-events", Method: "events.subscribe", Params: map[string]any{"subscriptions": subs}})
	r := bufio.NewReaderSize(conn, 64<<10)
	var ack response
	_, err = conn.Write(append(line, '\n'))
	if err == nil {
		var b []byte
		b, err = readLine(r)
		if err == nil {
			err = json.Unmarshal(b, &ack)
		}
	}
	if !stop() || err != nil {
		conn.Close()
		if ctx.Err() != nil {
			return nil, fmt.Errorf("herdr events.subscribe after %v: %w (is herdr at %s stuck?)", c.timeout(), ErrTimeout, c.Path)
		}
		return nil, fmt.Errorf("herdr events.subscribe: %w (is herdr still running?)", err)
	}
	conn.SetDeadline(time.Time{})
	if ack.Error != nil {
		conn.Close()
		return nil, &Error{Method: "events.subscribe", Code: ack.Error.code(), Message: ack.Error.Message}
	}
	s := &Stream{conn: conn, events: make(chan Event, 64), done: make(chan struct{})}
	go s.read(r)
	return s, nil
}

// readLine reads one protocol line, however long (up to maxLine).
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > maxLine {
			return nil, fmt.Errorf("a line longer than %d bytes", maxLine)
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, err
		}
	}
}

func (s *Stream) read(r *bufio.Reader) {
	defer close(s.events)
	for {
		b, err := readLine(r)
		if err != nil {
			s.fail(err)
			return
		}
		var e struct {
			Event string          `json:"event"`
			Data  json.RawMessage `json:"data"`
		}
		if json.Unmarshal(b, &e) != nil || e.Event == "" {
			continue
		}
		select {
		case s.events <- Event{Type: normalizeEvent(e.Event), Data: e.Data}:
		case <-s.done:
			return
		}
	}
}

func (s *Stream) fail(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		s.err = fmt.Errorf("herdr event stream ended: %w", err)
	}
}

// Events delivers the events; it is closed when the stream ends (Err says
// why).
func (s *Stream) Events() <-chan Event { return s.events }

// Err says why the stream ended (nil while it runs, or after Close).
func (s *Stream) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == errClosed {
		return nil
	}
	return s.err
}

// Close ends the stream; Events is closed soon after.
func (s *Stream) Close() error {
	s.once.Do(func() {
		s.mu.Lock()
		if s.err == nil {
			s.err = errClosed
		}
		s.mu.Unlock()
		close(s.done)
		s.conn.Close()
	})
	return nil
}

var errClosed = errors.New("closed")
