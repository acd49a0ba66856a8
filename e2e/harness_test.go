package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/attn-dev/attn/internal/fixtures"
)

// repoRoot is the module root (where go.mod is).
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, _ := os.Getwd()
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the working directory")
		}
		dir = parent
	}
}

// fixture returns the path of a shared screen fixture.
func fixture(t *testing.T, name string) string { return fixtures.ScreenPath(t, name) }

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// attnBinary builds cmd/attn once per test process.
func attnBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "attn-e2e-bin")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "attn")
		cmd := exec.Command("go", "build", "-race", "-o", binPath, "./cmd/attn")
		cmd.Dir = repoRoot(t)
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// freePort returns a loopback TCP port that was free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// logBuffer collects a process's output lines and lets a test wait for one.
type logBuffer struct {
	mu    sync.Mutex
	lines []string
	cond  *sync.Cond
}

func newLogBuffer(r io.Reader) *logBuffer {
	b := &logBuffer{}
	b.cond = sync.NewCond(&b.mu)
	go func() {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			b.mu.Lock()
			b.lines = append(b.lines, sc.Text())
			b.cond.Broadcast()
			b.mu.Unlock()
		}
		b.mu.Lock()
		b.lines = append(b.lines, "<EOF>")
		b.cond.Broadcast()
		b.mu.Unlock()
	}()
	return b
}

// count returns how many lines so far match re.
func (b *logBuffer) count(re *regexp.Regexp) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for _, l := range b.lines {
		if re.MatchString(l) {
			n++
		}
	}
	return n
}

// waitCount waits until at least n lines match re, or timeout.
func (b *logBuffer) waitCount(t *testing.T, re *regexp.Regexp, n int, timeout time.Duration) string {
	t.Helper()
	timer := time.AfterFunc(timeout, func() { b.mu.Lock(); b.cond.Broadcast(); b.mu.Unlock() })
	defer timer.Stop()
	deadline := time.Now().Add(timeout)
	b.mu.Lock()
	defer b.mu.Unlock()
	for {
		var last string
		c := 0
		for _, l := range b.lines {
			if re.MatchString(l) {
				c++
				last = l
			}
		}
		if c >= n {
			return last
		}
		if time.Now().After(deadline) || (len(b.lines) > 0 && b.lines[len(b.lines)-1] == "<EOF>") {
			t.Fatalf("waited %v for %d lines matching %q, saw %d; output:\n%s", timeout, n, re, c, strings.Join(b.lines, "\n"))
		}
		b.cond.Wait()
	}
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.Join(b.lines, "\n")
}

// proc is a started child process.
type proc struct {
	cmd *exec.Cmd
	out *logBuffer
}

// start runs name with args, its stdout and stderr merged into a logBuffer.
// The process is sent SIGTERM (then killed) when the test ends.
func start(t *testing.T, env []string, name string, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), env...)
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	p := &proc{cmd: cmd, out: newLogBuffer(pr)}
	done := make(chan struct{})
	go func() { cmd.Wait(); pw.Close(); close(done) }()
	t.Cleanup(func() { p.stop(t, done) })
	return p
}

func (p *proc) stop(t *testing.T, done chan struct{}) {
	select {
	case <-done:
		return
	default:
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		p.cmd.Process.Kill()
		<-done
	}
}

// postJSON posts v and decodes the JSON answer into out; it returns the
// status code.
func postJSON(t *testing.T, method, url, token string, v, out any) int {
	t.Helper()
	var body io.Reader
	if v != nil {
		b, _ := json.Marshal(v)
		body = bytes.NewReader(b)
	}
	req, _ := http.NewRequestWithContext(context.Background(), method, url, body)
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if out != nil && len(raw) > 0 {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s %s: decode %q: %v", method, url, raw, err)
		}
	}
	return resp.StatusCode
}
