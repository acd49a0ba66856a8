package hook

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// SocketName is the hook socket's file name in attn's state directory:
// the daemon listens on <state-dir>/hook.sock and `attn hook` sends there.
const SocketName = "hook.sock"

// Socket protocol limits.
const (
	// MaxLine is the longest request or answer line on the hook socket, in
	// bytes, newline included. An Event is a few hundred bytes.
	MaxLine = 64 << 10
	// ReadTimeout is how long the receiver gives one connection, from
	// accept to its last answer.
	ReadTimeout = 2 * time.Second
	// SendTimeout is the longest Send takes, dial to answer, when ctx
	// allows more: a hook must return within a second whatever the daemon
	// does.
	SendTimeout = 500 * time.Millisecond
	// maxConns bounds the connections the receiver serves at once; more
	// wait in the listen backlog.
	maxConns = 32
)

// ErrNoDaemon is wrapped by Send's error when nothing listens on the
// socket (no file, or a stale one): the daemon is not running.
var ErrNoDaemon = errors.New("no attn daemon is listening")

// answer is the receiver's reply line: {"ok":true} or
// {"ok":false,"error":"…"}.
type answer struct {
	OK    bool   `json:"ok"`
	Error string `json:"error,omitempty"`
}

// Receiver is the daemon's end of the hook socket: a unix socket, mode
// 0600, that accepts newline-delimited JSON Events.
type Receiver struct {
	path string
	ln   *net.UnixListener
	fi   os.FileInfo // the socket file as created, to remove only our own

	mu      sync.Mutex
	serving bool
	closed  bool
}

// Listen creates the hook socket at path (normally <state-dir>/hook.sock),
// mode 0600, creating its directory (mode 0700) if missing.
//
// A stale socket at path (nothing accepts on it: a daemon that died) is
// replaced. Listen refuses, with an error saying what to do, when another
// process serves path, or when path exists and is not a socket. The socket
// is created under a private temporary name and renamed into place, so no
// other user can connect to it before its mode is 0600.
func Listen(path string) (*Receiver, error) {
	if path == "" {
		return nil, errors.New("hook socket path is empty")
	}
	path = filepath.Clean(path)
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create the hook socket's directory: %w", err)
	}
	if err := clearStale(path); err != nil {
		return nil, err
	}
	tmpDir, err := os.MkdirTemp(dir, ".h")
	if err != nil {
		return nil, fmt.Errorf("create the hook socket: %w", err)
	}
	defer os.RemoveAll(tmpDir)
	tmp := filepath.Join(tmpDir, "s")
	if len(tmp) >= 104 || len(path) >= 104 { // sun_path: 108 on Linux, 104 on BSDs
		return nil, fmt.Errorf("hook socket path %s is too long for a unix socket (at most about 90 bytes): choose a shorter --state-dir", path)
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: tmp, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("listen on the hook socket: %w", err)
	}
	ln.SetUnlinkOnClose(false) // it moves; Close removes it by its final name
	if err := os.Chmod(tmp, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("set the hook socket's mode: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		ln.Close()
		return nil, fmt.Errorf("move the hook socket into place: %w", err)
	}
	fi, err := os.Lstat(path)
	if err != nil {
		ln.Close()
		return nil, fmt.Errorf("hook socket: %w", err)
	}
	return &Receiver{path: path, ln: ln, fi: fi}, nil
}

// clearStale removes a dead socket at path, and refuses a live one or a
// file of another kind.
func clearStale(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("hook socket %s: %w", path, err)
	}
	if fi.Mode()&os.ModeSocket == 0 {
		return fmt.Errorf("%s exists and is not a socket: move it aside, or choose another --state-dir", path)
	}
	c, err := net.DialTimeout("unix", path, 500*time.Millisecond)
	if err == nil {
		c.Close()
		return fmt.Errorf("another process (an attn daemon?) already serves the hook socket %s: stop it, or choose another --state-dir", path)
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		return fmt.Errorf("hook socket %s exists and cannot be checked (%v): remove it if no attn daemon runs", path, err)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove the stale hook socket %s: %w", path, err)
	}
	return nil
}

// Path returns the socket's path.
func (r *Receiver) Path() string { return r.path }

// Close stops accepting and removes the socket file, unless another
// process has replaced it since. Serve calls it on return; call it
// yourself only when Serve never runs. It is safe to call more than once.
func (r *Receiver) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	r.closed = true
	err := r.ln.Close()
	if fi, serr := os.Lstat(r.path); serr == nil && os.SameFile(fi, r.fi) {
		if rerr := os.Remove(r.path); rerr != nil && !errors.Is(rerr, os.ErrNotExist) && err == nil {
			err = rerr
		}
	}
	return err
}

