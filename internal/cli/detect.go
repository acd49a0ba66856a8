package cli

import (
	"context"
	"encoding/json"
	"io"
	"os"

	ucli "github.com/urfave/cli/v3"

	"github.com/attn-dev/attn/internal/detect"
)

func detectCommand(stdio Stdio) *ucli.Command {
	return &ucli.Command{
		Name:      "detect",
		Usage:     "classify a saved pane screen and print what attn reads there, as JSON",
		ArgsUsage: "[FILE]",
		Description: "Reads FILE (standard input when none), as `tmux capture-pane -p` prints it, and prints\n" +
			"{\"agent\",\"status\",\"question\"}: which agent CLI runs there, whether it is blocked, and the\n" +
			"question it asks. Use it to see why a screen is or is not read as blocked, e.g.\n" +
			"  tmux capture-pane -p -t %3 | attn detect --title \"$(tmux display -p -t %3 '#{pane_title}')\" \\\n" +
			"    --command \"$(tmux display -p -t %3 '#{pane_current_command}')\"",
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "title", Usage: "the pane's title (#{pane_title}); agents signal state there too"},
			&ucli.StringFlag{Name: "command", Usage: "the pane's foreground program (#{pane_current_command}), which names the agent CLI"},
		},
		Action: func(ctx context.Context, cmd *ucli.Command) error {
			var r io.Reader = stdio.In
			switch cmd.Args().Len() {
			case 0:
				if f, ok := stdio.In.(*os.File); ok && isTerminal(f) {
					return fail(2, "no screen: pass FILE or pipe `tmux capture-pane -p` output on standard input")
				}
			case 1:
				f, err := os.Open(cmd.Args().First())
				if err != nil {
					return fail(1, "open screen: %v", err)
				}
				defer f.Close()
				r = f
			default:
				return fail(2, "detect takes at most one FILE")
			}
			screen, err := io.ReadAll(io.LimitReader(r, 4<<20))
			if err != nil {
				return fail(1, "read screen: %v", err)
			}
			enc := json.NewEncoder(stdio.Out)
			enc.SetIndent("", "  ")
			enc.SetEscapeHTML(false)
			return enc.Encode(detect.ClassifyPane(detect.Pane{Screen: string(screen), Title: cmd.String("title"), Command: cmd.String("command")}))
		},
	}
}
