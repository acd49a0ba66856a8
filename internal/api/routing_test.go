package api

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/attn-dev/attn/internal/agent"
	"github.com/attn-dev/attn/internal/board"
	"github.com/attn-dev/attn/internal/notification"
	"github.com/attn-dev/attn/internal/pipeline"
	"github.com/attn-dev/attn/internal/presence"
	"github.com/attn-dev/attn/internal/store"
)

// newStoreServer is an API over a real store, for the routing endpoints.
func newStoreServer(t *testing.T) (*Server, *store.Store, *presence.Registry, time.Time) {
	t.Helper()
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	st, err := store.Open(context.Background(), t.TempDir(), func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	mutes, err := pipeline.LoadMutes(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	pr := presence.NewRegistry()
	s := New(Config{Registry: st, Notifier: &fakeNotifier{}, Mutes: mutes, Kinds: st, Decisions: st, Presence: pr,
		Host: "box", Now: func() time.Time { return now }, Token: token,
		Asked: func(context.Context, NotifyRequest) (notification.Notification, string) {
			return notification.Notification{}, ""
		},
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if _, _, err := st.UpsertDevice(context.Background(), "https://push.example/1", []byte{4}, []byte{1}, "phone"); err != nil {
		t.Fatal(err)
	}
	return s, st, pr, now
}

func TestDeviceKindChoices(t *testing.T) {
	s, st, _, _ := newStoreServer(t)
	code, out := call{method: "PATCH", path: "/api/devices/1", body: `{"kinds":{"finished":true,"blocked":true}}`}.do(s)
	if code != 200 {
		t.Fatalf("%d %v", code, out)
	}
	kinds := out["devices"].([]any)[0].(map[string]any)["kinds"].(map[string]any)
	if kinds["finished"] != true || kinds["blocked"] != true || kinds["asked"] != true || kinds["error"] != true {
		t.Fatalf("kinds = %v", kinds)
	}
	stored, _ := st.DeviceKinds(context.Background())
	if len(stored[1]) != 1 || !stored[1]["finished"] {
		t.Fatalf("stored = %v: only the choice that differs from the default is kept", stored)
	}
	call{method: "PATCH", path: "/api/devices/1", body: `{"kinds":{"finished":null},"name":"pixel"}`}.do(s)
	stored, _ = st.DeviceKinds(context.Background())
	devs, _ := st.Devices(context.Background())
	if len(stored[1]) != 0 || devs[0].Name != "pixel" {
		t.Fatalf("after reset: stored %v, name %q", stored, devs[0].Name)
	}
	for _, tc := range []struct {
		path, body string
		code       int
		err        float64
	}{
		{"/api/devices/x", `{}`, 400, 40008},
		{"/api/devices/9", `{"kinds":{"blocked":false}}`, 404, 40402},
		{"/api/devices/1", `{"kinds":{"everything":false}}`, 400, 40007},
		{"/api/devices/1", `{"kinds":{"blocked":"off"}}`, 400, 40001},
		{"/api/devices/1", `{"name":"bad\u202ename"}`, 400, 40012},
	} {
		if code, out := (call{method: "PATCH", path: tc.path, body: tc.body}).do(s); code != tc.code || errCode(out) != tc.err {
			t.Errorf("PATCH %s %s: %d %v, want %d %v", tc.path, tc.body, code, out, tc.code, tc.err)
		}
	}
}

func TestPresenceReports(t *testing.T) {
	s, _, pr, now := newStoreServer(t)
	code, _ := call{method: "POST", path: "/api/presence", body: `{"device_id":1,"visible":true,"focused":"local/%3"}`}.do(s)
	if code != 204 {
		t.Fatalf("code %d", code)
	}
	if st, ok := pr.Get(1, now); !ok || !st.Visible || st.Focused != "box/%3" {
		t.Fatalf("presence = %+v, %v", st, ok)
	}
	for _, body := range []string{`{"visible":true}`, `{"device_id":1}`, `{"device_id":1,"visible":true,"focused":"pane3"}`} {
		if code, out := (call{method: "POST", path: "/api/presence", body: body}).do(s); code != 400 || errCode(out) != 40009 {
			t.Errorf("presence %s: %d %v", body, code, out)
		}
	}
}

func TestMutes(t *testing.T) {
	s, _, _, now := newStoreServer(t)
	code, out := call{method: "POST", path: "/api/mutes", body: `{"pane":"%3","for":"1h"}`}.do(s)
	if code != 200 || out["host"] != "box" || out["pane"] != "%3" || out["until"] != now.Add(time.Hour).Format(time.RFC3339) {
		t.Fatalf("%d %v", code, out)
	}
	code, out = call{method: "GET", path: "/api/mutes"}.do(s)
	if list := out["mutes"].([]any); code != 200 || len(list) != 1 {
		t.Fatalf("%d %v", code, out)
	}
	for _, tc := range []struct {
		body string
		err  float64
	}{
		{`{"pane":"%3"}`, 40006},
		{`{"pane":"%3","for":"-1h"}`, 40006},
		{`{"pane":"%3","until":"2020-01-01T00:00:00Z"}`, 40006},
		{`{"pane":"%3","until":"9999-12-31T23:59:59Z"}`, 40006}, // past what the store can hold, and past a year
		{`{"pane":"%3","for":"9000h"}`, 40006},
		{`{"pane":"three","for":"1h"}`, 40005},
		{`{"pane":"box/%x","for":"1h"}`, 40005},
	} {
		if code, out := (call{method: "POST", path: "/api/mutes", body: tc.body}).do(s); code != 400 || errCode(out) != tc.err {
			t.Errorf("mute %s: %d %v, want %v", tc.body, code, out, tc.err)
		}
	}
	if code, _ := (call{method: "DELETE", path: "/api/mutes", body: `{"pane":"box/%3"}`}).do(s); code != 204 {
		t.Fatalf("unmute: %d", code)
	}
	if code, out := (call{method: "DELETE", path: "/api/mutes", body: `{"pane":"box/%3"}`}).do(s); code != 404 || errCode(out) != 40403 {
		t.Fatalf("second unmute: %d %v", code, out)
	}
}

func TestDecisionsEndpoint(t *testing.T) {
	s, st, _, now := newStoreServer(t)
	ctx := context.Background()
	st.AddDecision(ctx, store.Decision{At: now, Kind: "blocked", Host: "box", Pane: "%3", Stage: "settle", Outcome: "suppressed", Reason: "answered-at-terminal"})
	st.AddDecision(ctx, store.Decision{At: now, Kind: "blocked", Host: "box", Pane: "%4", Stage: "route", Outcome: "sent", Device: "phone"})
	code, out := call{method: "GET", path: "/api/decisions?pane=%253"}.do(s)
	rows := out["decisions"].([]any)
	if code != 200 || len(rows) != 1 || rows[0].(map[string]any)["reason"] != "answered-at-terminal" {
		t.Fatalf("%d %v", code, out)
	}
	if _, out := (call{method: "GET", path: "/api/decisions"}).do(s); len(out["decisions"].([]any)) != 2 {
		t.Fatalf("all: %v", out)
	}
	if code, out := (call{method: "GET", path: "/api/decisions?limit=0"}).do(s); code != 400 || errCode(out) != 40010 {
		t.Fatalf("limit 0: %d %v", code, out)
	}
	if code, out := (call{method: "GET", path: "/api/decisions?pane=nope"}).do(s); code != 400 || errCode(out) != 40005 {
		t.Fatalf("bad pane: %d %v", code, out)
	}
}

func TestPanes(t *testing.T) {
	s, _, _, now := newStoreServer(t)
	b := board.New()
	s.cfg.Board = b
	b.Replace("box", now, []board.Pane{
		{Pane: "%1", Name: "docs", State: agent.StatusIdle},
		{Pane: "%3", Name: "api", Agent: "claude", State: agent.StatusBlocked, Screen: "old line\n❯ 1. Yes\n  2. No   \n\n\n",
			Question: &agent.Question{Prompt: "Do you want to proceed?", Options: []string{"Yes", "No"}}},
	})
	code, out := call{method: "GET", path: "/api/panes"}.do(s)
	panes := out["panes"].([]any)
	if code != 200 || len(panes) != 2 || panes[0].(map[string]any)["name"] != "api" || panes[0].(map[string]any)["screen"] != nil {
		t.Fatalf("%d %v", code, out)
	}
	code, out = call{method: "GET", path: "/api/panes/local/%253"}.do(s)
	if code != 200 || out["status"] != "blocked" || fmt.Sprint(out["screen"]) != "[old line ❯ 1. Yes   2. No]" {
		t.Fatalf("%d %v", code, out)
	}
	if code, out := (call{method: "GET", path: "/api/panes/box/%259"}).do(s); code != 404 || errCode(out) != 40404 {
		t.Fatalf("%d %v", code, out)
	}
}
