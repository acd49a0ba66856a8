// Command detect measures how fast attn notices a blocked agent and what
// watching costs (issue 4's figures; bench/detect.sh runs it):
//
//   - latency: a private tmux server with one pane per round, each a
//     stand-in agent ("claude", drawn from the shared screen fixtures)
//     showing Claude Code's idle screen; the bench presses Enter in a pane
//     and the pane draws the permission prompt; the time from send-keys
//     returning to the push arriving, decrypted, at web-push-testing is
//     one sample. attn serve runs with --settle 0s, once per mode:
//     event-driven (tmux control mode) and polling (ATTN_TMUX_CONTROL=off)
//     at --poll 1s and 10s. Between rounds it waits a random part of the
//     poll period, so that triggers fall at every phase of the poll.
//   - idle: 50 idle panes and one registered device for 60 s: the
//     daemon's CPU time (its own and its tmux children's, from
//     /proc/PID/stat), the tmux server's CPU time, and the daemon's
//     resident memory (VmRSS, VmHWM).
//
// Everything listens on and talks to 127.0.0.1 and private unix sockets
// only; every wait is bounded; it stops only processes it started, by pid,
// and the tmux servers it started, by their private socket names. The last
// line of output is machine-readable, starting "DETECT ".
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	attn := flag.String("attn", "", "the attn binary")
	peer := flag.String("pushpeer", "", "web-push-testing's src/bin/server.js")
	fixtures := flag.String("fixtures", "", "the shared screen fixtures directory")
	rounds := flag.Int("rounds", 20, "latency samples per mode")
	modes := flag.String("modes", "events,poll1s,poll10s", "latency modes: events, poll1s, poll10s")
	idleModes := flag.String("idle-modes", "events,poll1s", "idle modes (\"\" for none)")
	idlePanes := flag.Int("idle-panes", 50, "panes in the idle measurement")
	idleFor := flag.Duration("idle-for", 60*time.Second, "how long the idle measurement lasts")
	flag.Parse()
	if *attn == "" || *peer == "" || *fixtures == "" {
		fatalf("usage: detect -attn BIN -pushpeer server.js -fixtures DIR [flags]")
	}
	if *rounds < 1 || *rounds > 200 || *idlePanes < 1 || *idlePanes > 200 || *idleFor > 10*time.Minute {
		fatalf("bad -rounds, -idle-panes or -idle-for")
	}
	b := &bench{attn: *attn, fixtures: *fixtures, work: must(os.MkdirTemp("", "attn-detect"))}
	current = b
	defer b.cleanup()
	b.peer = startPeer(b, *peer)
	report := map[string]any{}
	for _, m := range split(*modes) {
		lat := b.latency(mode(m), *rounds)
		slices.Sort(lat)
		p50, p95 := pct(lat, 50), pct(lat, 95)
		fmt.Printf("latency %-8s n=%d p50=%v p95=%v min=%v max=%v\n", m, len(lat), p50, p95, lat[0], lat[len(lat)-1])
		report["latency_"+m] = map[string]any{"n": len(lat), "p50_ms": ms(p50), "p95_ms": ms(p95), "min_ms": ms(lat[0]), "max_ms": ms(lat[len(lat)-1])}
	}
	for _, m := range split(*idleModes) {
		r := b.idle(mode(m), *idlePanes, *idleFor)
		fmt.Printf("idle %-8s panes=%d for=%v daemon_cpu=%.2f%% (self %.2f%%, tmux clients %.2f%%) tmux_server_cpu=%.2f%% rss=%d KiB hwm=%d KiB\n",
			m, *idlePanes, *idleFor, r.daemonPct+r.childPct, r.daemonPct, r.childPct, r.serverPct, r.rssKB, r.hwmKB)
		report["idle_"+m] = map[string]any{"panes": *idlePanes, "seconds": idleFor.Seconds(),
			"daemon_cpu_pct": round2(r.daemonPct + r.childPct), "daemon_self_cpu_pct": round2(r.daemonPct),
			"tmux_client_cpu_pct": round2(r.childPct), "tmux_server_cpu_pct": round2(r.serverPct),
			"rss_kib": r.rssKB, "hwm_kib": r.hwmKB}
	}
	out, _ := json.Marshal(report)
	fmt.Printf("DETECT %s\n", out)
}

