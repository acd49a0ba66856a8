package cli

import (
	"context"
	"fmt"
	"strconv"
	"text/tabwriter"
	"time"

	ucli "github.com/urfave/cli/v3"

	"github.com/attn-dev/attn/internal/store"
)

func auditCommand(stdio Stdio) *ucli.Command {
	return &ucli.Command{
		Name:  "audit",
		Usage: "list answer attempts: who answered which pane from where, and what happened",
		Flags: append(clientFlags(), &ucli.IntFlag{Name: "limit", Usage: "how many attempts to show (1–1000)", Value: 20}),
		Action: func(ctx context.Context, cmd *ucli.Command) error {
			c, err := newClient(cmd)
			if err != nil {
				return err
			}
			var out struct {
				Audit []store.AuditEntry `json:"audit"`
			}
			if err := c.do(ctx, "GET", "/api/audit?limit="+strconv.Itoa(int(cmd.Int("limit"))), nil, &out); err != nil {
				return err
			}
			if len(out.Audit) == 0 {
				fmt.Fprintln(stdio.Out, "no answers yet")
				return nil
			}
			tw := tabwriter.NewWriter(stdio.Out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "TIME\tSURFACE\tDEVICE\tPANE\tOPTION\tOUTCOME\tWHY")
			for i := len(out.Audit) - 1; i >= 0; i-- {
				e := out.Audit[i]
				why := e.Detail
				if e.Gate != "" {
					why = e.Gate + ": " + e.Detail
				}
				opt := strconv.Itoa(e.OptionIndex)
				if e.OptionLabel != "" {
					opt += " (" + e.OptionLabel + ")"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s/%s\t%s\t%s\t%s\n", e.At.Local().Format(time.DateTime), e.Surface,
					e.Device, e.Host, e.Pane, opt, e.Outcome, why)
			}
			return tw.Flush()
		},
	}
}
