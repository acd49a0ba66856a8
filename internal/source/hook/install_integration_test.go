package hook

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

var testNow = time.Date(2026, 11, 30, 9, 12, 44, 0, time.UTC)

func planIntegration(t *testing.T, agent string, env Env) *Plan {
	t.Helper()
	p, err := PlanIntegration(agent, env)
	if err != nil {
		t.Fatalf("PlanIntegration(%s): %v", agent, err)
	}
	return p
}

func planRemoval(t *testing.T, agent string, env Env) *Plan {
	t.Helper()
	p, err := PlanRemoval(agent, env)
	if err != nil {
		t.Fatalf("PlanRemoval(%s): %v", agent, err)
	}
	return p
}

func apply(t *testing.T, p *Plan) []string {
	t.Helper()
	b, err := p.Apply(testNow)
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	return b
}

func readOr(path, missing string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return missing
	}
	return string(b)
}

// TestIntegrationRoundTrip: install then uninstall gives back the
// original file byte for byte (or no file when there was none), with a
// backup of each state the person had; uninstalling again changes
// nothing. An empty hooks object or event list cannot be told from the
// one attn filled: uninstall takes it too, and a file left as {} goes.
func TestIntegrationRoundTrip(t *testing.T) {
	cases := []struct{ name, agent, rel, original, want string }{
		{"claude with hooks of its own", AgentClaude, ".claude/settings.json", claudeSettings, ""},
		{"claude, tabs, empty hooks", AgentClaude, ".claude/settings.json", "{\n\t\"model\": \"opus\",\n\t\"hooks\": {}\n}\n", "{\n\t\"model\": \"opus\"\n}\n"},
		{"claude, hooks with empty lists", AgentClaude, ".claude/settings.json", "{\n  \"hooks\": {\n    \"Stop\": []\n  }\n}\n", "<none>"},
		{"claude, no hooks", AgentClaude, ".claude/settings.json", "{\n  \"model\": \"opus\"\n}\n", ""},
		{"claude, no file", AgentClaude, ".claude/settings.json", "", ""},
		{"gemini", AgentGemini, ".gemini/settings.json", "{\n  \"general\": {\"vimMode\": true},\n  \"hooks\": {\n    \"BeforeTool\": [{\"matcher\": \"x\", \"hooks\": [{\"type\": \"command\", \"command\": \"guard\"}]}]\n  }\n}\n", ""},
		{"codex, tables", AgentCodex, ".codex/config.toml", "model = \"gpt-5\"\n\n[profiles.fast]\nmodel = \"mini\"\n", ""},
		{"codex, only tables", AgentCodex, ".codex/config.toml", "[profiles.fast]\nmodel = \"mini\"\n", ""},
		{"codex, no file", AgentCodex, ".codex/config.toml", "", ""},
		{"opencode", AgentOpenCode, ".config/opencode/plugins/attn.js", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rel := c.rel
			if c.original == "" {
				rel = ""
			}
			home := writeHome(t, rel, c.original, 0o640)
			env := Env{Home: home}
			path := filepath.Join(home, c.rel)
			p := planIntegration(t, c.agent, env)
			if !p.Changed() {
				t.Fatal("install changes nothing")
			}
			backups := apply(t, p)
			if c.original != "" && (len(backups) != 1 || readOr(backups[0], "") != c.original) {
				t.Fatalf("install backups %v", backups)
			}
			installed := readOr(path, "<none>")
			if st, _ := CheckIntegration(c.agent, env); st.State() != StateInstalled {
				t.Fatalf("status after install: %+v", st)
			}
			if planIntegration(t, c.agent, env).Changed() {
				t.Fatal("second install changes")
			}

			r := planRemoval(t, c.agent, env)
			backups = apply(t, r)
			want := c.original
			if want == "" {
				want = "<none>"
			}
			if c.want != "" {
				want = c.want
			}
			if got := readOr(path, "<none>"); got != want {
				t.Fatalf("after uninstall:\n%s\nwant:\n%s", got, want)
			}
			if len(backups) != len(p.Files) || readOr(backups[0], "") != installed {
				t.Errorf("uninstall backups %v", backups)
			}
			if fi, err := os.Stat(path); err == nil && fi.Mode().Perm() != 0o640 {
				t.Errorf("mode %v, want the original 0640", fi.Mode())
			}
			if st, _ := CheckIntegration(c.agent, env); st.State() != StateNotInstalled {
				t.Errorf("status after uninstall: %+v", st)
			}
			if again := planRemoval(t, c.agent, env); again.Changed() {
				t.Errorf("second uninstall changes: %s", again.Files[0].Diff())
			}
		})
	}
}

