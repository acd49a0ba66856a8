package hook

import (
	"bufio"
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// sockPath returns a socket path in a fresh short directory (t.TempDir's
// names can pass the 108-byte limit of unix socket paths).
func sockPath(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "attnhook")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return filepath.Join(dir, SocketName)
}

// serving is a Receiver served in the background, its events collected.
type serving struct {
	r      *Receiver
	events chan Event
	cancel context.CancelFunc
	done   chan error
}

func serve(t *testing.T, path string) *serving {
	t.Helper()
	r, err := Listen(path)
	if err != nil {
		t.Fatalf("Listen: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &serving{r: r, events: make(chan Event, 16), cancel: cancel, done: make(chan error, 1)}
	go func() {
		s.done <- r.Serve(ctx, func(_ context.Context, ev Event) { s.events <- ev })
	}()
	t.Cleanup(func() { s.stop(t) })
	return s
}

func (s *serving) stop(t *testing.T) {
	t.Helper()
	s.cancel()
	select {
	case err, ok := <-s.done:
		if ok && err != nil {
			t.Errorf("Serve: %v", err)
		}
		if ok {
			close(s.done)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return after its context ended")
	}
}

func (s *serving) next(t *testing.T) Event {
	t.Helper()
	select {
	case ev := <-s.events:
		return ev
	case <-time.After(3 * time.Second):
		t.Fatal("no event reached the handler")
		return Event{}
	}
}

// rawExchange writes data on a fresh connection and returns the first
// answer line ("" when the connection closed without one).
func rawExchange(t *testing.T, path, data string) string {
	t.Helper()
	c, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Write([]byte(data)); err != nil {
		return ""
	}
	c.(*net.UnixConn).CloseWrite() // the last line may lack its newline
	line, _ := bufio.NewReader(c).ReadString('\n')
	return strings.TrimSpace(line)
}

// TestRoundTrip: a parsed fixture sent with Send reaches the handler
// unchanged, over a real unix socket of mode 0600.
func TestRoundTrip(t *testing.T) {
	path := sockPath(t)
	s := serve(t, path)
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode()&os.ModeSocket == 0 || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket mode %v, want a socket with 0600", fi.Mode())
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("directory holds %d entries, want only the socket (no temporary left)", len(entries))
	}
	ev, err := Parse(AgentClaude, readFixture(t, "claude-permission-request.json"), tmuxEnv, at)
	if err != nil {
		t.Fatal(err)
	}
	if err := Send(context.Background(), path, ev); err != nil {
		t.Fatalf("Send: %v", err)
	}
	got := s.next(t)
	if !got.At.Equal(ev.At) {
		t.Errorf("at %v, want %v", got.At, ev.At)
	}
	got.At = ev.At
	if got != ev {
		t.Errorf("handler got %+v\nwant %+v", got, ev)
	}
	// Several events on one connection, each answered.
	c, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	br := bufio.NewReader(c)
	for _, kind := range []string{"finished", "reminder"} {
		if _, err := c.Write([]byte(`{"agent":"codex","kind":"` + kind + `","reason":"r","at":"2026-11-30T09:00:00Z"}` + "\n")); err != nil {
			t.Fatal(err)
		}
		if line, _ := br.ReadString('\n'); strings.TrimSpace(line) != `{"ok":true}` {
			t.Fatalf("answer %q", line)
		}
		if got := s.next(t); string(got.Kind) != kind || got.Agent != "codex" {
			t.Errorf("got %+v", got)
		}
	}
	// The socket goes with Serve.
	s.stop(t)
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket still there after Serve returned: %v", err)
	}
	if err := Send(context.Background(), path, ev); !errors.Is(err, ErrNoDaemon) {
		t.Errorf("Send after stop: %v, want ErrNoDaemon", err)
	}
}

// TestReceiverSurvivesGarbage: bad lines are answered with an error and
// the connection closed; silent, oversized and vanishing clients harm
// nobody; the next good event still goes through.
func TestReceiverSurvivesGarbage(t *testing.T) {
	path := sockPath(t)
	s := serve(t, path)

	// A client that connects and says nothing, held open meanwhile.
	silent, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()

	cases := []struct{ send, want string }{
		{"garbage\n", `"ok":false,"error":"not a JSON Event`},
		{"[1,2]\n", `"ok":false,"error":"not a JSON Event`},
		{"\n", `"ok":false,"error":"empty line`},
		{`{"agent":"aider","kind":"blocked"}` + "\n", `unknown agent \"aider\"`},
		{`{"agent":"claude","kind":"panic"}` + "\n", `unknown kind \"panic\"`},
		{`{"agent":"claude","kind":"blocked","at":"yesterday"}` + "\n", `"ok":false`},
		{strings.Repeat("x", MaxLine+10) + "\n", `event longer than 65536 bytes`},
		{"\x00\xff\xfe\n", `"ok":false`},
	}
	for _, c := range cases {
		if got := rawExchange(t, path, c.send); !strings.Contains(got, c.want) {
			t.Errorf("send %.40q: answer %q, want %q", c.send, got, c.want)
		}
	}
	// A client that hangs up mid-line.
	if c, err := net.Dial("unix", path); err == nil {
		c.Write([]byte(`{"agent":"claude",`))
		c.Close()
	}
	// The last line may lack its newline.
	if got := rawExchange(t, path, `{"agent":"gemini","kind":"finished","reason":"AfterAgent"}`); got != `{"ok":true}` {
		t.Errorf("no trailing newline: %q", got)
	}
	if ev := s.next(t); ev.Agent != AgentGemini {
		t.Errorf("got %+v", ev)
	}
	ev := Event{Agent: AgentOpenCode, Kind: KindBlocked, Reason: "permission.asked", Pane: "%3", At: at}
	if err := Send(context.Background(), path, ev); err != nil {
		t.Fatalf("Send after garbage: %v", err)
	}
	if got := s.next(t); got.Pane != "%3" || got.Agent != AgentOpenCode {
		t.Errorf("got %+v", got)
	}
	select {
	case ev := <-s.events:
		t.Errorf("a bad line reached the handler: %+v", ev)
	default:
	}
	// The silent client is cut off after ReadTimeout.
	silent.SetReadDeadline(time.Now().Add(ReadTimeout + 3*time.Second))
	start := time.Now()
	if _, err := silent.Read(make([]byte, 1)); err == nil {
		t.Error("the silent client got data")
	} else if el := time.Since(start); el > ReadTimeout+2*time.Second {
		t.Errorf("silent client held for %v", el)
	}
}

// TestHandlerCallsNeverOverlap: the handler is called one event at a time,
// and a slow handler does not delay the answers.
func TestHandlerCallsNeverOverlap(t *testing.T) {
	path := sockPath(t)
	r, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	in, maxIn, n := 0, 0, 0
	done := make(chan error, 1)
	release := make(chan struct{}) // the handler is stuck until every Send has its answer
	go func() {
		done <- r.Serve(ctx, func(context.Context, Event) {
			mu.Lock()
			in++
			n++
			maxIn = max(maxIn, in)
			mu.Unlock()
			<-release
			mu.Lock()
			in--
			mu.Unlock()
		})
	}()
	var wg sync.WaitGroup
	for i := 0; i < 10; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := Send(context.Background(), path, Event{Agent: AgentClaude, Kind: KindFinished}); err != nil {
				t.Errorf("Send: %v", err)
			}
		}()
	}
	wg.Wait() // had the answers waited for the stuck handler, every Send would have timed out
	close(release)
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if maxIn != 1 || n != 10 {
		t.Errorf("%d handler calls, at most %d at once; want 10, 1", n, maxIn)
	}
}

