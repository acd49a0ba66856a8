package hook

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fixturesDir finds ../shared/fixtures/hooks: $ATTN_FIXTURES/hooks, else by
// walking up from the working directory. It fails, never skips.
func fixturesDir(t *testing.T) string {
	t.Helper()
	if d := os.Getenv("ATTN_FIXTURES"); d != "" {
		p := filepath.Join(d, "hooks")
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("ATTN_FIXTURES=%s: %v (want the shared/fixtures directory)", d, err)
		}
		return p
	}
	dir, _ := os.Getwd()
	for ; dir != filepath.Dir(dir); dir = filepath.Dir(dir) {
		p := filepath.Join(dir, "shared", "fixtures", "hooks")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	t.Fatal("shared/fixtures/hooks not found above the working directory: set ATTN_FIXTURES to the shared/fixtures directory")
	return ""
}

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixturesDir(t), name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var at = time.Date(2026, 11, 30, 9, 12, 44, 0, time.UTC)

// tmuxEnv is a hook's environment inside tmux pane %12.
func tmuxEnv(k string) string {
	return map[string]string{
		"TMUX":          "/tmp/tmux-1000/default,4242,0",
		"TMUX_PANE":     "%12",
		"HERDR_PANE_ID": "w1:p1",
	}[k]
}

// TestFixtures: every payload in shared/fixtures/hooks reads as its README
// says, and no fixture is left untested.
func TestFixtures(t *testing.T) {
	cases := map[string]struct {
		agent   string
		kind    Kind
		reason  string
		tool    string
		detail  string
		session string
	}{
		"claude-permission-request.json":          {AgentClaude, KindBlocked, "PermissionRequest", "Bash", "touch /tmp/scratch/notes.txt", "6f1c2a9e-3b7d-4c1e-9a55-0d2f8e7b1c44"},
		"claude-notification-permission.json":     {AgentClaude, KindBlocked, "Notification/permission_prompt", "Bash", "Claude needs your permission to use Bash", "6f1c2a9e-3b7d-4c1e-9a55-0d2f8e7b1c44"},
		"claude-notification-idle.json":           {AgentClaude, KindReminder, "Notification/idle_prompt", "", "Claude is waiting for your input", "6f1c2a9e-3b7d-4c1e-9a55-0d2f8e7b1c44"},
		"claude-stop.json":                        {AgentClaude, KindFinished, "Stop", "", "All 42 tests pass. The importer now streams rows instead of loading the file.", "6f1c2a9e-3b7d-4c1e-9a55-0d2f8e7b1c44"},
		"claude-subagent-stop.json":               {AgentClaude, KindIgnored, reasonSubagentStop, "", "", "6f1c2a9e-3b7d-4c1e-9a55-0d2f8e7b1c44"},
		"codex-notify-argv.json":                  {AgentCodex, KindFinished, "agent-turn-complete", "", "Done: the importer streams rows; tests pass.", "0199a4e2-5c1d-7f00-b3a1-2e4c9d8f6a10"},
		"codex-permission-request.json":           {AgentCodex, KindBlocked, "PermissionRequest", "Bash", "./bin/migrate up --db ../shared/dev.sqlite", "0199a4e2-5c1d-7f00-b3a1-2e4c9d8f6a10"},
		"gemini-notification-toolpermission.json": {AgentGemini, KindBlocked, "Notification/ToolPermission", "run_shell_command", "npm run build", "b41e6d0c-2a7f-4d9e-8c13-5f0a7e2b9d61"},
		"gemini-after-agent.json":                 {AgentGemini, KindFinished, "AfterAgent", "", "The bundle builds; output is in dist/.", "b41e6d0c-2a7f-4d9e-8c13-5f0a7e2b9d61"},
		"opencode-permission-asked.json":          {AgentOpenCode, KindBlocked, "permission.asked", "bash", "git push origin feature/importer", "ses_01JDX3ZK"},
		"opencode-session-idle.json":              {AgentOpenCode, KindFinished, "session.idle", "", "", "ses_01JDX3ZK"},
	}
	dir := fixturesDir(t)
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures in %s (%v)", dir, err)
	}
	sort.Strings(files)
	for _, f := range files {
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			want, ok := cases[name]
			if !ok {
				t.Fatalf("fixture %s has no expectation here: add it to TestFixtures", name)
			}
			payload, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			ev, err := Parse(want.agent, payload, tmuxEnv, at)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if ev.Agent != want.agent || ev.Kind != want.kind || ev.Reason != want.reason || ev.Tool != want.tool ||
				ev.Detail != want.detail || ev.SessionID != want.session {
				t.Errorf("got agent %q kind %q reason %q tool %q detail %q session %q\nwant %+v",
					ev.Agent, ev.Kind, ev.Reason, ev.Tool, ev.Detail, ev.SessionID, want)
			}
			if ev.Pane != "%12" || ev.TmuxSocket != "/tmp/tmux-1000/default" || ev.HerdrPane != "w1:p1" || !ev.At.Equal(at) {
				t.Errorf("pane %q socket %q herdr %q at %v", ev.Pane, ev.TmuxSocket, ev.HerdrPane, ev.At)
			}
			if want.agent != AgentOpenCode && ev.Cwd != "/home/dev/app" {
				t.Errorf("cwd %q", ev.Cwd)
			}
		})
	}
	for name := range cases {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("expected fixture %s is gone: %v", name, err)
		}
	}
}