// TestUninstallTakesOnlyAttns: hook entries of the person's own — beside
// attn's in one group, before and after it — and another agent's attn
// hook stay, each byte of them.
func TestUninstallTakesOnlyAttns(t *testing.T) {
	before := `{
  "hooks": {
    "Stop": [
      {"hooks": [{"type": "command", "command": "attn hook claude"}, {"type": "command", "command": "say done"}]},
      {"hooks": [{"type": "command", "command": "/usr/local/bin/attn hook claude", "timeout": 5}]}
    ],
    "PermissionRequest": [
      {"matcher": "*", "hooks": [{"type": "command", "command": "attn hook claude"}]},
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "guard"}]}
    ],
    "Notification": [
      {"hooks": [{"type": "command", "command": "attn hook gemini"}]},
      {"hooks": [{"type": "command", "command": "attn hook claude"}]}
    ]
  },
  "model": "opus"
}
`
	want := `{
  "hooks": {
    "Stop": [
      {"hooks": [{"type": "command", "command": "say done"}]}
    ],
    "PermissionRequest": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "guard"}]}
    ],
    "Notification": [
      {"hooks": [{"type": "command", "command": "attn hook gemini"}]}
    ]
  },
  "model": "opus"
}
`
	home := writeHome(t, ".claude/settings.json", before, 0o600)
	p := planRemoval(t, AgentClaude, Env{Home: home})
	if got := string(p.Files[0].After); got != want {
		t.Fatalf("after:\n%s\nwant:\n%s", got, want)
	}
	if p.Files[0].Remove {
		t.Error("a file with settings left is to be removed")
	}
	// A hooks object left empty goes, the comma before it too.
	home = writeHome(t, ".claude/settings.json", `{"model": "opus", "hooks": {"Stop": [{"hooks": [{"command": "attn hook claude"}]}]}}`, 0o600)
	if got := string(planRemoval(t, AgentClaude, Env{Home: home}).Files[0].After); got != `{"model": "opus"}` {
		t.Errorf("one line: %s", got)
	}
	home = writeHome(t, ".claude/settings.json", `{"hooks": {"Stop": [{"hooks": [{"command": "attn hook claude"}]}]}, "model": "opus"}`, 0o600)
	if got := string(planRemoval(t, AgentClaude, Env{Home: home}).Files[0].After); got != `{"model": "opus"}` {
		t.Errorf("first member: %s", got)
	}
}