// TestListenReplacesStaleSocket: a socket file left by a dead daemon is
// replaced; a live one, or a file that is not a socket, is refused with
// advice.
func TestListenReplacesStaleSocket(t *testing.T) {
	path := sockPath(t)
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	ln.Close() // the file stays, nobody accepts: a dead daemon's socket
	if err := Send(context.Background(), path, Event{Agent: AgentClaude, Kind: KindFinished}); !errors.Is(err, ErrNoDaemon) {
		t.Errorf("Send to a stale socket: %v, want ErrNoDaemon", err)
	}
	s := serve(t, path)
	if err := Send(context.Background(), path, Event{Agent: AgentClaude, Kind: KindFinished}); err != nil {
		t.Fatalf("Send after replacing the stale socket: %v", err)
	}
	s.next(t)

	// A second daemon on the same socket is refused; the first keeps it.
	if r, err := Listen(path); err == nil {
		r.Close()
		t.Fatal("Listen took over a live socket")
	} else if !strings.Contains(err.Error(), "already serves") || !strings.Contains(err.Error(), "--state-dir") {
		t.Errorf("live socket: %v", err)
	}
	if err := Send(context.Background(), path, Event{Agent: AgentClaude, Kind: KindFinished}); err != nil {
		t.Errorf("the first daemon lost its socket: %v", err)
	}

	// Not a socket: refused, left alone.
	file := filepath.Join(filepath.Dir(path), "plain")
	if err := os.WriteFile(file, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Listen(file); err == nil || !strings.Contains(err.Error(), "not a socket") {
		t.Errorf("plain file: %v", err)
	}
	if b, _ := os.ReadFile(file); string(b) != "keep me" {
		t.Error("Listen touched a plain file")
	}
}

// TestCloseKeepsAReplacement: a receiver closing late does not remove a
// socket another daemon has put in its place.
func TestCloseKeepsAReplacement(t *testing.T) {
	path := sockPath(t)
	old, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(path) // as if the state dir were cleaned up under it
	s := serve(t, path)
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}
	if err := Send(context.Background(), path, Event{Agent: AgentClaude, Kind: KindFinished}); err != nil {
		t.Fatalf("the new daemon's socket went: %v", err)
	}
	s.next(t)
	if err := old.Serve(context.Background(), nil); err == nil {
		t.Error("Serve after Close did not fail")
	}
}

