package e2e

import (
	"encoding/json"
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

var servingLine = regexp.MustCompile(`msg="attn serving" listen=(http://\S+)`)

// startDaemonEnv is startDaemon with extra environment (the hosts' ssh,
// config and hostname).
func startDaemonEnv(t *testing.T, stateDir, tmuxSocket string, env []string, extra ...string) *daemon {
	t.Helper()
	args := append([]string{"serve", "--listen", "127.0.0.1:0", "--state-dir", stateDir,
		"--tmux-socket", tmuxSocket, "--settle", "1s", "--poll", "200ms",
		"--push-contact", "mailto:e2e@example.org", "--allow-insecure-push-endpoints",
		"--log-level", "debug"}, extra...)
	p := start(t, env, attnBinary(t), args...)
	line := p.out.waitCount(t, servingLine, 1, 20*time.Second)
	tok, err := os.ReadFile(filepath.Join(stateDir, "api-token"))
	if err != nil {
		t.Fatal(err)
	}
	return &daemon{proc: p, base: servingLine.FindStringSubmatch(line)[1], stateDir: stateDir, token: strings.TrimSpace(string(tok))}
}

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
