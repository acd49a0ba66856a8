package cli

import (
	"context"
	"fmt"
	"time"

	ucli "github.com/urfave/cli/v3"

	"github.com/attn-dev/attn/internal/api"
	"github.com/attn-dev/attn/internal/store"
)

func muteCommand(stdio Stdio) *ucli.Command {
	return &ucli.Command{
		Name:      "mute",
		Usage:     "silence one pane for a while, or until its agent next finishes a turn",
		ArgsUsage: "PANE",
		Description: "PANE is a tmux pane id (%3) or host/%3, e.g.\n" +
			"  attn mute %3 --for 1h\n  attn mute \"$TMUX_PANE\" --until-finished",
		Flags: append(clientFlags(),
			&ucli.DurationFlag{Name: "for", Usage: "how long, e.g. 30m or 2h"},
			&ucli.BoolFlag{Name: "until-finished", Usage: "until the agent next finishes a turn"},
		),
		Action: func(ctx context.Context, cmd *ucli.Command) error {
			if cmd.Args().Len() != 1 {
				return fail(2, "mute takes one PANE, e.g. attn mute %%3 --for 1h")
			}
			req := api.MuteRequest{Pane: cmd.Args().First(), UntilFinished: cmd.Bool("until-finished")}
			if d := cmd.Duration("for"); d != 0 {
				req.For = d.String()
			}
			if req.For == "" && !req.UntilFinished {
				return fail(2, "say how long: --for 1h, --until-finished, or both")
			}
			c, err := newClient(cmd)
			if err != nil {
				return err
			}
			var m store.Mute
			if err := c.do(ctx, "POST", "/api/mutes", req, &m); err != nil {
				return err
			}
			fmt.Fprintf(stdio.Out, "muted %s/%s %s\n", m.Host, m.Pane, muteEnd(m))
			return nil
		},
	}
}

func muteEnd(m store.Mute) string {
	switch {
	case m.UntilFinished && !m.Until.IsZero():
		return "until it next finishes, or " + m.Until.Local().Format(time.DateTime)
	case m.UntilFinished:
		return "until it next finishes"
	}
	return "until " + m.Until.Local().Format(time.DateTime)
}

func unmuteCommand(stdio Stdio) *ucli.Command {
	return &ucli.Command{
		Name:      "unmute",
		Usage:     "end a pane's mute",
		ArgsUsage: "PANE",
		Flags:     clientFlags(),
		Action: func(ctx context.Context, cmd *ucli.Command) error {
			if cmd.Args().Len() != 1 {
				return fail(2, "unmute takes one PANE, e.g. attn unmute %%3")
			}
			c, err := newClient(cmd)
			if err != nil {
				return err
			}
			if err := c.do(ctx, "DELETE", "/api/mutes", map[string]string{"pane": cmd.Args().First()}, nil); err != nil {
				return err
			}
			fmt.Fprintf(stdio.Out, "unmuted %s\n", cmd.Args().First())
			return nil
		},
	}
}

func testCommand(stdio Stdio) *ucli.Command {
	return &ucli.Command{
		Name:  "test",
		Usage: "send a test notification to every device, whatever each chose",
		Flags: clientFlags(),
		Action: func(ctx context.Context, cmd *ucli.Command) error {
			c, err := newClient(cmd)
			if err != nil {
				return err
			}
			var out api.NotifyResponse
			if err := c.do(ctx, "POST", "/api/test", nil, &out); err != nil {
				return err
			}
			if !out.Sent {
				return fail(1, "not delivered: %s", out.Detail)
			}
			fmt.Fprintf(stdio.Out, "test notification sent via %v\n", out.Transports)
			if out.Detail != "" {
				fmt.Fprintf(stdio.Err, "attn: note: %s\n", out.Detail)
			}
			return nil
		},
	}
}
