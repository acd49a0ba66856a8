package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v3"

	"github.com/attn-dev/attn/internal/source/hook"
)

const integrationFiles = "  claude    ~/.claude/settings.json   hooks PermissionRequest, Notification, Stop → `attn hook claude`\n" +
	"  codex     ~/.codex/config.toml      notify = [\"attn\", \"hook\", \"codex\"] (finished turns)\n" +
	"            ~/.codex/hooks.json       hook PermissionRequest → `attn hook codex` (trust it in Codex's /hooks)\n" +
	"  gemini    ~/.gemini/settings.json   hooks Notification, AfterAgent → `attn hook gemini`\n" +
	"  opencode  ~/.config/opencode/plugins/attn.js  a plugin forwarding permission.asked, permission.updated,\n" +
	"            question.asked and session.idle to `attn hook opencode` (child sessions skipped)\n"

func integrationCommand(stdio Stdio) *ucli.Command {
	agents := strings.Join(hook.Installable, "|")
	return &ucli.Command{
		Name:  "integration",
		Usage: "make agent CLIs tell attn at once when they wait on you (install, uninstall, status)",
		Description: "attn reads every pane's screen whatever you install; an integration adds the agent's own\n" +
			"signals, which are faster (a blocked prompt is announced without waiting for --settle once\n" +
			"the screen agrees) and say when a turn ends. Each edits the agent's own settings:\n" +
			integrationFiles +
			"Every other setting stays as it is; the original is copied beside the file first\n" +
			"(<file>.attn-backup-<time>); a file attn cannot parse is left alone, and nothing is written.",
		Commands: []*ucli.Command{
			{
				Name:      "install",
				Usage:     "add attn's hook entries to the agents' settings (idempotent; keeps a backup)",
				ArgsUsage: agents + " …",
				Flags:     []ucli.Flag{&ucli.BoolFlag{Name: "dry-run", Usage: "print the change as a unified diff; write nothing"}},
				Action: func(_ context.Context, cmd *ucli.Command) error {
					return integrationChange(stdio, cmd.Args().Slice(), cmd.Bool("dry-run"), false)
				},
			},
			{
				Name:      "uninstall",
				Usage:     "take attn's entries, and only them, out of the agents' settings (keeps a backup)",
				ArgsUsage: agents + " …",
				Flags:     []ucli.Flag{&ucli.BoolFlag{Name: "dry-run", Usage: "print the change as a unified diff; write nothing"}},
				Action: func(_ context.Context, cmd *ucli.Command) error {
					return integrationChange(stdio, cmd.Args().Slice(), cmd.Bool("dry-run"), true)
				},
			},
			{
				Name:      "status",
				Usage:     "say what is installed, and what each agent still needs from you",
				ArgsUsage: "[" + agents + " …] (default: every agent)",
				Action: func(_ context.Context, cmd *ucli.Command) error {
					return integrationStatus(stdio.Out, cmd.Args().Slice())
				},
			},
		},
	}
}

// integrationEnv is where agents keep their settings, from $HOME and
// $XDG_CONFIG_HOME.
func integrationEnv() (hook.Env, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return hook.Env{}, fail(1, "no home directory (%v): set $HOME", err)
	}
	return hook.Env{Home: home, ConfigHome: os.Getenv("XDG_CONFIG_HOME")}, nil
}

func checkAgents(verb string, agents []string) error {
	if len(agents) == 0 {
		return fail(2, "name an agent: attn integration %s %s", verb, strings.Join(hook.Installable, "|"))
	}
	for _, a := range agents {
		if !slices.Contains(hook.Installable, a) {
			return fail(2, "unknown agent %q: attn integration %s takes %s", a, verb, strings.Join(hook.Installable, ", "))
		}
	}
	return nil
}

