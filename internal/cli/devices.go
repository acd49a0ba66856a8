package cli

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	ucli "github.com/urfave/cli/v3"

	"github.com/attn-dev/attn/internal/api"
)

func devicesCommand(stdio Stdio) *ucli.Command {
	return &ucli.Command{
		Name:     "devices",
		Usage:    "list registered devices and each one's last delivery outcome",
		Flags:    clientFlags(),
		Commands: []*ucli.Command{devicesSetCommand(stdio)},
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
			fmt.Fprintln(tw, "ID\tNAME\tPUSH SERVICE\tREGISTERED\tINTERRUPTS FOR\tLAST DELIVERY")
			for _, d := range out.Devices {
				last := "never tried"
				if d.LastOutcome != "" {
					last = d.LastOutcome
					if d.LastDetail != "" {
						last = "last push failed: " + d.LastDetail
					}
				}
				fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\n", d.ID, d.Name, d.PushService, d.Registered.Local().Format(time.DateTime), kindsOn(d.Kinds), last)
			}
			return tw.Flush()
		},
	}
}

// kindsOn lists the kinds turned on, in a fixed order.
func kindsOn(kinds map[string]bool) string {
	var on []string
	for _, k := range []string{"blocked", "asked", "finished", "error"} {
		if kinds[k] {
			on = append(on, k)
		}
	}
	if len(on) == 0 {
		return "nothing"
	}
	return strings.Join(on, ",")
}

func devicesSetCommand(stdio Stdio) *ucli.Command {
	return &ucli.Command{
		Name:      "set",
		Usage:     "rename a device or choose which kinds may interrupt it",
		ArgsUsage: "ID [KIND=on|off|default ...]",
		Description: "KIND is blocked, asked, finished or error; e.g.\n" +
			"  attn devices set 2 finished=on\n  attn devices set 2 --name laptop blocked=default\n" +
			"Only choices that differ from the default are kept.",
		Flags: append(clientFlags(), &ucli.StringFlag{Name: "name", Usage: "new name for the device"}),
		Action: func(ctx context.Context, cmd *ucli.Command) error {
			args := cmd.Args().Slice()
			if len(args) == 0 {
				return fail(2, "devices set needs a device ID (see `attn devices`)")
			}
			if _, err := strconv.ParseInt(args[0], 10, 64); err != nil {
				return fail(2, "device ID %q is not a number (see `attn devices`)", args[0])
			}
			req := api.PatchDeviceRequest{Kinds: map[string]*bool{}}
			if cmd.IsSet("name") {
				name := cmd.String("name")
				req.Name = &name
			}
			for _, a := range args[1:] {
				k, v, ok := strings.Cut(a, "=")
				var choice *bool
				switch v {
				case "on", "true", "yes":
					t := true
					choice = &t
				case "off", "false", "no":
					f := false
					choice = &f
				case "default":
				default:
					ok = false
				}
				if !ok {
					return fail(2, "%q: write KIND=on, KIND=off or KIND=default", a)
				}
				req.Kinds[k] = choice
			}
			if req.Name == nil && len(req.Kinds) == 0 {
				return fail(2, "nothing to change: pass --name or KIND=on|off|default")
			}
			c, err := newClient(cmd)
			if err != nil {
				return err
			}
			if err := c.do(ctx, "PATCH", "/api/devices/"+args[0], req, nil); err != nil {
				return err
			}
			fmt.Fprintf(stdio.Out, "device %s updated\n", args[0])
			return nil
		},
	}
}
