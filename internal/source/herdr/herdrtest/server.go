// Package herdrtest is a fake herdr server for tests: it listens on a
// unix socket and speaks herdr's newline-delimited JSON protocol as
// documented (../shared/PROTOCOLS.md, "herdr"), error shapes included,
// from its own state, which the test sets: panes with an agent, a status
// and a screen. It answers ping, agent.list, agent.get, agent.read,
// agent.send_keys, pane.send_text and events.subscribe, and records every
// request.
//
// What it does as herdr does:
//
//   - results carry a "type"; errors are {"id","error":{"code","message"}}
//     with codes pane_not_found (an unknown target), invalid_params (a
//     missing target, an unknown key name), invalid_request (a line that
//     is not a request, a pane.agent_status_changed subscription without
//     pane_id, a lifecycle one with it) and unknown_method;
//   - events.subscribe is acknowledged with
//     {"type":"subscription_started"}, then pushes
//     {"event":"pane.agent_status_changed","data":{pane_id, agent,
//     agent_status, workspace_id}} for the subscribed panes, and lifecycle
//     events for every pane as herdr spells them on the wire
//     ("pane_created", "pane_closed");
//   - a second events.subscribe on a subscribed connection closes it.
package herdrtest

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// Pane is one pane of the fake server.
type Pane struct {
	ID     string // "w1:p1"
	Agent  string // "claude"; "" for a plain shell
	Status string // idle, working, blocked, done, unknown
	Screen string // what agent.read returns
	Title  string
	Cwd    string
}

// Request is one request the server received.
type Request struct {
	Method string
	Params map[string]any
}

// Server is a running fake herdr.
type Server struct {
	// Path is the socket to connect to.
	Path string
	// OnKeys, when set, hears what is typed into a pane (as Keys lists
	// it), after the answer: a test makes the screen react.
	OnKeys func(pane string, typed []string)

	t      testing.TB
	mu     sync.Mutex
	ln     net.Listener
	panes  []*Pane
	seq    map[string]int64 // state_change_seq per pane
	conns  map[net.Conn]*sub
	reqs   []Request
	keys   map[string][]string // pane → keys pressed and text typed ("text:…")
	silent map[string]bool
}

// sub is a connection's subscription (nil before events.subscribe).
type sub struct {
	lifecycle map[string]bool // event types for every pane
	status    map[string]bool // panes whose status changes it wants
	wmu       sync.Mutex
}

// Start runs a fake herdr on a socket in a temporary directory, stopped
// when the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	dir, err := os.MkdirTemp("", "herdr")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	s := &Server{Path: filepath.Join(dir, "herdr.sock"), t: t, seq: map[string]int64{},
		conns: map[net.Conn]*sub{}, keys: map[string][]string{}, silent: map[string]bool{}}
	s.Listen()
	t.Cleanup(s.Stop)
	return s
}

// Listen (re)opens the socket after Stop.
func (s *Server) Listen() {
	ln, err := net.Listen("unix", s.Path)
	if err != nil {
		s.t.Fatalf("herdrtest: listen on %s: %v", s.Path, err)
	}
	s.mu.Lock()
	s.ln = ln
	s.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.mu.Lock()
			s.conns[c] = nil
			s.mu.Unlock()
			go s.serve(c)
		}
	}()
}

// Stop closes the socket and every connection, as a herdr that exits.
func (s *Server) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ln != nil {
		s.ln.Close()
		s.ln = nil
	}
	for c := range s.conns {
		c.Close()
		delete(s.conns, c)
	}
}

// DropConnections closes every open connection, the socket staying open.
func (s *Server) DropConnections() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.conns {
		c.Close()
		delete(s.conns, c)
	}
}

// Subscribers counts connections with a subscription.
func (s *Server) Subscribers() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, sb := range s.conns {
		if sb != nil {
			n++
		}
	}
	return n
}

// Silence makes the server never answer method (to test timeouts).
func (s *Server) Silence(method string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.silent[method] = true
}

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.reqs)
}

// Keys returns what was typed into pane: key names, and "text:…" for
// pane.send_text.
func (s *Server) Keys(pane string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.keys[pane])
}

// AddPane adds a pane and pushes pane_created to lifecycle subscribers.
func (s *Server) AddPane(p Pane) {
	s.mu.Lock()
	cp := p
	s.panes = append(s.panes, &cp)
	s.mu.Unlock()
	s.push("pane.created", "pane_created", "", map[string]any{"pane_id": p.ID, "workspace_id": workspace(p.ID)})
}

