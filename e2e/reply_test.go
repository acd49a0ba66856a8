package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// answer posts {nonce, option_index} as surface and returns the status and
// result.
func (d *daemon) answer(t *testing.T, surface, nonce string, option int) (int, map[string]string) {
	t.Helper()
	req, _ := http.NewRequest("POST", d.base+"/api/push/answer",
		strings.NewReader(fmt.Sprintf(`{"nonce":%q,"option_index":%d}`, nonce, option)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Attn-Surface", surface)
	if surface == "card" {
		req.Header.Set("Authorization", "Bearer "+d.token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]string
	json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

// cardNonce waits for the pane to read as blocked and returns the card's
// nonce for its question.
func (d *daemon) cardNonce(t *testing.T, host, pane string) string {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		var out struct {
			Status string `json:"status"`
			Nonce  string `json:"nonce"`
		}
		st := postJSON(t, "GET", d.base+"/api/panes/"+host+"/"+strings.ReplaceAll(pane, "%", "%25"), d.token, nil, &out)
		if st == 200 && out.Status == "blocked" && out.Nonce != "" {
			return out.Nonce
		}
		if time.Now().After(deadline) {
			t.Fatalf("pane %s never read as blocked with a nonce (status %d, %+v)", pane, st, out)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestAnswers drives the reply path end to end: a real tmux pane running a
// program that reacts to keys as Claude Code's menu does.
func TestAnswers(t *testing.T) {
	ps := startPushService(t)
	tm := startTmux(t)
	screenA := fixture(t, "claude-bash-permission.txt")
	screenB := fixture(t, "claude-edit-file.txt")
	menu := func(name string, ignore int, next string) string {
		args := []string{"✳ Claude Code", screenA, fmt.Sprint(ignore)}
		if next != "" {
			args = append(args, next)
		}
		cmd := agentCommand(t, "claude", args...)
		cmd[1] = repoRoot(t) + "/e2e/testdata/menu.sh"
		return tm.newWindow(t, name, cmd...)
	}
	d := startDaemon(t, t.TempDir(), tm.socket)
	sub := ps.subscribe(t, d.vapidKey(t))
	d.register(t, sub, "phone")
	host := "local"

	t.Run("option 1 and option 2 each reach the program", func(t *testing.T) {
		for option, want := range map[int]string{0: "You chose: 1", 1: "You chose: 2"} {
			p := menu(fmt.Sprintf("opt%d", option), 0, "")
			code, res := d.answer(t, "card", d.cardNonce(t, host, p), option)
			if code != 200 || res["outcome"] != "applied" {
				t.Fatalf("option %d: %d %v", option, code, res)
			}
			tm.waitScreen(t, p, want)
		}
	})

	// pushFor waits for the push announcing pane p and returns its payload.
	type pushed struct {
		Pane    string `json:"pane"`
		Nonce   string `json:"nonce"`
		Actions []struct {
			Label       string `json:"label"`
			OptionIndex int    `json:"option_index"`
		} `json:"actions"`
	}
	pushFor := func(t *testing.T, p string) pushed {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for {
			for _, raw := range ps.messages(t, sub.ClientHash) {
				var m pushed
				if json.Unmarshal([]byte(raw), &m) == nil && m.Pane == p {
					return m
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("no push for pane %s", p)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}

	t.Run("push action: applied once, the same nonce twice refused", func(t *testing.T) {
		p := menu("push", 0, "")
		m := pushFor(t, p)
		if m.Nonce == "" || len(m.Actions) != 2 || m.Actions[0].Label != "Yes" || m.Actions[1].OptionIndex != 1 {
			t.Fatalf("push payload %+v: want a nonce and the first two options as actions", m)
		}
		if code, res := d.answer(t, "push", m.Nonce, 0); code != 200 || res["outcome"] != "applied" {
			t.Fatalf("answer: %d %v", code, res)
		}
		tm.waitScreen(t, p, "You chose: 1")
		after := tm.run(t, "capture-pane", "-p", "-t", p)
		if code, res := d.answer(t, "push", m.Nonce, 0); code != 409 || res["gate"] != "nonce-used" {
			t.Fatalf("same nonce twice: %d %v", code, res)
		}
		if now := tm.run(t, "capture-pane", "-p", "-t", p); now != after {
			t.Fatalf("the refused answer typed something:\n%s", now)
		}
	})

	t.Run("an index outside the minted set", func(t *testing.T) {
		p := menu("index", 0, "")
		nonce := pushFor(t, p).Nonce
		before := tm.run(t, "capture-pane", "-p", "-t", p)
		if code, res := d.answer(t, "push", nonce, 2); code != 409 || res["gate"] != "option-not-offered" {
			t.Fatalf("index 2: %d %v", code, res)
		}
		if now := tm.run(t, "capture-pane", "-p", "-t", p); now != before {
			t.Fatalf("the refused answer typed something:\n%s", now)
		}
	})

	t.Run("a nonce for prompt A after A was answered at the terminal and B appeared", func(t *testing.T) {
		p := menu("stale", 0, screenB)
		nonce := d.cardNonce(t, host, p)
		tm.run(t, "send-keys", "-t", p, "Enter") // answered at the terminal
		tm.waitScreen(t, p, "Do you want to make this edit")
		code, res := d.answer(t, "card", nonce, 0)
		if code != 409 || (res["gate"] != "prompt-changed" && res["gate"] != "nonce") {
			t.Fatalf("stale nonce: %d %v", code, res)
		}
		if screen := tm.run(t, "capture-pane", "-p", "-t", p); !strings.Contains(screen, "❯ 1. Yes") {
			t.Fatalf("prompt B was touched:\n%s", screen)
		}
	})

	t.Run("after the agent exits", func(t *testing.T) {
		p := menu("exited", 0, "")
		nonce := d.cardNonce(t, host, p)
		tm.run(t, "send-keys", "-t", p, "q")
		deadline := time.Now().Add(10 * time.Second)
		for strings.TrimSpace(tm.run(t, "display", "-p", "-t", p, "#{pane_current_command}")) != "bash" {
			if time.Now().After(deadline) {
				t.Fatal("the program did not exit to a shell")
			}
			time.Sleep(50 * time.Millisecond)
		}
		// Refused by the agent gate, or — when the daemon has already seen
		// the wait clear — because its nonces died with it.
		tm.waitScreen(t, p, "bash-") // the shell's prompt (bash --norc: "bash-5.2$ ")
		before := tm.run(t, "capture-pane", "-p", "-t", p)
		if code, res := d.answer(t, "card", nonce, 0); code != 409 || (res["gate"] != "agent-exited" && res["gate"] != "nonce") {
			t.Fatalf("after exit: %d %v", code, res)
		}
		if now := tm.run(t, "capture-pane", "-p", "-t", p); now != before {
			t.Fatalf("typed into the shell:\n%s", now)
		}
	})

	t.Run("a program that ignores the first keystroke", func(t *testing.T) {
		p := menu("deaf1", 1, "")
		if code, res := d.answer(t, "card", d.cardNonce(t, host, p), 1); code != 200 || res["outcome"] != "applied" {
			t.Fatalf("%d %v", code, res)
		}
		tm.waitScreen(t, p, "You chose: 2")
		p = menu("deaf2", 2, "")
		if code, res := d.answer(t, "card", d.cardNonce(t, host, p), 1); code != 200 || res["outcome"] != "not-applied" {
			t.Fatalf("%d %v", code, res)
		}
	})

	t.Run("two answers racing for one prompt", func(t *testing.T) {
		p := menu("race", 0, "")
		nonces := []string{pushFor(t, p).Nonce, d.cardNonce(t, host, p)}
		if nonces[0] == nonces[1] {
			t.Fatal("the card got the push's nonce")
		}
		var results [2]map[string]string
		var wg sync.WaitGroup
		for i := range 2 {
			wg.Go(func() { _, results[i] = d.answer(t, []string{"push", "card"}[i], nonces[i], i) })
		}
		wg.Wait()
		applied := 0
		for _, r := range results {
			if r["outcome"] == "applied" {
				applied++
			}
		}
		if applied != 1 {
			t.Fatalf("results %v: want exactly one applied", results)
		}
		screen := tm.run(t, "capture-pane", "-p", "-t", p)
		if strings.Count(screen, "You chose:") != 1 {
			t.Fatalf("screen:\n%s", screen)
		}
	})

	t.Run("GET does nothing", func(t *testing.T) {
		resp, err := http.Get(d.base + "/api/push/answer?nonce=x&option_index=0")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 405 {
			t.Fatalf("GET: %d", resp.StatusCode)
		}
	})

	code, out, _ := d.cli(t, "", "audit", "--limit", "50")
	for _, gate := range []string{"option-not-offered", "nonce-used"} {
		if code != 0 || !strings.Contains(out, gate) {
			t.Fatalf("attn audit lacks gate %s:\n%s", gate, out)
		}
	}
}
