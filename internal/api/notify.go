package api

import (
	"net/http"
	"strings"
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
	rep := s.cfg.Notifier.Deliver(r.Context(), n)
	detail := rep.Detail
	if why != "" {
		detail = strings.TrimPrefix(detail+"; "+why, "; ")
	}
	return writeJSON(w, http.StatusOK, NotifyResponse{Sent: rep.Sent, Transports: rep.Transports, Title: n.Title, Detail: detail})
}
