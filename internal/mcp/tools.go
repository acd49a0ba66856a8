package mcp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/attn-dev/attn/internal/agent"
	"github.com/attn-dev/attn/internal/detect"
	"github.com/attn-dev/attn/internal/hosts"
	"github.com/attn-dev/attn/internal/reply"
	"github.com/attn-dev/attn/internal/source/tmux"
	"github.com/attn-dev/attn/internal/watch"
)

// Agent is one agent as the tools return it.
type Agent struct {
	// ID names the agent uniquely: "host/%3".
	ID     string `json:"id"`
	Host   string `json:"host"`
	PaneID string `json:"pane_id"`
	// Name is the pane title or window name (untrusted: the program in
	// the pane sets it).
	Name string `json:"name"`
	// Agent is the agent CLI ("claude", "codex", …), "" when none.
	Agent  string       `json:"agent"`
	Status agent.Status `json:"status"`
	// Question is what a blocked agent asks, as on its screen.
	Question *agent.Question `json:"question,omitempty"`
	// Headline is a one-line summary of a blocked agent's wait.
	Headline string `json:"headline,omitempty"`
	Dir      string `json:"dir,omitempty"`
	Session  string `json:"session"`
	Window   string `json:"window"`
	// Command is the pane's foreground program.
	Command string `json:"command"`
}

type (
	hostsResult  = hosts.Listing
	whoamiResult struct {
		Found  bool   `json:"found"`
		Agent  *Agent `json:"agent,omitempty"`
		Detail string `json:"detail"`
	}
	listAgentsResult struct {
		Host   string  `json:"host"`
		Agents []Agent `json:"agents"`
	}
	agentResult struct {
		Agent Agent `json:"agent"`
	}
	readResult struct {
		Text   string       `json:"text"`
		Status agent.Status `json:"status"`
		Host   string       `json:"host"`
		PaneID string       `json:"pane_id"`
	}
	waitResult struct {
		Status  agent.Status `json:"status"`
		Matched bool         `json:"matched"`
	}
	sendResult struct {
		Sent   bool   `json:"sent"`
		Host   string `json:"host"`
		PaneID string `json:"pane_id"`
		To     string `json:"to"`
		Detail string `json:"detail"`
	}
	closeResult struct {
		AgentKilled bool   `json:"agent_killed"`
		PaneClosed  bool   `json:"pane_closed"`
		Host        string `json:"host"`
		PaneID      string `json:"pane_id"`
	}
)

type tools struct {
	cfg Config
}

func (t *tools) register(s *sdk.Server) {
	for _, sp := range specs() {
		sp.add(s, t)
	}
}

// scope is what a caller may reach: one host, or ("") every host.
type scope struct{ host string }

func scopeOf(req *sdk.CallToolRequest) scope {
	if req != nil && req.Extra != nil && req.Extra.TokenInfo != nil {
		if h, ok := req.Extra.TokenInfo.Extra[ScopeHost].(string); ok && h != "" {
			return scope{host: h}
		}
	}
	return scope{}
}

func (s scope) reaches(host string) bool { return s.host == "" || s.host == host }

// refusal says why host is out of the caller's reach.
func (s scope) refusal(host string) error {
	return fmt.Errorf("host %s is outside this credential's reach: it is the credential of host %s, and reaches %s only; "+
		"to reach %s, use that host's credential (`attn host token %s`) or the daemon's API token, which reaches every host",
		host, s.host, s.host, host, host)
}

// host resolves a host argument for a caller: "" is the caller's own
// host (its credential's, else attn's own), and the host must be in
// reach.
func (t *tools) host(sc scope, arg string) (string, error) {
	if strings.TrimSpace(arg) == "" && sc.host != "" {
		return sc.host, nil
	}
	h, err := t.cfg.Hosts.Resolve(arg)
	if err != nil {
		return "", err
	}
	if !sc.reaches(h) {
		return "", sc.refusal(h)
	}
	return h, nil
}