// TestIntegrationRefuses: a file attn cannot parse stops the whole plan,
// install or uninstall, before anything is written.
func TestIntegrationRefuses(t *testing.T) {
	cases := []struct {
		name, agent, rel, content, says string
		remove                          bool
	}{
		{"claude install, not JSON", AgentClaude, ".claude/settings.json", "{ // mine\n}", "not valid JSON", false},
		{"claude uninstall, not JSON", AgentClaude, ".claude/settings.json", "{ // mine\n}", "`attn integration uninstall claude` again", true},
		{"gemini uninstall, an array", AgentGemini, ".gemini/settings.json", "[]", "JSON array, not an object", true},
		{"codex install, another notify", AgentCodex, ".codex/config.toml", "notify = [\"say\"]\n", "Codex runs only one notify program", false},
		{"codex uninstall, unterminated", AgentCodex, ".codex/config.toml", "x = \"\"\"\n", "unterminated", true},
		{"codex install, bad hooks.json", AgentCodex, ".codex/hooks.json", "{", "hooks.json is not valid JSON", false},
		{"opencode install, someone else's plugin", AgentOpenCode, ".config/opencode/plugins/attn.js", "export const Mine = 1\n", "was not written by attn", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			home := writeHome(t, c.rel, c.content, 0o600)
			f := PlanIntegration
			if c.remove {
				f = PlanRemoval
			}
			_, err := f(c.agent, Env{Home: home})
			if err == nil || !strings.Contains(err.Error(), c.says) || !strings.Contains(err.Error(), "attn leaves") {
				t.Fatalf("error %v, want one saying %q and that attn leaves the file alone", err, c.says)
			}
			if got := readOr(filepath.Join(home, c.rel), ""); got != c.content {
				t.Errorf("file touched: %q", got)
			}
			entries, _ := os.ReadDir(filepath.Dir(filepath.Join(home, c.rel)))
			if len(entries) != 1 {
				t.Errorf("%d files beside it, want none written", len(entries)-1)
			}
		})
	}
	// Uninstall leaves someone else's plugin and notify alone, saying
	// nothing needs doing.
	home := writeHome(t, ".config/opencode/plugins/attn.js", "export const Mine = 1\n", 0o600)
	if p := planRemoval(t, AgentOpenCode, Env{Home: home}); p.Changed() {
		t.Error("uninstall would remove someone else's plugin")
	}
	home = writeHome(t, ".codex/config.toml", "notify = [\"say\"]\n", 0o600)
	if p := planRemoval(t, AgentCodex, Env{Home: home}); p.Changed() {
		t.Error("uninstall would change another notify")
	}
}

func TestIntegrationCodex(t *testing.T) {
	home := writeHome(t, ".codex/hooks.json", `{"description": "mine", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]}}`, 0o600)
	env := Env{Home: home}
	p := planIntegration(t, AgentCodex, env)
	if len(p.Files) != 2 || p.Files[0].Display != "~/.codex/config.toml" || p.Files[1].Display != "~/.codex/hooks.json" {
		t.Fatalf("files %+v", p.Files)
	}
	m := generic(t, p.Files[1].After)
	if got := attnHooks(t, m, AgentCodex); !reflect.DeepEqual(got, map[string]int{"PermissionRequest": 1}) {
		t.Errorf("attn hooks %v", got)
	}
	group := m["hooks"].(map[string]any)["PermissionRequest"].([]any)[0].(map[string]any)
	if _, ok := group["matcher"]; ok || m["description"] != "mine" {
		t.Errorf("hooks.json:\n%s", p.Files[1].After)
	}
	if notes := p.Notes(); len(notes) != 2 || !strings.Contains(notes[1], "/hooks") {
		t.Errorf("notes %q", notes)
	}
	apply(t, p)
	st, err := CheckIntegration(AgentCodex, env)
	if err != nil || st.State() != StateInstalled || len(st.Needs) != 1 || !strings.Contains(st.Needs[0], "trust") {
		t.Errorf("status %+v, %v", st, err)
	}
	// Hooks turned off under [features] are named.
	cfg := filepath.Join(home, ".codex", "config.toml")
	os.WriteFile(cfg, []byte(readOr(cfg, "")+"\n[features]\ncodex_hooks = false\n"), 0o600)
	st, _ = CheckIntegration(AgentCodex, env)
	if len(st.Needs) != 2 || !strings.Contains(st.Needs[0], "codex_hooks = false under [features]") {
		t.Errorf("needs %q", st.Needs)
	}
}

