package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Dial connects an MCP client to the daemon's /mcp at endpoint with a
// bearer token (the API token, or a host's credential). The token goes in
// the Authorization header only, never in the URL.
func Dial(ctx context.Context, endpoint, token, version string) (*sdk.ClientSession, error) {
	hc := &http.Client{Transport: bearer{token: token, next: http.DefaultTransport}}
	c := sdk.NewClient(&sdk.Implementation{Name: "attn-cli", Version: version}, nil)
	s, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: endpoint, HTTPClient: hc, MaxRetries: -1, DisableStandaloneSSE: true}, nil)
	if err != nil {
		return nil, fmt.Errorf("connect to attn's MCP server at %s (is `attn serve` running? is the token right?): %w", endpoint, err)
	}
	return s, nil
}

type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// Forwarder calls one tool elsewhere (the daemon's /mcp) with arguments
// as JSON.
type Forwarder func(ctx context.Context, tool string, args map[string]any) (*sdk.CallToolResult, error)

// NewProxy returns a server with every tool of New, each forwarding its
// call: `attn mcp` on stdio, so that an agent started with attn as its MCP
// server reaches the daemon. fill, when set, completes a call's arguments
// first (pane_id from the agent's $TMUX_PANE). A forward that fails is a
// tool error saying what to do.
func NewProxy(version string, forward Forwarder, fill func(tool string, args map[string]any)) *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "attn", Title: "attn", Version: version}, &sdk.ServerOptions{Instructions: instructions})
	for _, sp := range specs() {
		name := sp.tool.Name
		s.AddTool(sp.tool, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			args := map[string]any{}
			if raw := req.Params.Arguments; len(raw) > 0 && string(raw) != "null" {
				if err := json.Unmarshal(raw, &args); err != nil {
					return errorResult(fmt.Errorf("arguments are not a JSON object: %w", err)), nil
				}
			}
			if fill != nil {
				fill(name, args)
			}
			res, err := forward(ctx, name, args)
			if err != nil {
				return errorResult(err), nil
			}
			return res, nil
		})
	}
	return s
}

func errorResult(err error) *sdk.CallToolResult {
	var r sdk.CallToolResult
	r.SetError(err)
	return &r
}

// FillFromEnv returns a fill func for NewProxy that passes the calling
// agent's pane (getenv("TMUX_PANE")) as pane_id to whoami and notify when
// the call names none: the stdio server runs in the agent's environment,
// which the daemon cannot read.
func FillFromEnv(getenv func(string) string) func(tool string, args map[string]any) {
	return func(tool string, args map[string]any) {
		if tool != "whoami" && tool != "notify" {
			return
		}
		if _, ok := args["pane_id"]; ok {
			return
		}
		if p := strings.TrimSpace(getenv("TMUX_PANE")); paneID(p) {
			args["pane_id"] = p
		}
	}
}

// DialForwarder returns a Forwarder that calls the daemon at endpoint,
// connecting on first use and again after a failure; each call is bounded
// by timeout (wait_agent may take up to MaxWait).
func DialForwarder(endpoint, token, version string, timeout time.Duration) Forwarder {
	var mu sync.Mutex
	var session *sdk.ClientSession
	get := func(ctx context.Context) (*sdk.ClientSession, error) {
		mu.Lock()
		defer mu.Unlock()
		if session == nil {
			dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			s, err := Dial(dctx, endpoint, token, version)
			if err != nil {
				return nil, err
			}
			session = s
		}
		return session, nil
	}
	return func(ctx context.Context, tool string, args map[string]any) (*sdk.CallToolResult, error) {
		s, err := get(ctx)
		if err != nil {
			return nil, err
		}
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		res, err := s.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			mu.Lock()
			if session == s {
				session = nil
			}
			mu.Unlock()
			s.Close()
			return nil, fmt.Errorf("call %s on the attn daemon at %s (is `attn serve` running?): %w", tool, endpoint, err)
		}
		return res, nil
	}
}
