package hook

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// Reasons for ignored events that tests and the daemon's log share.
const (
	reasonSubagentStop = "sub-agent stop: never a finished turn"
	reasonChildSession = "child session: a sub-agent's event, never the person's"
)

// parseClaude reads a Claude Code hook payload (stdin).
func parseClaude(ev *Event, p fieldReader) error {
	name, err := claudeBase(ev, p)
	if err != nil {
		return err
	}
	switch name {
	case "PermissionRequest":
		permissionRequest(ev, p)
	case "Notification":
		claudeNotification(ev, p)
	case "Stop":
		claudeStop(ev, p, true)
	case "SubagentStop":
		ev.Kind, ev.Reason = KindIgnored, reasonSubagentStop
	default:
		ignoreEvent(ev, name)
	}
	return p.failed()
}

// claudeBase reads the members every Claude-shaped payload (Claude Code,
// Codex hooks) carries and returns hook_event_name.
func claudeBase(ev *Event, p fieldReader) (string, error) {
	name, err := p.eventName("hook_event_name", "is this a hook's stdin? (PermissionRequest, Notification, Stop, …)")
	if err != nil {
		return "", err
	}
	ev.SessionID = p.str("session_id")
	ev.Cwd = p.str("cwd")
	return name, p.failed()
}

func ignoreEvent(ev *Event, name string) {
	ev.Kind, ev.Reason = KindIgnored, name+": not an event attn acts on"
}

// permissionRequest: the permission dialog is on screen now. A sub-agent's
// request (agent_id set) is still the person's to answer: blocked all the
// same.
func permissionRequest(ev *Event, p fieldReader) {
	ev.Kind, ev.Reason = KindBlocked, "PermissionRequest"
	ev.Tool = p.str("tool_name")
	ev.Detail = toolDetail(p.opt("tool_input"))
}

// needsPermission matches Claude Code's permission notification message,
// e.g. "Claude needs your permission to use Bash".
var needsPermission = regexp.MustCompile(`(?i)needs your permission to use (.+?)\.?$`)

func claudeNotification(ev *Event, p fieldReader) {
	msg := p.str("message")
	typ := p.str("notification_type")
	ev.Detail = msg
	if typ == "" {
		// Claude Code before notification_type (2025): tell the two
		// notifications that matter apart by their message.
		switch {
		case needsPermission.MatchString(msg):
			typ = "permission_prompt"
		case strings.Contains(strings.ToLower(msg), "waiting for your input"):
			typ = "idle_prompt"
		}
	}
	ev.Reason = "Notification/" + typ
	switch typ {
	case "permission_prompt":
		ev.Kind = KindBlocked
		if m := needsPermission.FindStringSubmatch(msg); m != nil {
			ev.Tool = m[1]
		}
	case "elicitation_dialog":
		// An MCP server asks the person for input: the agent waits on them.
		ev.Kind = KindBlocked
	case "idle_prompt":
		ev.Kind = KindReminder
	default:
		if typ == "" {
			typ = "(no notification_type)"
		}
		ev.Kind, ev.Reason = KindIgnored, "Notification/"+typ+": not an attention signal"
	}
}

// claudeStop reads a Stop; readTranscript allows the look at a Claude Code
// transcript that older Claude Code needs (see noticeTurn).
func claudeStop(ev *Event, p fieldReader, readTranscript bool) {
	ev.Detail = p.str("last_assistant_message")
	if id := p.str("agent_id"); id != "" {
		ev.Kind, ev.Reason = KindIgnored, "sub-agent stop (agent_id "+oneLine(id, 40)+"): never a finished turn"
		return
	}
	if p.has("background_tasks") {
		// Claude Code ≥ 2.1.145 lists its in-flight work here; "[]" when
		// nothing is in flight. A turn that ends with work in flight is
		// paused: Claude Code re-invokes the agent when the work reports
		// back, and the Stop after the last report (empty list) is the
		// finished turn.
		var tasks []json.RawMessage
		if raw := p.obj["background_tasks"]; jsonType(raw) == "array" {
			_ = json.Unmarshal(raw, &tasks) // valid JSON: cannot fail
		}
		if n, what := inFlight(tasks); n > 0 {
			ev.Kind = KindIgnored
			ev.Reason = fmt.Sprintf("Stop with %d background task(s) still running (%s): the turn is paused, not finished", n, what)
			return
		}
		ev.Kind, ev.Reason = KindFinished, "Stop"
		return
	}
	// Older Claude Code says nothing about background work: a turn that
	// only answered a background task's notice ends with a Stop like any
	// other, and only the transcript tells it apart.
	if path := p.str("transcript_path"); readTranscript && path != "" && noticeTurn(path) {
		ev.Kind, ev.Reason = KindIgnored, "Stop of a turn that only handled a background task's notice: never a finished turn"
		return
	}
	ev.Kind, ev.Reason = KindFinished, "Stop"
}

// terminalTask is a background task status that means "no longer running".
var terminalTask = map[string]bool{
	"completed": true, "complete": true, "done": true, "finished": true, "succeeded": true,
	"failed": true, "error": true, "killed": true, "stopped": true, "cancelled": true, "canceled": true,
}

