package api

import (
	"context"
	"net/http"
	"strconv"

	"github.com/attn-dev/attn/internal/agent"
	"github.com/attn-dev/attn/internal/reply"
	"github.com/attn-dev/attn/internal/store"
)

// Replies answers blocked agents (implemented by *reply.Service).
type Replies interface {
	Answer(ctx context.Context, req reply.Request) reply.Result
	NonceFor(ctx context.Context, ref agent.PaneRef, incarnation, fingerprint string, q *agent.Question) (string, error)
}

// Audit reads the answer audit log (implemented by *store.Store).
type Audit interface {
	Audit(ctx context.Context, limit int) ([]store.AuditEntry, error)
}

// AnswerRequest is the body of POST /api/push/answer: a nonce and the
// index of the option it answers — never a string of keys.
type AnswerRequest struct {
	Nonce       string `json:"nonce"`
	OptionIndex *int   `json:"option_index"`
}

// SurfaceHeader names where an answer comes from ("push", "card", "ntfy",
// "telegram"); without it an answer counts as a push action.
const SurfaceHeader = "X-Attn-Surface"

var errBadAnswer = &Error{http.StatusBadRequest, 40011, "an answer is {\"nonce\": \"…\", \"option_index\": N} from a notification or the pane card"}

// answer types an option into a blocked pane, after every gate of
// internal/reply. The nonce is the capability: a notification action
// carries no other credential; a signed-in browser is named in the audit.
// 200 with the result when the keys were typed (applied or not), 409 when
// a gate refused (nothing typed).
func (s *Server) answer(w http.ResponseWriter, r *http.Request) error {
	var req AnswerRequest
	if err := decode(w, r, &req); err != nil {
		return err
	}
	if req.Nonce == "" || len(req.Nonce) > 64 || req.OptionIndex == nil {
		return errBadAnswer
	}
	surface := r.Header.Get(SurfaceHeader)
	switch surface {
	case "":
		surface = reply.SurfacePush
	case reply.SurfacePush, reply.SurfaceCard, reply.SurfaceNtfy, reply.SurfaceTelegram:
	default:
		return errBadAnswer.with("unknown surface %q", surface)
	}
	device := ""
	if p, ok := s.authenticate(r); ok {
		if p.bearer {
			device = "cli"
		} else if device = p.cred.Name; device == "" {
			device = "browser " + strconv.FormatInt(p.cred.ID, 10)
		}
	} else if surface == reply.SurfaceCard {
		return errUnauthorized // the card is a signed-in page
	}
	res := s.cfg.Replies.Answer(r.Context(), reply.Request{Nonce: req.Nonce, OptionIndex: *req.OptionIndex,
		Surface: surface, Device: device})
	status := http.StatusOK
	if res.Outcome == reply.Refused {
		status = http.StatusConflict
	}
	return writeJSON(w, status, res)
}

// audit returns answer attempts, newest first (?limit=N, default 50).
func (s *Server) audit(w http.ResponseWriter, r *http.Request) error {
	limit := 50
	if v := r.URL.Query().Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000 {
			return errBadLimit
		}
		limit = n
	}
	rows, err := s.cfg.Audit.Audit(r.Context(), limit)
	if err != nil {
		return err
	}
	if rows == nil {
		rows = []store.AuditEntry{}
	}
	return writeJSON(w, http.StatusOK, map[string]any{"audit": rows})
}