// TestBadPayloads: what no agent sends is an error that says what was wrong
// and what attn expects; it never panics.
func TestBadPayloads(t *testing.T) {
	huge := `{"hook_event_name":"Stop","pad":"` + strings.Repeat("x", MaxPayload) + `"}`
	cases := []struct {
		name, agent, payload string
		want                 []string // substrings of the error
	}{
		{"not JSON", AgentClaude, `{"hook_event_name": "Stop"`, []string{"hook payload is not JSON", "expects the agent's hook JSON on stdin"}},
		{"plain text", AgentGemini, "hello", []string{"not JSON"}},
		{"array", AgentClaude, `[{"hook_event_name":"Stop"}]`, []string{"JSON array, not an object"}},
		{"string", AgentOpenCode, `"session.idle"`, []string{"JSON string, not an object"}},
		{"null", AgentClaude, `null`, []string{"JSON null, not an object"}},
		{"no hook_event_name", AgentClaude, `{"session_id":"x","cwd":"/"}`, []string{"no hook_event_name"}},
		{"null hook_event_name", AgentGemini, `{"hook_event_name":null}`, []string{"no hook_event_name"}},
		{"number hook_event_name", AgentClaude, `{"hook_event_name":7}`, []string{`field "hook_event_name" is a JSON number, want a string`}},
		{"object session_id", AgentClaude, `{"hook_event_name":"Stop","session_id":{}}`, []string{`"session_id" is a JSON object`}},
		{"array tool_name", AgentClaude, `{"hook_event_name":"PermissionRequest","tool_name":["Bash"]}`, []string{`"tool_name" is a JSON array`}},
		{"empty", AgentClaude, "  \n", []string{"hook payload is empty"}},
		{"huge", AgentClaude, huge, []string{"larger than attn's limit", "1 MiB"}},
		{"codex argv missing", AgentCodex, "", []string{"no hook payload", "last argument", "notify"}},
		{"codex neither", AgentCodex, `{"thread-id":"t"}`, []string{"no type", "agent-turn-complete", "hook_event_name"}},
		{"opencode no type", AgentOpenCode, `{"properties":{}}`, []string{"no type", "plugin"}},
		{"opencode properties string", AgentOpenCode, `{"type":"session.idle","properties":"x"}`, []string{`"properties" is a JSON string, want an object`}},
		{"opencode sessionID number", AgentOpenCode, `{"type":"session.idle","properties":{"sessionID":1}}`, []string{`"properties.sessionID" is a JSON number`}},
		{"unknown agent", "aider", `{}`, []string{`unknown agent "aider"`, "claude, codex, gemini, opencode"}},
		{"trailing garbage", AgentClaude, `{"hook_event_name":"Stop"} x`, []string{"not JSON"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ev, err := Parse(c.agent, []byte(c.payload), tmuxEnv, at)
			if err == nil {
				t.Fatalf("no error; event %+v", ev)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if len(err.Error()) > 600 {
				t.Errorf("error is %d bytes long", len(err.Error()))
			}
		})
	}
}

func parseOK(t *testing.T, agent, payload string) Event {
	t.Helper()
	ev, err := Parse(agent, []byte(payload), nil, at)
	if err != nil {
		t.Fatalf("Parse(%s, %s): %v", agent, payload, err)
	}
	return ev
}

// TestMeanings: events beyond the fixtures, and the sub-agent and
// background-work rules.
func TestMeanings(t *testing.T) {
	cases := []struct {
		name, agent, payload string
		kind                 Kind
		reason               string // substring
		tool, detail         string
	}{
		{"claude unknown event", AgentClaude, `{"hook_event_name":"PreToolUse","tool_name":"Bash"}`, KindIgnored, "PreToolUse: not an event attn acts on", "", ""},
		{"claude stop with agent_id", AgentClaude, `{"hook_event_name":"Stop","agent_id":"a-1","last_assistant_message":"done"}`, KindIgnored, "sub-agent stop (agent_id a-1)", "", "done"},
		{"claude stop, background running", AgentClaude,
			`{"hook_event_name":"Stop","background_tasks":[{"type":"shell","status":"running"},{"type":"subagent","status":"completed"}]}`,
			KindIgnored, "1 background task(s) still running (shell): the turn is paused", "", ""},
		{"claude stop, background status unknown", AgentClaude,
			`{"hook_event_name":"Stop","background_tasks":[{"type":"local_bash"},{"id":"x","status":"queued"},7]}`,
			KindIgnored, "3 background task(s) still running (local_bash)", "", ""},
		{"claude stop, background drained", AgentClaude, `{"hook_event_name":"Stop","background_tasks":[]}`, KindFinished, "Stop", "", ""},
		{"claude stop, background all ended", AgentClaude,
			`{"hook_event_name":"Stop","background_tasks":[{"type":"shell","status":"completed"},{"type":"shell","status":"Killed"}]}`,
			KindFinished, "Stop", "", ""},
		{"claude stop, background odd shape", AgentClaude, `{"hook_event_name":"Stop","background_tasks":{"n":1}}`, KindFinished, "Stop", "", ""},
		{"claude stop, background null", AgentClaude, `{"hook_event_name":"Stop","background_tasks":null}`, KindFinished, "Stop", "", ""},
		{"claude permission request of a sub-agent", AgentClaude,
			`{"hook_event_name":"PermissionRequest","agent_id":"a-1","tool_name":"Write","tool_input":{"file_path":"/tmp/x","content":"…"}}`,
			KindBlocked, "PermissionRequest", "Write", "/tmp/x"},
		{"claude ask user question", AgentClaude,
			`{"hook_event_name":"PermissionRequest","tool_name":"AskUserQuestion","tool_input":{"questions":[{"question":"Which DB?","options":[]}]}}`,
			KindBlocked, "PermissionRequest", "AskUserQuestion", "Which DB?"},
		{"claude tool_input of another shape", AgentClaude, `{"hook_event_name":"PermissionRequest","tool_name":"X","tool_input":"raw"}`, KindBlocked, "PermissionRequest", "X", ""},
		{"claude auth_success", AgentClaude, `{"hook_event_name":"Notification","notification_type":"auth_success","message":"ok"}`, KindIgnored, "Notification/auth_success: not an attention signal", "", "ok"},
		{"claude elicitation", AgentClaude, `{"hook_event_name":"Notification","notification_type":"elicitation_dialog","message":"MCP server asks"}`, KindBlocked, "Notification/elicitation_dialog", "", "MCP server asks"},
		{"claude old permission notification", AgentClaude, `{"hook_event_name":"Notification","message":"Claude needs your permission to use Write"}`, KindBlocked, "Notification/permission_prompt", "Write", "Claude needs your permission to use Write"},
		{"claude old idle notification", AgentClaude, `{"hook_event_name":"Notification","message":"Claude is waiting for your input"}`, KindReminder, "Notification/idle_prompt", "", "Claude is waiting for your input"},
		{"claude unknown notification", AgentClaude, `{"hook_event_name":"Notification","message":"something"}`, KindIgnored, "(no notification_type)", "", "something"},
		{"codex other notify type", AgentCodex, `{"type":"approval-requested","thread-id":"t"}`, KindIgnored, "approval-requested: not an event attn acts on", "", ""},
		{"codex hook stop", AgentCodex, `{"hook_event_name":"Stop","session_id":"s","last_assistant_message":"ok"}`, KindFinished, "Stop", "", "ok"},
		{"codex hook other", AgentCodex, `{"hook_event_name":"PreToolUse"}`, KindIgnored, "PreToolUse", "", ""},
		{"gemini other notification", AgentGemini, `{"hook_event_name":"Notification","notification_type":"Other","message":"m"}`, KindIgnored, "Notification/Other", "", "m"},
		{"gemini tool permission without details", AgentGemini, `{"hook_event_name":"Notification","notification_type":"ToolPermission","message":"Tool write_file requires editing"}`, KindBlocked, "ToolPermission", "write_file", "Tool write_file requires editing"},
		{"gemini before tool", AgentGemini, `{"hook_event_name":"BeforeTool","tool_name":"x"}`, KindIgnored, "BeforeTool", "", ""},
		{"opencode permission.updated", AgentOpenCode, `{"type":"permission.updated","properties":{"type":"edit","title":"Edit src/a.go","sessionID":"s"}}`, KindBlocked, "permission.updated", "edit", "Edit src/a.go"},
		{"opencode permission.asked, new shape", AgentOpenCode, `{"type":"permission.asked","properties":{"permission":"bash","patterns":["rm *"],"sessionID":"s"}}`, KindBlocked, "permission.asked", "bash", "rm *"},
		{"opencode question", AgentOpenCode, `{"type":"question.asked","properties":{"sessionID":"s","questions":[{"question":"Ship it?","header":"h"}]}}`, KindBlocked, "question.asked", "question", "Ship it?"},
		{"opencode child session idle", AgentOpenCode, `{"type":"session.idle","properties":{"sessionID":"s2","parentID":"s1"}}`, KindIgnored, "session.idle of a child session", "", ""},
		{"opencode child via info", AgentOpenCode, `{"type":"permission.asked","properties":{"info":{"id":"s2","parentID":"s1"}}}`, KindIgnored, "child session", "", ""},
		{"opencode child at top level", AgentOpenCode, `{"type":"session.idle","parentID":"s1","properties":{}}`, KindIgnored, "child session", "", ""},
		{"opencode empty parentID", AgentOpenCode, `{"type":"session.idle","properties":{"sessionID":"s","parentID":""}}`, KindFinished, "session.idle", "", ""},
		{"opencode other", AgentOpenCode, `{"type":"message.updated","properties":{}}`, KindIgnored, "message.updated: not an event attn acts on", "", ""},
		{"opencode no properties", AgentOpenCode, `{"type":"session.idle"}`, KindFinished, "session.idle", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ev := parseOK(t, c.agent, c.payload)
			if ev.Kind != c.kind || !strings.Contains(ev.Reason, c.reason) || ev.Tool != c.tool || ev.Detail != c.detail {
				t.Errorf("got kind %q reason %q tool %q detail %q; want %q, %q, %q, %q", ev.Kind, ev.Reason, ev.Tool, ev.Detail, c.kind, c.reason, c.tool, c.detail)
			}
			if ev.Pane != "" || ev.TmuxSocket != "" || ev.HerdrPane != "" {
				t.Errorf("nil env gave a pane: %+v", ev)
			}
		})
	}
}

