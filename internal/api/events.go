package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/attn-dev/attn/internal/notification"
	"github.com/attn-dev/attn/internal/store"
)

// The live stream of one web app window, as Server-Sent Events:
//
//	event: panes   {"seq":N,"panes":[…]}      every pane, first thing on connect
//	event: pane    {"seq":N,"pane":{…},"gone":bool}   one pane changed
//	event: toast   the notification's push payload     for the window's device
//	: ping                                            every PingEvery
//
// A reader that sees seq jump by more than one missed changes and should
// re-list (GET /api/panes). A browser whose credential is revoked has its
// stream closed at the next ping.

// PingEvery is how often an idle stream sends a comment, which keeps
// proxies from closing it and re-checks the browser's credential.
const PingEvery = 15 * time.Second

// toastPayloadLimit bounds a toast's JSON; toasts are not push records.
const toastPayloadLimit = 16 << 10

// CloseStreams ends every open event stream: call it when the server shuts
// down, or graceful shutdown waits on them.
func (s *Server) CloseStreams() { s.web.closeOnce.Do(func() { close(s.web.closing) }) }

// events streams board changes, and in-app notifications for the window's
// device (?device=N, a browser's own registered device).
func (s *Server) events(w http.ResponseWriter, r *http.Request) error {
	p, _ := principalFrom(r.Context())
	var device int64
	if v := r.URL.Query().Get("device"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			return errBadDeviceID
		}
		if !p.bearer && n != p.cred.DeviceID {
			return errNotYourDevice
		}
		device = n
	}
	rc := http.NewResponseController(w)
	changes, seq, cancel := s.cfg.Board.Subscribe()
	defer cancel()
	var toasts <-chan notification.Notification
	if device != 0 && s.cfg.Web.InApp != nil {
		ch, cancelToasts := s.cfg.Web.InApp.Subscribe(device)
		defer cancelToasts()
		toasts = ch
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // nginx: do not buffer the stream
	w.WriteHeader(http.StatusOK)
	send := func(event string, v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		return s.sse(w, rc, event, b)
	}
	panes := s.cfg.Board.List()
	views := make([]PaneView, len(panes))
	for i, pn := range panes {
		views[i] = PaneView{Pane: pn}
	}
	if _, err := fmt.Fprint(w, "retry: 3000\n\n"); err != nil {
		return nil
	}
	if err := send("panes", map[string]any{"seq": seq, "panes": views}); err != nil {
		return nil // the window went away
	}
	s.cfg.Log.Debug("web app window opened", "device", device)
	defer s.cfg.Log.Debug("web app window closed", "device", device)
	ping := time.NewTicker(PingEvery)
	defer ping.Stop()
	for {
		var err error
		select {
		case <-r.Context().Done():
			return nil
		case <-s.web.closing:
			return nil
		case c := <-changes:
			err = send("pane", paneChange{Seq: c.Seq, Pane: PaneView{Pane: c.Pane}, Gone: c.Gone})
		case n := <-toasts:
			var b []byte
			if b, err = n.Payload(toastPayloadLimit); err == nil {
				err = s.sse(w, rc, "toast", b)
			}
		case <-ping.C:
			if !p.bearer && !s.stillSignedIn(r) {
				return nil
			}
			if _, err = fmt.Fprint(w, ": ping\n\n"); err == nil {
				err = rc.Flush()
			}
		}
		if err != nil {
			return nil // the window went away; nothing to answer
		}
	}
}

// paneChange is a board.Change as the stream sends it.
type paneChange struct {
	Seq  uint64   `json:"seq"`
	Pane PaneView `json:"pane"`
	Gone bool     `json:"gone,omitempty"`
}

func (s *Server) sse(w http.ResponseWriter, rc *http.ResponseController, event string, data []byte) error {
	if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, data); err != nil {
		return err
	}
	return rc.Flush()
}

// stillSignedIn re-checks a streaming browser's credential.
func (s *Server) stillSignedIn(r *http.Request) bool {
	c, err := r.Cookie(s.cookieName())
	if err != nil {
		return false
	}
	_, err = s.cfg.Web.Store.CredentialByToken(r.Context(), mustCookieHash(r, c.Name))
	return err == nil || !errors.Is(err, store.ErrNotFound)
}
