package cli

import (
	"context"
	"fmt"
	"text/tabwriter"
	"time"

	ucli "github.com/urfave/cli/v3"

	"github.com/attn-dev/attn/internal/api"
)

func devicesCommand(stdio Stdio) *ucli.Command {
	return &ucli.Command{
		Name:  "devices",
		Usage: "list registered devices and each one's last delivery outcome",
		Flags: clientFlags(),
		Action: func(ctx context.Context, cmd *ucli.Command) error {
			c, err := newClient(cmd)
			if err != nil {
				return err
			}
			var out struct {
				Devices []api.DeviceView `json:"devices"`
			}
			if err := c.do(ctx, "GET", "/api/devices", nil, &out); err != nil {
				return err
			}
			if len(out.Devices) == 0 {
				fmt.Fprintln(stdio.Out, "no device is registered: see the README, \"Register a device\"")
				return nil
			}
			tw := tabwriter.NewWriter(stdio.Out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tNAME\tPUSH SERVICE\tREGISTERED\tLAST DELIVERY")
			for _, d := range out.Devices {
				last := "never tried"
				if d.LastOutcome != "" {
					last = d.LastOutcome
					if d.LastDetail != "" {
						last = "last push failed: " + d.LastDetail
					}
				}
				fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", d.ID, d.Name, d.PushService, d.Registered.Local().Format(time.DateTime), last)
			}
			return tw.Flush()
		},
	}
}
