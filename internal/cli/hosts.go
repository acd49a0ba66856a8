package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	ucli "github.com/urfave/cli/v3"

	"github.com/attn-dev/attn/internal/api"
	"github.com/attn-dev/attn/internal/hosts"
	"github.com/attn-dev/attn/internal/source/hook"
)

// HostTokenFile is where `attn hook` on another host finds its host's
// credential when $ATTN_HOOK_TOKEN is unset: <state-dir>/host-token.
const HostTokenFile = "host-token"

func hostsCommand(stdio Stdio) *ucli.Command {
	return &ucli.Command{
		Name:  "hosts",
		Usage: "list the hosts attn reaches: its own and the SSH config's aliases, each reachable or why not",
		Description: "attn's own host is named by its hostname (local is an alias), or local when an SSH alias\n" +
			"answers to the hostname. Other hosts are the concrete aliases of ~/.ssh/config, reached with\n" +
			"ssh in batch mode. The answer is immediate: a host still being probed says so.",
		Flags: append(clientFlags(),
			&ucli.BoolFlag{Name: "json", Usage: "print the listing as JSON"},
			&ucli.BoolFlag{Name: "refresh", Usage: "check every host again now (the answer still comes at once)"}),
		Action: func(ctx context.Context, cmd *ucli.Command) error {
			c, err := newClient(cmd)
			if err != nil {
				return err
			}
			path := "/api/hosts"
			if cmd.Bool("refresh") {
				path += "?refresh=1"
			}
			var l hosts.Listing
			if err := c.do(ctx, "GET", path, nil, &l); err != nil {
				return err
			}
			if cmd.Bool("json") {
				enc := json.NewEncoder(stdio.Out)
				enc.SetIndent("", "  ")
				return enc.Encode(l)
			}
			tw := tabwriter.NewWriter(stdio.Out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "HOST\tSTATE\tDETAIL")
			for _, h := range l.Hosts {
				detail := h.Error
				if h.Own {
					detail = "attn's own host"
					if len(h.Also) > 0 {
						detail += " (also: " + strings.Join(h.Also, ", ") + ")"
					}
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\n", h.Name, h.State, detail)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			if l.Probing {
				fmt.Fprintln(stdio.Err, "attn: some hosts are still being probed: ask again in a second or two")
			}
			return nil
		},
	}
}

func hostCommand(stdio Stdio) *ucli.Command {
	return &ucli.Command{
		Name:  "host",
		Usage: "manage another host's credential, with which its hooks and agents reach this daemon",
		Commands: []*ucli.Command{
			{
				Name:      "token",
				Usage:     "issue HOST's credential (replacing the one it had), which can only report for HOST",
				ArgsUsage: "HOST",
				Description: "Prints the credential once (attn keeps only its hash) and how to use it on HOST: forward\n" +
					"the daemon's port there (ssh -R), and give `attn hook` the URL and the credential.\n" +
					"--revoke withdraws HOST's credential instead.",
				Flags: append(clientFlags(), &ucli.BoolFlag{Name: "revoke", Usage: "revoke HOST's credential instead"}),
				Action: func(ctx context.Context, cmd *ucli.Command) error {
					if cmd.Args().Len() != 1 {
						return fail(2, "name one host: attn host token HOST (`attn hosts` lists them)")
					}
					c, err := newClient(cmd)
					if err != nil {
						return err
					}
					host := cmd.Args().First()
					path := "/api/hosts/" + url.PathEscape(host) + "/token"
					if cmd.Bool("revoke") {
						if err := c.do(ctx, "DELETE", path, nil, nil); err != nil {
							return err
						}
						fmt.Fprintf(stdio.Out, "revoked the credential of %s: its hooks and agents can no longer reach attn\n", host)
						return nil
					}
					var out api.HostTokenResponse
					if err := c.do(ctx, "POST", path, nil, &out); err != nil {
						return err
					}
					u, _ := url.Parse(out.HookURL)
					port := "7477"
					if u != nil && u.Port() != "" {
						port = u.Port()
					}
					fmt.Fprintf(stdio.Out, "credential of %s (shown once; attn keeps only its hash; a new one replaces it):\n  %s\n\n", out.Host, out.Token)
					fmt.Fprintf(stdio.Out, "On %s, with the daemon's port forwarded there (ssh -R %s:127.0.0.1:%s %s,\n", out.Host, port, port, out.Host)
					fmt.Fprintf(stdio.Out, "or RemoteForward %s 127.0.0.1:%s under Host %s in ~/.ssh/config):\n", port, port, out.Host)
					fmt.Fprintf(stdio.Out, "  export ATTN_HOOK_URL=%s\n", out.HookURL)
					fmt.Fprintf(stdio.Out, "  export ATTN_HOOK_TOKEN=<the credential>   (or write it to <state-dir>/%s, mode 0600)\n", HostTokenFile)
					fmt.Fprintf(stdio.Out, "and for `attn mcp` there:\n  export ATTN_SERVER=%s ATTN_TOKEN=<the credential>\n", strings.TrimSuffix(out.MCPURL, "/mcp"))
					return nil
				},
			},
		},
	}
}

// hookSender returns where `attn hook` delivers (for messages) and how:
// to $ATTN_HOOK_URL (--url) with the host's credential, from another
// host; else to the daemon's socket in the state directory.
func hookSender(cmd *ucli.Command) (string, func(context.Context, hook.Event) error) {
	if u := cmd.String("url"); u != "" {
		return u, func(ctx context.Context, ev hook.Event) error {
			tok := strings.TrimSpace(os.Getenv("ATTN_HOOK_TOKEN"))
			if tok == "" {
				b, err := os.ReadFile(filepath.Join(cmd.String("state-dir"), HostTokenFile))
				if err != nil {
					return errors.New("ATTN_HOOK_URL is set but no credential was found: set ATTN_HOOK_TOKEN, or write the one `attn host token HOST` printed to <state-dir>/" + HostTokenFile)
				}
				tok = strings.TrimSpace(string(b))
			}
			return hook.SendHTTP(ctx, u, tok, ev)
		}
	}
	sock := filepath.Join(cmd.String("state-dir"), hook.SocketName)
	return sock, func(ctx context.Context, ev hook.Event) error { return hook.Send(ctx, sock, ev) }
}