func TestPaneFromEnv(t *testing.T) {
	cases := []struct {
		env                 map[string]string
		pane, socket, herdr string
	}{
		{map[string]string{"TMUX": "/tmp/tmux-1000/work,99,3", "TMUX_PANE": "%0"}, "%0", "/tmp/tmux-1000/work", ""},
		{map[string]string{"TMUX_PANE": "12"}, "", "", ""},                         // not a pane id
		{map[string]string{"TMUX_PANE": "%12; rm -rf /"}, "", "", ""},              // not a pane id
		{map[string]string{"TMUX": "/s/p"}, "", "/s/p", ""},                        // no commas
		{map[string]string{"HERDR_PANE_ID": "w2:p7"}, "", "", "w2:p7"},             // herdr only
		{map[string]string{"HERDR_PANE_ID": "w\x1b[2J"}, "", "", ""},               // control characters
		{map[string]string{"HERDR_PANE_ID": strings.Repeat("w", 129)}, "", "", ""}, // too long
	}
	for _, c := range cases {
		pane, socket, herdr := PaneFromEnv(func(k string) string { return c.env[k] })
		if pane != c.pane || socket != c.socket || herdr != c.herdr {
			t.Errorf("%v: got %q %q %q", c.env, pane, socket, herdr)
		}
	}
	if p, s, h := PaneFromEnv(nil); p+s+h != "" {
		t.Errorf("nil env: %q %q %q", p, s, h)
	}
}