// RemovePane removes a pane and pushes pane_closed.
func (s *Server) RemovePane(id string) {
	s.mu.Lock()
	s.panes = slices.DeleteFunc(s.panes, func(p *Pane) bool { return p.ID == id })
	s.mu.Unlock()
	s.push("pane.closed", "pane_closed", "", map[string]any{"pane_id": id, "workspace_id": workspace(id)})
}

// SetStatus changes a pane's status and pushes pane.agent_status_changed
// to the connections subscribed to that pane.
func (s *Server) SetStatus(id, status string) {
	s.mu.Lock()
	p := s.pane(id)
	if p == nil {
		s.mu.Unlock()
		s.t.Errorf("herdrtest: SetStatus of unknown pane %s", id)
		return
	}
	p.Status = status
	s.seq[id]++
	agent := p.Agent
	s.mu.Unlock()
	s.push(EventStatus, EventStatus, id, map[string]any{"pane_id": id, "agent": agent, "agent_status": status, "workspace_id": workspace(id)})
}

// SetScreen changes what agent.read returns for a pane.
func (s *Server) SetScreen(id, screen string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p := s.pane(id); p != nil {
		p.Screen = screen
	}
}

// EventStatus is the status event, as subscribed and as pushed.
const EventStatus = "pane.agent_status_changed"

// lifecycle lists the events a subscription takes without pane_id.
var lifecycle = map[string]bool{"pane.created": true, "pane.closed": true, "pane.exited": true,
	"pane.agent_detected": true, "pane.focused": true, "pane.moved": true}

func workspace(id string) string {
	w, _, _ := strings.Cut(id, ":")
	return w
}

func (s *Server) pane(id string) *Pane {
	for _, p := range s.panes {
		if p.ID == id {
			return p
		}
	}
	return nil
}

// push sends one event line to the connections subscribed to it: typ as
// subscribed, wire as pushed; pane "" for lifecycle events.
func (s *Server) push(typ, wire, pane string, data map[string]any) {
	line, _ := json.Marshal(map[string]any{"event": wire, "data": data})
	s.mu.Lock()
	var to []net.Conn
	var subs []*sub
	for c, sb := range s.conns {
		if sb == nil {
			continue
		}
		if (pane == "" && sb.lifecycle[typ]) || (pane != "" && sb.status[pane]) {
			to, subs = append(to, c), append(subs, sb)
		}
	}
	s.mu.Unlock()
	for i, c := range to {
		subs[i].wmu.Lock()
		c.Write(append(line, '\n'))
		subs[i].wmu.Unlock()
	}
}

func (s *Server) agentInfo(p *Pane) map[string]any {
	var agent any
	if p.Agent != "" {
		agent = p.Agent
	}
	return map[string]any{"pane_id": p.ID, "terminal_id": "term-" + p.ID, "workspace_id": workspace(p.ID),
		"tab_id": workspace(p.ID) + ":t1", "agent": agent, "agent_status": p.Status, "terminal_title": p.Title,
		"terminal_title_stripped": p.Title, "cwd": p.Cwd, "state_change_seq": s.seq[p.ID], "focused": false}
}

// keyNames are the key names agent.send_keys accepts.
var keyNames = map[string]bool{"enter": true, "escape": true, "esc": true, "up": true, "down": true, "left": true,
	"right": true, "tab": true, "shift+tab": true, "backspace": true, "space": true, "ctrl+c": true, "ctrl+d": true}

// serve answers one connection's requests.
func (s *Server) serve(c net.Conn) {
	defer func() {
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
		c.Close()
	}()
	var mine *sub
	write := func(v map[string]any) {
		line, _ := json.Marshal(v)
		if mine != nil {
			mine.wmu.Lock()
			defer mine.wmu.Unlock()
		}
		c.Write(append(line, '\n'))
	}
	sc := bufio.NewScanner(c)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var req struct {
			ID     any            `json:"id"`
			Method string         `json:"method"`
			Params map[string]any `json:"params"`
		}
		if err := json.Unmarshal(sc.Bytes(), &req); err != nil || req.Method == "" {
			write(map[string]any{"id": req.ID, "error": errObj("invalid_request", fmt.Sprintf("invalid request: %v", cmpErr(err, "missing field `method`")))})
			continue
		}
		s.mu.Lock()
		s.reqs = append(s.reqs, Request{Method: req.Method, Params: req.Params})
		silent := s.silent[req.Method]
		s.mu.Unlock()
		if silent {
			continue
		}
		if req.Method == "events.subscribe" {
			if mine != nil {
				return // herdr closes a connection subscribed twice
			}
			sb, err := subscription(req.Params)
			if err != nil {
				write(map[string]any{"id": req.ID, "error": errObj("invalid_request", err.Error())})
				continue
			}
			// Subscribed from the acknowledgement on: an event pushed
			// meanwhile waits for it to be written.
			sb.wmu.Lock()
			s.mu.Lock()
			if _, open := s.conns[c]; open {
				s.conns[c] = sb
			}
			s.mu.Unlock()
			line, _ := json.Marshal(map[string]any{"id": req.ID, "result": map[string]any{"type": "subscription_started"}})
			c.Write(append(line, '\n'))
			sb.wmu.Unlock()
			mine = sb
			continue
		}
		result, code, msg := s.call(req.Method, req.Params)
		if code != "" {
			write(map[string]any{"id": req.ID, "error": errObj(code, msg)})
			continue
		}
		write(map[string]any{"id": req.ID, "result": result})
		if s.OnKeys != nil && (req.Method == "agent.send_keys" || req.Method == "pane.send_text") {
			pane, _ := req.Params["target"].(string)
			if req.Method == "pane.send_text" {
				pane, _ = req.Params["pane_id"].(string)
			}
			s.OnKeys(pane, s.Keys(pane))
		}
	}
}

