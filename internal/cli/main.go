// Package cli is attn's command line: `attn serve` runs the daemon; the
// other commands are thin clients of its HTTP API, or offline tools such
// as `attn detect`. Main is the whole program; cmd/attn only calls it.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	ucli "github.com/urfave/cli/v3"
)

// Stdio is the program's standard streams.
type Stdio struct {
	In       io.Reader
	Out, Err io.Writer
}

// Version is attn's version, set at build time with
// -ldflags "-X github.com/attn-dev/attn/internal/cli.Version=…".
var Version = "dev"

// exitError carries an exit code with its message.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// fail returns an error that makes Main exit with code after printing it.
func fail(code int, format string, args ...any) error {
	return &exitError{code: code, err: fmt.Errorf(format, args...)}
}

// Main runs attn with args (args[0] is the program name) and returns the
// process exit code: 0 success, 1 failure, 2 usage error.
func Main(ctx context.Context, args []string, stdio Stdio) int {
	root := &ucli.Command{
		Name:    "attn",
		Usage:   "tell a person, wherever they are, that an AI coding agent in a terminal needs them",
		Version: Version,
		Description: "attn watches the tmux panes where coding agents run, and sends one push notification\n" +
			"when an agent is blocked on a tool approval, a question or a plan gate.\n" +
			"Start the daemon with `attn serve`; see each command's --help.",
		Reader:    stdio.In,
		Writer:    stdio.Out,
		ErrWriter: stdio.Err,
		Commands: []*ucli.Command{
			serveCommand(),
			hookCommand(stdio),
			integrationCommand(stdio),
			notifyCommand(stdio),
			devicesCommand(stdio),
			channelCommand(stdio),
			testCommand(stdio),
			whyCommand(stdio),
			auditCommand(stdio),
			muteCommand(stdio),
			unmuteCommand(stdio),
			detectCommand(stdio),
			pairCommand(stdio),
			hostsCommand(stdio),
			hostCommand(stdio),
			mcpCommand(stdio),
		},
		ExitErrHandler: func(context.Context, *ucli.Command, error) {},
	}
	err := root.Run(ctx, args)
	if err == nil {
		return 0
	}
	fmt.Fprintf(stdio.Err, "attn: %v\n", err)
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return 1
}
