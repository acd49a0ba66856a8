package mcp

import (
	"context"
	"errors"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestProxy(t *testing.T) {
	w := newWorld(t)
	daemon := w.client(t)
	api := w.local.window(t, "api", claude(t, "✳ Claude Code")...)
	w.local.waitScreen(t, api, "Try")
	forward := func(ctx context.Context, tool string, args map[string]any) (*sdk.CallToolResult, error) {
		return daemon.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	}
	env := map[string]string{"TMUX_PANE": api}
	proxy := NewProxy("test", forward, FillFromEnv(func(k string) string { return env[k] }))
	st, ct := sdk.NewInMemoryTransports()
	ss, err := proxy.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "agent"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	// The agent's own pane comes from its environment.
	out := mustCall(t, cs, "whoami", nil)
	if out["found"] != true || out["agent"].(map[string]any)["name"] != "api" {
		t.Fatalf("whoami through the proxy = %s", jsonOf(out))
	}
	mustCall(t, cs, "notify", map[string]any{"message": "hi"})
	w.mu.Lock()
	if len(w.notified) != 1 || w.notified[0].Pane != api {
		t.Errorf("notify through the proxy: %+v", w.notified)
	}
	w.mu.Unlock()
	// The daemon's refusals come through as they are.
	mustRefuse(t, cs, "read_agent", map[string]any{"to": "api", "lines": 5000}, "lines must be from 1 to 1000")
	// A daemon that cannot be reached is a tool error saying so.
	down := NewProxy("test", func(context.Context, string, map[string]any) (*sdk.CallToolResult, error) {
		return nil, errors.New("cannot reach the attn daemon: is `attn serve` running?")
	}, nil)
	st2, ct2 := sdk.NewInMemoryTransports()
	ss2, _ := down.Connect(context.Background(), st2, nil)
	defer ss2.Close()
	cs2, _ := sdk.NewClient(&sdk.Implementation{Name: "agent"}, nil).Connect(context.Background(), ct2, nil)
	defer cs2.Close()
	_, isErr, text := call(t, cs2, "list_hosts", nil)
	if !isErr || !strings.Contains(text, "is `attn serve` running?") {
		t.Fatalf("proxy without daemon: %v %q", isErr, text)
	}
}
