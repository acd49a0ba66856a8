package cli

import (
	"bufio"
	"context"
	"fmt"
	"net/url"
	"strings"
	"text/tabwriter"
	"time"

	ucli "github.com/urfave/cli/v3"

	"github.com/attn-dev/attn/internal/api"
	"github.com/attn-dev/attn/internal/channel"
	"github.com/attn-dev/attn/internal/channel/registry"
)

func channelCommand(stdio Stdio) *ucli.Command {
	return &ucli.Command{
		Name:  "channel",
		Usage: "manage channels beyond Web Push: ntfy, Telegram, Pushover, Gotify, FCM, webhooks, this desktop",
		Description: "Each channel gets the notifications its kind choices take (blocked, asked and error\n" +
			"on, finished off by default), adapted to what it can show. URL forms:\n  " +
			strings.Join(registry.Forms, "\n  ") + "\nSecrets in URLs are kept in the store and never printed back.",
		Commands: []*ucli.Command{
			channelAddCommand(stdio), channelListCommand(stdio), channelSetCommand(stdio),
			channelTestCommand(stdio), channelRemoveCommand(stdio),
		},
	}
}

// parseKinds reads KIND=on|off|default arguments.
func parseKinds(args []string) (map[string]*bool, error) {
	kinds := map[string]*bool{}
	for _, a := range args {
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
		if !ok || k == "" {
			return nil, fail(2, "%q: write KIND=on, KIND=off or KIND=default (KIND is blocked, asked, finished or error)", a)
		}
		kinds[k] = choice
	}
	return kinds, nil
}

func channelName(args []string, verb string) (string, error) {
	if len(args) == 0 {
		return "", fail(2, "channel %s needs a channel NAME (see `attn channel list`)", verb)
	}
	if !channel.ValidName(args[0]) {
		return "", fail(2, "channel name %q: %v", args[0], channel.ErrBadName)
	}
	return args[0], nil
}

func channelAddCommand(stdio Stdio) *ucli.Command {
	return &ucli.Command{
		Name:      "add",
		Usage:     "add a channel",
		ArgsUsage: "NAME URL|- [KIND=on|off|default ...]",
		Description: "URL is one of:\n  " + strings.Join(registry.Forms, "\n  ") + "\n" +
			"Write - to read the URL from standard input (keeps a token out of the shell history), e.g.\n" +
			"  attn channel add phone ntfy://tk_AbC123@ntfy.sh/my-topic\n" +
			"  attn channel add tg - finished=on < telegram-url.txt",
		Flags: clientFlags(),
		Action: func(ctx context.Context, cmd *ucli.Command) error {
			args := cmd.Args().Slice()
			name, err := channelName(args, "add")
			if err != nil {
				return err
			}
			if len(args) < 2 {
				return fail(2, "channel add needs a URL after the name; forms: %s", strings.Join(registry.Forms, ", "))
			}
			raw := args[1]
			if raw == "-" {
				line, err := bufio.NewReader(stdio.In).ReadString('\n')
				if raw = strings.TrimSpace(line); raw == "" {
					return fail(2, "no URL on standard input (%v)", err)
				}
			}
			if _, _, err := registry.Parse(raw); err != nil {
				return fail(2, "channel URL: %v", err)
			}
			kinds, err := parseKinds(args[2:])
			if err != nil {
				return err
			}
			c, err := newClient(cmd)
			if err != nil {
				return err
			}
			var out struct {
				Channel api.ChannelView `json:"channel"`
			}
			if err := c.do(ctx, "POST", "/api/channels", api.ChannelRequest{Name: name, URL: raw, Kinds: kinds}, &out); err != nil {
				return err
			}
			v := out.Channel
			fmt.Fprintf(stdio.Out, "channel %s added: %s, interrupts for %s\n", v.Name, v.URL, kindsOn(v.Kinds))
			fmt.Fprintf(stdio.Out, "send it a test with `attn channel test %s`\n", v.Name)
			return nil
		},
	}
}

