package hook

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// A person's Claude Code settings with hooks of their own, in their own
// layout.
const claudeSettings = `{
    "model": "opus",
    "permissions": {"allow": ["Bash(ls:*)"], "deny": []},
    "hooks": {
        "Stop": [
            {"hooks": [{"type": "command", "command": "say done", "timeout": 10}]}
        ],
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "~/bin/guard.sh"}]}]
    },
    "env": {"X": "<a&b>", "N": 1.50, "BIG": 12345678901234567890}
}
`

func writeHome(t *testing.T, rel, content string, mode os.FileMode) string {
	t.Helper()
	home := t.TempDir()
	if rel != "" {
		p := filepath.Join(home, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
	}
	return home
}

func plan(t *testing.T, agent, home string) *Install {
	t.Helper()
	in, err := PlanInstall(agent, home)
	if err != nil {
		t.Fatalf("PlanInstall(%s): %v", agent, err)
	}
	return in
}

// generic decodes JSON with encoding/json, numbers kept as written.
func generic(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b)
	}
	return m
}

// attnHooks counts, per event, the hook entries running `attn hook agent`.
func attnHooks(t *testing.T, settings map[string]any, agent string) map[string]int {
	t.Helper()
	out := map[string]int{}
	hooks, _ := settings["hooks"].(map[string]any)
	for event, groups := range hooks {
		for _, g := range groups.([]any) {
			for _, h := range g.(map[string]any)["hooks"].([]any) {
				if isAttnHook(h.(map[string]any)["command"], agent) {
					out[event]++
				}
			}
		}
	}
	return out
}