// searchHosts is the hosts a search with no host argument covers: the
// credential's host, else every addressable host.
func (t *tools) searchHosts(sc scope) []string {
	if sc.host != "" {
		return []string{sc.host}
	}
	var out []string
	for _, h := range t.cfg.Hosts.List().Hosts {
		out = append(out, h.Name)
	}
	return out
}

// read captures and classifies one pane now.
func read(ctx context.Context, c *hosts.Client, p tmux.Pane) (Agent, string, error) {
	screen, err := c.Capture(ctx, p.ID)
	if err != nil {
		return Agent{}, "", err
	}
	r := detect.ClassifyPane(detect.Pane{Screen: screen, Title: p.Title, Command: p.Command})
	return agentOf(c.Host(), p, r), screen, nil
}

func agentOf(host string, p tmux.Pane, r agent.Reading) Agent {
	return Agent{ID: host + "/" + p.ID, Host: host, PaneID: p.ID, Name: watch.Name(p, host), Agent: r.Agent,
		Status: r.Status, Question: r.Question, Headline: r.Headline, Dir: p.Path, Session: p.Session,
		Window: p.WindowName, Command: p.Command}
}

func (t *tools) notify(ctx context.Context, req *sdk.CallToolRequest, in NotifyArgs) (*sdk.CallToolResult, NotifyResult, error) {
	if strings.TrimSpace(in.Message) == "" {
		return nil, NotifyResult{}, errors.New("message is empty: pass the text to send")
	}
	sc := scopeOf(req)
	host, err := t.host(sc, in.Host)
	if err != nil {
		return nil, NotifyResult{}, err
	}
	res, err := t.cfg.Notify(ctx, NotifyRequest{Message: in.Message, Title: in.Title, Pane: strings.TrimSpace(in.PaneID), Host: host})
	if err != nil {
		return nil, NotifyResult{}, fmt.Errorf("notify: %w", err)
	}
	if res.Transports == nil {
		res.Transports = []string{}
	}
	return nil, res, nil
}

func (t *tools) listHosts(ctx context.Context, req *sdk.CallToolRequest, in ListHostsArgs) (*sdk.CallToolResult, hostsResult, error) {
	if in.Refresh {
		t.cfg.Hosts.Refresh()
	}
	sc := scopeOf(req)
	l := t.cfg.Hosts.List()
	l.Hosts = slices.DeleteFunc(l.Hosts, func(h hosts.Host) bool { return !sc.reaches(h.Name) })
	l.Probing = slices.ContainsFunc(l.Hosts, func(h hosts.Host) bool { return h.State == hosts.StateProbing })
	if sc.host != "" {
		l.Active = sc.host
	}
	return nil, l, nil
}

func (t *tools) whoami(ctx context.Context, req *sdk.CallToolRequest, in WhoamiArgs) (*sdk.CallToolResult, whoamiResult, error) {
	pane := strings.TrimSpace(in.PaneID)
	if !paneID(pane) {
		return nil, whoamiResult{Detail: fmt.Sprintf("pane_id %q is not a tmux pane id: pass the value of $TMUX_PANE (e.g. %%12)", pane)}, nil
	}
	sc := scopeOf(req)
	search := t.searchHosts(sc)
	if strings.TrimSpace(in.Host) != "" {
		h, err := t.host(sc, in.Host)
		if err != nil {
			return nil, whoamiResult{}, err
		}
		search = []string{h}
	}
	var found []Agent
	var problems []string
	for _, h := range search {
		c, err := t.cfg.Hosts.Client(h)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		p, err := c.Describe(ctx, pane)
		if err != nil {
			continue
		}
		a, _, err := read(ctx, c, p)
		if err != nil {
			continue
		}
		found = append(found, a)
	}
	switch len(found) {
	case 1:
		return nil, whoamiResult{Found: true, Agent: &found[0]}, nil
	case 0:
		d := fmt.Sprintf("no pane %s on %s", pane, strings.Join(search, ", "))
		if len(problems) > 0 {
			d += "; not searched: " + strings.Join(problems, "; ")
		}
		return nil, whoamiResult{Detail: d}, nil
	}
	var names []string
	for _, a := range found {
		names = append(names, a.Host)
	}
	return nil, whoamiResult{Detail: fmt.Sprintf("pane %s exists on several hosts (%s): call again with host set to the one you run on",
		pane, strings.Join(names, ", "))}, nil
}

