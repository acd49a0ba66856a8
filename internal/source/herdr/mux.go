package herdr

import (
	"context"
	"errors"
	"log/slog"
	"strings"

	"github.com/attn-dev/attn/internal/source/tmux"
)

// Tmux is what Mux needs of tmux (implemented by *tmux.Client).
type Tmux interface {
	ListPanes(ctx context.Context) ([]tmux.Pane, error)
	Capture(ctx context.Context, pane string) (string, error)
	Describe(ctx context.Context, pane string) (tmux.Pane, error)
	SendKeys(ctx context.Context, pane string, literal bool, keys ...string) error
}

// Mux serves a tmux server's panes and a herdr server's as one host's: a
// pane id starting with "%" is tmux's, any other herdr's. It is the
// watcher's Panes and the reply service's Terminal when both run.
type Mux struct {
	Tmux  Tmux
	Herdr *Source
	Log   *slog.Logger
}

// IsTmux reports whether pane is a tmux pane id ("%12").
func IsTmux(pane string) bool { return strings.HasPrefix(pane, "%") }

// ListPanes lists tmux's panes and herdr's. herdr being down leaves its
// panes out (the tracker keeps their announced waits for a while, as for
// any host that drops off); tmux having no server leaves tmux's out. A
// tmux failure is an error.
func (m *Mux) ListPanes(ctx context.Context) ([]tmux.Pane, error) {
	panes, terr := m.Tmux.ListPanes(ctx)
	if terr != nil && !errors.Is(terr, tmux.ErrNoServer) {
		return nil, terr
	}
	hp, herr := m.Herdr.ListPanes(ctx)
	if herr != nil {
		if m.Log != nil {
			m.Log.Debug("herdr panes left out of this snapshot", "err", herr)
		}
		return panes, terr
	}
	return append(panes, hp...), nil
}

// Capture reads a pane's screen from whichever holds it.
func (m *Mux) Capture(ctx context.Context, pane string) (string, error) {
	if IsTmux(pane) {
		return m.Tmux.Capture(ctx, pane)
	}
	return m.Herdr.Capture(ctx, pane)
}

// Describe describes a pane from whichever holds it.
func (m *Mux) Describe(ctx context.Context, pane string) (tmux.Pane, error) {
	if IsTmux(pane) {
		return m.Tmux.Describe(ctx, pane)
	}
	return m.Herdr.Describe(ctx, pane)
}

// SendKeys types into a pane through whichever holds it.
func (m *Mux) SendKeys(ctx context.Context, pane string, literal bool, keys ...string) error {
	if IsTmux(pane) {
		return m.Tmux.SendKeys(ctx, pane, literal, keys...)
	}
	return m.Herdr.SendKeys(ctx, pane, literal, keys...)
}
