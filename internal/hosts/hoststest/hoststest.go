// Package hoststest fakes other hosts for tests: an `ssh` script, put
// first on $PATH, that runs each host's remote command on this machine
// with tmux pointed at a private server (so a "remote" host is a real
// tmux server), or hangs, or fails like ssh does, as the test sets per
// host and changes while attn runs.
package hoststest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// script parses ssh's command line (options, "--", the destination, the
// remote command words) and acts on <dir>/<host>.mode:
//
//	tmux:SOCKET  run the command with tmux meaning `tmux -L SOCKET`
//	hang         never answer (sleep in ssh's process group)
//	fail:TEXT    print TEXT on standard error and exit 255, as ssh does
//	             when it cannot connect
//	(none)       fail as for an unknown host name
//
// Every call is appended to <dir>/calls as "HOST COMMAND".
const script = `#!/bin/sh
dir=%s
while [ $# -gt 0 ]; do
	case "$1" in
	-o|-p|-l|-i|-F|-O|-S|-J|-L|-R|-W|-b|-c|-E|-m) shift 2 ;;
	--) shift; break ;;
	-*) shift ;;
	*) break ;;
	esac
done
host="$1"; shift
echo "$host $*" >> "$dir/calls"
mode=$(cat "$dir/$host.mode" 2>/dev/null)
case "$mode" in
tmux:*)
	sock="${mode#tmux:}"
	tmux() { command tmux -L "$sock" "$@"; }
	eval "$*" ;;
hang)
	exec sleep 3600 ;;
fail:*)
	echo "${mode#fail:}" >&2
	exit 255 ;;
*)
	echo "ssh: Could not resolve hostname $host: Name or service not known" >&2
	exit 255 ;;
esac
`

// SSH is a fake ssh installed in Dir.
type SSH struct {
	// Dir holds the script (Dir/ssh), the per-host modes and the calls
	// log; put it first on $PATH.
	Dir string
}

// Install writes the fake ssh into dir (created if missing).
func Install(dir string) (*SSH, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "ssh"), []byte(fmt.Sprintf(script, shq(dir))), 0o755); err != nil {
		return nil, err
	}
	return &SSH{Dir: dir}, nil
}

// Tmux makes host run its commands against the private tmux server
// `tmux -L socket` on this machine.
func (s *SSH) Tmux(host, socket string) error { return s.mode(host, "tmux:"+socket) }

// Hang makes host never answer.
func (s *SSH) Hang(host string) error { return s.mode(host, "hang") }

// Fail makes host fail to connect with ssh's message msg.
func (s *SSH) Fail(host, msg string) error { return s.mode(host, "fail:"+msg) }

func (s *SSH) mode(host, m string) error {
	return os.WriteFile(filepath.Join(s.Dir, host+".mode"), []byte(m), 0o644)
}

// Calls returns the calls made so far, one "HOST COMMAND" line each.
func (s *SSH) Calls() []string {
	b, _ := os.ReadFile(filepath.Join(s.Dir, "calls"))
	if len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimRight(string(b), "\n"), "\n")
}

// PATH returns $PATH with the fake first.
func (s *SSH) PATH() string { return s.Dir + string(os.PathListSeparator) + os.Getenv("PATH") }

func shq(s string) string { return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'" }