// mode is how the daemon watches.
type mode string

func (m mode) args() (poll string, env []string) {
	switch m {
	case "events":
		return "1s", nil
	case "poll1s":
		return "1s", []string{"ATTN_TMUX_CONTROL=off"}
	case "poll10s":
		return "10s", []string{"ATTN_TMUX_CONTROL=off"}
	}
	fatalf("unknown mode %q: want events, poll1s or poll10s", string(m))
	return "", nil
}

// period is the interval between a round's end and the next trigger is
// drawn from: [0, period).
func (m mode) period() time.Duration {
	if m == "poll10s" {
		return 10 * time.Second
	}
	return time.Second
}

type bench struct {
	attn, fixtures, work string
	peer                 string // web-push-testing's base URL
	pids                 []int
	sockets              []string
	seq                  int
}

func (b *bench) cleanup() {
	for _, s := range b.sockets {
		exec.Command("tmux", "-L", s, "kill-server").Run()
	}
	for _, pid := range b.pids {
		syscall.Kill(pid, syscall.SIGTERM)
	}
	os.RemoveAll(b.work)
}

// start runs a child process whose output goes to lines (nil: discarded).
func (b *bench) start(env []string, lines chan<- string, name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), env...)
	if lines != nil {
		pr, pw := io.Pipe()
		cmd.Stdout, cmd.Stderr = pw, pw
		go func() {
			sc := bufio.NewScanner(pr)
			sc.Buffer(make([]byte, 64<<10), 1<<20)
			for sc.Scan() {
				select {
				case lines <- sc.Text():
				default: // nobody listens any more
				}
			}
		}()
	}
	if err := cmd.Start(); err != nil {
		fatalf("start %s: %v", name, err)
	}
	b.pids = append(b.pids, cmd.Process.Pid)
	go cmd.Wait()
	return cmd
}

