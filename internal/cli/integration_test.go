package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestIntegrationCommands: install, status and uninstall on a temporary
// home, file by file, with the exit codes; `attn hook install` is the same
// install.
func TestIntegrationCommands(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	settings := filepath.Join(home, ".gemini", "settings.json")
	os.MkdirAll(filepath.Dir(settings), 0o700)
	os.WriteFile(settings, []byte("{ // mine\n}"), 0o600)

	code, out, errOut := run(t, "", "integration", "install", "claude", "gemini", "opencode")
	if code != 1 {
		t.Fatalf("install: exit %d, want 1 for gemini's unreadable file\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{
		"installed attn hook in ~/.claude/settings.json\n",
		"installed attn hook in ~/.config/opencode/plugins/attn.js\n",
		"note: OpenCode loads plugins when it starts",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("install output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errOut, "attn: gemini: ~/.gemini/settings.json is not valid JSON") || !strings.Contains(errOut, "attn: nothing written for gemini (see above)") {
		t.Errorf("install errors:\n%s", errOut)
	}
	if b, _ := os.ReadFile(settings); string(b) != "{ // mine\n}" {
		t.Errorf("gemini settings touched: %s", b)
	}

	code, out, _ = run(t, "", "integration", "status")
	if code != 0 {
		t.Fatalf("status: exit %d", code)
	}
	for _, re := range []string{
		`(?m)^claude: installed$`,
		`(?m)^  ~/\.claude/settings\.json: installed; attn puts hooks PermissionRequest, Notification, Stop → ` + "`attn hook claude`" + ` there$`,
		`(?m)^codex: not installed$`,
		`(?m)^  needs: Run ` + "`attn integration install codex`" + `\.$`,
		`(?m)^gemini: unreadable$`,
		`(?m)^  ~/\.gemini/settings\.json: unreadable \(not valid JSON \(line 1: .*\): attn will not edit it until it is fixed\)`,
		`(?m)^opencode: installed$`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("status lacks %s:\n%s", re, out)
		}
	}

	code, out, _ = run(t, "", "hook", "install", "claude", "--dry-run")
	if code != 0 || out != "~/.claude/settings.json: nothing to change\n" {
		t.Errorf("hook install --dry-run: exit %d\n%s", code, out)
	}

	code, out, errOut = run(t, "", "integration", "uninstall", "claude", "opencode", "codex")
	if code != 0 {
		t.Fatalf("uninstall: exit %d\n%s", code, errOut)
	}
	for _, re := range []string{
		`(?m)^removed ~/\.claude/settings\.json, which held only attn's entries \(the original is in .*settings\.json\.attn-backup-\d{8}T\d{6}\)$`,
		`(?m)^removed ~/\.config/opencode/plugins/attn\.js, which held only attn's entries`,
		`(?m)^nothing of attn's in ~/\.codex/config\.toml: nothing to change$`,
		`(?m)^nothing of attn's in ~/\.codex/hooks\.json: nothing to change$`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("uninstall output lacks %s:\n%s", re, out)
		}
	}
	if _, err := os.Stat(filepath.Join(home, ".config", "opencode", "plugins", "attn.js")); !os.IsNotExist(err) {
		t.Errorf("plugin still there: %v", err)
	}

	for _, args := range [][]string{{"integration", "install"}, {"integration", "install", "aider"}, {"integration", "status", "aider"}} {
		if code, _, errOut := run(t, "", args...); code != 2 || !strings.Contains(errOut, "claude|codex|gemini|opencode") && !strings.Contains(errOut, "claude, codex, gemini, opencode") {
			t.Errorf("attn %v: exit %d, %s", args, code, errOut)
		}
	}
}
