package e2e

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/attn-dev/attn/internal/source/herdr/herdrtest"
)

// TestHerdrEndToEnd: the daemon with $HERDR_SOCKET_PATH set and no tmux
// server at all. A herdr pane whose agent turns blocked on Claude Code's
// permission prompt reaches the device (read through agent.read, named by
// herdr's pane id), and the push's action answers it through
// agent.send_keys, applied once the screen moves on.
func TestHerdrEndToEnd(t *testing.T) {
	ps := startPushService(t)
	hr := herdrtest.Start(t)
	prompt, err := os.ReadFile(fixture(t, "claude-bash-permission.txt"))
	if err != nil {
		t.Fatal(err)
	}
	working, err := os.ReadFile(fixture(t, "claude-working.txt"))
	if err != nil {
		t.Fatal(err)
	}
	hr.AddPane(herdrtest.Pane{ID: "w1:p1", Agent: "claude", Status: "working", Screen: string(working), Title: "api", Cwd: "/src/api"})
	var typed sync.Map
	hr.OnKeys = func(pane string, keys []string) {
		typed.Store(pane, keys)
		hr.SetScreen(pane, string(working)) // the agent goes on
		hr.SetStatus(pane, "working")
	}
	tm := startTmux(t) // named, never started: no tmux server runs
	d := startDaemonEnv(t, t.TempDir(), tm.socket, []string{"HERDR_SOCKET_PATH=" + hr.Path, "ATTN_REMOTE_HOSTS=off"})
	sub := ps.subscribe(t, d.vapidKey(t))
	d.register(t, sub, "phone")
	deadline := time.Now().Add(15 * time.Second)
	for hr.Subscribers() == 0 { // the daemon follows herdr's events
		if time.Now().After(deadline) {
			t.Fatalf("the daemon never subscribed to herdr's events; log:\n%s", d.out)
		}
		time.Sleep(50 * time.Millisecond)
	}

	hr.SetScreen("w1:p1", string(prompt))
	hr.SetStatus("w1:p1", "blocked")
	msgs := ps.waitMessages(t, sub.ClientHash, 1, 20*time.Second)
	var m struct {
		pushMessage
		Nonce   string `json:"nonce"`
		Actions []struct {
			Action string `json:"action"`
		} `json:"actions"`
	}
	if err := json.Unmarshal([]byte(msgs[0]), &m); err != nil {
		t.Fatal(err)
	}
	if m.Title != "api" || m.Kind != "blocked" || m.Pane != "w1:p1" || !strings.HasPrefix(m.Body, "Do you want to proceed?\nclaude on ") ||
		m.Question == nil || len(m.Question.Options) != 3 || m.Nonce == "" {
		t.Fatalf("message %s", msgs[0])
	}

	code, res := d.answer(t, "push", m.Nonce, 0)
	if code != 200 || res["outcome"] != "applied" {
		t.Fatalf("answer: %d %v; log:\n%s", code, res, d.out)
	}
	keys, _ := typed.Load("w1:p1")
	if !reflect.DeepEqual(keys, []string{"enter"}) {
		t.Errorf("typed into w1:p1: %q, want the Enter that picks the selected Yes", keys)
	}
}
