package e2e

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"
)

// pushMessage is the JSON payload attn sends.
type pushMessage struct {
	Title    string `json:"title"`
	Body     string `json:"body"`
	Kind     string `json:"kind"`
	Tag      string `json:"tag"`
	URL      string `json:"url"`
	Host     string `json:"host"`
	Pane     string `json:"pane"`
	Renotify bool   `json:"renotify"`
	Question *struct {
		Prompt  string   `json:"prompt"`
		Options []string `json:"options"`
	} `json:"question"`
}

func decode(t *testing.T, raw string) pushMessage {
	t.Helper()
	var m pushMessage
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		t.Fatalf("payload %q: %v", raw, err)
	}
	return m
}

var (
	clearedRE = regexp.MustCompile(`msg="wait cleared"`)
	pollRE    = regexp.MustCompile(`msg="poll done"`)
)

// TestBlockedAgentReachesDevice is the main job end to end: a pane drawing
// Claude Code's permission prompt, the daemon, and one decrypted push.
func TestBlockedAgentReachesDevice(t *testing.T) {
	ps := startPushService(t)
	tm := startTmux(t)
	pane := tm.newWindow(t, "api", agentCommand(t, "claude", "✳ Claude Code", fixture(t, "claude-bash-permission.txt"))...)
	stateDir := t.TempDir()
	d := startDaemon(t, stateDir, tm.socket)
	sub := ps.subscribe(t, d.vapidKey(t))
	d.register(t, sub, "phone")

	// One message, with the question in the body and the name in the title.
	msgs := ps.waitMessages(t, sub.ClientHash, 1, 20*time.Second)
	m := decode(t, msgs[0])
	if m.Title != "api" || m.Kind != "blocked" || !strings.HasPrefix(m.Body, "Do you want to proceed?\nclaude on ") ||
		m.Tag != "block:"+m.Host+"/"+pane || m.Pane != pane || !m.Renotify {
		t.Fatalf("message = %+v", m)
	}
	if m.Question == nil || len(m.Question.Options) != 3 || m.Question.Options[0] != "Yes" {
		t.Fatalf("question = %+v", m.Question)
	}
	// Not every poll: 5 s later still exactly one.
	time.Sleep(5 * time.Second)
	if got := ps.messages(t, sub.ClientHash); len(got) != 1 {
		t.Fatalf("after 5 s: %d messages, want 1: %q", len(got), got)
	}

	// The person answers at the terminal; the agent works, then asks the
	// same question again: a second message.
	tm.run(t, "send-keys", "-t", pane, "Enter")
	tm.waitScreen(t, pane, "Deliberating")
	d.out.waitCount(t, clearedRE, 1, 10*time.Second)
	tm.run(t, "send-keys", "-t", pane, "Enter")
	msgs = ps.waitMessages(t, sub.ClientHash, 2, 20*time.Second)
	if m2 := decode(t, msgs[1]); m2.Title != "api" || !strings.HasPrefix(m2.Body, "Do you want to proceed?") {
		t.Fatalf("second message = %+v", m2)
	}

	// Restart while the prompt stays on screen: nothing new, even after
	// several settle periods' worth of polls.
	d.terminate(t)
	d = startDaemon(t, stateDir, tm.socket)
	d.out.waitCount(t, pollRE, 15, 20*time.Second) // 15 polls × 200 ms = 3 settle periods
	if got := ps.messages(t, sub.ClientHash); len(got) != 2 {
		t.Fatalf("after restart: %d messages, want 2: %q", len(got), got)
	}
}

