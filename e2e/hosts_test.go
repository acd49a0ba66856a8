package e2e

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/attn-dev/attn/internal/hosts"
	"github.com/attn-dev/attn/internal/hosts/hoststest"
)

// hostsJSON is `attn hosts --json`.
func (d *daemon) hostsJSON(t *testing.T, args ...string) hosts.Listing {
	t.Helper()
	code, out, errOut := d.cli(t, "", append([]string{"hosts", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("attn hosts: exit %d: %s", code, errOut)
	}
	var l hosts.Listing
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		t.Fatalf("attn hosts --json: %v: %s", err, out)
	}
	return l
}

func hostOf(l hosts.Listing, name string) hosts.Host {
	for _, h := range l.Hosts {
		if h.Name == name {
			return h
		}
	}
	return hosts.Host{}
}

// waitHost waits until host's state is state.
func (d *daemon) waitHost(t *testing.T, host, state string, timeout time.Duration) hosts.Host {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		h := hostOf(d.hostsJSON(t), host)
		if h.State == state {
			return h
		}
		if time.Now().After(deadline) {
			t.Fatalf("host %s never became %s: %+v", host, state, h)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// panesOf lists the inbox's panes of one host.
func (d *daemon) panesOf(t *testing.T, host string) []string {
	t.Helper()
	var out struct {
		Panes []struct {
			Host, Pane, Status string
		} `json:"panes"`
	}
	postJSON(t, "GET", d.base+"/api/panes", d.token, nil, &out)
	var ps []string
	for _, p := range out.Panes {
		if p.Host == host {
			ps = append(ps, p.Pane+":"+p.Status)
		}
	}
	return ps
}

// menuCommand runs e2e/testdata/menu.sh as claude: screen, then next.
func menuCommand(t *testing.T, screen, next string) []string {
	cmd := agentCommand(t, "claude", "✳ Claude Code", screen, "0", next)
	cmd[1] = repoRoot(t) + "/e2e/testdata/menu.sh"
	return cmd
}

// TestHostsThroughSSH makes attn fleet-wide against a fake ssh: host
// "devbox" is a second private tmux server reached through it, "slow"
// never answers. attn lists both at once, detects and answers a blocked
// agent on devbox, rides out an outage without announcing anything
// again, and takes remote hooks only with devbox's own credential.
func TestHostsThroughSSH(t *testing.T) {
	ps := startPushService(t)
	local := startTmux(t)
	remote := &tmuxServer{socket: local.socket + "-devbox"}
	t.Cleanup(func() { exec.Command("tmux", "-L", remote.socket, "kill-server").Run() })
	fake, err := hoststest.Install(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	fake.Tmux("devbox", remote.socket)
	fake.Hang("slow")
	sshConfig := filepath.Join(t.TempDir(), "config")
	writeFile(t, sshConfig, "Host devbox slow\n    User me\nHost *\n    ServerAliveInterval 30\n")
	env := []string{"PATH=" + fake.PATH(), "ATTN_SSH_CONFIG=" + sshConfig, "ATTN_HOSTNAME=Titan"}

	localPane := local.newWindow(t, "api", agentCommand(t, "claude", "✳ Claude Code", fixture(t, "claude-idle.txt"))...)
	far := remote.newWindow(t, "far", menuCommand(t, fixture(t, "claude-bash-permission.txt"), fixture(t, "claude-edit-file.txt"))...)
	d := startDaemonEnv(t, hookStateDir(t), local.socket, env)

	// The listing answers at once, whatever the probes do.
	begin := time.Now()
	code, out, _ := d.cli(t, "", "hosts")
	if code != 0 || time.Since(begin) > 5*time.Second || !regexp.MustCompile(`(?m)^titan\s+reachable\s+attn's own host \(also: local\)$`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^slow\s+probing\s*$`).MatchString(out) {
		t.Fatalf("attn hosts (took %v):\n%s", time.Since(begin), out)
	}
	d.waitHost(t, "devbox", hosts.StateReachable, 20*time.Second)
	if h := hostOf(d.hostsJSON(t), "slow"); h.State != hosts.StateProbing {
		t.Fatalf("slow = %+v, want still probing: a hanging host holds up no other", h)
	}

	sub := ps.subscribe(t, d.vapidKey(t))
	d.register(t, sub, "phone")
	m := decode(t, ps.waitMessages(t, sub.ClientHash, 1, 30*time.Second)[0])
	if m.Host != "devbox" || m.Pane != far || m.Title != "far" || m.Tag != "block:devbox/"+far || !strings.Contains(m.Body, "claude on devbox") {
		t.Fatalf("push for the remote agent = %+v", m)
	}

	// Answer it from the card: keys typed into the pane through ssh.
	nonce := d.cardNonce(t, "devbox", far)
	if code, res := d.answer(t, "card", nonce, 1); code != 200 || res["outcome"] != "applied" {
		t.Fatalf("answer on devbox: %d %v", code, res)
	}
	remote.waitScreen(t, far, "Do you want to make this edit")
	ps.waitMessages(t, sub.ClientHash, 2, 30*time.Second)

	// An outage: devbox is listed unreachable with ssh's reason, its panes
	// leave the inbox, and the own host keeps working.
	fake.Fail("devbox", "ssh: connect to host devbox port 22: Connection refused")
	h := d.waitHost(t, "devbox", hosts.StateUnreachable, 20*time.Second)
	if h.Error != "ssh devbox: ssh: connect to host devbox port 22: Connection refused" {
		t.Fatalf("devbox during the outage = %+v", h)
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(d.panesOf(t, "devbox")) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("devbox's panes stayed in the inbox: %v", d.panesOf(t, "devbox"))
		}
		time.Sleep(100 * time.Millisecond)
	}
	if got := d.panesOf(t, "titan"); len(got) != 1 || got[0] != localPane+":idle" {
		t.Fatalf("own host's panes during the outage: %v", got)
	}
	if code, _, errOut := d.cli(t, "", "notify", "still here"); code != 0 {
		t.Fatalf("notify during the outage: %d %s", code, errOut)
	}

	// Back: the question still on devbox's screen was announced before
	// the outage, so it is not announced again.
	fake.Tmux("devbox", remote.socket)
	d.hostsJSON(t, "--refresh")
	d.waitHost(t, "devbox", hosts.StateReachable, 20*time.Second)
	deadline = time.Now().Add(20 * time.Second)
	for strings.Join(d.panesOf(t, "devbox"), ",") != far+":blocked" {
		if time.Now().After(deadline) {
			t.Fatalf("devbox's pane never came back blocked: %v", d.panesOf(t, "devbox"))
		}
		time.Sleep(100 * time.Millisecond)
	}
	n := d.out.count(pollRE)
	d.out.waitCount(t, pollRE, n+10, 20*time.Second) // past the settle time
	if msgs := ps.messages(t, sub.ClientHash); len(msgs) != 3 {
		t.Fatalf("after the outage: %d messages, want 3 (two questions and the notify): %q", len(msgs), msgs)
	}

	// Remote hooks: devbox's credential reports for devbox only.
	code, out, errOut := d.cli(t, "", "host", "token", "devbox")
	tok := regexp.MustCompile(`attnh_[A-Za-z0-9_-]+`).FindString(out)
	if code != 0 || tok == "" || !strings.Contains(out, "export ATTN_HOOK_URL="+d.base+"/api/hosts/devbox/hook") {
		t.Fatalf("attn host token devbox: %d\n%s%s", code, out, errOut)
	}
	payload := hookFixture(t, "claude-permission-request.json")
	run := runHook(t, stdinOf(t, payload), hookStateDir(t), []string{"ATTN_HOOK_URL=" + d.base + "/api/hosts/devbox/hook",
		"ATTN_HOOK_TOKEN=" + tok, "TMUX_PANE=" + far}, "hook", "claude")
	if run.code != 0 || run.stderr != "" || run.stdout != "" {
		t.Fatalf("remote hook for its own host: %+v", run)
	}
	d.out.waitCount(t, regexp.MustCompile(`msg="agent hook for a host not watched now|msg="poll done"`), 1, 5*time.Second)
	run = runHook(t, stdinOf(t, payload), hookStateDir(t), []string{"ATTN_HOOK_URL=" + d.base + "/api/hosts/slow/hook",
		"ATTN_HOOK_TOKEN=" + tok, "TMUX_PANE=" + far}, "hook", "claude")
	if run.code != 0 || !strings.Contains(run.stderr, "it is the credential of devbox and can only report for devbox, not for slow") ||
		strings.Contains(run.stderr, tok) {
		t.Fatalf("remote hook for another host: %+v", run)
	}
	if strings.Contains(d.out.String(), tok) {
		t.Fatal("the daemon logged a host credential")
	}

	// The hung host ends up listed with its reason.
	h = d.waitHost(t, "slow", hosts.StateUnreachable, 30*time.Second)
	if !strings.Contains(h.Error, "no answer from slow in time") {
		t.Fatalf("slow = %+v", h)
	}
}

// TestOwnHostNamedLocal: when an SSH alias answers to the hostname, the
// own host is called local everywhere, and the alias keeps the name.
func TestOwnHostNamedLocal(t *testing.T) {
	local := startTmux(t)
	fake, err := hoststest.Install(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	fake.Fail("titan", "ssh: connect to host titan port 22: Connection refused")
	sshConfig := filepath.Join(t.TempDir(), "config")
	writeFile(t, sshConfig, "Host TITAN\n")
	d := startDaemonEnv(t, hookStateDir(t), local.socket, []string{"PATH=" + fake.PATH(), "ATTN_SSH_CONFIG=" + sshConfig, "ATTN_HOSTNAME=titan"})
	l := d.hostsJSON(t)
	if l.Active != "local" || l.Hosts[0].Name != "local" || !l.Hosts[0].Own || len(l.Hosts[0].Also) != 0 || l.Hosts[1].Name != "TITAN" {
		t.Fatalf("listing = %+v", l)
	}
	if h := d.waitHost(t, "TITAN", hosts.StateUnreachable, 20*time.Second); h.Own {
		t.Fatalf("the alias is not the own host: %+v", h)
	}
}

// sshServer is Debian's sshd on a loopback port, with a throwaway host
// key and client key, started (and stopped) by the test.
type sshServer struct {
	cmd      *exec.Cmd
	port     int
	dir      string
	tmuxDir  string // TMUX_TMPDIR of its sessions: their default tmux server is private
	stopped  bool
	alias    string
	sshAlias string // the ssh config lines for alias
}

func startSSHD(t *testing.T, alias string) *sshServer {
	t.Helper()
	sshd := "/usr/sbin/sshd"
	if _, err := os.Stat(sshd); err != nil {
		t.Fatal("sshd is not installed: apt-get install openssh-server (scripts/test does)")
	}
	dir, err := os.MkdirTemp("", "attnssh")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	for _, k := range []string{"host_key", "client_key"} {
		if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "attn-e2e", "-f", filepath.Join(dir, k)).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen: %v: %s", err, out)
		}
	}
	pub, err := os.ReadFile(filepath.Join(dir, "client_key.pub"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "authorized_keys"), string(pub))
	s := &sshServer{port: freePort(t), dir: dir, tmuxDir: filepath.Join(dir, "tmux"), alias: alias}
	if err := os.Mkdir(s.tmuxDir, 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "sshd_config"), fmt.Sprintf(`Port %d
ListenAddress 127.0.0.1
HostKey %s/host_key
PidFile %s/sshd.pid
AuthorizedKeysFile %s/authorized_keys
StrictModes no
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
PermitRootLogin prohibit-password
SetEnv TMUX_TMPDIR=%s HOME=%s
LogLevel ERROR
`, s.port, dir, dir, dir, s.tmuxDir, dir))
	// HOME points at the test's directory so the login shell sshd starts
	// reads no ~/.bashrc of the machine's (one here runs `pyenv init`,
	// which hangs for 20 s without a network).
	// Debian's sshd wants its privilege separation directory.
	os.MkdirAll("/run/sshd", 0o755)
	s.cmd = exec.Command(sshd, "-D", "-e", "-f", filepath.Join(dir, "sshd_config"))
	out := &strings.Builder{}
	s.cmd.Stdout, s.cmd.Stderr = out, out
	s.cmd.WaitDelay = 2 * time.Second
	if err := s.cmd.Start(); err != nil {
		t.Fatalf("start sshd: %v", err)
	}
	t.Cleanup(func() { s.stop() })
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", s.port), time.Second)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("sshd never listened: %s", out)
		}
		time.Sleep(50 * time.Millisecond)
	}
	user := os.Getenv("USER")
	if user == "" {
		user = "root"
	}
	s.sshAlias = fmt.Sprintf("Host %s\n  HostName 127.0.0.1\n  Port %d\n  User %s\n  IdentityFile %s/client_key\n  IdentitiesOnly yes\n"+
		"  UserKnownHostsFile %s/known_hosts\n  StrictHostKeyChecking accept-new\n  LogLevel ERROR\n", alias, s.port, user, dir, dir)
	return s
}

// tmux runs tmux on the ssh host's private default server.
func (s *sshServer) tmux(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command("tmux", append([]string{"-f", "/dev/null"}, args...)...)
	cmd.Env = append(os.Environ(), "TMUX_TMPDIR="+s.tmuxDir, "TMUX=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("tmux %v on the ssh host: %v: %s", args, err, out)
	}
	return string(out)
}

// stop ends sshd and the connections it serves (its child processes,
// which outlive it): the host is then unreachable, master connection
// included.
func (s *sshServer) stop() {
	if s.stopped {
		return
	}
	s.stopped = true
	// The connections first: they hold sshd's output open.
	for _, c := range descendants(s.cmd.Process.Pid) {
		if p, err := os.FindProcess(c); err == nil {
			p.Kill()
		}
	}
	s.cmd.Process.Kill()
	s.cmd.Wait()
	cmd := exec.Command("tmux", "kill-server")
	cmd.Env = append(os.Environ(), "TMUX_TMPDIR="+s.tmuxDir)
	cmd.Run()
}

// descendants returns the pids of pid's children, grandchildren and so
// on, read from /proc.
func descendants(pid int) []int {
	parent := map[int][]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		var p int
		if _, err := fmt.Sscanf(e.Name(), "%d", &p); err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid …: comm may hold spaces; read after ")".
		rest := string(b)[strings.LastIndexByte(string(b), ')')+1:]
		var state string
		var ppid int
		fmt.Sscanf(rest, " %s %d", &state, &ppid)
		parent[ppid] = append(parent[ppid], p)
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range parent[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

// TestHostOverRealSSH: a second host made real with Debian's sshd on a
// loopback port, a throwaway key and an SSH config alias. attn lists it,
// detects a blocked agent drawn in a tmux pane there and answers it; with
// sshd stopped, the host is listed unreachable with the reason while the
// own host keeps working.
func TestHostOverRealSSH(t *testing.T) {
	ps := startPushService(t)
	srv := startSSHD(t, "sshbox")
	sshConfig := filepath.Join(t.TempDir(), "config")
	writeFile(t, sshConfig, srv.sshAlias)
	srv.tmux(t, "new-session", "-d", "-s", "far", "-x", "120", "-y", "40", "-n", "far")
	far := strings.TrimSpace(srv.tmux(t, append([]string{"new-window", "-d", "-n", "far", "-P", "-F", "#{pane_id}"},
		menuCommand(t, fixture(t, "claude-bash-permission.txt"), "")...)...))
	srv.tmux(t, "set-option", "-w", "-t", far, "automatic-rename", "off")
	local := startTmux(t)
	localPane := local.newWindow(t, "api", agentCommand(t, "claude", "✳ Claude Code", fixture(t, "claude-idle.txt"))...)
	d := startDaemonEnv(t, hookStateDir(t), local.socket, []string{"ATTN_SSH_CONFIG=" + sshConfig, "ATTN_HOSTNAME=titan"})

	d.waitHost(t, "sshbox", hosts.StateReachable, 30*time.Second)
	sub := ps.subscribe(t, d.vapidKey(t))
	d.register(t, sub, "phone")
	m := decode(t, ps.waitMessages(t, sub.ClientHash, 1, 30*time.Second)[0])
	if m.Host != "sshbox" || m.Pane != far || m.Title != "far" || m.Question == nil || m.Question.Options[0] != "Yes" {
		t.Fatalf("push for the agent on sshbox = %+v", m)
	}
	nonce := d.cardNonce(t, "sshbox", far)
	if code, res := d.answer(t, "card", nonce, 0); code != 200 || res["outcome"] != "applied" {
		t.Fatalf("answer over ssh: %d %v", code, res)
	}
	if screen := srv.tmux(t, "capture-pane", "-p", "-t", far); !strings.Contains(screen, "You chose: 1") {
		t.Fatalf("the agent on sshbox did not get the answer:\n%s", screen)
	}

	srv.stop()
	h := d.waitHost(t, "sshbox", hosts.StateUnreachable, 40*time.Second)
	if !strings.Contains(h.Error, "ssh sshbox: ") || !strings.Contains(h.Error, "Connection refused") {
		t.Fatalf("sshbox with sshd stopped = %+v", h)
	}
	if got := d.panesOf(t, "titan"); len(got) != 1 || got[0] != localPane+":idle" {
		t.Fatalf("own host's panes with sshd stopped: %v", got)
	}
	if code, _, errOut := d.cli(t, "", "notify", "own host still works"); code != 0 {
		t.Fatalf("notify with sshd stopped: %d %s", code, errOut)
	}
}
