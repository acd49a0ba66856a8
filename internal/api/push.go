package api

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode"

	"github.com/attn-dev/attn/internal/store"
	"github.com/attn-dev/attn/internal/webpush"
)

func (s *Server) vapidPublicKey(w http.ResponseWriter, r *http.Request) error {
	return writeJSON(w, http.StatusOK, map[string]string{"publicKey": s.cfg.VAPIDPublicKey})
}

// SubscribeRequest is a browser PushSubscription (PushSubscription.toJSON)
// plus an optional device name.
type SubscribeRequest struct {
	Endpoint string `json:"endpoint"`
	Keys     struct {
		P256DH string `json:"p256dh"`
		Auth   string `json:"auth"`
	} `json:"keys"`
	Name string `json:"name"`
}

// maxNameLen bounds a device name, in bytes.
const maxNameLen = 100

func (s *Server) subscribe(w http.ResponseWriter, r *http.Request) error {
	var req SubscribeRequest
	if err := decode(w, r, &req); err != nil {
		return err
	}
	sub, err := webpush.ParseSubscription(req.Endpoint, req.Keys.P256DH, req.Keys.Auth, s.cfg.AllowInsecureEndpoints)
	if err != nil {
		return errBadSubscription.with("%v", err)
	}
	name, err := deviceName(req.Name)
	if err != nil {
		return err
	}
	id, created, err := s.cfg.Registry.UpsertDevice(r.Context(), sub.Endpoint, sub.P256DH, sub.Auth, name)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
		s.cfg.Log.Info("device registered", "device", id, "name", name)
	}
	return writeJSON(w, status, map[string]any{"device_id": id, "created": created})
}

func (s *Server) unsubscribe(w http.ResponseWriter, r *http.Request) error {
	var req struct {
		Endpoint string `json:"endpoint"`
	}
	if err := decode(w, r, &req); err != nil {
		return err
	}
	if req.Endpoint == "" {
		return errMissingEndpoint
	}
	if err := s.cfg.Registry.DeleteDeviceByEndpoint(r.Context(), req.Endpoint); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return errDeviceNotFound
		}
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// DeviceView is one device as GET /api/devices shows it.
type DeviceView struct {
	ID            int64      `json:"device_id"`
	Name          string     `json:"name"`
	Registered    time.Time  `json:"registered_at"`
	PushService   string     `json:"push_service"` // the endpoint's origin only
	LastOutcome   string     `json:"last_outcome"`
	LastDetail    string     `json:"last_detail,omitempty"`
	LastAttemptAt *time.Time `json:"last_attempt_at,omitempty"`
	LastSuccessAt *time.Time `json:"last_success_at,omitempty"`
	// Kinds says which kinds may interrupt the device (its choices over
	// the defaults).
	Kinds map[string]bool `json:"kinds"`
}

func (s *Server) devices(w http.ResponseWriter, r *http.Request) error {
	devs, err := s.cfg.Registry.Devices(r.Context())
	if err != nil {
		return err
	}
	choices := map[int64]map[string]bool{}
	if s.cfg.Kinds != nil {
		if choices, err = s.cfg.Kinds.DeviceKinds(r.Context()); err != nil {
			return err
		}
	}
	out := make([]DeviceView, 0, len(devs))
	for _, d := range devs {
		v := DeviceView{ID: d.ID, Name: d.Name, Registered: d.Created, PushService: origin(d.Endpoint),
			LastOutcome: d.LastOutcome, LastDetail: d.LastDetail, Kinds: effectiveKinds(choices[d.ID])}
		if !d.LastAttemptAt.IsZero() {
			v.LastAttemptAt = &d.LastAttemptAt
		}
		if !d.LastSuccessAt.IsZero() {
			v.LastSuccessAt = &d.LastSuccessAt
		}
		out = append(out, v)
	}
	return writeJSON(w, http.StatusOK, map[string]any{"devices": out})
}

// origin returns scheme://host of an endpoint: its path is a capability
// and is never shown.
func origin(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

// deviceName checks a device name: at most maxNameLen bytes, no control
// or bidirectional-override characters (names are printed in terminals).
func deviceName(v string) (string, error) {
	name := strings.TrimSpace(v)
	if len(name) > maxNameLen {
		return "", errBadName.with("it is %d bytes; at most %d", len(name), maxNameLen)
	}
	for _, r := range name {
		if unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) {
			return "", errBadName.with("it holds control character %U; use letters, digits and punctuation", r)
		}
	}
	return name, nil
}