// TestNotifyAndExpiredDevice: `attn notify` reaches the device; after the
// push service expires the subscription, notify fails with the reason and
// the device is removed.
func TestNotifyAndExpiredDevice(t *testing.T) {
	ps := startPushService(t)
	tm := startTmux(t)
	d := startDaemon(t, t.TempDir(), tm.socket)

	code, _, stderr := d.cli(t, "", "notify", "hello")
	if code == 0 || !strings.Contains(stderr, "no device is registered") {
		t.Fatalf("notify with no device: code %d, stderr %q", code, stderr)
	}

	sub := ps.subscribe(t, d.vapidKey(t))
	d.register(t, sub, "laptop")
	code, stdout, stderr := d.cli(t, "", "notify", "hello")
	if code != 0 || stdout != "sent \"attn\" via webpush\n" {
		t.Fatalf("notify: code %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	msgs := ps.messages(t, sub.ClientHash)
	if len(msgs) != 1 {
		t.Fatalf("messages = %q, want 1", msgs)
	}
	if m := decode(t, msgs[0]); m.Title != "attn" || m.Body != "hello" || m.Kind != "asked" {
		t.Fatalf("message = %+v", m)
	}

	// Standard input is the message when none is given.
	if code, _, stderr := d.cli(t, "line one\nline two\n", "notify", "--title", "tests"); code != 0 {
		t.Fatalf("notify from stdin: code %d, stderr %q", code, stderr)
	}
	msgs = ps.messages(t, sub.ClientHash)
	if m := decode(t, msgs[1]); len(msgs) != 2 || m.Title != "tests" || m.Body != "line one\nline two" {
		t.Fatalf("messages = %q", msgs)
	}

	ps.expire(t, sub.ClientHash)
	code, _, stderr = d.cli(t, "", "notify", "hello again")
	if code != 1 || !strings.Contains(stderr, "not delivered") || !strings.Contains(stderr, "device removed") {
		t.Fatalf("notify to expired: code %d, stderr %q", code, stderr)
	}
	var devs struct {
		Devices []any `json:"devices"`
	}
	if st := postJSON(t, "GET", d.base+"/api/devices", d.token, nil, &devs); st != 200 || len(devs.Devices) != 0 {
		t.Fatalf("devices after expiry: status %d, %+v", st, devs)
	}
}

// TestNotifyDaemonDown: the client says how to start the daemon.
func TestNotifyDaemonDown(t *testing.T) {
	dir := t.TempDir()
	d := &daemon{base: "http://127.0.0.1:" + itoa(freePort(t)), stateDir: dir}
	// A token must exist for the client to get as far as connecting.
	writeFile(t, dir+"/api-token", strings.Repeat("x", 43))
	code, _, stderr := d.cli(t, "", "notify", "hello")
	if code != 1 || !strings.Contains(stderr, "is `attn serve` running?") {
		t.Fatalf("code %d, stderr %q", code, stderr)
	}
}

// TestBuzzIntervalReplacesSilently: an agent that raises the next approval
// right after the first is answered gets a second push, silent, under the
// same tag; `attn why` says so.
func TestBuzzIntervalReplacesSilently(t *testing.T) {
	ps := startPushService(t)
	tm := startTmux(t)
	pane := tm.newWindow(t, "api", agentCommand(t, "claude", "✳ Claude Code",
		fixture(t, "claude-bash-permission.txt"), fixture(t, "claude-edit-file.txt"))...)
	d := startDaemon(t, t.TempDir(), tm.socket)
	sub := ps.subscribe(t, d.vapidKey(t))
	d.register(t, sub, "phone")

	first := decode(t, ps.waitMessages(t, sub.ClientHash, 1, 20*time.Second)[0])
	tm.run(t, "send-keys", "-t", pane, "Enter")
	tm.waitScreen(t, pane, "Deliberating")
	d.out.waitCount(t, clearedRE, 1, 10*time.Second)
	tm.run(t, "send-keys", "-t", pane, "Enter")
	second := decode(t, ps.waitMessages(t, sub.ClientHash, 2, 20*time.Second)[1])
	if !first.Renotify || second.Renotify || second.Tag != first.Tag ||
		!strings.HasPrefix(second.Body, "Do you want to make this edit to session.ts?") {
		t.Fatalf("first %+v\nsecond %+v: want the second silent under the same tag", first, second)
	}
	code, out, stderr := d.cli(t, "", "why", pane)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 2 || !strings.HasSuffix(lines[0], "api  sent to 'phone'") ||
		!regexp.MustCompile(`api  sent silently to 'phone': replaced the question shown \d+(\.\d)?s earlier$`).MatchString(lines[1]) {
		t.Fatalf("attn why: code %d, stderr %q, output:\n%s", code, stderr, out)
	}
}