// TestInstallClaude: attn's three hooks join a settings file with hooks of
// its own; nothing else changes, the original is backed up, and a second
// install changes nothing.
func TestInstallClaude(t *testing.T) {
	home := writeHome(t, ".claude/settings.json", claudeSettings, 0o640)
	path := filepath.Join(home, ".claude", "settings.json")
	in := plan(t, AgentClaude, home)
	if !in.Changed() || in.Display != "~/.claude/settings.json" || in.Path != path {
		t.Fatalf("plan: changed %v, %s, %s", in.Changed(), in.Display, in.Path)
	}
	after := generic(t, in.After)
	before := generic(t, []byte(claudeSettings))
	for _, k := range []string{"model", "permissions", "env"} {
		if !reflect.DeepEqual(after[k], before[k]) {
			t.Errorf("%s changed: %v → %v", k, before[k], after[k])
		}
	}
	hooks := after["hooks"].(map[string]any)
	if !reflect.DeepEqual(hooks["PreToolUse"], before["hooks"].(map[string]any)["PreToolUse"]) {
		t.Errorf("PreToolUse changed: %v", hooks["PreToolUse"])
	}
	stop := hooks["Stop"].([]any)
	if len(stop) != 2 || !reflect.DeepEqual(stop[0], before["hooks"].(map[string]any)["Stop"].([]any)[0]) {
		t.Errorf("Stop: %v", stop)
	}
	if got := attnHooks(t, after, AgentClaude); !reflect.DeepEqual(got, map[string]int{"PermissionRequest": 1, "Notification": 1, "Stop": 1}) {
		t.Errorf("attn hooks: %v", got)
	}
	perm := hooks["PermissionRequest"].([]any)[0].(map[string]any)
	entry := perm["hooks"].([]any)[0].(map[string]any)
	if perm["matcher"] != "*" || entry["type"] != "command" || entry["command"] != "attn hook claude" || entry["timeout"] != json.Number("5") {
		t.Errorf("PermissionRequest entry: %v", perm)
	}
	if _, ok := stop[1].(map[string]any)["matcher"]; ok {
		t.Errorf("Stop entry has a matcher: %v", stop[1])
	}
	// Only insertions: each removed line comes back, with a comma.
	diff := in.Diff()
	if !strings.HasPrefix(diff, "--- ~/.claude/settings.json\n+++ ~/.claude/settings.json\n@@ ") {
		t.Errorf("diff header:\n%s", diff)
	}
	for _, l := range strings.Split(diff, "\n") {
		if strings.HasPrefix(l, "-") && !strings.HasPrefix(l, "---") && !strings.Contains(diff, "\n+"+l[1:]+",\n") {
			t.Errorf("diff drops %q:\n%s", l, diff)
		}
	}
	if !strings.Contains(string(in.After), `"env": {"X": "<a&b>", "N": 1.50, "BIG": 12345678901234567890}`) {
		t.Errorf("untouched lines were rewritten:\n%s", in.After)
	}

	now := time.Date(2026, 11, 30, 9, 12, 44, 0, time.UTC)
	backup, err := in.Apply(now)
	if err != nil {
		t.Fatal(err)
	}
	if backup != path+".attn-backup-20261130T091244" {
		t.Errorf("backup %s", backup)
	}
	if b, _ := os.ReadFile(backup); string(b) != claudeSettings {
		t.Errorf("backup holds %q", b)
	}
	if b, _ := os.ReadFile(path); string(b) != string(in.After) {
		t.Error("the file is not what the plan said")
	}
	for _, p := range []string{path, backup} {
		if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o640 {
			t.Errorf("%s mode %v, want the original 0640", p, fi.Mode())
		}
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 2 {
		t.Errorf("%d files beside the settings, want the file and its backup", len(entries))
	}

	again := plan(t, AgentClaude, home)
	if again.Changed() || again.Diff() != "" {
		t.Errorf("second install changes:\n%s", again.Diff())
	}
	if b, err := again.Apply(now); b != "" || err != nil {
		t.Errorf("second Apply: %q, %v", b, err)
	}
	// A backup name taken in the same second gets a suffix.
	os.WriteFile(path, []byte(claudeSettings), 0o640)
	if b, err := plan(t, AgentClaude, home).Apply(now); err != nil || b != backup+"-1" {
		t.Errorf("second backup: %q, %v", b, err)
	}
}

// TestInstallClaudeShapes: missing, empty, one-line and partly installed
// files; files attn must not touch.
func TestInstallClaudeShapes(t *testing.T) {
	t.Run("no file", func(t *testing.T) {
		home := writeHome(t, "", "", 0)
		in := plan(t, AgentClaude, home)
		if in.Exists || !strings.HasPrefix(in.Diff(), "--- /dev/null\n+++ ~/.claude/settings.json\n") {
			t.Errorf("diff:\n%s", in.Diff())
		}
		if _, err := in.Apply(time.Now()); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(home, ".claude", "settings.json")
		fi, err := os.Stat(path)
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("new file: %v, %v", fi, err)
		}
		if dfi, _ := os.Stat(filepath.Dir(path)); dfi.Mode().Perm() != 0o700 {
			t.Errorf("new directory mode %v", dfi.Mode())
		}
		b, _ := os.ReadFile(path)
		if got := attnHooks(t, generic(t, b), AgentClaude); len(got) != 3 {
			t.Errorf("attn hooks %v in\n%s", got, b)
		}
	})
	t.Run("empty file", func(t *testing.T) {
		in := plan(t, AgentClaude, writeHome(t, ".claude/settings.json", "\n", 0o600))
		if got := attnHooks(t, generic(t, in.After), AgentClaude); len(got) != 3 {
			t.Errorf("attn hooks %v", got)
		}
	})
	t.Run("one line", func(t *testing.T) {
		in := plan(t, AgentClaude, writeHome(t, ".claude/settings.json", `{"theme":"dark","hooks":{"Stop":[]}}`, 0o600))
		m := generic(t, in.After)
		if m["theme"] != "dark" || len(attnHooks(t, m, AgentClaude)) != 3 || !strings.HasPrefix(string(in.After), "{\n  \"theme\": \"dark\",\n  \"hooks\": {\n    \"Stop\": [\n") {
			t.Errorf("after:\n%s", in.After)
		}
	})
	t.Run("partly installed", func(t *testing.T) {
		in := plan(t, AgentClaude, writeHome(t, ".claude/settings.json",
			"{\n\t\"hooks\": {\n\t\t\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"/usr/local/bin/attn hook claude\"}]}]\n\t}\n}\n", 0o600))
		got := attnHooks(t, generic(t, in.After), AgentClaude)
		if !reflect.DeepEqual(got, map[string]int{"PermissionRequest": 1, "Notification": 1, "Stop": 1}) {
			t.Errorf("attn hooks %v in\n%s", got, in.After)
		}
		if !strings.Contains(string(in.After), "\n\t\t\"PermissionRequest\": [\n\t\t\t{\n\t\t\t\t\"matcher\"") {
			t.Errorf("the file's tab indentation was not followed:\n%s", in.After)
		}
	})
	t.Run("other agents' attn hooks do not count", func(t *testing.T) {
		in := plan(t, AgentClaude, writeHome(t, ".claude/settings.json", `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"attn hook gemini"}]}]}}`, 0o600))
		if got := attnHooks(t, generic(t, in.After), AgentClaude); got["Stop"] != 1 {
			t.Errorf("attn hooks %v", got)
		}
	})
	refused := []struct{ name, content, says string }{
		{"not JSON", "{\n  \"model\": \"opus\",\n}\n", "line 3"},
		{"comments", "// mine\n{}", "not valid JSON"},
		{"array", `[]`, "JSON array, not an object"},
		{"hooks array", `{"hooks": []}`, `"hooks" in ~/.claude/settings.json is a JSON array`},
		{"hooks null", `{"hooks": null}`, `"hooks" in ~/.claude/settings.json is a JSON null`},
		{"event object", `{"hooks": {"Stop": {}}}`, `"hooks.Stop" in ~/.claude/settings.json is a JSON object, not an array`},
		{"two values", `{} {}`, "more than one JSON value"},
	}
	for _, c := range refused {
		t.Run(c.name, func(t *testing.T) {
			home := writeHome(t, ".claude/settings.json", c.content, 0o600)
			_, err := PlanInstall(AgentClaude, home)
			if err == nil || !strings.Contains(err.Error(), c.says) || !strings.Contains(err.Error(), "attn leaves") {
				t.Errorf("error %v, want one saying %q and that attn leaves the file alone", err, c.says)
			}
		})
	}
}

