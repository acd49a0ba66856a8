package app

import (
	"io"
	"log/slog"
	"testing"

	"github.com/attn-dev/attn/internal/source/herdr"
	"github.com/attn-dev/attn/internal/source/tmux"
	"github.com/attn-dev/attn/internal/watch"
)

// TestOwnSources: tmux control mode unless ATTN_TMUX_CONTROL=off; herdr's
// panes and events too when $HERDR_SOCKET_PATH is set.
func TestOwnSources(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	tm := &tmux.Client{Socket: "s"}
	a := &App{}
	for _, c := range []struct {
		control, herdrPath string
		mux                bool
		events             []string
	}{
		{"", "", false, []string{"tmux"}},
		{"off", "", false, nil},
		{"OFF", "/run/herdr.sock", true, []string{"herdr"}},
		{"", "/run/herdr.sock", true, []string{"tmux", "herdr"}},
	} {
		t.Setenv(EnvTmuxControl, c.control)
		t.Setenv(herdr.SocketEnv, c.herdrPath)
		panes, events, hr := a.ownSources(tm, log)
		var got []string
		if events != nil {
			for _, e := range events.(watch.Sources) {
				switch e := e.(type) {
				case *tmux.Control:
					if e.Socket != "s" {
						t.Errorf("control mode on socket %q", e.Socket)
					}
					got = append(got, "tmux")
				case *herdr.Source:
					got = append(got, "herdr")
				}
			}
		}
		_, isMux := panes.(*herdr.Mux)
		if isMux != c.mux || (hr != nil) != c.mux || len(got) != len(c.events) || (len(got) > 0 && got[0] != c.events[0]) ||
			(hr != nil && (hr.Client.Path != c.herdrPath || hr.OnStatus == nil)) {
			t.Errorf("control %q, herdr %q: panes %T, events %v, herdr %+v", c.control, c.herdrPath, panes, got, hr)
		}
	}
}
