package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v3"

	"github.com/attn-dev/attn/internal/source/hook"
)

// hookBudget is how long `attn hook` may take, from its start to its exit,
// whatever happens: agents wait for their hooks (Codex gives notify 1.5 s,
// Claude Code the configured timeout), and a person waits for the agent.
// Process start and exit fit in the rest of the second.
const hookBudget = 700 * time.Millisecond

func hookCommand(stdio Stdio) *ucli.Command {
	one := 1
	return &ucli.Command{
		Name:      "hook",
		Usage:     "hand an agent CLI's hook event to the daemon (the agent runs this, not you)",
		ArgsUsage: strings.Join(hook.Agents, "|") + " [PAYLOAD]",
		Description: "Agent CLIs run `attn hook <agent>` when a permission dialog opens or a turn ends. It reads\n" +
			"the agent's hook JSON from standard input (or PAYLOAD, the last argument, as Codex's notify\n" +
			"passes it), works out the tmux pane from $TMUX/$TMUX_PANE (or $HERDR_PANE_ID), and hands\n" +
			"the event to the daemon over <state-dir>/" + hook.SocketName + ".\n" +
			"It fails open: it returns within a second, prints nothing on standard output, and exits 0\n" +
			"even when the daemon is down or the payload is malformed (saying so in one line on standard\n" +
			"error), so that an agent never hangs or errors because of attn. Flags go before the agent.\n" +
			"Settings, e.g. ~/.claude/settings.json:\n" +
			"  {\"hooks\":{\"PermissionRequest\":[{\"matcher\":\"*\",\"hooks\":[{\"type\":\"command\",\"command\":\"attn hook claude\",\"timeout\":5}]}],…}}\n" +
			"and ~/.codex/config.toml: notify = [\"attn\", \"hook\", \"codex\"]. `attn integration install` writes these\n" +
			"(`attn hook install` is its alias).",
		Flags: []ucli.Flag{stateDirFlag(),
			&ucli.StringFlag{Name: "url", Usage: "on another host: the daemon's hook URL for this host (from `attn host token HOST`), sent with $ATTN_HOOK_TOKEN or <state-dir>/" + HostTokenFile + " instead of the socket",
				Sources: ucli.EnvVars("ATTN_HOOK_URL")}},
		Commands: []*ucli.Command{hookInstallCommand(stdio)},
		// Everything after the agent is the payload, never a flag: Codex
		// appends its JSON as one argument.
		StopOnNthArg: &one,
		OnUsageError: func(_ context.Context, _ *ucli.Command, err error, _ bool) error {
			// Fail open here too: no help text on stdout, exit 0.
			fmt.Fprintf(stdio.Err, "attn hook: %v (nothing sent)\n", err)
			return nil
		},
		Action: func(ctx context.Context, cmd *ucli.Command) error {
			// Never an error: see runHook.
			dest, send := hookSender(cmd)
			runHook(ctx, stdio, dest, send, cmd.Args().Slice(), os.Getenv, time.Now)
			return nil
		},
	}
}

// runHook delivers one hook call to the daemon with send (socket says
// where, for messages: the hook socket, or another host's hook URL) and
// returns within hookBudget whatever happens.
//
// Why it never fails: agents treat a hook's exit code and output as
// instructions. Claude Code parses a hook's standard output as JSON for
// some events, shows standard error to the person for a non-zero exit,
// and exit code 2 blocks the tool call or the stop; Gemini CLI reads exit
// code 2 the same way. attn only observes, and it may be stopped or
// broken at any time: an agent must then behave as if attn were not
// installed. So runHook writes nothing on standard output, exits 0 (Main
// sees no error), and says what went wrong in at most one line on
// standard error, which agents keep for debug logs on exit 0.
//
// The work runs in a goroutine so that a stalled standard input, a slow
// file system or a wedged daemon cannot hold the hook past its budget;
// when the budget runs out runHook returns and the process exits, leaving
// the goroutine behind. Only runHook writes to stdio.
func runHook(ctx context.Context, stdio Stdio, socket string, send func(context.Context, hook.Event) error, args []string, env func(string) string, now func() time.Time) {
	ctx, cancel := context.WithTimeout(ctx, hookBudget)
	defer cancel()
	done := make(chan string, 1)
	go func() { done <- deliverHook(ctx, stdio.In, send, args, env, now) }()
	var msg string
	select {
	case msg = <-done:
	case <-ctx.Done():
		msg = fmt.Sprintf("gave up after %v (payload not read, or the daemon on %s did not answer); nothing sent", hookBudget, socket)
	}
	if msg != "" {
		fmt.Fprintf(stdio.Err, "attn hook: %s\n", oneLineMsg(msg))
	}
}