func (t *tools) listAgents(ctx context.Context, req *sdk.CallToolRequest, in ListAgentsArgs) (*sdk.CallToolResult, listAgentsResult, error) {
	host, err := t.host(scopeOf(req), in.Host)
	if err != nil {
		return nil, listAgentsResult{}, err
	}
	c, err := t.cfg.Hosts.Client(host)
	if err != nil {
		return nil, listAgentsResult{}, err
	}
	panes, err := c.ListPanes(ctx)
	if err != nil && !errors.Is(err, tmux.ErrNoServer) {
		return nil, listAgentsResult{}, fmt.Errorf("list the panes of %s: %w", host, err)
	}
	out := listAgentsResult{Host: host, Agents: []Agent{}}
	for _, p := range panes {
		if p.Dead {
			continue
		}
		a, _, err := read(ctx, c, p)
		if err != nil || a.Agent == "" {
			continue
		}
		out.Agents = append(out.Agents, a)
	}
	return nil, out, nil
}

func (t *tools) getAgent(ctx context.Context, req *sdk.CallToolRequest, in GetAgentArgs) (*sdk.CallToolResult, agentResult, error) {
	to := cmpOr(in.AgentID, in.To)
	if in.AgentID != "" && in.To != "" && in.AgentID != in.To {
		return nil, agentResult{}, errors.New("pass agent_id or to, not both")
	}
	tg, err := t.target(ctx, scopeOf(req), in.Host, to, false)
	if err != nil {
		return nil, agentResult{}, err
	}
	a, _, err := read(ctx, tg.client, tg.pane)
	if err != nil {
		return nil, agentResult{}, fmt.Errorf("read %s: %w", tg.id(), err)
	}
	return nil, agentResult{Agent: a}, nil
}

func cmpOr(a, b string) string {
	if strings.TrimSpace(a) != "" {
		return a
	}
	return b
}

// Sources of read_agent.
const (
	SourceRecentUnwrapped = "recent_unwrapped"
	SourceRecent          = "recent"
	SourceVisible         = "visible"
)

func (t *tools) readAgent(ctx context.Context, req *sdk.CallToolRequest, in ReadAgentArgs) (*sdk.CallToolResult, readResult, error) {
	lines := DefaultLines
	if in.Lines != nil {
		lines = *in.Lines
	}
	if lines < 1 || lines > MaxLines {
		return nil, readResult{}, fmt.Errorf("lines must be from 1 to %d (default %d), got %d", MaxLines, DefaultLines, lines)
	}
	source := cmpOr(in.Source, SourceRecentUnwrapped)
	var args []string
	switch source {
	case SourceVisible:
		args = []string{"capture-pane", "-p"}
	case SourceRecent:
		args = []string{"capture-pane", "-p", "-S", fmt.Sprint(-lines)}
	case SourceRecentUnwrapped:
		args = []string{"capture-pane", "-p", "-J", "-S", fmt.Sprint(-2 * lines)}
	default:
		return nil, readResult{}, fmt.Errorf("source %q: want recent_unwrapped, recent or visible", source)
	}
	tg, err := t.target(ctx, scopeOf(req), in.Host, in.To, false)
	if err != nil {
		return nil, readResult{}, err
	}
	a, _, err := read(ctx, tg.client, tg.pane)
	if err != nil {
		return nil, readResult{}, fmt.Errorf("read %s: %w", tg.id(), err)
	}
	text, err := tg.client.Run(ctx, append(args, "-t", tg.pane.ID)...)
	if err != nil {
		return nil, readResult{}, fmt.Errorf("read %s: %w", tg.id(), err)
	}
	return nil, readResult{Text: lastLines(text, lines), Status: a.Status, Host: tg.host, PaneID: tg.pane.ID}, nil
}

