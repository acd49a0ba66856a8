package api

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/attn-dev/attn/internal/hosts"
	"github.com/attn-dev/attn/internal/mcp"
	"github.com/attn-dev/attn/internal/source/hook"
	"github.com/attn-dev/attn/internal/store"
)

// hostsTest is an API with two SSH aliases (devbox, gpu) on a real store.
type hostsTest struct {
	srv   *httptest.Server
	store *store.Store
	dir   string
	mu    sync.Mutex
	hooks []string
}

func newHostsTest(t *testing.T) *hostsTest {
	t.Helper()
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, ".ssh"), 0o700)
	os.WriteFile(filepath.Join(home, ".ssh", "config"), []byte("Host devbox gpu\n"), 0o600)
	m, err := hosts.New(hosts.Options{Hostname: "titan", Home: home, Remote: true, StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	st, err := store.Open(context.Background(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	h := &hostsTest{store: st, dir: dir}
	s := New(Config{Token: token, Host: "titan", Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Hosts: Hosts{List: m, Tokens: st, MCP: mcp.Handler(mcp.New(mcp.Config{Hosts: m})),
			OnHook: func(host string, ev hook.Event) {
				h.mu.Lock()
				h.hooks = append(h.hooks, host+" "+ev.Agent+" "+string(ev.Kind)+" "+ev.Pane)
				h.mu.Unlock()
			}}})
	h.srv = httptest.NewServer(s)
	t.Cleanup(h.srv.Close)
	return h
}

// do sends a request with a bearer (none when ""), and returns the status
// and the decoded body.
func (h *hostsTest) do(t *testing.T, method, path, bearer, body string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(method, h.srv.URL+path, bytes.NewBufferString(body))
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

func hostErrCode(out map[string]any) float64 {
	e, _ := out["error"].(map[string]any)
	c, _ := e["code"].(float64)
	return c
}

const blockedEvent = `{"agent":"claude","kind":"blocked","reason":"PermissionRequest","pane":"%3","at":"2026-05-01T12:00:00Z"}`

func TestHostTokens(t *testing.T) {
	h := newHostsTest(t)
	code, out := h.do(t, "POST", "/api/hosts/DEVBOX/token", token, "")
	tok, _ := out["token"].(string)
	if code != 201 || out["host"] != "devbox" || !strings.HasPrefix(tok, "attnh_") || len(tok) < 40 ||
		out["hook_url"] != h.srv.URL+"/api/hosts/devbox/hook" || out["mcp_url"] != h.srv.URL+"/mcp" {
		t.Fatalf("issue: %d %v", code, out)
	}
	// Kept hashed: the store holds no copy of the secret.
	var raw []byte
	for _, f := range []string{store.FileName, store.FileName + "-wal"} {
		b, _ := os.ReadFile(filepath.Join(h.dir, f))
		raw = append(raw, b...)
	}
	if len(raw) == 0 || bytes.Contains(raw, []byte(tok)) || bytes.Contains(raw, []byte(strings.TrimPrefix(tok, "attnh_"))) {
		t.Fatal("the store holds the host credential in clear")
	}

	// It reports for its own host…
	if code, out := h.do(t, "POST", "/api/hosts/devbox/hook", tok, blockedEvent); code != 202 {
		t.Fatalf("hook for its host: %d %v", code, out)
	}
	// …and for no other.
	code, out = h.do(t, "POST", "/api/hosts/gpu/hook", tok, blockedEvent)
	if code != 403 || hostErrCode(out) != 40380 || !strings.Contains(out["error"].(map[string]any)["message"].(string), "it is the credential of devbox and can only report for devbox, not for gpu") {
		t.Fatalf("hook for another host: %d %v", code, out)
	}
	if code, out := h.do(t, "POST", "/api/hosts/titan/hook", tok, blockedEvent); code != 403 || hostErrCode(out) != 40380 {
		t.Fatalf("hook for the own host: %d %v", code, out)
	}
	// The API token reports for any host.
	if code, _ := h.do(t, "POST", "/api/hosts/gpu/hook", token, blockedEvent); code != 202 {
		t.Fatalf("hook with the API token: %d", code)
	}
	h.mu.Lock()
	if strings.Join(h.hooks, "|") != "devbox claude blocked %3|gpu claude blocked %3" {
		t.Fatalf("hooks delivered: %q", h.hooks)
	}
	h.mu.Unlock()

	for _, tc := range []struct {
		name, path, bearer, body string
		status                   int
		code                     float64
	}{
		{"no credential", "/api/hosts/devbox/hook", "", blockedEvent, 401, 40180},
		{"wrong credential", "/api/hosts/devbox/hook", "attnh_forged", blockedEvent, 401, 40180},
		{"unknown host", "/api/hosts/elsewhere/hook", tok, blockedEvent, 404, 40480},
		{"not JSON", "/api/hosts/devbox/hook", tok, "{", 400, 40080},
		{"unknown agent", "/api/hosts/devbox/hook", tok, `{"agent":"vim","kind":"blocked"}`, 400, 40080},
		{"unknown kind", "/api/hosts/devbox/hook", tok, `{"agent":"claude","kind":"sleepy"}`, 400, 40080},
	} {
		code, out := h.do(t, "POST", tc.path, tc.bearer, tc.body)
		if code != tc.status || hostErrCode(out) != tc.code {
			t.Errorf("%s: %d %v; want %d code %v", tc.name, code, out, tc.status, tc.code)
		}
	}

	// A host credential cannot issue credentials, nor use the rest of
	// the API.
	if code, out := h.do(t, "POST", "/api/hosts/gpu/token", tok, ""); code != 401 || hostErrCode(out) != 40101 {
		t.Fatalf("issue with a host credential: %d %v", code, out)
	}
	if code, _ := h.do(t, "GET", "/api/hosts", tok, ""); code != 401 {
		t.Fatalf("GET /api/hosts with a host credential: %d", code)
	}

	// A new credential for the host revokes the old; DELETE revokes.
	_, out = h.do(t, "POST", "/api/hosts/devbox/token", token, "")
	tok2 := out["token"].(string)
	if code, _ := h.do(t, "POST", "/api/hosts/devbox/hook", tok, blockedEvent); code != 401 {
		t.Fatalf("replaced credential: %d", code)
	}
	if code, _ := h.do(t, "POST", "/api/hosts/devbox/hook", tok2, blockedEvent); code != 202 {
		t.Fatalf("new credential: %d", code)
	}
	if code, _ := h.do(t, "DELETE", "/api/hosts/devbox/token", token, ""); code != 204 {
		t.Fatalf("revoke: %d", code)
	}
	if code, _ := h.do(t, "POST", "/api/hosts/devbox/hook", tok2, blockedEvent); code != 401 {
		t.Fatalf("revoked credential: %d", code)
	}
	if code, out := h.do(t, "DELETE", "/api/hosts/devbox/token", token, ""); code != 404 || hostErrCode(out) != 40482 {
		t.Fatalf("revoke twice: %d %v", code, out)
	}
}

func TestHostsListing(t *testing.T) {
	h := newHostsTest(t)
	code, out := h.do(t, "GET", "/api/hosts", token, "")
	if code != 200 || out["active"] != "titan" || len(out["hosts"].([]any)) != 3 || out["probing"] != true {
		t.Fatalf("GET /api/hosts: %d %v", code, out)
	}
}

func TestMCPEndpoint(t *testing.T) {
	h := newHostsTest(t)
	ctx := context.Background()
	if _, err := mcp.Dial(ctx, h.srv.URL+"/mcp", "wrong", "test"); err == nil {
		t.Fatal("MCP with a wrong token connected")
	}
	fleet, err := mcp.Dial(ctx, h.srv.URL+"/mcp", token, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer fleet.Close()
	hostsOf := func(cs *sdk.ClientSession) string {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "list_hosts"})
		if err != nil || res.IsError {
			t.Fatalf("list_hosts: %v %+v", err, res)
		}
		b, _ := json.Marshal(res.StructuredContent)
		var l hosts.Listing
		json.Unmarshal(b, &l)
		var names []string
		for _, x := range l.Hosts {
			names = append(names, x.Name)
		}
		return l.Active + ": " + strings.Join(names, ",")
	}
	if got := hostsOf(fleet); got != "titan: titan,devbox,gpu" {
		t.Fatalf("fleet list_hosts = %s", got)
	}
	_, out := h.do(t, "POST", "/api/hosts/gpu/token", token, "")
	scoped, err := mcp.Dial(ctx, h.srv.URL+"/mcp", out["token"].(string), "test")
	if err != nil {
		t.Fatal(err)
	}
	defer scoped.Close()
	if got := hostsOf(scoped); got != "gpu: gpu" {
		t.Fatalf("gpu's list_hosts = %s", got)
	}
	res, err := scoped.CallTool(ctx, &sdk.CallToolParams{Name: "list_agents", Arguments: map[string]any{"host": "devbox"}})
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*sdk.TextContent).Text, "host devbox is outside this credential's reach: it is the credential of host gpu") {
		t.Fatalf("gpu's list_agents on devbox: %v %+v", err, res)
	}
}
