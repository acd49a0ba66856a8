package cli

import (
	"context"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	ucli "github.com/urfave/cli/v3"

	"github.com/attn-dev/attn/internal/app"
	"github.com/attn-dev/attn/internal/config"
)

// stateDirFlag is shared by the daemon and the clients (which read the API
// token from it).
func stateDirFlag() *ucli.StringFlag {
	return &ucli.StringFlag{Name: "state-dir", Usage: "directory holding attn's store (attn.db) and API token",
		Value: config.DefaultStateDir(), DefaultText: "$XDG_STATE_HOME/attn, else ~/.local/state/attn",
		Sources: ucli.EnvVars("ATTN_STATE_DIR")}
}

func serveCommand() *ucli.Command {
	var c config.Serve
	var logLevel, replyActions string
	return &ucli.Command{
		Name:  "serve",
		Usage: "run the daemon: watch tmux panes and push blocked agents to registered devices",
		Description: "The daemon listens on loopback only. It watches the tmux server's panes while at least\n" +
			"one device is registered, and sends a Web Push notification once per blocked question,\n" +
			"after it has held still for --settle.",
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "listen", Usage: "address of the HTTP API and web app (loopback, unless HTTPS: --tls-cert/--tls-key or --tls-proxy, with --public-url)", Value: config.DefaultListen,
				Sources: ucli.EnvVars("ATTN_LISTEN"), Destination: &c.Listen},
			withDest(stateDirFlag(), &c.StateDir),
			&ucli.StringFlag{Name: "tmux-socket", Usage: "tmux server socket name, as `tmux -L NAME`",
				DefaultText: "the user's default tmux server", Sources: ucli.EnvVars("ATTN_TMUX_SOCKET"), Destination: &c.TmuxSocket},
			&ucli.DurationFlag{Name: "poll", Usage: "how often pane screens are read", Value: config.DefaultPoll,
				Sources: ucli.EnvVars("ATTN_POLL"), Destination: &c.Poll},
			&ucli.DurationFlag{Name: "settle", Usage: "how long a question must hold still before it is sent", Value: config.DefaultSettle,
				Sources: ucli.EnvVars("ATTN_SETTLE"), Destination: &c.Settle},
			&ucli.StringFlag{Name: "push-contact", Usage: "VAPID contact (sub) shown to push services: mailto:you@example.org or an https: URL",
				Value: config.DefaultPushContact, Sources: ucli.EnvVars("ATTN_PUSH_CONTACT"), Destination: &c.PushContact},
			&ucli.BoolFlag{Name: "allow-insecure-push-endpoints", Usage: "accept http:// push endpoints on loopback (for test push services only)",
				Sources: ucli.EnvVars("ATTN_ALLOW_INSECURE_PUSH_ENDPOINTS"), Destination: &c.AllowInsecurePushEndpoints},
			&ucli.IntFlag{Name: "record-size", Usage: "aes128gcm record size in bytes (lower it for relays that refuse 4096)",
				Value: config.DefaultRecordSize, Sources: ucli.EnvVars("ATTN_RECORD_SIZE"), Destination: &c.RecordSize},
			&ucli.DurationFlag{Name: "buzz-interval", Usage: "least time between two audible pushes for one agent; newer questions inside it replace the shown one silently",
				Value: config.DefaultBuzzInterval, Sources: ucli.EnvVars("ATTN_BUZZ_INTERVAL"), Destination: &c.BuzzInterval},
			&ucli.DurationFlag{Name: "escalate-after", Usage: "re-buzz a blocked wait still unanswered after this long, once (0 = off)",
				Sources: ucli.EnvVars("ATTN_ESCALATE_AFTER"), Destination: &c.EscalateAfter},
			&ucli.BoolFlag{Name: "log-content", Usage: "keep notification text (questions from agents' screens) in the decision log",
				Sources: ucli.EnvVars("ATTN_LOG_CONTENT"), Destination: &c.LogContent},
			&ucli.StringFlag{Name: "tls-cert", Usage: "PEM certificate (chain) file: serve HTTPS, so phones can reach the web app",
				Sources: ucli.EnvVars("ATTN_TLS_CERT"), Destination: &c.TLSCert},
			&ucli.StringFlag{Name: "tls-key", Usage: "PEM private key file of --tls-cert",
				Sources: ucli.EnvVars("ATTN_TLS_KEY"), Destination: &c.TLSKey},
			&ucli.BoolFlag{Name: "tls-proxy", Usage: "a TLS-terminating proxy in front serves HTTPS: mark cookies Secure, allow --listen beyond loopback",
				Sources: ucli.EnvVars("ATTN_TLS_PROXY"), Destination: &c.TLSProxy},
			&ucli.StringSliceFlag{Name: "public-url", Usage: "https:// origin browsers use to reach attn from other machines (repeatable); the first starts `attn pair` links",
				Sources: ucli.EnvVars("ATTN_PUBLIC_URL"), Destination: &c.PublicURLs},
			&ucli.StringFlag{Name: "reply-actions", Usage: "on: blocked notifications carry answer buttons; off: no buttons anywhere, and answers from notifications are refused (answer in the app)",
				Value: "on", Sources: ucli.EnvVars("ATTN_REPLY_ACTIONS"), Destination: &replyActions},
			&ucli.StringFlag{Name: "log-level", Usage: "debug, info, warn or error", Value: "info",
				Sources: ucli.EnvVars("ATTN_LOG_LEVEL"), Destination: &logLevel},
		},
		Action: func(ctx context.Context, cmd *ucli.Command) error {
			var level slog.Level
			if err := level.UnmarshalText([]byte(logLevel)); err != nil {
				return fail(2, "--log-level %q: want debug, info, warn or error", logLevel)
			}
			switch replyActions {
			case "on":
				c.ReplyActions = true
			case "off":
				c.ReplyActions = false
			default:
				return fail(2, "--reply-actions %q: want on or off", replyActions)
			}
			log := slog.New(slog.NewTextHandler(cmd.Root().ErrWriter, &slog.HandlerOptions{Level: level}))
			ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
			defer stop()
			a, err := app.New(ctx, app.Options{Serve: c, Log: log})
			if err != nil {
				return err
			}
			defer a.Close()
			return a.Run(ctx)
		},
	}
}

func withDest(f *ucli.StringFlag, dest *string) *ucli.StringFlag {
	f.Destination = dest
	return f
}