func channelListCommand(stdio Stdio) *ucli.Command {
	return &ucli.Command{
		Name:  "list",
		Usage: "list channels (secrets redacted) and each one's last outcome",
		Flags: clientFlags(),
		Action: func(ctx context.Context, cmd *ucli.Command) error {
			c, err := newClient(cmd)
			if err != nil {
				return err
			}
			var out struct {
				Channels []api.ChannelView `json:"channels"`
			}
			if err := c.do(ctx, "GET", "/api/channels", nil, &out); err != nil {
				return err
			}
			if len(out.Channels) == 0 {
				fmt.Fprintln(stdio.Out, "no channel: add one with `attn channel add NAME URL` (see `attn channel add --help`)")
				return nil
			}
			tw := tabwriter.NewWriter(stdio.Out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tKIND\tURL\tINTERRUPTS FOR\tLAST")
			for _, v := range out.Channels {
				last := "never tried"
				switch {
				case v.Problem != "":
					last = "cannot open: " + v.Problem
				case v.LastOutcome == "delivered" && v.LastSuccessAt != nil:
					last = "delivered " + v.LastSuccessAt.Local().Format(time.DateTime)
				case v.LastOutcome != "":
					last = v.LastOutcome
					if v.LastDetail != "" {
						last += ": " + v.LastDetail
					}
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", v.Name, v.Kind, v.URL, kindsOn(v.Kinds), last)
			}
			return tw.Flush()
		},
	}
}

func channelSetCommand(stdio Stdio) *ucli.Command {
	return &ucli.Command{
		Name:        "set",
		Usage:       "choose which kinds may interrupt through a channel",
		ArgsUsage:   "NAME KIND=on|off|default ...",
		Description: "KIND is blocked, asked, finished or error; e.g. attn channel set phone finished=on",
		Flags:       clientFlags(),
		Action: func(ctx context.Context, cmd *ucli.Command) error {
			args := cmd.Args().Slice()
			name, err := channelName(args, "set")
			if err != nil {
				return err
			}
			kinds, err := parseKinds(args[1:])
			if err != nil {
				return err
			}
			if len(kinds) == 0 {
				return fail(2, "nothing to change: pass KIND=on|off|default")
			}
			c, err := newClient(cmd)
			if err != nil {
				return err
			}
			var out struct {
				Channel api.ChannelView `json:"channel"`
			}
			if err := c.do(ctx, "PATCH", "/api/channels/"+url.PathEscape(name), api.ChannelRequest{Kinds: kinds}, &out); err != nil {
				return err
			}
			fmt.Fprintf(stdio.Out, "channel %s interrupts for %s\n", name, kindsOn(out.Channel.Kinds))
			return nil
		},
	}
}

func channelTestCommand(stdio Stdio) *ucli.Command {
	return &ucli.Command{
		Name:      "test",
		Usage:     "send a test notification through one channel and say what happened",
		ArgsUsage: "NAME",
		Flags:     clientFlags(),
		Action: func(ctx context.Context, cmd *ucli.Command) error {
			name, err := channelName(cmd.Args().Slice(), "test")
			if err != nil {
				return err
			}
			c, err := newClient(cmd)
			if err != nil {
				return err
			}
			var out api.ChannelTestResponse
			if err := c.do(ctx, "POST", "/api/channels/"+url.PathEscape(name)+"/test", nil, &out); err != nil {
				return err
			}
			if !out.Sent {
				return fail(1, "channel %s: %s: %s", name, out.Outcome, out.Detail)
			}
			fmt.Fprintf(stdio.Out, "channel %s took the test notification\n", name)
			return nil
		},
	}
}

func channelRemoveCommand(stdio Stdio) *ucli.Command {
	return &ucli.Command{
		Name:      "remove",
		Usage:     "remove a channel (its URL and secrets are deleted from the store)",
		ArgsUsage: "NAME",
		Flags:     clientFlags(),
		Action: func(ctx context.Context, cmd *ucli.Command) error {
			name, err := channelName(cmd.Args().Slice(), "remove")
			if err != nil {
				return err
			}
			c, err := newClient(cmd)
			if err != nil {
				return err
			}
			if err := c.do(ctx, "DELETE", "/api/channels/"+url.PathEscape(name), nil, nil); err != nil {
				return err
			}
			fmt.Fprintf(stdio.Out, "channel %s removed\n", name)
			return nil
		},
	}
}