// TestListenMakesItsDirectory: a missing state directory is created 0700.
func TestListenMakesItsDirectory(t *testing.T) {
	dir := filepath.Join(filepath.Dir(sockPath(t)), "st")
	r, err := Listen(filepath.Join(dir, SocketName))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	fi, err := os.Stat(dir)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("dir: %v, %v", fi, err)
	}
	if _, err := Listen(""); err == nil {
		t.Error("empty path accepted")
	}
	long := filepath.Join(dir, strings.Repeat("d", 100), SocketName)
	if _, err := Listen(long); err == nil || !strings.Contains(err.Error(), "too long") {
		t.Errorf("long path: %v", err)
	}
}

// TestSendGivesUp: a daemon that accepts and never answers costs Send at
// most SendTimeout, or less when ctx says so.
func TestSendGivesUp(t *testing.T) {
	path := sockPath(t)
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close() // hold it, say nothing
		}
	}()
	start := time.Now()
	err = Send(context.Background(), path, Event{Agent: AgentClaude, Kind: KindFinished})
	// Timing goals belong in benchmarks: here only that it waited for its
	// deadline and then gave up (the upper bound is a hang guard).
	if el := time.Since(start); err == nil || el < SendTimeout-50*time.Millisecond || el > 10*time.Second {
		t.Errorf("Send returned %v after %v; want an error after its %v deadline", err, el, SendTimeout)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start = time.Now()
	if err := Send(ctx, path, Event{Agent: AgentClaude, Kind: KindFinished}); err == nil || time.Since(start) > 10*time.Second {
		t.Errorf("Send with a 100ms ctx: %v after %v", err, time.Since(start))
	}
	// Not a daemon's answer.
	path2 := sockPath(t)
	ln2, err := net.Listen("unix", path2)
	if err != nil {
		t.Fatal(err)
	}
	defer ln2.Close()
	go func() {
		c, err := ln2.Accept()
		if err == nil {
			// Take the event first, then answer as something that is not
			// attn: answering before reading can break the client's write.
			bufio.NewReader(c).ReadString('\n')
			c.Write([]byte("HTTP/1.1 400 Bad Request\r\n\r\n"))
			c.Close()
		}
	}()
	if err := Send(context.Background(), path2, Event{Agent: AgentClaude, Kind: KindFinished}); err == nil || !strings.Contains(err.Error(), "not {\"ok\"") {
		t.Errorf("foreign answer: %v", err)
	}
}

// TestServeReturnsWithBusyClients: Serve returns soon after its context
// ends, even with a client connected and silent.
func TestServeReturnsWithBusyClients(t *testing.T) {
	path := sockPath(t)
	s := serve(t, path)
	c, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	time.Sleep(50 * time.Millisecond)
	start := time.Now()
	s.stop(t)
	if el := time.Since(start); el > time.Second {
		t.Errorf("Serve took %v to return", el)
	}
}