// deliverHook reads, parses and sends one hook call; it returns the line to
// print on standard error, "" when all went well.
func deliverHook(ctx context.Context, in io.Reader, send func(context.Context, hook.Event) error, args []string, env func(string) string, now func() time.Time) string {
	if len(args) == 0 {
		return "no agent named: run `attn hook " + strings.Join(hook.Agents, "|") + "` from the agent's hook settings; nothing sent"
	}
	agent := args[0]
	if !hook.KnownAgent(agent) {
		return fmt.Sprintf("unknown agent %q: want %s; nothing sent", agent, strings.Join(hook.Agents, ", "))
	}
	var payload []byte
	if len(args) > 1 {
		// Codex's notify appends the JSON as the last argument.
		payload = []byte(args[len(args)-1])
	} else {
		if f, ok := in.(*os.File); ok && isTerminal(f) {
			return fmt.Sprintf("no payload: `attn hook %s` reads the agent's hook JSON on standard input (Codex's notify: the last argument); it is meant to be run by the agent; nothing sent", agent)
		}
		var err error
		payload, err = io.ReadAll(io.LimitReader(in, hook.MaxPayload+1))
		if err != nil {
			return fmt.Sprintf("read standard input: %v; nothing sent", err)
		}
		if len(payload) > hook.MaxPayload {
			// Read the rest (within the budget) so that the agent writing
			// it does not meet a broken pipe; Parse refuses the payload.
			_, _ = io.Copy(io.Discard, in)
		}
	}
	ev, err := hook.Parse(agent, payload, env, now())
	if err != nil {
		// Let the daemon's log say so too, best effort: the person
		// debugging a silent attn reads that log, not the agent's.
		bad := hook.Event{Agent: agent, Kind: hook.KindIgnored, Reason: "malformed hook payload: " + err.Error(), At: now()}
		bad.Pane, bad.TmuxSocket, bad.HerdrPane = hook.PaneFromEnv(env)
		_ = send(ctx, bad)
		return err.Error()
	}
	if err := send(ctx, ev); err != nil {
		// hook.ErrNoDaemon included: attn may be stopped on purpose, and
		// this line only reaches the agent's debug log.
		return fmt.Sprintf("%s %s event not delivered: %v", agent, ev.Reason, err)
	}
	return ""
}

// oneLineMsg keeps a message on one line.
func oneLineMsg(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// hookInstallCommand is `attn hook install`, kept as an alias of `attn
// integration install`.
func hookInstallCommand(stdio Stdio) *ucli.Command {
	return &ucli.Command{
		Name:      "install",
		Usage:     "same as `attn integration install` (make agent CLIs call `attn hook`)",
		ArgsUsage: strings.Join(hook.Installable, "|") + " …",
		Description: "An alias of `attn integration install`, which adds attn's hook entries to the agent's own\n" +
			"settings, keeping every other setting:\n" + integrationFiles +
			"Running it again changes nothing. The original is copied beside the file first\n" +
			"(<file>.attn-backup-<time>); a file attn cannot parse is left alone. --dry-run prints the\n" +
			"change as a diff and writes nothing. `attn integration status` says what is installed.",
		Flags: []ucli.Flag{
			&ucli.BoolFlag{Name: "dry-run", Usage: "print the change as a unified diff; write nothing"},
		},
		Action: func(_ context.Context, cmd *ucli.Command) error {
			return integrationChange(stdio, cmd.Args().Slice(), cmd.Bool("dry-run"), false)
		},
	}
}