// Serve accepts connections until ctx ends, then closes the socket,
// removes its file and returns nil once every connection is done (each
// lasts at most ReadTimeout). It returns an error if accepting fails for
// another reason, or if Serve was already called.
//
// Each connection sends Events, one JSON object per line (one per
// connection is what Send does). Each line gets one answer line:
// {"ok":true} once the Event is accepted, or {"ok":false,"error":"…"}
// for a line that is not an Event (not JSON, unknown agent or kind,
// longer than MaxLine), after which the connection is closed.
//
// handler gets each accepted Event, after its answer is written so that a
// slow handler never holds up a hook. Calls never overlap, and come in the
// order the Events were accepted; handler's ctx is Serve's.
func (r *Receiver) Serve(ctx context.Context, handler func(context.Context, Event)) error {
	r.mu.Lock()
	if r.serving || r.closed {
		r.mu.Unlock()
		return errors.New("hook receiver: Serve called twice, or after Close")
	}
	r.serving = true
	r.mu.Unlock()
	if handler == nil {
		handler = func(context.Context, Event) {}
	}

	var (
		wg       sync.WaitGroup
		handleMu sync.Mutex
		connsMu  sync.Mutex
		conns    = map[net.Conn]struct{}{}
		sem      = make(chan struct{}, maxConns)
	)
	stop := context.AfterFunc(ctx, func() {
		r.Close()
		connsMu.Lock()
		for c := range conns {
			c.SetDeadline(time.Now()) // unblock reads; handlers finish
		}
		connsMu.Unlock()
	})
	defer stop()
	defer r.Close()
	defer wg.Wait()

	for {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			return nil
		}
		c, err := r.ln.Accept()
		if err != nil {
			<-sem
			if ctx.Err() != nil {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return fmt.Errorf("hook socket %s: accept: %w", r.path, err)
		}
		connsMu.Lock()
		conns[c] = struct{}{}
		connsMu.Unlock()
		wg.Add(1)
		go func() {
			defer func() {
				connsMu.Lock()
				delete(conns, c)
				connsMu.Unlock()
				c.Close()
				<-sem
				wg.Done()
			}()
			serveConn(ctx, c, func(ev Event) {
				handleMu.Lock()
				defer handleMu.Unlock()
				handler(ctx, ev)
			})
		}()
	}
}

// serveConn answers one connection's lines.
func serveConn(ctx context.Context, c net.Conn, handle func(Event)) {
	c.SetDeadline(time.Now().Add(ReadTimeout))
	br := bufio.NewReaderSize(c, 4096)
	for ctx.Err() == nil {
		line, err := readLine(br, MaxLine)
		if errors.Is(err, io.EOF) && len(line) == 0 {
			return
		}
		if errors.Is(err, errLineTooLong) {
			reply(c, answer{Error: fmt.Sprintf("event longer than %d bytes", MaxLine)})
			return
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return // deadline, reset: nobody to answer
		}
		ev, verr := decodeEvent(line)
		if verr != nil {
			reply(c, answer{Error: verr.Error()})
			return
		}
		if reply(c, answer{OK: true}) != nil {
			// The hook gave up waiting; the Event is still good.
			handle(ev)
			return
		}
		handle(ev)
		if err != nil { // EOF after a last line without newline
			return
		}
	}
}

var errLineTooLong = errors.New("line too long")

// readLine reads up to and without the next "\n", at most max bytes.
func readLine(br *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > max {
			return nil, errLineTooLong
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return bytes.TrimSuffix(line, []byte("\n")), err
	}
}

func reply(c net.Conn, a answer) error {
	b, _ := json.Marshal(a)
	_, err := c.Write(append(b, '\n'))
	return err
}

// decodeEvent reads and checks one Event line.
func decodeEvent(line []byte) (Event, error) {
	var ev Event
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return ev, errors.New("empty line: want one JSON Event per line")
	}
	if err := json.Unmarshal(line, &ev); err != nil {
		return ev, fmt.Errorf("not a JSON Event: %v", err)
	}
	if !KnownAgent(ev.Agent) {
		return ev, fmt.Errorf("unknown agent %q", ev.Agent)
	}
	if !ev.Kind.Valid() {
		return ev, fmt.Errorf("unknown kind %q: want blocked, finished, reminder or ignored", ev.Kind)
	}
	return ev, nil
}

// Send hands ev to the daemon listening on socketPath and waits for its
// answer. It gives up after SendTimeout, or sooner if ctx ends. The error
// wraps ErrNoDaemon when nothing listens there; it carries the daemon's
// words when the daemon refuses the Event.
func Send(ctx context.Context, socketPath string, ev Event) error {
	ctx, cancel := context.WithTimeout(ctx, SendTimeout)
	defer cancel()
	b, err := json.Marshal(ev)
	if err != nil {
		return fmt.Errorf("encode hook event: %w", err)
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", socketPath)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ECONNREFUSED) {
			return fmt.Errorf("%w on %s: start it with `attn serve`", ErrNoDaemon, socketPath)
		}
		return fmt.Errorf("hook socket %s: %w", socketPath, err)
	}
	defer c.Close()
	deadline, _ := ctx.Deadline()
	c.SetDeadline(deadline)
	stop := context.AfterFunc(ctx, func() { c.SetDeadline(time.Now()) })
	defer stop()
	if _, err := c.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("send hook event to %s: %w", socketPath, err)
	}
	line, err := readLine(bufio.NewReader(c), MaxLine)
	if err != nil && !(errors.Is(err, io.EOF) && len(line) > 0) {
		return fmt.Errorf("no answer from the attn daemon on %s: %w", socketPath, err)
	}
	var a answer
	if err := json.Unmarshal(line, &a); err != nil {
		return fmt.Errorf("the attn daemon on %s answered %q, not {\"ok\":…}", socketPath, line)
	}
	if !a.OK {
		return fmt.Errorf("the attn daemon refused the hook event: %s", a.Error)
	}
	return nil
}