// TestInstallKeepsSymlinks: a settings file kept by a dotfile manager
// stays a link; its target is edited.
func TestInstallKeepsSymlinks(t *testing.T) {
	home := writeHome(t, "dotfiles/claude.json", claudeSettings, 0o600)
	link := filepath.Join(home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(link), 0o700)
	if err := os.Symlink(filepath.Join(home, "dotfiles", "claude.json"), link); err != nil {
		t.Fatal(err)
	}
	in := plan(t, AgentClaude, home)
	if _, err := in.Apply(time.Now()); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link became %v (%v)", fi.Mode(), err)
	}
	b, _ := os.ReadFile(filepath.Join(home, "dotfiles", "claude.json"))
	if len(attnHooks(t, generic(t, b), AgentClaude)) != 3 {
		t.Errorf("target not edited:\n%s", b)
	}
}

// TestApplyRefusesAChangedFile: an edit made between plan and Apply is not
// overwritten.
func TestApplyRefusesAChangedFile(t *testing.T) {
	home := writeHome(t, ".claude/settings.json", claudeSettings, 0o600)
	in := plan(t, AgentClaude, home)
	path := filepath.Join(home, ".claude", "settings.json")
	os.WriteFile(path, []byte(`{"model":"sonnet"}`), 0o600)
	if _, err := in.Apply(time.Now()); err == nil || !strings.Contains(err.Error(), "changed while attn was editing it") {
		t.Fatalf("Apply: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != `{"model":"sonnet"}` {
		t.Errorf("file overwritten: %s", b)
	}
}

func TestInstallGemini(t *testing.T) {
	home := writeHome(t, ".gemini/settings.json", `{
  "general": {"vimMode": true},
  "hooks": {
    "BeforeTool": [{"matcher": "run_shell_command", "hooks": [{"name": "guard", "type": "command", "command": "guard"}]}]
  }
}
`, 0o600)
	in := plan(t, AgentGemini, home)
	m := generic(t, in.After)
	if got := attnHooks(t, m, AgentGemini); !reflect.DeepEqual(got, map[string]int{"Notification": 1, "AfterAgent": 1}) {
		t.Errorf("attn hooks %v", got)
	}
	entry := m["hooks"].(map[string]any)["AfterAgent"].([]any)[0].(map[string]any)["hooks"].([]any)[0].(map[string]any)
	if entry["timeout"] != json.Number("5000") || entry["name"] != "attn" {
		t.Errorf("entry %v", entry)
	}
	if m["general"].(map[string]any)["vimMode"] != true || len(m["hooks"].(map[string]any)["BeforeTool"].([]any)) != 1 {
		t.Errorf("other settings changed:\n%s", in.After)
	}
	if len(in.Notes) == 0 || !strings.Contains(in.Notes[0], "hooksConfig") {
		t.Errorf("notes %v", in.Notes)
	}
	if _, err := in.Apply(time.Now()); err != nil {
		t.Fatal(err)
	}
	if plan(t, AgentGemini, home).Changed() {
		t.Error("second install changes")
	}
}

func TestInstallCodex(t *testing.T) {
	cases := []struct {
		name, before, after string
	}{
		{"no file", "", "notify = [\"attn\", \"hook\", \"codex\"]\n"},
		{"top-level keys only", "model = \"gpt-5\"\n", "model = \"gpt-5\"\nnotify = [\"attn\", \"hook\", \"codex\"]\n"},
		{"no final newline", "model = \"gpt-5\"", "model = \"gpt-5\"\nnotify = [\"attn\", \"hook\", \"codex\"]\n"},
		{"before the first table",
			"# mine\nmodel = \"gpt-5\"\ninstructions = \"\"\"\n[not a header]\n\"\"\"\nlist = [\n  \"a\", # [x]\n  \"]\",\n]\n\n[mcp_servers.docs]\ncommand = \"docs\"\nnotify = \"not top level\"\n",
			"# mine\nmodel = \"gpt-5\"\ninstructions = \"\"\"\n[not a header]\n\"\"\"\nlist = [\n  \"a\", # [x]\n  \"]\",\n]\n\nnotify = [\"attn\", \"hook\", \"codex\"]\n\n[mcp_servers.docs]\ncommand = \"docs\"\nnotify = \"not top level\"\n"},
		{"only tables", "[profiles.fast]\nmodel = \"mini\"\n", "notify = [\"attn\", \"hook\", \"codex\"]\n\n[profiles.fast]\nmodel = \"mini\"\n"},
		{"already, by path", "notify = [ '/opt/bin/attn', 'hook', 'codex' ]\n", "notify = [ '/opt/bin/attn', 'hook', 'codex' ]\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rel := ".codex/config.toml"
			if c.before == "" {
				rel = ""
			}
			home := writeHome(t, rel, c.before, 0o600)
			in := plan(t, AgentCodex, home)
			if string(in.After) != c.after {
				t.Fatalf("after:\n%s\nwant:\n%s", in.After, c.after)
			}
			if _, err := in.Apply(time.Now()); err != nil {
				t.Fatal(err)
			}
			if again := plan(t, AgentCodex, home); again.Changed() {
				t.Errorf("second install changes:\n%s", again.Diff())
			}
		})
	}
	for _, c := range []struct{ name, before, says string }{
		{"another notify", "notify = [\"notify-send\", \"done\"]\n", `already sets notify = ["notify-send", "done"]`},
		{"unterminated string", "instructions = \"\"\"\nnever closed\n", "unterminated"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := PlanInstall(AgentCodex, writeHome(t, ".codex/config.toml", c.before, 0o600))
			if err == nil || !strings.Contains(err.Error(), c.says) || !strings.Contains(err.Error(), "attn leaves it alone") {
				t.Errorf("error %v", err)
			}
		})
	}
}

