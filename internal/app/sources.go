package app

import (
	"log/slog"
	"os"
	"strings"

	"github.com/attn-dev/attn/internal/reply"
	"github.com/attn-dev/attn/internal/source/herdr"
	"github.com/attn-dev/attn/internal/source/tmux"
	"github.com/attn-dev/attn/internal/watch"
)

// EnvTmuxControl turns tmux control mode off when "off": the own host's
// panes are then polled every --poll, as before event-driven watching.
const EnvTmuxControl = "ATTN_TMUX_CONTROL"

// ownSources returns the own host's panes and what says which of them
// changed: tmux's, followed in control mode (unless ATTN_TMUX_CONTROL is
// "off"), and, when $HERDR_SOCKET_PATH names a herdr socket, herdr's too,
// whose status changes become hints (hr is then that herdr, else nil).
func (a *App) ownSources(t *tmux.Client, log *slog.Logger) (panes watch.Panes, events watch.EventSource, hr *herdr.Source) {
	var srcs watch.Sources
	if !strings.EqualFold(os.Getenv(EnvTmuxControl), "off") {
		srcs = append(srcs, &tmux.Control{Socket: t.Socket, Binary: t.Binary, Log: log})
	}
	panes = t
	if hr = herdr.FromEnv(nil, log); hr != nil {
		hr.OnStatus = a.onHerdrStatus
		panes = &herdr.Mux{Tmux: t, Herdr: hr, Log: log}
		srcs = append(srcs, hr)
		log.Info("following herdr", "socket", hr.Client.Path)
	}
	if len(srcs) == 0 {
		return panes, nil, hr
	}
	return panes, srcs, hr
}

// onHerdrStatus turns a herdr status change into a hint for the own
// host's watcher, as an agent hook's: blocked makes it look now and, once
// the screen agrees, announce without the settle wait; done is a finished
// turn. The screen stays the truth.
func (a *App) onHerdrStatus(sc herdr.StatusChange) {
	h := watch.Hint{Pane: sc.PaneID, Blocked: sc.Status == herdr.StatusBlocked, Finished: sc.Status == herdr.StatusDone}
	if !h.Blocked && !h.Finished {
		return // the pane's id reaches the watcher as a change anyway
	}
	if !a.watcher.Hint(h) {
		a.opt.Log.Warn("herdr status dropped: too many pending; the next poll reads the screen anyway", "pane", sc.PaneID)
	}
}

// terms is the reply service's terminal per host: the fleet's, and for
// the own host's herdr panes, herdr's.
func (a *App) terms(own string, hr *herdr.Source) func(host string) (reply.Terminal, error) {
	if hr == nil {
		return a.fleet.terminal
	}
	return func(host string) (reply.Terminal, error) {
		t, err := a.fleet.terminal(host)
		if err != nil || host != own {
			return t, err
		}
		if tm, ok := t.(herdr.Tmux); ok {
			return &herdr.Mux{Tmux: tm, Herdr: hr}, nil
		}
		return t, nil
	}
}
