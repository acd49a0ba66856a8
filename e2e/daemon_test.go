package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// daemon is a running `attn serve`.
type daemon struct {
	*proc
	base     string
	stateDir string
	token    string
}

var servingRE = regexp.MustCompile(`msg="attn serving" listen=(http://\S+)`)

// startDaemon runs `attn serve` with a private state dir, on the given tmux
// socket, with short settle and poll times; extra flags are appended.
func startDaemon(t *testing.T, stateDir, tmuxSocket string, extra ...string) *daemon {
	t.Helper()
	return startDaemonEnv(t, stateDir, tmuxSocket, nil, extra...)
}

// startDaemonEnv is startDaemon with extra environment (e.g. the hosts'
// ssh, config and hostname).
func startDaemonEnv(t *testing.T, stateDir, tmuxSocket string, env []string, extra ...string) *daemon {
	t.Helper()
	args := append([]string{"serve", "--listen", "127.0.0.1:0", "--state-dir", stateDir,
		"--tmux-socket", tmuxSocket, "--settle", "1s", "--poll", "200ms",
		"--push-contact", "mailto:e2e@example.org", "--allow-insecure-push-endpoints",
		"--log-level", "debug"}, extra...)
	p := start(t, env, attnBinary(t), args...)
	line := p.out.waitCount(t, servingRE, 1, 20*time.Second)
	tok, err := os.ReadFile(filepath.Join(stateDir, "api-token"))
	if err != nil {
		t.Fatal(err)
	}
	return &daemon{proc: p, base: servingRE.FindStringSubmatch(line)[1], stateDir: stateDir, token: strings.TrimSpace(string(tok))}
}

// restart stops the daemon (SIGTERM) and waits for it to exit.
func (d *daemon) terminate(t *testing.T) {
	t.Helper()
	d.cmd.Process.Signal(os.Interrupt)
	d.out.waitCount(t, regexp.MustCompile(`^<EOF>$`), 1, 15*time.Second)
}

// register subscribes a device with the daemon.
func (d *daemon) register(t *testing.T, sub subscription, name string) int64 {
	t.Helper()
	var out struct {
		DeviceID int64 `json:"device_id"`
	}
	body := map[string]any{"endpoint": sub.Endpoint, "keys": sub.Keys, "name": name}
	if st := postJSON(t, "POST", d.base+"/api/push/subscribe", d.token, body, &out); st != 201 {
		t.Fatalf("subscribe: status %d", st)
	}
	return out.DeviceID
}

func (d *daemon) vapidKey(t *testing.T) string {
	t.Helper()
	var out struct {
		PublicKey string `json:"publicKey"`
	}
	if st := postJSON(t, "GET", d.base+"/api/push/vapid-public-key", "", nil, &out); st != 200 {
		t.Fatalf("vapid-public-key: status %d", st)
	}
	return out.PublicKey
}

// cli runs an attn client command against the daemon and returns its exit
// code, stdout and stderr.
func (d *daemon) cli(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(attnBinary(t), args...)
	cmd.Env = append(os.Environ(), "ATTN_SERVER="+d.base, "ATTN_STATE_DIR="+d.stateDir, "TMUX_PANE=")
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run attn %v: %v", args, err)
	}
	return code, stdout.String(), stderr.String()
}