// lastLines returns the last n lines of text, trailing blanks trimmed
// from each line and blank lines from the end.
func lastLines(text string, n int) string {
	ls := strings.Split(text, "\n")
	for i, l := range ls {
		ls[i] = strings.TrimRight(l, " \t")
	}
	for len(ls) > 0 && ls[len(ls)-1] == "" {
		ls = ls[:len(ls)-1]
	}
	if len(ls) > n {
		ls = ls[len(ls)-n:]
	}
	return strings.Join(ls, "\n")
}

var statuses = []agent.Status{agent.StatusWorking, agent.StatusBlocked, agent.StatusIdle, agent.StatusDone, agent.StatusUnknown}

func (t *tools) waitAgent(ctx context.Context, req *sdk.CallToolRequest, in WaitAgentArgs) (*sdk.CallToolResult, waitResult, error) {
	want := agent.Status(cmpOr(in.Status, string(agent.StatusIdle)))
	if !slices.Contains(statuses, want) {
		return nil, waitResult{}, fmt.Errorf("status %q: want working, blocked, idle, done or unknown", want)
	}
	timeout := DefaultWait
	if in.TimeoutMS != nil {
		timeout = *in.TimeoutMS
	}
	if timeout < 0 || timeout > MaxWait {
		return nil, waitResult{}, fmt.Errorf("timeout_ms must be from 0 to %d (default %d), got %d", MaxWait, DefaultWait, timeout)
	}
	tg, err := t.target(ctx, scopeOf(req), in.Host, in.To, false)
	if err != nil {
		return nil, waitResult{}, err
	}
	deadline := time.NewTimer(time.Duration(timeout) * time.Millisecond)
	defer deadline.Stop()
	tick := time.NewTicker(t.cfg.Poll)
	defer tick.Stop()
	for {
		status := agent.StatusUnknown
		if p, err := tg.client.Describe(ctx, tg.pane.ID); err == nil && !p.Dead {
			if a, _, err := read(ctx, tg.client, p); err == nil {
				status = a.Status
			}
		}
		if status == want || (want == agent.StatusIdle && status == agent.StatusDone) {
			return nil, waitResult{Status: status, Matched: true}, nil
		}
		select {
		case <-ctx.Done():
			return nil, waitResult{}, ctx.Err()
		case <-deadline.C:
			return nil, waitResult{Status: status, Matched: false}, nil
		case <-tick.C:
		}
	}
}

// Gates of send_agent, besides reply's.
const (
	GateBlocked  = "agent-blocked"
	GateComposer = "composer-busy"
)

