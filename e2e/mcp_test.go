package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpAgent returns the argv of the interactive stand-in for Claude Code
// (a composer that takes pastes and Enter), run as "claude".
func mcpAgent(t *testing.T, title string) []string {
	cmd := agentCommand(t, "claude", title)
	cmd[1] = repoRoot(t) + "/internal/mcp/testdata/agent.sh"
	return cmd
}

// TestMCPOverStdio runs `attn mcp` as an agent CLI would, a subprocess
// speaking MCP on stdio, through the SDK's client; and each tool as a
// shell command.
func TestMCPOverStdio(t *testing.T) {
	tm := startTmux(t)
	api := tm.newWindow(t, "api", mcpAgent(t, "✳ Claude Code")...)
	tm.newWindow(t, "twin", mcpAgent(t, "✳ Claude Code")...)
	tm.newWindow(t, "Twin", mcpAgent(t, "✳ Claude Code")...)
	tm.waitScreen(t, api, "Try")
	d := startDaemonEnv(t, hookStateDir(t), tm.socket, []string{"ATTN_HOSTNAME=titan", "ATTN_REMOTE_HOSTS=off"})
	env := append(os.Environ(), "ATTN_SERVER="+d.base, "ATTN_STATE_DIR="+d.stateDir, "ATTN_TOKEN=", "GORACE=atexit_sleep_ms=0")

	cmd := exec.Command(attnBinary(t), "mcp")
	cmd.Env = append(env, "TMUX_PANE="+api)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "e2e-agent"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 9 {
		t.Fatalf("tools over stdio: %v, %+v", err, tools)
	}
	call := func(tool string, args map[string]any) (map[string]any, bool, string) {
		t.Helper()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		var out map[string]any
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &out)
		var text string
		if len(res.Content) > 0 {
			text = res.Content[0].(*sdk.TextContent).Text
		}
		return out, res.IsError, text
	}
	// whoami finds the calling agent from its $TMUX_PANE.
	if out, isErr, text := call("whoami", nil); isErr || out["found"] != true || out["agent"].(map[string]any)["id"] != "titan/"+api {
		t.Fatalf("whoami: %v %s", out, text)
	}
	if out, _, _ := call("list_hosts", nil); out["active"] != "titan" {
		t.Fatalf("list_hosts: %v", out)
	}
	if out, isErr, text := call("send_agent", map[string]any{"to": "api", "message": "over stdio"}); isErr || out["sent"] != true {
		t.Fatalf("send_agent: %v %s", out, text)
	}
	tm.waitScreen(t, api, "Last message: over stdio")
	if _, isErr, text := call("get_agent", map[string]any{"to": "twin"}); !isErr || !strings.Contains(text, `"twin" is ambiguous: it matches 2 agents: titan/`) {
		t.Fatalf("ambiguous name: %s", text)
	}
	// No device: notify says so honestly, not as an error.
	if out, isErr, _ := call("notify", map[string]any{"message": "done"}); isErr || out["sent"] != false || out["title"] != "api" {
		t.Fatalf("notify with no device: %v", out)
	}

	// The same tools from a shell.
	shell := func(args ...string) (int, string, string) {
		t.Helper()
		c := exec.Command(attnBinary(t), append([]string{"mcp"}, args...)...)
		c.Env = append(env, "TMUX_PANE=")
		var o, e strings.Builder
		c.Stdout, c.Stderr = &o, &e
		err := c.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return code, o.String(), e.String()
	}
	code, out, errOut := shell("read_agent", "--to", "api", "--source", "visible", "--lines", "3")
	var read map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &read) != nil || read["status"] != "idle" || read["pane_id"] != api ||
		!strings.HasSuffix(read["text"].(string), "\n  ? for shortcuts") {
		t.Fatalf("attn mcp read_agent: %d %s %s", code, out, errOut)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"read_agent", "--to", "api", "--lines", "1001"}, 1, "read_agent refused: lines must be from 1 to 1000 (default 80), got 1001"},
		{[]string{"read_agent"}, 2, "attn mcp read_agent needs --to"},
		{[]string{"get_agent", "--to", "api", "--colour", "red"}, 2, "colour"},
		{[]string{"bogus"}, 2, `unknown tool "bogus"`},
		{[]string{"get_agent", "--to", "nobody"}, 1, `no agent "nobody" on titan`},
		{[]string{"list_agents", "--host", "elsewhere"}, 1, `host "elsewhere" is not one attn can address`},
		{[]string{"notify", "--message", "hi"}, 1, "not delivered"},
	} {
		code, _, errOut := shell(tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("attn mcp %v: exit %d, stderr %q; want exit %d and %q", tc.args, code, errOut, tc.code, tc.want)
		}
	}
	code, out, _ = shell("wait_agent", "--to", "api", "--status", "idle", "--timeout_ms", "5000")
	if code != 0 || !strings.Contains(out, `"matched": true`) {
		t.Fatalf("attn mcp wait_agent: %d %s", code, out)
	}
}