func TestInstallOtherAgents(t *testing.T) {
	if in, err := PlanInstall(AgentOpenCode, t.TempDir()); err != nil || !strings.HasSuffix(in.Display, "/opencode/plugins/attn.js") || string(in.After) != string(OpenCodePlugin) {
		t.Errorf("opencode: %+v, %v", in, err)
	}
	if _, err := PlanInstall("aider", t.TempDir()); err == nil || !strings.Contains(err.Error(), "claude, codex, gemini") {
		t.Errorf("aider: %v", err)
	}
	if _, err := PlanInstall(AgentClaude, ""); err == nil {
		t.Error("no home accepted")
	}
}

func TestUnifiedDiff(t *testing.T) {
	a := "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n"
	b := "1\n2\n3\n4\nfive\n6\n7\n8\n9\n10\n11\n12\n13\n"
	want := "--- a\n+++ b\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n@@ -10,3 +10,4 @@\n 10\n 11\n 12\n+13\n"
	if got := unifiedDiff("a", "b", a, b); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if unifiedDiff("a", "b", a, a) != "" {
		t.Error("equal texts differ")
	}
	if got := unifiedDiff("/dev/null", "b", "", "x\n"); got != "--- /dev/null\n+++ b\n@@ -0,0 +1 @@\n+x\n" {
		t.Errorf("new file:\n%s", got)
	}
}