func TestIntegrationStatus(t *testing.T) {
	t.Run("claude partly", func(t *testing.T) {
		home := writeHome(t, ".claude/settings.json", `{"hooks":{"Stop":[{"hooks":[{"command":"attn hook claude"}]}]}}`, 0o600)
		st, err := CheckIntegration(AgentClaude, Env{Home: home})
		want := []FileStatus{{Display: "~/.claude/settings.json", Contents: "hooks PermissionRequest, Notification, Stop → `attn hook claude`",
			State: StatePartial, Detail: "missing PermissionRequest, Notification"}}
		if err != nil || !reflect.DeepEqual(st.Files, want) || st.State() != StatePartial ||
			!reflect.DeepEqual(st.Needs, []string{"Run `attn integration install claude` to complete it."}) {
			t.Errorf("status %+v, %v", st, err)
		}
	})
	t.Run("claude unreadable", func(t *testing.T) {
		home := writeHome(t, ".claude/settings.json", "{,}", 0o600)
		st, _ := CheckIntegration(AgentClaude, Env{Home: home})
		if st.State() != StateUnreadable || st.Files[0].State != StateUnreadable || !strings.Contains(st.Files[0].Detail, "not valid JSON") || !strings.Contains(st.Needs[0], "Fix (or move away)") {
			t.Errorf("status %+v", st)
		}
	})
	t.Run("claude hooks of the wrong shape", func(t *testing.T) {
		for settings, says := range map[string]string{
			`{"hooks":"str"}`:               `"hooks" is a JSON string, not an object`,
			`{"hooks":{"Stop":"notalist"}}`: "hooks.Stop is a JSON string, not a list",
		} {
			home := writeHome(t, ".claude/settings.json", settings, 0o600)
			st, _ := CheckIntegration(AgentClaude, Env{Home: home})
			if st.State() != StateUnreadable || !strings.Contains(st.Files[0].Detail, says) || !strings.Contains(st.Needs[0], "Fix (or move away)") {
				t.Errorf("%s: status %+v: want unreadable, as install refuses it", settings, st)
			}
		}
	})
	t.Run("gemini flags", func(t *testing.T) {
		for _, c := range []struct{ settings, need string }{
			{`{}`, `need "hooksConfig": {"enabled": true}`},
			{`{"hooksConfig": {"enabled": false}}`, `turned off ("hooksConfig": {"enabled": false}`},
			{`{"tools": {"enableHooks": false}}`, `turned off ("tools": {"enableHooks": false}`},
			{`{"hooksConfig": {"enabled": true, "disabled": ["attn"]}}`, `take "attn" out of hooksConfig.disabled`},
		} {
			home := writeHome(t, ".gemini/settings.json", c.settings, 0o600)
			st, _ := CheckIntegration(AgentGemini, Env{Home: home})
			if len(st.Needs) != 2 || !strings.Contains(st.Needs[1], c.need) {
				t.Errorf("%s: needs %q", c.settings, st.Needs)
			}
		}
		home := writeHome(t, ".gemini/settings.json", `{"hooksConfig": {"enabled": true}}`, 0o600)
		st, _ := CheckIntegration(AgentGemini, Env{Home: home})
		if !reflect.DeepEqual(st.Needs, []string{"Run `attn integration install gemini`."}) {
			t.Errorf("needs %q", st.Needs)
		}
	})
	t.Run("opencode", func(t *testing.T) {
		home := writeHome(t, ".config/opencode/plugins/attn.js", "// attn-opencode-plugin v0\n", 0o600)
		st, _ := CheckIntegration(AgentOpenCode, Env{Home: home})
		if st.Files[0].State != StatePartial || !strings.Contains(st.Files[0].Detail, "older or edited copy") {
			t.Errorf("status %+v", st)
		}
		// An older copy is replaced, and backed up.
		backups := apply(t, planIntegration(t, AgentOpenCode, Env{Home: home}))
		if len(backups) != 1 || readOr(backups[0], "") != "// attn-opencode-plugin v0\n" {
			t.Errorf("backups %v", backups)
		}
		xdg := t.TempDir()
		st, _ = CheckIntegration(AgentOpenCode, Env{Home: home, ConfigHome: xdg})
		if st.Files[0].Display != xdg+"/opencode/plugins/attn.js" || st.Files[0].State != StateNotInstalled {
			t.Errorf("with XDG_CONFIG_HOME: %+v", st)
		}
	})
	if _, err := CheckIntegration("aider", Env{Home: t.TempDir()}); err == nil {
		t.Error("aider accepted")
	}
}

