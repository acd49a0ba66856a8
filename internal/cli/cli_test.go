package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/attn-dev/attn/internal/fixtures"
)

func run(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(context.Background(), append([]string{"attn"}, args...), Stdio{In: strings.NewReader(stdin), Out: &out, Err: &errb})
	return code, out.String(), errb.String()
}

func TestHelpEverywhere(t *testing.T) {
	for _, cmd := range [][]string{{"--help"}, {"serve", "--help"}, {"notify", "--help"}, {"devices", "--help"}, {"detect", "--help"}} {
		code, out, _ := run(t, "", cmd...)
		if code != 0 || !strings.Contains(out, "USAGE") {
			t.Errorf("attn %v: code %d, output %q", cmd, code, out)
		}
	}
	_, out, _ := run(t, "", "serve", "--help")
	for _, env := range []string{"ATTN_LISTEN", "ATTN_STATE_DIR", "ATTN_TMUX_SOCKET", "ATTN_POLL", "ATTN_SETTLE",
		"ATTN_PUSH_CONTACT", "ATTN_ALLOW_INSECURE_PUSH_ENDPOINTS", "ATTN_RECORD_SIZE"} {
		if !strings.Contains(out, env) {
			t.Errorf("serve --help does not name %s", env)
		}
	}
}

func TestDetectPrintsFixtureShape(t *testing.T) {
	dir := filepath.Join(fixtures.Dir(t), "screens")
	code, out, errOut := run(t, "", "detect", "--title", "✳ Claude Code", filepath.Join(dir, "claude-bash-permission.txt"))
	if code != 0 {
		t.Fatalf("code %d: %s", code, errOut)
	}
	var got struct {
		Agent    string `json:"agent"`
		Status   string `json:"status"`
		Question struct {
			Prompt      string   `json:"prompt"`
			Options     []string `json:"options"`
			AnswerStyle string   `json:"answer_style"`
			Selected    int      `json:"selected"`
		} `json:"question"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("output %q: %v", out, err)
	}
	if got.Agent != "claude" || got.Status != "blocked" || got.Question.Prompt != "Do you want to proceed?" ||
		strings.Join(got.Question.Options, "|") != "Yes|Yes, and always allow access to scratch/ from this project|No" ||
		got.Question.AnswerStyle != "menu" || got.Question.Selected != 0 {
		t.Fatalf("detect = %+v", got)
	}
	// The same screen on standard input.
	screen, _ := os.ReadFile(filepath.Join(dir, "shell-prompt.txt"))
	code, out, _ = run(t, string(screen), "detect")
	if code != 0 || !strings.Contains(out, `"status": "unknown"`) || !strings.Contains(out, `"agent": ""`) {
		t.Fatalf("stdin: code %d, %q", code, out)
	}
}

func TestUsageErrors(t *testing.T) {
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"detect", "a", "b"}, 2, "at most one FILE"},
		{[]string{"detect", "/nonexistent/screen.txt"}, 1, "open screen"},
		{[]string{"notify", "   "}, 2, "message is empty"},
		{[]string{"serve", "--listen", "0.0.0.0:1", "--state-dir", "/nonexistent-attn"}, 1, "loopback only"},
		{[]string{"serve", "--push-contact", "mailto:me@box.local", "--state-dir", "/nonexistent-attn"}, 1, "BadJwtToken"},
		{[]string{"serve", "--log-level", "loud"}, 2, "--log-level"},
		{[]string{"serve", "--poll", "soon"}, 1, "poll"},
		{[]string{"nosuch"}, 1, "nosuch"},
	}
	for _, tc := range cases {
		code, _, errOut := run(t, "", tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("attn %v: code %d, stderr %q; want code %d mentioning %q", tc.args, code, errOut, tc.code, tc.want)
		}
	}
}

func TestEnvTwin(t *testing.T) {
	t.Setenv("ATTN_LISTEN", "0.0.0.0:9")
	code, _, errOut := run(t, "", "serve", "--state-dir", t.TempDir())
	if code != 1 || !strings.Contains(errOut, `--listen "0.0.0.0:9"`) {
		t.Fatalf("code %d, stderr %q: ATTN_LISTEN not used", code, errOut)
	}
}

func TestClientWithoutToken(t *testing.T) {
	t.Setenv("ATTN_TOKEN", "")
	code, _, errOut := run(t, "", "devices", "--state-dir", t.TempDir())
	if code != 1 || !strings.Contains(errOut, "cannot read the API token") || !strings.Contains(errOut, "ATTN_TOKEN") {
		t.Fatalf("code %d, stderr %q", code, errOut)
	}
}
