package api

import (
	"net/http"
	"strings"

	"github.com/attn-dev/attn/internal/agent"
	"github.com/attn-dev/attn/internal/board"
)

// Errors of the pane endpoints.
var errPaneNotFound = &Error{http.StatusNotFound, 40404, "no such pane is watched now: GET /api/panes lists them"}

// PaneView is one pane as the inbox shows it; the card adds its screen.
type PaneView struct {
	board.Pane
	// Screen is the last lines of the pane's screen (card only).
	Screen []string `json:"screen,omitempty"`
	// Nonce answers the pane's question from the card (card only, blocked
	// with options).
	Nonce string `json:"nonce,omitempty"`
}

// listPanes returns every watched pane, blocked first: the inbox, from
// live state, whatever any device chose.
func (s *Server) listPanes(w http.ResponseWriter, r *http.Request) error {
	panes := s.cfg.Board.List()
	out := make([]PaneView, len(panes))
	for i, p := range panes {
		out[i] = PaneView{Pane: p}
	}
	return writeJSON(w, http.StatusOK, map[string]any{"panes": out})
}

// CardLines is how many screen lines a pane card shows.
const CardLines = 40

// getPane returns one pane with the last CardLines lines of its screen.
func (s *Server) getPane(w http.ResponseWriter, r *http.Request) error {
	ref, err := s.paneRef(r.PathValue("host") + "/" + r.PathValue("pane"))
	if err != nil {
		return err
	}
	p, ok := s.cfg.Board.Get(ref)
	if !ok {
		return errPaneNotFound
	}
	v := PaneView{Pane: p, Screen: tail(p.Screen, CardLines)}
	if p.State == agent.StatusBlocked && s.cfg.Replies != nil {
		if v.Nonce, err = s.cfg.Replies.NonceFor(r.Context(), ref, p.Incarnation, p.Fingerprint, p.Question); err != nil {
			return err
		}
	}
	return writeJSON(w, http.StatusOK, v)
}

// tail returns the last n lines of screen, trailing blank lines dropped.
func tail(screen string, n int) []string {
	lines := strings.Split(strings.TrimRight(screen, " \n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return lines
}