func (b *bench) stop(cmd *exec.Cmd) {
	cmd.Process.Signal(syscall.SIGTERM)
	for range 100 { // up to 10 s
		if err := cmd.Process.Signal(syscall.Signal(0)); err != nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	cmd.Process.Kill()
}

func startPeer(b *bench, server string) string {
	port := freePort()
	lines := make(chan string, 64)
	b.start(nil, lines, "node", server, strconv.Itoa(port))
	waitLine(lines, regexp.MustCompile(`Server running on port`), 20*time.Second, "web-push-testing")
	return fmt.Sprintf("http://localhost:%d", port)
}

// tmux is one private tmux server.
type tmux struct{ sock string }

func (b *bench) newTmux(name string) *tmux {
	b.seq++
	t := &tmux{sock: fmt.Sprintf("attn-detect-%d-%s-%d", os.Getpid(), name, b.seq)}
	b.sockets = append(b.sockets, t.sock)
	return t
}

func (t *tmux) run(args ...string) string {
	out, err := exec.Command("tmux", append([]string{"-L", t.sock, "-f", "/dev/null"}, args...)...).CombinedOutput()
	if err != nil {
		fatalf("tmux %v: %v: %s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func (t *tmux) kill() { exec.Command("tmux", "-L", t.sock, "kill-server").Run() }

// agentScript draws the idle screen, and on Enter the permission prompt.
const agentScript = `set -u
printf '\033]2;%s\033\\' '✳ Claude Code'
printf '\033[H\033[2J'; cat "$1"
read -rs _
printf '\033[H\033[2J'; cat "$2"
read -rs -t 3600 _
`

// panes starts a server with n stand-in agents (200×50), window names
// a0…; it returns their pane ids.
func (b *bench) panes(t *tmux, n int) []string {
	bash := must(exec.LookPath("bash"))
	dir := must(os.MkdirTemp(b.work, "agent"))
	link := filepath.Join(dir, "claude") // tmux names the foreground command "claude"
	must0(os.Symlink(bash, link))
	script := filepath.Join(dir, "agent.sh")
	must0(os.WriteFile(script, []byte(agentScript), 0o600))
	cmd := fmt.Sprintf("exec %s %s %s %s", link, script, filepath.Join(b.fixtures, "claude-idle.txt"), filepath.Join(b.fixtures, "claude-bash-permission.txt"))
	t.run("new-session", "-d", "-s", "bench", "-x", "200", "-y", "50", "-n", "a0", cmd)
	for i := 1; i < n; i++ {
		t.run("new-window", "-d", "-t", "bench", "-n", fmt.Sprintf("a%d", i), cmd)
	}
	return strings.Fields(t.run("list-panes", "-s", "-t", "bench", "-F", "#{pane_id}"))
}

// daemon is a running attn serve.
type daemon struct {
	cmd   *exec.Cmd
	api   string
	token string
	lines chan string
}

var servingRE = regexp.MustCompile(`msg="attn serving" listen=(http://\S+)`)

func (b *bench) daemon(t *tmux, m mode) *daemon {
	poll, env := m.args()
	state := must(os.MkdirTemp(b.work, "state"))
	lines := make(chan string, 1024)
	env = append(env, "ATTN_REMOTE_HOSTS=off", "HERDR_SOCKET_PATH=")
	cmd := b.start(env, lines, b.attn, "serve", "--listen", "127.0.0.1:0", "--state-dir", state,
		"--tmux-socket", t.sock, "--settle", "0s", "--poll", poll,
		"--push-contact", "mailto:bench@example.org", "--allow-insecure-push-endpoints")
	line := waitLine(lines, servingRE, 20*time.Second, "attn serve")
	tok := strings.TrimSpace(string(must(os.ReadFile(filepath.Join(state, "api-token")))))
	return &daemon{cmd: cmd, api: servingRE.FindStringSubmatch(line)[1], token: tok, lines: lines}
}

// register subscribes one device at web-push-testing and registers it.
func (b *bench) register(d *daemon) string {
	var key struct {
		PublicKey string `json:"publicKey"`
	}
	call("GET", d.api+"/api/push/vapid-public-key", "", nil, &key)
	var sub struct {
		Data struct {
			Endpoint string          `json:"endpoint"`
			Keys     json.RawMessage `json:"keys"`
			Hash     string          `json:"clientHash"`
		} `json:"data"`
	}
	call("POST", b.peer+"/subscribe", "", map[string]string{"userVisibleOnly": "true", "applicationServerKey": key.PublicKey}, &sub)
	call("POST", d.api+"/api/push/subscribe", d.token, map[string]any{"endpoint": sub.Data.Endpoint, "keys": sub.Data.Keys, "name": "bench"}, nil)
	return sub.Data.Hash
}

func (b *bench) messages(hash string) []string {
	var out struct {
		Data struct {
			Messages []string `json:"messages"`
		} `json:"data"`
	}
	call("POST", b.peer+"/get-notifications", "", map[string]string{"clientHash": hash}, &out)
	return out.Data.Messages
}

// waitPanes waits until the board shows n panes, none blocked.
func waitPanes(d *daemon, n int) {
	deadline := time.Now().Add(60 * time.Second)
	for {
		var board struct {
			Panes []struct {
				Status string `json:"status"`
			} `json:"panes"`
		}
		call("GET", d.api+"/api/panes", d.token, nil, &board)
		idle := 0
		for _, p := range board.Panes {
			if p.Status == "idle" {
				idle++
			}
		}
		if idle == n {
			return
		}
		if time.Now().After(deadline) {
			fatalf("the board shows %d idle panes of %d after 60 s", idle, n)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// latency measures rounds samples in mode m.
func (b *bench) latency(m mode, rounds int) []time.Duration {
	t := b.newTmux("lat-" + string(m))
	defer t.kill()
	ids := b.panes(t, rounds)
	d := b.daemon(t, m)
	defer b.stop(d.cmd)
	hash := b.register(d)
	waitPanes(d, rounds)
	rng := rand.New(rand.NewPCG(uint64(len(m)), 4))
	var out []time.Duration
	for i, id := range ids {
		time.Sleep(time.Duration(rng.Int64N(int64(m.period()))))
		t.run("send-keys", "-t", id, "Enter")
		t0 := time.Now()
		deadline := t0.Add(3*m.period() + 20*time.Second)
		for {
			msgs := b.messages(hash)
			if len(msgs) > i {
				var msg struct {
					Pane string `json:"pane"`
					Kind string `json:"kind"`
				}
				if err := json.Unmarshal([]byte(msgs[i]), &msg); err != nil || msg.Pane != id || msg.Kind != "blocked" || len(msgs) != i+1 {
					fatalf("round %d: messages %q, want one more, blocked, for %s", i, msgs, id)
				}
				out = append(out, time.Since(t0))
				break
			}
			if time.Now().After(deadline) {
				fatalf("round %d (%s): no push within %v", i, m, deadline.Sub(t0))
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	return out
}

type idleResult struct {
	daemonPct, childPct, serverPct float64
	rssKB, hwmKB                   int
}

// idle measures the daemon watching n idle panes for d.
func (b *bench) idle(m mode, n int, dur time.Duration) idleResult {
	t := b.newTmux("idle-" + string(m))
	defer t.kill()
	b.panes(t, n)
	server := must(strconv.Atoi(t.run("display-message", "-p", "#{pid}")))
	d := b.daemon(t, m)
	defer b.stop(d.cmd)
	b.register(d)
	waitPanes(d, n)
	time.Sleep(5 * time.Second) // past the start
	pid := d.cmd.Process.Pid
	self0, kids0 := cpu(pid)
	srv0, _ := cpu(server)
	t0 := time.Now()
	time.Sleep(dur)
	self1, kids1 := cpu(pid)
	srv1, _ := cpu(server)
	secs := time.Since(t0).Seconds()
	pct := func(d float64) float64 { return 100 * d / secs }
	return idleResult{daemonPct: pct(self1 - self0), childPct: pct(kids1 - kids0), serverPct: pct(srv1 - srv0),
		rssKB: statusKB(pid, "VmRSS"), hwmKB: statusKB(pid, "VmHWM")}
}

// cpu returns a process's CPU seconds (user+system) and those of its
// waited-for children, from /proc/PID/stat (in USER_HZ, 100 on Linux).
func cpu(pid int) (self, children float64) {
	b := must(os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)))
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+2:]))
	n := func(i int) float64 { v, _ := strconv.ParseFloat(f[i-3], 64); return v / 100 }
	return n(14) + n(15), n(16) + n(17)
}

func statusKB(pid int, key string) int {
	b := must(os.ReadFile(fmt.Sprintf("/proc/%d/status", pid)))
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, key+":"); ok {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return n
		}
	}
	return 0
}

func call(method, url, token string, in, out any) {
	var body io.Reader
	if in != nil {
		body = bytes.NewReader(must(json.Marshal(in)))
	}
	req := must(http.NewRequest(method, url, body))
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		fatalf("%s %s: %d %s", method, url, resp.StatusCode, raw)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			fatalf("%s %s: %q: %v", method, url, raw, err)
		}
	}
}

func waitLine(lines <-chan string, re *regexp.Regexp, timeout time.Duration, what string) string {
	deadline := time.After(timeout)
	var seen []string
	for {
		select {
		case l := <-lines:
			if re.MatchString(l) {
				return l
			}
			seen = append(seen, l)
		case <-deadline:
			fatalf("%s did not start within %v:\n%s", what, timeout, strings.Join(seen, "\n"))
		}
	}
}

func freePort() int {
	l := must(net.Listen("tcp", "127.0.0.1:0"))
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// pct is the nearest-rank percentile of sorted samples.
func pct(sorted []time.Duration, p int) time.Duration {
	i := (p*len(sorted)+99)/100 - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func round2(f float64) float64 { return float64(int(f*100+0.5)) / 100 }

func split(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func must[T any](v T, err error) T {
	if err != nil {
		fatalf("%v", err)
	}
	return v
}

func must0(err error) {
	if err != nil && !errors.Is(err, os.ErrExist) {
		fatalf("%v", err)
	}
}

// current is cleaned up by fatalf.
var current *bench

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "detect: "+format+"\n", args...)
	if current != nil {
		current.cleanup()
	}
	os.Exit(1)
}
