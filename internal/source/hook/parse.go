package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// expect is the advice every payload error ends with.
const expect = "attn hook expects the agent's hook JSON on stdin (Codex's notify: as the last argument)"

// Parse reads one hook payload from agent ("claude", "codex", "gemini" or
// "opencode") into an Event stamped with now. env looks up the hook
// process's environment (os.Getenv; nil means an empty environment) for
// the pane: TMUX_PANE, TMUX and HERDR_PANE_ID.
//
// What each payload means (../shared/fixtures/hooks):
//
//   - Claude Code (stdin, hook_event_name):
//     PermissionRequest → blocked;
//     Notification with notification_type permission_prompt → blocked (a
//     backup: it fires about 6 s late, and not always), and
//     elicitation_dialog (an MCP server asks the person) → blocked;
//     idle_prompt → reminder;
//     Stop → finished, except: a payload with agent_id (a sub-agent), a
//     payload whose background_tasks lists work still running (the turn
//     is paused and resumes when that work reports back; the Stop after it
//     drains is the finished one), and, on Claude Code older than
//     v2.1.145 (no background_tasks field), a turn that only handled a
//     background task's notice, read from the end of the transcript named
//     by transcript_path (see noticeTurn) — all ignored with a reason;
//     SubagentStop → ignored.
//   - Codex: the notify program's JSON (type agent-turn-complete) →
//     finished; Codex hooks use Claude Code's shape: PermissionRequest →
//     blocked, Stop → finished.
//   - Gemini CLI: Notification with notification_type ToolPermission →
//     blocked; AfterAgent → finished.
//   - OpenCode (attn's plugin forwards the event object {type,
//     properties}): permission.asked, permission.updated, question.asked →
//     blocked; session.idle → finished; an event of a child session
//     (parentID set, in properties, properties.info or the top level) →
//     ignored.
//
// Any other event is KindIgnored with a Reason, not an error: agents add
// events, and an event attn does not know must never break a hook.
//
// Parse returns an error, saying what was wrong and what attn expects, for
// an unknown agent, an empty payload, one over MaxPayload bytes, one that
// is not a JSON object, one without the field that names its event
// (hook_event_name; Codex notify's and OpenCode's type), or a member attn
// relies on (event name, ids, cwd, tool name, message, properties) of the
// wrong JSON type. Members it only takes details from (tool_input,
// details, metadata, background_tasks) may have any shape.
//
// Parse does no I/O except, for a Claude Code Stop without a
// background_tasks field, reading at most the last 512 KiB of the
// transcript file the payload names; an unreadable transcript leaves the
// Stop finished.
func Parse(agent string, payload []byte, env func(string) string, now time.Time) (Event, error) {
	if !KnownAgent(agent) {
		return Event{}, fmt.Errorf("unknown agent %q: attn hook takes %s", agent, strings.Join(Agents, ", "))
	}
	if len(payload) > MaxPayload {
		return Event{}, fmt.Errorf("hook payload is larger than attn's limit of %d bytes (1 MiB); %s", MaxPayload, expect)
	}
	payload = bytes.TrimSpace(payload)
	if len(payload) == 0 {
		if agent == AgentCodex {
			return Event{}, fmt.Errorf("no hook payload: Codex's notify passes its JSON as the last argument (notify = [\"attn\", \"hook\", \"codex\"] in ~/.codex/config.toml), Codex hooks on stdin")
		}
		return Event{}, fmt.Errorf("hook payload is empty; %s", expect)
	}
	obj, err := object(payload)
	if err != nil {
		return Event{}, err
	}
	ev := Event{Agent: agent, At: now}
	ev.Pane, ev.TmuxSocket, ev.HerdrPane = PaneFromEnv(env)
	p := fields(obj)
	switch agent {
	case AgentClaude:
		err = parseClaude(&ev, p)
	case AgentCodex:
		err = parseCodex(&ev, p)
	case AgentGemini:
		err = parseGemini(&ev, p)
	case AgentOpenCode:
		err = parseOpenCode(&ev, p)
	}
	if err != nil {
		return Event{}, err
	}
	ev.Detail = oneLine(ev.Detail, MaxDetail)
	ev.Tool = oneLine(ev.Tool, 100)
	return ev, nil
}

// object decodes payload as one JSON object, with errors that name what it
// is instead.
func object(payload []byte) (map[string]json.RawMessage, error) {
	if !json.Valid(payload) {
		var v any
		err := json.Unmarshal(payload, &v)
		if err == nil { // cannot happen: Valid and Unmarshal agree
			err = errors.New("invalid JSON")
		}
		return nil, fmt.Errorf("hook payload is not JSON: %v; %s", err, expect)
	}
	if payload[0] != '{' {
		return nil, fmt.Errorf("hook payload is a JSON %s, not an object; %s", jsonType(payload), expect)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(payload, &obj); err != nil {
		return nil, fmt.Errorf("hook payload is not a JSON object: %v; %s", err, expect)
	}
	return obj, nil
}

// jsonType names the JSON type of a valid JSON value.
func jsonType(v []byte) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	default:
		return "number"
	}
}

