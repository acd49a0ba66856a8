package cli

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"time"

	ucli "github.com/urfave/cli/v3"

	"github.com/attn-dev/attn/internal/explain"
	"github.com/attn-dev/attn/internal/store"
)

func whyCommand(stdio Stdio) *ucli.Command {
	return &ucli.Command{
		Name:      "why",
		Usage:     "explain attn's last decisions for a pane: what was sent, what was not, and why",
		ArgsUsage: "[PANE]",
		Description: "PANE is a tmux pane id (%3) or host/%3; without one, the decisions for every pane.\n" +
			"Inside tmux, `attn why \"$TMUX_PANE\"` explains the pane you are in.",
		Flags: append(clientFlags(),
			&ucli.IntFlag{Name: "limit", Usage: "how many decisions to show (1–1000)", Value: 20},
		),
		Action: func(ctx context.Context, cmd *ucli.Command) error {
			if cmd.Args().Len() > 1 {
				return fail(2, "why takes at most one PANE")
			}
			c, err := newClient(cmd)
			if err != nil {
				return err
			}
			q := url.Values{"limit": {strconv.Itoa(int(cmd.Int("limit")))}}
			if p := cmd.Args().First(); p != "" {
				q.Set("pane", p)
			}
			var out struct {
				Decisions []store.Decision `json:"decisions"`
			}
			if err := c.do(ctx, "GET", "/api/decisions?"+q.Encode(), nil, &out); err != nil {
				return err
			}
			if len(out.Decisions) == 0 {
				fmt.Fprintln(stdio.Out, "no decisions yet: nothing was sent or held back for this pane")
				return nil
			}
			for _, l := range explain.Lines(out.Decisions, time.Local) {
				fmt.Fprintln(stdio.Out, l)
			}
			return nil
		},
	}
}
