package app

import (
	"context"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/attn-dev/attn/internal/api"
	"github.com/attn-dev/attn/internal/notification"
	"github.com/attn-dev/attn/internal/source/tmux"
	"github.com/attn-dev/attn/internal/watch"
)

// Limits for an explicit notify (DESIGN.md, "Asked"), in characters.
const (
	maxAskedTitle   = 70
	maxAskedMessage = 400
	// askedTTL: an explicit message stays worth reading for a working day.
	askedTTL = 12 * time.Hour
)

type askedBuilder struct {
	host  string
	panes *tmux.Client
	now   func() time.Time
}

// build titles an explicit notify with the calling agent's name, resolved
// from its pane id; unresolvable → titled "attn" and why says so.
func (b *askedBuilder) build(ctx context.Context, req api.NotifyRequest) (notification.Notification, string) {
	title, why, pane := req.Title, "", req.Pane
	if title == "" && pane != "" {
		title, why = b.paneName(ctx, pane)
		if why != "" {
			pane = "" // unresolvable: the notification names no pane
		}
	}
	if title == "" {
		title = "attn"
	}
	return notification.Notification{
		Kind:    notification.KindAsked,
		Title:   clip(title, maxAskedTitle),
		Body:    clip(req.Message, maxAskedMessage),
		Host:    b.host,
		Pane:    pane,
		Urgency: "normal",
		TTL:     askedTTL,
		Created: b.now(),
	}, why
}

func (b *askedBuilder) paneName(ctx context.Context, id string) (string, string) {
	panes, err := b.panes.ListPanes(ctx)
	if err != nil {
		return "", fmt.Sprintf("titled attn: cannot list tmux panes (%v)", err)
	}
	for _, p := range panes {
		if p.ID == id {
			return watch.Name(p, b.host), ""
		}
	}
	return "", fmt.Sprintf("titled attn: pane %q is not on this host's tmux server", id)
}

// clip shortens s to at most n characters, ending in "…" when cut.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
