package hosts

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// SSH runs commands on other hosts with the system ssh, so that the
// person's keys, agent, jump hosts and config all apply. Every call is in
// batch mode (never a password or passphrase prompt) and shares one
// connection per host: the probe keeps a master connection (ControlMaster)
// alive under ControlDir, and every other call rides it when it is up
// (ControlMaster=no: a call never becomes a master itself, whose
// lingering process would hold the call's output open).
type SSH struct {
	// Binary is the ssh executable; "" means "ssh" on $PATH.
	Binary string
	// ControlDir holds the master connections' sockets (mode 0700); one
	// socket per host, named by a hash of its alias to stay within the
	// unix socket path limit.
	ControlDir string
	// ConnectTimeout bounds ssh's TCP connect and handshake; 0 means 10 s.
	ConnectTimeout time.Duration
	// Persist is how long an idle master connection lingers; 0 means 10
	// minutes.
	Persist time.Duration
	// ConfigFile, when set, is passed as `ssh -F`: the SSH config attn
	// read its aliases from, when it is not the user's default.
	ConfigFile string
}

func (s *SSH) binary() string {
	if s.Binary == "" {
		return "ssh"
	}
	return s.Binary
}

// ControlPath returns host's master socket path.
func (s *SSH) ControlPath(host string) string {
	h := sha256.Sum256([]byte(host))
	return filepath.Join(s.ControlDir, hex.EncodeToString(h[:6]))
}

func (s *SSH) options(host, master string) []string {
	ct := s.ConnectTimeout
	if ct <= 0 {
		ct = 10 * time.Second
	}
	persist := s.Persist
	if persist <= 0 {
		persist = 10 * time.Minute
	}
	var opts []string
	if s.ConfigFile != "" {
		opts = append(opts, "-F", s.ConfigFile)
	}
	opts = append(opts,
		"-o", "BatchMode=yes",
		"-o", fmt.Sprintf("ConnectTimeout=%d", max(1, int(ct/time.Second))),
		"-o", "ServerAliveInterval=10",
		"-o", "ServerAliveCountMax=3",
		"-o", "ControlMaster="+master,
		"-o", "ControlPath="+s.ControlPath(host),
	)
	if master != "no" {
		opts = append(opts, "-o", fmt.Sprintf("ControlPersist=%d", max(1, int(persist/time.Second))))
	}
	return append(opts, "-T")
}

// Command returns the command that runs name with args on host: one
// remote command line, each word single-quoted for the remote shell. It
// runs in its own process group, killed whole when ctx ends.
func (s *SSH) Command(ctx context.Context, host, name string, args ...string) *exec.Cmd {
	return s.command(ctx, host, "no", name, args...)
}

func (s *SSH) command(ctx context.Context, host, master, name string, args ...string) *exec.Cmd {
	words := make([]string, 0, len(args)+1)
	words = append(words, ShellQuote(name))
	for _, a := range args {
		words = append(words, ShellQuote(a))
	}
	argv := append(s.options(host, master), "--", host, strings.Join(words, " "))
	cmd := exec.CommandContext(ctx, s.binary(), argv...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		// The whole group: a ProxyCommand, or a wrapper's children.
		if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
			return cmd.Process.Kill()
		}
		return nil
	}
	cmd.WaitDelay = 2 * time.Second
	return cmd
}

// Exec returns a tmux.Client Exec func that runs tmux on host. It adds
// tmux's -u: a command run by ssh gets no locale, and tmux would then
// print "_" for every non-ASCII character (screens, and list-panes's
// field separator).
func (s *SSH) Exec(host string) func(ctx context.Context, name string, args ...string) *exec.Cmd {
	return func(ctx context.Context, name string, args ...string) *exec.Cmd {
		return s.Command(ctx, host, name, append([]string{"-u"}, args...)...)
	}
}

// Probe checks that host answers and has tmux, by running `tmux -V`
// there, and (re)starts its master connection. Its error says why the
// host cannot be used, in words for the person.
func (s *SSH) Probe(ctx context.Context, host string) error {
	if err := os.MkdirAll(s.ControlDir, 0o700); err != nil {
		return fmt.Errorf("create the ssh control directory %s: %w", s.ControlDir, err)
	}
	// Files, not pipes, for the output: a master that lingers in the
	// background keeps its standard streams, and a pipe would hold Wait.
	out, err := os.CreateTemp(s.ControlDir, "probe-*")
	if err != nil {
		return fmt.Errorf("ssh probe: %w", err)
	}
	defer os.Remove(out.Name())
	defer out.Close()
	cmd := s.command(ctx, host, "auto", "tmux", "-V")
	cmd.Stdout, cmd.Stderr = out, out
	runErr := cmd.Run()
	msg, _ := os.ReadFile(out.Name())
	if runErr == nil {
		return nil
	}
	if ctx.Err() != nil {
		return fmt.Errorf("no answer from %s in time (ssh hung: check the host is up, or its ProxyJump): %w", host, ctx.Err())
	}
	var ee *exec.ExitError
	var execErr *exec.Error
	switch {
	case errors.As(runErr, &execErr):
		return fmt.Errorf("cannot run %s (install openssh-client, or set ATTN_SSH): %w", s.binary(), runErr)
	case errors.As(runErr, &ee) && ee.ExitCode() == 127:
		return fmt.Errorf("ssh reached %s but tmux is not installed there (or not on the remote PATH): install tmux on %s", host, host)
	case errors.As(runErr, &ee) && ee.ExitCode() == 255:
		reason := lastLine(msg)
		if strings.Contains(reason, "Permission denied") || strings.Contains(reason, "Host key verification failed") {
			reason += " (attn runs ssh in batch mode: load the key into ssh-agent, or accept the host key once with `ssh " + host + "`)"
		}
		return fmt.Errorf("ssh %s: %s", host, reason)
	}
	if l := lastLine(msg); l != "" {
		return fmt.Errorf("ssh %s: tmux -V: %s (%w)", host, l, runErr)
	}
	return fmt.Errorf("ssh %s: tmux -V: %w", host, runErr)
}

// Stop ends host's master connection, if one runs ("ssh -O exit").
func (s *SSH) Stop(ctx context.Context, host string) {
	if _, err := os.Stat(s.ControlPath(host)); err != nil {
		return
	}
	var args []string
	if s.ConfigFile != "" {
		args = append(args, "-F", s.ConfigFile)
	}
	args = append(args, "-o", "ControlPath="+s.ControlPath(host), "-O", "exit", "--", host)
	cmd := exec.CommandContext(ctx, s.binary(), args...)
	cmd.WaitDelay = time.Second
	cmd.Run()
}

// lastLine returns the last non-blank line of b, trimmed.
func lastLine(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(bytes.ToValidUTF8(b, nil))), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			return l
		}
	}
	return ""
}

// ShellQuote quotes s as one word for a POSIX shell (and for fish):
// single quotes, each embedded ' written as '"'"'.
func ShellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'"
}