// inFlight counts the entries of a Stop's background_tasks that may still
// run, and names up to three of them by type. An entry whose status is
// missing or unknown counts as running: a held-back "finished" is
// corrected by the next Stop, a premature one is noise.
func inFlight(tasks []json.RawMessage) (int, string) {
	n := 0
	var kinds []string
	for _, raw := range tasks {
		var t struct {
			Type   any `json:"type"`
			Status any `json:"status"`
		}
		_ = json.Unmarshal(raw, &t) // an odd entry counts as running
		status, _ := t.Status.(string)
		if terminalTask[strings.ToLower(status)] {
			continue
		}
		n++
		if typ, _ := t.Type.(string); typ != "" && len(kinds) < 3 {
			kinds = append(kinds, oneLine(typ, 30))
		}
	}
	if len(kinds) == 0 {
		kinds = append(kinds, "unnamed")
	}
	if n > len(kinds) && len(kinds) == 3 {
		kinds = append(kinds, "…")
	}
	return n, strings.Join(kinds, ", ")
}

// parseCodex reads what Codex hands `attn hook codex`: its notify program's
// JSON ({"type": "agent-turn-complete", …}, hyphenated keys) or a Codex hook
// payload in Claude Code's shape (hook_event_name).
func parseCodex(ev *Event, p fieldReader) error {
	if p.has("hook_event_name") {
		name, err := claudeBase(ev, p)
		if err != nil {
			return err
		}
		switch name {
		case "PermissionRequest":
			permissionRequest(ev, p)
		case "Stop":
			// Codex has no sub-agent Stop; agent_id is honoured all the
			// same should it appear. Its transcript is not Claude Code's.
			claudeStop(ev, p, false)
		default:
			ignoreEvent(ev, name)
		}
		return p.failed()
	}
	typ, err := p.eventName("type", "Codex's notify JSON names its event in type (agent-turn-complete), a Codex hook in hook_event_name")
	if err != nil {
		return err
	}
	ev.SessionID = p.str("thread-id")
	ev.Cwd = p.str("cwd")
	switch typ {
	case "agent-turn-complete":
		ev.Kind, ev.Reason = KindFinished, "agent-turn-complete"
		ev.Detail = p.str("last-assistant-message")
	default:
		ignoreEvent(ev, typ)
	}
	return p.failed()
}

// geminiTool matches Gemini CLI's ToolPermission message, e.g. "Tool
// run_shell_command requires editing".
var geminiTool = regexp.MustCompile(`^Tool (\S+) requires`)

// parseGemini reads a Gemini CLI hook payload (stdin).
func parseGemini(ev *Event, p fieldReader) error {
	name, err := claudeBase(ev, p)
	if err != nil {
		return err
	}
	switch name {
	case "Notification":
		typ := p.str("notification_type")
		msg := p.str("message")
		if typ != "ToolPermission" {
			if typ == "" {
				typ = "(no notification_type)"
			}
			ev.Kind, ev.Reason = KindIgnored, "Notification/"+typ+": not an attention signal"
			ev.Detail = msg
			break
		}
		ev.Kind, ev.Reason = KindBlocked, "Notification/ToolPermission"
		details := p.opt("details")
		ev.Tool = p.str("tool_name")
		if ev.Tool == "" {
			if m := geminiTool.FindStringSubmatch(msg); m != nil {
				ev.Tool = m[1]
			}
		}
		ev.Detail = toolDetail(details)
		if ev.Detail == "" {
			ev.Detail = details.str("title")
		}
		if ev.Detail == "" {
			ev.Detail = msg
		}
	case "AfterAgent":
		ev.Kind, ev.Reason = KindFinished, "AfterAgent"
		ev.Detail = p.str("prompt_response")
	default:
		ignoreEvent(ev, name)
	}
	return p.failed()
}

// parseOpenCode reads an OpenCode event as attn's plugin forwards it:
// {"type": "permission.asked", "properties": {…}}.
func parseOpenCode(ev *Event, p fieldReader) error {
	typ, err := p.eventName("type", "attn's OpenCode plugin forwards the event object {type, properties}")
	if err != nil {
		return err
	}
	props := p.sub("properties")
	info := props.opt("info")
	ev.SessionID = props.str("sessionID")
	if ev.SessionID == "" {
		ev.SessionID = info.str("id")
	}
	ev.Cwd = p.str("cwd")
	if err := p.failed(); err != nil {
		return err
	}
	for _, f := range []fieldReader{p, props, info} {
		if raw, ok := f.obj["parentID"]; ok && jsonType(raw) != "null" && string(raw) != `""` {
			ev.Kind, ev.Reason = KindIgnored, typ+" of a "+reasonChildSession
			return nil
		}
	}
	switch typ {
	case "permission.asked", "permission.updated":
		ev.Kind, ev.Reason = KindBlocked, typ
		// permission.asked names the kind in "permission", the older
		// permission.updated in "type" (e.g. "bash", "edit").
		ev.Tool = props.str("permission")
		if ev.Tool == "" {
			ev.Tool = props.str("type")
		}
		ev.Detail = toolDetail(props.opt("metadata"))
		if ev.Detail == "" {
			ev.Detail = props.str("title")
		}
		if ev.Detail == "" {
			ev.Detail = strings.Join(strs(props.obj["patterns"], props.obj["pattern"]), " ")
		}
	case "question.asked":
		ev.Kind, ev.Reason = KindBlocked, typ
		ev.Tool = "question"
		ev.Detail = toolDetail(props)
	case "session.idle":
		ev.Kind, ev.Reason = KindFinished, typ
	default:
		ignoreEvent(ev, typ)
	}
	return p.failed()
}

// strs reads the first of raws that is a string or an array of strings.
func strs(raws ...json.RawMessage) []string {
	for _, raw := range raws {
		var s string
		if json.Unmarshal(raw, &s) == nil && s != "" {
			return []string{s}
		}
		var l []string
		if json.Unmarshal(raw, &l) == nil && len(l) > 0 {
			return l
		}
	}
	return nil
}