// TestOpenCodePlugin runs the plugin in node with a fake `attn` on PATH
// that records what it is handed: the blocked and idle events of the
// person's session arrive, with the directory; a child session's, known
// from session.created or asked of the client, do not; other events do
// not.
func TestOpenCodePlugin(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is not installed (scripts/test installs it): the plugin runs in OpenCode's Bun, node stands in for it")
	}
	dir := t.TempDir()
	plugin := filepath.Join(dir, "attn.mjs")
	os.WriteFile(plugin, OpenCodePlugin, 0o600)
	out := filepath.Join(dir, "got")
	bin := filepath.Join(dir, "bin")
	os.Mkdir(bin, 0o700)
	os.WriteFile(filepath.Join(bin, "attn"), []byte("#!/bin/sh\n{ echo \"$*\"; cat; echo; } >> "+out+"\n"), 0o700)
	script := `
import { AttnPlugin } from "./attn.mjs";
const client = { session: { get: async ({ path }) => ({ data: { id: path.id, parentID: path.id === "ses_sub2" ? "ses_main" : undefined } }) } };
const hooks = await AttnPlugin({ client, directory: "/work/api" });
const ev = (type, properties) => hooks.event({ event: { type, properties } });
await ev("session.created", { info: { id: "ses_sub1", parentID: "ses_main" } });
await ev("permission.asked", { id: "per_1", sessionID: "ses_sub1", permission: "bash" });
await ev("permission.asked", { id: "per_2", sessionID: "ses_main", permission: "bash" });
await ev("session.idle", { sessionID: "ses_sub2" });
await ev("message.updated", { sessionID: "ses_main" });
await ev("question.asked", { sessionID: "ses_main" });
await ev("session.idle", { sessionID: "ses_main" });
`
	os.WriteFile(filepath.Join(dir, "run.mjs"), []byte(script), 0o600)
	cmd := exec.Command(node, "run.mjs")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"))
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("node: %v\n%s", err, b)
	}
	want := `hook opencode
{"type":"permission.asked","properties":{"id":"per_2","sessionID":"ses_main","permission":"bash"},"cwd":"/work/api"}
hook opencode
{"type":"question.asked","properties":{"sessionID":"ses_main"},"cwd":"/work/api"}
hook opencode
{"type":"session.idle","properties":{"sessionID":"ses_main"},"cwd":"/work/api"}
`
	if got := readOr(out, ""); got != want {
		t.Fatalf("attn was handed:\n%s\nwant:\n%s", got, want)
	}
	// What it forwards, attn reads.
	lines := strings.Split(strings.TrimSpace(want), "\n")
	var kinds []Kind
	for i := 1; i < len(lines); i += 2 {
		ev, err := Parse(AgentOpenCode, []byte(lines[i]), nil, testNow)
		if err != nil {
			t.Fatalf("Parse(%s): %v", lines[i], err)
		}
		if ev.Cwd != "/work/api" || ev.SessionID != "ses_main" {
			t.Errorf("event %+v", ev)
		}
		kinds = append(kinds, ev.Kind)
	}
	if !reflect.DeepEqual(kinds, []Kind{KindBlocked, KindBlocked, KindFinished}) {
		t.Errorf("kinds %v", kinds)
	}
}
