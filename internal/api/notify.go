package api

import (
	"net/http"
	"strings"
	"time"

	"github.com/attn-dev/attn/internal/notification"
)

// NotifyRequest is the body of POST /api/notify.
type NotifyRequest struct {
	Message string `json:"message"`
	Title   string `json:"title,omitempty"`
	// Pane is the calling agent's pane id ($TMUX_PANE, e.g. "%12"), used to
	// title the notification with the agent's name.
	Pane string `json:"pane,omitempty"`
}

// NotifyResponse says honestly what happened (DESIGN.md, "Asked").
type NotifyResponse struct {
	Sent       bool     `json:"sent"`
	Transports []string `json:"transports"`
	Title      string   `json:"title"`
	Detail     string   `json:"detail"`
}

func (s *Server) notify(w http.ResponseWriter, r *http.Request) error {
	var req NotifyRequest
	if err := decode(w, r, &req); err != nil {
		return err
	}
	if strings.TrimSpace(req.Message) == "" {
		return errEmptyMessage
	}
	n, why := s.cfg.Asked(r.Context(), req)
	rep := s.cfg.Notifier.Asked(r.Context(), n)
	detail := rep.Detail
	if why != "" {
		detail = strings.TrimPrefix(detail+"; "+why, "; ")
	}
	return writeJSON(w, http.StatusOK, NotifyResponse{Sent: rep.Sent, Transports: rep.Transports, Title: n.Title, Detail: detail})
}

// test sends a test notification to every device, whatever each chose,
// through the same path as any other (DESIGN.md, "Devices").
func (s *Server) test(w http.ResponseWriter, r *http.Request) error {
	n := notification.Notification{Kind: notification.KindTest, Title: "attn test",
		Body: "Notifications from attn reach this device.", Tag: "test", Renotify: true,
		Urgency: "normal", TTL: 10 * time.Minute, Created: s.cfg.Now()}
	rep := s.cfg.Notifier.Asked(r.Context(), n)
	return writeJSON(w, http.StatusOK, NotifyResponse{Sent: rep.Sent, Transports: rep.Transports, Title: n.Title, Detail: rep.Detail})
}