// fields reads a JSON object's members, collecting the first wrong shape.
type fieldReader struct {
	obj  map[string]json.RawMessage
	path string // "" at the top level, else "properties." etc.
	err  *error
}

func fields(obj map[string]json.RawMessage) fieldReader {
	var err error
	return fieldReader{obj: obj, err: &err}
}

// has reports whether key is present and not null.
func (f fieldReader) has(key string) bool {
	raw, ok := f.obj[key]
	return ok && jsonType(raw) != "null"
}

// str returns a string member; "" when absent or null. A member of another
// type records an error.
func (f fieldReader) str(key string) string {
	raw, ok := f.obj[key]
	if !ok {
		return ""
	}
	var s string
	switch jsonType(raw) {
	case "null":
		return ""
	case "string":
		if err := json.Unmarshal(raw, &s); err == nil {
			return s
		}
	}
	f.wrong(key, "a string", raw)
	return ""
}

// sub returns an object member as a reader; an empty one when absent or
// null, recording an error for another type.
func (f fieldReader) sub(key string) fieldReader {
	out := fieldReader{path: f.path + key + ".", err: f.err}
	raw, ok := f.obj[key]
	if !ok || jsonType(raw) == "null" {
		return out
	}
	if jsonType(raw) != "object" || json.Unmarshal(raw, &out.obj) != nil {
		f.wrong(key, "an object", raw)
	}
	return out
}

// opt returns an object member as a reader, or an empty one when it is
// absent or not an object: for members attn only reads details from, whose
// shape an agent may change without the event losing its meaning.
func (f fieldReader) opt(key string) fieldReader {
	out := fieldReader{path: f.path + key + ".", err: new(error)}
	if raw, ok := f.obj[key]; ok && jsonType(raw) == "object" {
		if json.Unmarshal(raw, &out.obj) != nil {
			out.obj = nil
		}
	}
	return out
}

func (f fieldReader) wrong(key, want string, raw json.RawMessage) {
	if *f.err == nil {
		*f.err = fmt.Errorf("hook payload field %q is a JSON %s, want %s; %s", f.path+key, jsonType(raw), want, expect)
	}
}

// failed returns the first wrong shape met, if any.
func (f fieldReader) failed() error { return *f.err }

// eventName returns the member that names the event, or an error saying it
// is missing.
func (f fieldReader) eventName(key, what string) (string, error) {
	name := f.str(key)
	if err := f.failed(); err != nil {
		return "", err
	}
	if name == "" {
		return "", fmt.Errorf("hook payload has no %s: %s; %s", key, what, expect)
	}
	return name, nil
}

// PaneFromEnv reads where a hook runs from its environment (env looks a
// variable up, as os.Getenv; nil means none is set): pane is $TMUX_PANE
// when it looks like a tmux pane id ("%12"), socket the tmux server's
// socket path (the first comma-separated field of $TMUX), herdr
// $HERDR_PANE_ID (e.g. "w1:p1") when printable and at most 128 bytes.
// Each is "" when absent. Parse fills Event.Pane, TmuxSocket and HerdrPane
// with it.
func PaneFromEnv(env func(string) string) (pane, socket, herdr string) {
	if env == nil {
		return "", "", ""
	}
	if p := strings.TrimSpace(env("TMUX_PANE")); paneID.MatchString(p) {
		pane = p
	}
	if t := env("TMUX"); t != "" {
		// $TMUX is "socket-path,server-pid,session-index".
		socket, _, _ = strings.Cut(t, ",")
	}
	if h := strings.TrimSpace(env("HERDR_PANE_ID")); h != "" && len(h) <= 128 && printable(h) {
		herdr = h
	}
	return pane, socket, herdr
}

var paneID = regexp.MustCompile(`^%[0-9]+$`)

func printable(s string) bool {
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return false
		}
	}
	return utf8.ValidString(s)
}

// oneLine folds whitespace runs to one space, drops control characters and
// cuts s to at most max runes, the last being "…" when cut.
func oneLine(s string, max int) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return ' '
		}
		if unicode.IsControl(r) || r == utf8.RuneError {
			return -1
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return strings.TrimRight(string(r[:max-1]), " ") + "…"
}

// toolDetail picks what a person needs to judge a tool call from its input:
// the command, file, URL or question.
func toolDetail(input fieldReader) string {
	for _, k := range []string{"command", "file_path", "notebook_path", "path", "url", "pattern", "query", "prompt", "description"} {
		raw, ok := input.obj[k]
		if !ok || jsonType(raw) != "string" {
			continue
		}
		var s string
		if json.Unmarshal(raw, &s) == nil && strings.TrimSpace(s) != "" {
			return s
		}
	}
	// AskUserQuestion: {"questions":[{"question": "..."}]}.
	if raw, ok := input.obj["questions"]; ok {
		var qs []struct {
			Question string `json:"question"`
		}
		if json.Unmarshal(raw, &qs) == nil && len(qs) > 0 {
			return qs[0].Question
		}
	}
	return ""
}
