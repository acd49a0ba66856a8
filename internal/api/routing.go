package api

import (
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/attn-dev/attn/internal/agent"
	"github.com/attn-dev/attn/internal/notification"
	"github.com/attn-dev/attn/internal/presence"
	"github.com/attn-dev/attn/internal/route"
	"github.com/attn-dev/attn/internal/store"
)

// choosableKinds are the kinds a device may turn on or off (test always
// reaches every device).
var choosableKinds = []notification.Kind{notification.KindBlocked, notification.KindAsked,
	notification.KindFinished, notification.KindError}

// paneRef parses "%3", "host/%3" or "local/%3" (this host).
func (s *Server) paneRef(v string) (agent.PaneRef, error) {
	host, pane, ok := strings.Cut(v, "/")
	if !ok {
		host, pane = s.cfg.Host, v
	}
	if strings.EqualFold(host, "local") || strings.EqualFold(host, s.cfg.Host) {
		host = s.cfg.Host
	}
	if host == "" || len(pane) < 2 || pane[0] != '%' {
		return agent.PaneRef{}, errBadPane.with("got %q", v)
	}
	if _, err := strconv.Atoi(pane[1:]); err != nil {
		return agent.PaneRef{}, errBadPane.with("got %q", v)
	}
	return agent.PaneRef{Host: host, Pane: pane}, nil
}

// PatchDeviceRequest changes a device: its name and kind choices. A kind
// set to null returns to its default; only choices that differ from the
// default are stored.
type PatchDeviceRequest struct {
	Name  *string          `json:"name"`
	Kinds map[string]*bool `json:"kinds"`
}

func (s *Server) patchDevice(w http.ResponseWriter, r *http.Request) error {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		return errBadDeviceID
	}
	var req PatchDeviceRequest
	if err := decode(w, r, &req); err != nil {
		return err
	}
	for k := range req.Kinds {
		if !slices.Contains(choosableKinds, notification.Kind(k)) {
			return errBadKinds.with("unknown kind %q", k)
		}
	}
	devs, err := s.cfg.Registry.Devices(r.Context())
	if err != nil {
		return err
	}
	i := slices.IndexFunc(devs, func(d store.Device) bool { return d.ID == id })
	if i < 0 {
		return errNoDevice
	}
	if req.Name != nil {
		name, err := deviceName(*req.Name)
		if err != nil {
			return err
		}
		d := devs[i]
		if _, _, err := s.cfg.Registry.UpsertDevice(r.Context(), d.Endpoint, d.P256DH, d.Auth, name); err != nil {
			return err
		}
	}
	for k, v := range req.Kinds {
		kind := notification.Kind(k)
		on := route.DefaultKinds[kind]
		if v != nil {
			on = *v
		}
		if err := s.cfg.Kinds.SetDeviceKind(r.Context(), id, k, on, on == route.DefaultKinds[kind]); err != nil {
			if errors.Is(err, store.ErrNotFound) {
				return errNoDevice
			}
			return err
		}
	}
	return s.devices(w, r)
}

// effectiveKinds resolves each choosable kind for a device.
func effectiveKinds(choices map[string]bool) map[string]bool {
	out := make(map[string]bool, len(choosableKinds))
	for _, k := range choosableKinds {
		out[string(k)] = route.KindEnabled(choices, k)
	}
	return out
}

// PresenceRequest is a window's report of itself (sent every 20 s and on
// every change).
type PresenceRequest struct {
	DeviceID int64  `json:"device_id"`
	Visible  *bool  `json:"visible"`
	Focused  string `json:"focused"`
}

func (s *Server) presence(w http.ResponseWriter, r *http.Request) error {
	var req PresenceRequest
	if err := decode(w, r, &req); err != nil {
		return err
	}
	if req.DeviceID <= 0 || req.Visible == nil {
		return errBadPresence
	}
	st := presence.State{Visible: *req.Visible, At: s.cfg.Now()}
	if req.Focused != "" {
		ref, err := s.paneRef(req.Focused)
		if err != nil {
			return errBadPresence.with("focused %q", req.Focused)
		}
		st.Focused = ref.String()
	}
	s.cfg.Presence.Report(req.DeviceID, st)
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// MaxMute is the longest a mute may run.
const MaxMute = 366 * 24 * time.Hour

// MuteRequest mutes a pane: for a duration, until a time, and/or until its
// agent next finishes.
type MuteRequest struct {
	Pane          string    `json:"pane"`
	For           string    `json:"for"`
	Until         time.Time `json:"until"`
	UntilFinished bool      `json:"until_finished"`
}

func (s *Server) mute(w http.ResponseWriter, r *http.Request) error {
	var req MuteRequest
	if err := decode(w, r, &req); err != nil {
		return err
	}
	ref, err := s.paneRef(req.Pane)
	if err != nil {
		return err
	}
	m := store.Mute{Host: ref.Host, Pane: ref.Pane, Until: req.Until, UntilFinished: req.UntilFinished, Created: s.cfg.Now()}
	if req.For != "" {
		d, err := time.ParseDuration(req.For)
		if err != nil || d <= 0 {
			return errBadMute.with("for %q is not a positive duration like 30m or 2h (at most 8784h)", req.For)
		}
		m.Until = s.cfg.Now().Add(d)
	}
	if m.Until.IsZero() && !m.UntilFinished {
		return errBadMute
	}
	if !m.Until.IsZero() && m.Until.After(s.cfg.Now().Add(MaxMute)) {
		return errBadMute.with("at most %s ahead; for longer, use a project's .attn.toml (mute = true)", "366 days")
	}
	if !m.Until.IsZero() && !m.Until.After(s.cfg.Now()) {
		return errBadMute.with("until %s is in the past", m.Until.Format(time.RFC3339))
	}
	if err := s.cfg.Mutes.Set(r.Context(), m); err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, m)
}

func (s *Server) unmute(w http.ResponseWriter, r *http.Request) error {
	var req struct {
		Pane string `json:"pane"`
	}
	if err := decode(w, r, &req); err != nil {
		return err
	}
	ref, err := s.paneRef(req.Pane)
	if err != nil {
		return err
	}
	if err := s.cfg.Mutes.Delete(r.Context(), ref); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return errNotMuted
		}
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) listMutes(w http.ResponseWriter, r *http.Request) error {
	mutes := s.cfg.Mutes.List(s.cfg.Now())
	if mutes == nil {
		mutes = []store.Mute{}
	}
	return writeJSON(w, http.StatusOK, map[string]any{"mutes": mutes})
}

// decisions returns decision-log rows, newest first: ?pane=host/%3 for one
// pane, ?limit=N (default 50, at most 1000).
func (s *Server) decisions(w http.ResponseWriter, r *http.Request) error {
	limit := 50
	if v := r.URL.Query().Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000 {
			return errBadLimit
		}
		limit = n
	}
	var ref agent.PaneRef
	if v := r.URL.Query().Get("pane"); v != "" {
		var err error
		if ref, err = s.paneRef(v); err != nil {
			return err
		}
	}
	rows, err := s.cfg.Decisions.Decisions(r.Context(), ref.Host, ref.Pane, limit)
	if err != nil {
		return err
	}
	if rows == nil {
		rows = []store.Decision{}
	}
	return writeJSON(w, http.StatusOK, map[string]any{"decisions": rows})
}