// TestDetailIsOneShortLine: a long, multi-line command becomes one line
// of at most MaxDetail characters.
func TestDetailIsOneShortLine(t *testing.T) {
	cmd := "for f in *.go; do\n\tgofmt -l \"$f\"\ndone\r\n" + strings.Repeat("é", 300) + "\x1b[31m"
	b, _ := json.Marshal(map[string]any{"hook_event_name": "PermissionRequest", "tool_name": "Bash", "tool_input": map[string]string{"command": cmd}})
	ev := parseOK(t, AgentClaude, string(b))
	if strings.ContainsAny(ev.Detail, "\n\r\t\x1b") {
		t.Errorf("detail has control characters: %q", ev.Detail)
	}
	if n := len([]rune(ev.Detail)); n != MaxDetail || !strings.HasSuffix(ev.Detail, "…") {
		t.Errorf("detail is %d runes: %q", n, ev.Detail)
	}
	if !strings.HasPrefix(ev.Detail, `for f in *.go; do gofmt -l "$f" done éé`) {
		t.Errorf("detail %q", ev.Detail)
	}
}

// writeTranscript writes JSON Lines and returns a Stop payload naming them.
func writeTranscript(t *testing.T, lines ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "session.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(map[string]any{"hook_event_name": "Stop", "transcript_path": path, "stop_hook_active": false})
	return string(b)
}