// integrationChange installs (or removes) each agent's integration and
// says, file by file, what it did. An agent whose files attn refuses is
// skipped with the reason; the others go ahead; the exit code is then 1.
func integrationChange(stdio Stdio, agents []string, dryRun, remove bool) error {
	verb := "install"
	if remove {
		verb = "uninstall"
	}
	if err := checkAgents(verb, agents); err != nil {
		return err
	}
	env, err := integrationEnv()
	if err != nil {
		return err
	}
	var failed []string
	for _, agent := range agents {
		if err := changeOne(stdio, env, agent, dryRun, remove); err != nil {
			fmt.Fprintf(stdio.Err, "attn: %s: %v\n", agent, err)
			failed = append(failed, agent)
		}
	}
	if !remove {
		if _, err := exec.LookPath("attn"); err != nil {
			fmt.Fprintf(stdio.Err, "attn: warning: no `attn` on your PATH; agents run `attn hook AGENT` by name, so put attn on their PATH\n")
		}
	}
	if len(failed) > 0 {
		return fail(1, "nothing written for %s (see above)", strings.Join(failed, ", "))
	}
	return nil
}

func changeOne(stdio Stdio, env hook.Env, agent string, dryRun, remove bool) error {
	plan := hook.PlanIntegration
	if remove {
		plan = hook.PlanRemoval
	}
	p, err := plan(agent, env)
	if err != nil {
		return err
	}
	out := stdio.Out
	if dryRun {
		for _, in := range p.Files {
			if in.Changed() {
				fmt.Fprint(out, in.Diff())
				fmt.Fprintf(out, "dry run: %s not written\n", in.Display)
			} else {
				fmt.Fprintf(out, "%s: nothing to change\n", in.Display)
			}
		}
		return nil
	}
	for _, in := range p.Files {
		backup, err := in.Apply(time.Now())
		if err != nil {
			return err
		}
		was := ""
		if backup != "" {
			was = fmt.Sprintf(" (the original is in %s)", backup)
		}
		switch {
		case !in.Changed() && remove:
			fmt.Fprintf(out, "nothing of attn's in %s: nothing to change\n", in.Display)
		case !in.Changed():
			fmt.Fprintf(out, "attn hook is already installed in %s: nothing to change\n", in.Display)
		case remove && in.Remove:
			fmt.Fprintf(out, "removed %s, which held only attn's entries%s\n", in.Display, was)
		case remove:
			fmt.Fprintf(out, "removed attn's entries from %s%s\n", in.Display, was)
		default:
			fmt.Fprintf(out, "installed attn hook in %s%s\n", in.Display, was)
		}
	}
	if !remove {
		for _, n := range p.Notes() {
			fmt.Fprintf(out, "note: %s\n", n)
		}
	}
	return nil
}

// integrationStatus prints, per agent, each file's state and what the
// agent still needs from the person.
func integrationStatus(w io.Writer, agents []string) error {
	if len(agents) == 0 {
		agents = hook.Installable
	}
	if err := checkAgents("status", agents); err != nil {
		return err
	}
	env, err := integrationEnv()
	if err != nil {
		return err
	}
	_, pathErr := exec.LookPath("attn")
	for i, agent := range agents {
		st, err := hook.CheckIntegration(agent, env)
		if err != nil {
			return fail(1, "%v", err)
		}
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s: %s\n", agent, st.State())
		for _, f := range st.Files {
			fmt.Fprintf(w, "  %s: %s", f.Display, f.State)
			if f.Detail != "" {
				fmt.Fprintf(w, " (%s)", f.Detail)
			}
			fmt.Fprintf(w, "; attn puts %s there\n", f.Contents)
		}
		needs := st.Needs
		if st.State() != hook.StateNotInstalled && errors.Is(pathErr, exec.ErrNotFound) {
			needs = append(needs, "There is no `attn` on your PATH: agents run `"+hook.HookCommand(agent)+"` by name.")
		}
		for _, n := range needs {
			fmt.Fprintf(w, "  needs: %s\n", n)
		}
	}
	return nil
}
