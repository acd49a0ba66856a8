package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	ucli "github.com/urfave/cli/v3"

	"github.com/attn-dev/attn/internal/api"
)

func notifyCommand(stdio Stdio) *ucli.Command {
	return &ucli.Command{
		Name:      "notify",
		Usage:     "send a notification to every registered device now",
		ArgsUsage: "[MESSAGE]",
		Description: "Sends MESSAGE (or standard input when no MESSAGE is given), e.g.\n" +
			"  make test 2>&1 | tail -5 | attn notify --title tests\n" +
			"Exits 0 only if some device took it; otherwise 1 with the reason.",
		Flags: append(clientFlags(),
			&ucli.StringFlag{Name: "title", Usage: "title (at most 70 characters); default: the calling agent's name"},
			&ucli.StringFlag{Name: "pane", Usage: "tmux pane id of the calling agent, to title the notification with its name",
				DefaultText: "$TMUX_PANE", Sources: ucli.EnvVars("TMUX_PANE")},
		),
		Action: func(ctx context.Context, cmd *ucli.Command) error {
			msg := strings.Join(cmd.Args().Slice(), " ")
			if cmd.Args().Len() == 0 {
				if f, ok := stdio.In.(*os.File); ok && isTerminal(f) {
					return fail(2, "no message: pass MESSAGE or pipe text on standard input")
				}
				b, err := io.ReadAll(io.LimitReader(stdio.In, 64<<10))
				if err != nil {
					return fail(1, "read standard input: %v", err)
				}
				msg = string(b)
			}
			msg = strings.TrimSpace(strings.ToValidUTF8(msg, "\uFFFD"))
			if len(msg) > maxSend {
				// The daemon keeps 400 characters; send no more than it can use,
				// cut on a character boundary.
				cut := maxSend
				for cut > 0 && !utf8.RuneStart(msg[cut]) {
					cut--
				}
				msg = msg[:cut]
			}
			if msg == "" {
				return fail(2, "the message is empty: pass MESSAGE or pipe text on standard input")
			}
			c, err := newClient(cmd)
			if err != nil {
				return err
			}
			var out api.NotifyResponse
			req := api.NotifyRequest{Message: msg, Title: cmd.String("title"), Pane: cmd.String("pane")}
			if err := c.do(ctx, "POST", "/api/notify", req, &out); err != nil {
				return err
			}
			if !out.Sent {
				return fail(1, "not delivered: %s", out.Detail)
			}
			fmt.Fprintf(stdio.Out, "sent %q via %s\n", out.Title, strings.Join(out.Transports, ", "))
			if out.Detail != "" {
				fmt.Fprintf(stdio.Err, "attn: note: %s\n", out.Detail)
			}
			return nil
		},
	}
}

// maxSend bounds the message sent to the daemon, in bytes: well over the
// 400 characters it keeps, and under its 64 KiB body limit even when every
// byte needs escaping in JSON.
const maxSend = 8 << 10

// isTerminal reports whether f is a character device (an interactive
// terminal), where waiting for standard input would hang.
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