// Transcript entries as Claude Code writes them.
const (
	tPrompt   = `{"type":"user","message":{"role":"user","content":"make the importer stream rows"}}`
	tPrompt2  = `{"type":"user","message":{"role":"user","content":[{"type":"text","text":"now run the tests"}]}}`
	tToolUse  = `{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}}]}}`
	tResult   = `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}}`
	tSaid     = `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Done."}]}}`
	tNotice   = `{"type":"user","message":{"role":"user","content":"<task-notification>\n<task-id>b1</task-id>\n<status>completed</status>\n</task-notification>"}}`
	tNotice2  = `{"type":"user","origin":{"kind":"task-notification"},"isMeta":true,"message":{"role":"user","content":"A background agent completed a task"}}`
	tMeta     = `{"type":"user","isMeta":true,"message":{"role":"user","content":"Caveat: the messages below were generated by the user while running local commands."}}`
	tSystem   = `{"type":"system","subtype":"stop_hook_summary","content":"x"}`
	tQueue    = `{"type":"queue-operation","operation":"enqueue","content":"<task-notification>…</task-notification>"}`
	tFeedback = `{"type":"user","message":{"role":"user","content":"Stop hook feedback:\nkeep going"}}`
)

// TestNoticeTurn: on Claude Code without background_tasks, a Stop ending a
// turn that a background task's notice opened is ignored; a person's turn
// stays finished, even when a notice landed in its middle.
func TestNoticeTurn(t *testing.T) {
	cases := []struct {
		name  string
		lines []string
		kind  Kind
	}{
		{"person's turn", []string{tPrompt, tToolUse, tResult, tSaid}, KindFinished},
		{"notice turn", []string{tPrompt, tToolUse, tResult, tSaid, tSystem, tQueue, tNotice, tSaid}, KindIgnored},
		{"notice turn with tools", []string{tPrompt, tSaid, tNotice, tToolUse, tResult, tSaid}, KindIgnored},
		{"notice by origin", []string{tPrompt, tSaid, tNotice2, tSaid}, KindIgnored},
		{"notice mid-turn", []string{tPrompt, tToolUse, tResult, tNotice, tToolUse, tResult, tSaid}, KindFinished},
		{"notice right after a tool call", []string{tPrompt2, tToolUse, tNotice, tResult, tSaid}, KindFinished},
		{"person after a notice", []string{tPrompt, tSaid, tNotice, tSaid, tPrompt2, tSaid}, KindFinished},
		{"person's prompt queued behind a notice", []string{tPrompt, tSaid, tNotice, tPrompt2, tSaid}, KindFinished},
		{"meta and stop feedback skipped", []string{tPrompt, tSaid, tNotice, tMeta, tSaid, tFeedback, tSaid}, KindIgnored},
		{"broken lines", []string{tPrompt, `{"type":"user","message":`, `garbage`, tSaid, tNotice, tSaid}, KindIgnored},
		{"notice first in the session", []string{tNotice, tSaid}, KindIgnored},
		{"empty transcript", nil, KindFinished},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ev := parseOK(t, AgentClaude, writeTranscript(t, c.lines...))
			if ev.Kind != c.kind {
				t.Errorf("kind %q (%s), want %q", ev.Kind, ev.Reason, c.kind)
			}
			if c.kind == KindIgnored && !strings.Contains(ev.Reason, "only handled a background task's notice") {
				t.Errorf("reason %q", ev.Reason)
			}
		})
	}

	t.Run("background_tasks wins over the transcript", func(t *testing.T) {
		p := writeTranscript(t, tPrompt, tSaid, tNotice, tSaid)
		p = strings.Replace(p, `{`, `{"background_tasks":[],`, 1)
		if ev := parseOK(t, AgentClaude, p); ev.Kind != KindFinished {
			t.Errorf("kind %q (%s): the drained Stop after background work is the finished turn", ev.Kind, ev.Reason)
		}
	})
	t.Run("only the tail is read", func(t *testing.T) {
		// A notice turn recorded after more than the tail window of
		// history, the first line in the window cut.
		big := `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"` + strings.Repeat("y", transcriptTail) + `"}]}}`
		if ev := parseOK(t, AgentClaude, writeTranscript(t, tPrompt, big, tSaid, tNotice, tSaid)); ev.Kind != KindIgnored {
			t.Errorf("kind %q (%s)", ev.Kind, ev.Reason)
		}
		// The window holds only a cut line: undetermined, finished.
		if ev := parseOK(t, AgentClaude, writeTranscript(t, tSaid, tNotice, big)); ev.Kind != KindFinished {
			t.Errorf("kind %q (%s)", ev.Kind, ev.Reason)
		}
	})
	t.Run("unreadable transcripts leave the Stop finished, and never block", func(t *testing.T) {
		fifo := filepath.Join(t.TempDir(), "fifo")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Fatal(err)
		}
		for _, path := range []string{fifo, t.TempDir(), "relative/path.jsonl", "/nonexistent/attn/x.jsonl"} {
			b, _ := json.Marshal(map[string]any{"hook_event_name": "Stop", "transcript_path": path})
			done := make(chan Event, 1)
			go func() { ev, _ := Parse(AgentClaude, b, nil, at); done <- ev }()
			select {
			case ev := <-done:
				if ev.Kind != KindFinished {
					t.Errorf("%s: kind %q", path, ev.Kind)
				}
			case <-time.After(2 * time.Second):
				t.Fatalf("%s: Parse blocked", path)
			}
		}
	})
}

// TestEventJSON: the wire form has stable snake_case keys and round-trips.
func TestEventJSON(t *testing.T) {
	ev, err := Parse(AgentClaude, readFixture(t, "claude-permission-request.json"), tmuxEnv, at)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{`"agent":"claude"`, `"kind":"blocked"`, `"pane":"%12"`, `"tmux_socket":"/tmp/tmux-1000/default"`, `"herdr_pane":"w1:p1"`, `"tool":"Bash"`, `"at":"2026-11-30T09:12:44Z"`} {
		if !strings.Contains(string(b), k) {
			t.Errorf("%s lacks %s", b, k)
		}
	}
	var back Event
	if err := json.Unmarshal(b, &back); err != nil || !back.At.Equal(ev.At) {
		t.Fatalf("round trip: %+v, %v", back, err)
	}
	back.At = ev.At
	if back != ev {
		t.Errorf("round trip: %+v, %v", back, err)
	}
}
