package e2e

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// pushService is a running web-push-testing server.
type pushService struct {
	base string
}

// startPushService starts web-push-testing on a free loopback port.
func startPushService(t *testing.T) *pushService {
	t.Helper()
	server := filepath.Join(repoRoot(t), "tools", "pushpeer", "node_modules", "web-push-testing", "src", "bin", "server.js")
	if _, err := os.Stat(server); err != nil {
		t.Fatalf("web-push-testing is not installed (%v): run `npm ci --prefix tools/pushpeer` (scripts/test does)", err)
	}
	port := freePort(t)
	p := start(t, nil, "node", server, fmt.Sprint(port))
	p.out.waitCount(t, regexp.MustCompile(`Server running on port`), 1, 20*time.Second)
	return &pushService{base: fmt.Sprintf("http://localhost:%d", port)}
}

// subscription is what web-push-testing's /subscribe returns.
type subscription struct {
	Endpoint string `json:"endpoint"`
	Keys     struct {
		P256DH string `json:"p256dh"`
		Auth   string `json:"auth"`
	} `json:"keys"`
	ClientHash string `json:"clientHash"`
}

// subscribe makes a subscription pinned to the VAPID public key.
func (ps *pushService) subscribe(t *testing.T, vapidPublic string) subscription {
	t.Helper()
	var out struct {
		Data subscription `json:"data"`
	}
	st := postJSON(t, "POST", ps.base+"/subscribe", "", map[string]string{
		"userVisibleOnly": "true", "applicationServerKey": vapidPublic}, &out)
	if st != http.StatusOK || out.Data.Endpoint == "" {
		t.Fatalf("subscribe: status %d, %+v", st, out)
	}
	return out.Data
}

// messages returns every decrypted message the subscription received.
func (ps *pushService) messages(t *testing.T, clientHash string) []string {
	t.Helper()
	var out struct {
		Data struct {
			Messages []string `json:"messages"`
		} `json:"data"`
	}
	if st := postJSON(t, "POST", ps.base+"/get-notifications", "", map[string]string{"clientHash": clientHash}, &out); st != http.StatusOK {
		t.Fatalf("get-notifications: status %d", st)
	}
	return out.Data.Messages
}

// waitMessages polls until the subscription holds n messages (bounded).
func (ps *pushService) waitMessages(t *testing.T, clientHash string, n int, timeout time.Duration) []string {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		m := ps.messages(t, clientHash)
		if len(m) >= n {
			return m
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited %v for %d messages, have %d: %q", timeout, n, len(m), m)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (ps *pushService) expire(t *testing.T, clientHash string) {
	t.Helper()
	if st := postJSON(t, "POST", ps.base+"/expire-subscription/"+clientHash, "", nil, nil); st != http.StatusOK {
		t.Fatalf("expire-subscription: status %d", st)
	}
}

// tmuxServer is a private tmux server (tmux -L name).
type tmuxServer struct {
	socket string
}

func startTmux(t *testing.T) *tmuxServer {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("tmux is not installed: run scripts/test, or apt-get install tmux")
	}
	s := &tmuxServer{socket: fmt.Sprintf("attn-e2e-%d-%s", os.Getpid(), strings.ReplaceAll(t.Name(), "/", "-"))}
	t.Cleanup(func() { exec.Command("tmux", "-L", s.socket, "kill-server").Run() })
	return s
}

func (s *tmuxServer) run(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", s.socket, "-f", "/dev/null"}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("tmux %v: %v: %s", args, err, out)
	}
	return string(out)
}

// newWindow starts a window named name running the command; it returns the
// pane id.
func (s *tmuxServer) newWindow(t *testing.T, name string, command ...string) string {
	t.Helper()
	args := []string{"new-session", "-d", "-s", name, "-x", "120", "-y", "40", "-n", name, "-P", "-F", "#{pane_id}"}
	if _, err := exec.Command("tmux", "-L", s.socket, "has-session").CombinedOutput(); err == nil {
		args = []string{"new-window", "-d", "-n", name, "-P", "-F", "#{pane_id}"}
	}
	// Keep the window name we chose: the command must not rename it.
	id := strings.TrimSpace(s.run(t, append(args, command...)...))
	s.run(t, "set-option", "-w", "-t", id, "automatic-rename", "off")
	return id
}

// agentCommand returns the command line that runs e2e/testdata/agent.sh as
// a process named like the agent CLI (a symlink to bash called name), so
// tmux reports name as the pane's foreground command.
func agentCommand(t *testing.T, name string, args ...string) []string {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), name)
	if err := os.Symlink(bash, link); err != nil {
		t.Fatal(err)
	}
	return append([]string{link, filepath.Join(repoRoot(t), "e2e", "testdata", "agent.sh")}, args...)
}

// waitScreen waits until the pane's screen contains text (bounded).
func (s *tmuxServer) waitScreen(t *testing.T, pane, text string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		screen := s.run(t, "capture-pane", "-p", "-t", pane)
		if strings.Contains(screen, text) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("pane %s never showed %q; screen:\n%s", pane, text, screen)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