func errObj(code, msg string) map[string]any { return map[string]any{"code": code, "message": msg} }

func cmpErr(err error, fallback string) string {
	if err != nil {
		return err.Error()
	}
	return fallback
}

// subscription reads events.subscribe's params.
func subscription(params map[string]any) (*sub, error) {
	list, ok := params["subscriptions"].([]any)
	if !ok {
		return nil, errors.New("invalid params: missing field `subscriptions`")
	}
	sb := &sub{lifecycle: map[string]bool{}, status: map[string]bool{}}
	for _, e := range list {
		m, _ := e.(map[string]any)
		typ, _ := m["type"].(string)
		pane, hasPane := m["pane_id"].(string)
		switch {
		case typ == EventStatus && !hasPane:
			return nil, errors.New("invalid request: missing field `pane_id`")
		case typ == EventStatus:
			sb.status[pane] = true
		case lifecycle[typ] && hasPane:
			return nil, fmt.Errorf("invalid request: unknown field `pane_id` for %s", typ)
		case lifecycle[typ]:
			sb.lifecycle[typ] = true
		default:
			return nil, fmt.Errorf("invalid request: unknown variant `%s`", typ)
		}
	}
	return sb, nil
}

// call answers one request: a result, or an error code and message.
func (s *Server) call(method string, params map[string]any) (map[string]any, string, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	target := func(key string) (*Pane, string, string) {
		id, _ := params[key].(string)
		if id == "" {
			return nil, "invalid_params", fmt.Sprintf("invalid params: missing field `%s`", key)
		}
		p := s.pane(id)
		if p == nil {
			return nil, "pane_not_found", fmt.Sprintf("pane %s not found", id)
		}
		return p, "", ""
	}
	switch method {
	case "ping":
		return map[string]any{"type": "pong", "version": "0.9.3"}, "", ""
	case "agent.list":
		agents := []any{}
		for _, p := range s.panes {
			agents = append(agents, s.agentInfo(p))
		}
		return map[string]any{"type": "agent_list", "agents": agents}, "", ""
	case "agent.get":
		p, code, msg := target("target")
		if p == nil {
			return nil, code, msg
		}
		return map[string]any{"type": "agent_info", "agent": s.agentInfo(p)}, "", ""
	case "agent.read":
		p, code, msg := target("target")
		if p == nil {
			return nil, code, msg
		}
		return map[string]any{"type": "pane_read", "read": map[string]any{"pane_id": p.ID, "text": p.Screen}}, "", ""
	case "agent.send_keys":
		p, code, msg := target("target")
		if p == nil {
			return nil, code, msg
		}
		list, _ := params["keys"].([]any)
		var keys []string
		for _, k := range list {
			name, _ := k.(string)
			if !keyNames[name] {
				return nil, "invalid_params", fmt.Sprintf("invalid key: %q", name)
			}
			keys = append(keys, name)
		}
		s.keys[p.ID] = append(s.keys[p.ID], keys...)
		return map[string]any{"type": "ok"}, "", ""
	case "pane.send_text":
		p, code, msg := target("pane_id")
		if p == nil {
			return nil, code, msg
		}
		text, _ := params["text"].(string)
		s.keys[p.ID] = append(s.keys[p.ID], "text:"+text)
		return map[string]any{"type": "ok"}, "", ""
	}
	return nil, "unknown_method", fmt.Sprintf("unknown method: %s", method)
}