func (t *tools) sendAgent(ctx context.Context, req *sdk.CallToolRequest, in SendAgentArgs) (*sdk.CallToolResult, sendResult, error) {
	if strings.TrimSpace(in.Message) == "" {
		return nil, sendResult{}, errors.New("message is empty: pass the text to send")
	}
	if len(in.Message) > MaxMessage {
		return nil, sendResult{}, fmt.Errorf("message is %d bytes, more than %d: send less, or write it to a file and send its path", len(in.Message), MaxMessage)
	}
	tg, err := t.target(ctx, scopeOf(req), in.Host, in.To, false)
	if err != nil {
		return nil, sendResult{}, err
	}
	name := watch.Name(tg.pane, tg.host)
	check := func(ctx context.Context, term reply.Terminal, p tmux.Pane) error {
		plain, err := term.Capture(ctx, p.ID)
		if err != nil {
			return &reply.Refusal{Gate: reply.GatePane, Detail: fmt.Sprintf("cannot read the pane: %v", err)}
		}
		r := detect.ClassifyPane(detect.Pane{Screen: plain, Title: p.Title, Command: p.Command})
		if r.Status == agent.StatusBlocked {
			return &reply.Refusal{Gate: GateBlocked, Detail: "the agent is blocked on a question: answer it (or leave it to the person) before sending"}
		}
		if r.Agent == "" {
			return &reply.Refusal{Gate: reply.GateAgentExited, Detail: fmt.Sprintf("no agent CLI runs in the pane (%s does)", p.Command)}
		}
		styled, err := tg.client.Run(ctx, "capture-pane", "-p", "-e", "-t", p.ID)
		if err != nil {
			return &reply.Refusal{Gate: reply.GatePane, Detail: fmt.Sprintf("cannot read the pane: %v", err)}
		}
		if text, ok := ComposerText(styled); ok && text != "" {
			return &reply.Refusal{Gate: GateComposer, Detail: fmt.Sprintf("the composer holds unsent text (%q): someone is typing there; try later", clipText(text, 40))}
		}
		return nil
	}
	res := t.cfg.Replies.Send(ctx, reply.Message{Ref: agent.PaneRef{Host: tg.host, Pane: tg.pane.ID}, Text: in.Message,
		Surface: reply.SurfaceMCP, Device: callerName(req), Check: check})
	if res.Outcome == "error" {
		return nil, sendResult{}, fmt.Errorf("send to %s: %s", tg.id(), res.Detail)
	}
	if res.Outcome == reply.Refused {
		return nil, sendResult{}, fmt.Errorf("send to %s (%s) refused, nothing typed: %s", tg.id(), name, res.Detail)
	}
	return nil, sendResult{Sent: res.Outcome == reply.Applied, Host: tg.host, PaneID: tg.pane.ID, To: name, Detail: res.Detail}, nil
}

// callerName names the caller for the audit: its credential's host.
func callerName(req *sdk.CallToolRequest) string {
	if sc := scopeOf(req); sc.host != "" {
		return "credential of " + sc.host
	}
	return ""
}

func clipText(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func (t *tools) closeAgent(ctx context.Context, req *sdk.CallToolRequest, in CloseAgentArgs) (*sdk.CallToolResult, closeResult, error) {
	tg, err := t.target(ctx, scopeOf(req), in.Host, in.To, true)
	if err != nil {
		return nil, closeResult{}, err
	}
	c, p := tg.client, tg.pane
	a, _, err := read(ctx, c, p)
	if err != nil {
		return nil, closeResult{}, fmt.Errorf("read %s: %w", tg.id(), err)
	}
	if a.Agent == "" || reply.IsShell(p.Command) {
		return nil, closeResult{}, fmt.Errorf("no agent runs in %s (%s does): nothing to close", tg.id(), p.Command)
	}
	out := closeResult{Host: tg.host, PaneID: p.ID}
	gone := func() bool {
		now, err := c.Describe(ctx, p.ID)
		return err != nil || now.Dead || now.PID != p.PID || reply.IsShell(now.Command)
	}
	for _, sig := range []string{"TERM", "KILL"} {
		// The pane's terminal's foreground process group: the agent, or
		// the job a shell runs it in. run-shell runs on the host of the
		// tmux server, remote ones too.
		cmd := fmt.Sprintf("kill -%s -$(ps -o tpgid= -p %s | tr -d ' ')", sig, p.PID)
		if _, err := c.Run(ctx, "run-shell", cmd); err != nil {
			t.cfg.Log.Debug("close_agent: signal failed", "pane", tg.id(), "signal", sig, "err", err)
		}
		if out.AgentKilled = waitUntil(ctx, t.cfg.KillWait, t.cfg.Poll, gone); out.AgentKilled {
			break
		}
	}
	if in.ClosePane == nil || *in.ClosePane {
		if _, err := c.Describe(ctx, p.ID); err == nil {
			if _, err := c.Run(ctx, "kill-pane", "-t", p.ID); err != nil {
				t.cfg.Log.Debug("close_agent: kill-pane failed", "pane", tg.id(), "err", err)
			}
		}
		_, err := c.Describe(ctx, p.ID)
		out.PaneClosed = err != nil
	}
	return nil, out, nil
}

// waitUntil polls cond every tick for up to d.
func waitUntil(ctx context.Context, d, tick time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return false
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(tick):
		}
	}
}
