// Package api serves attn's HTTP API: push subscription and device
// management, explicit notifications, and the VAPID public key — and the
// web app (its pages, live event stream and browser sign-in). Requests
// must come to a loopback Host (or a configured public one) without a
// foreign Origin, and every route but the VAPID public key, the pairing
// page and the app's static look needs a credential: the daemon's API
// token, or a paired browser's cookie.
package api

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/attn-dev/attn/internal/agent"
	"github.com/attn-dev/attn/internal/board"
	"github.com/attn-dev/attn/internal/deliver"
	"github.com/attn-dev/attn/internal/notification"
	"github.com/attn-dev/attn/internal/presence"
	"github.com/attn-dev/attn/internal/store"
)

// Registry is the device store the API manages (implemented by
// *store.Store).
type Registry interface {
	UpsertDevice(ctx context.Context, endpoint string, p256dh, auth []byte, name string) (int64, bool, error)
	Devices(ctx context.Context) ([]store.Device, error)
	DeleteDeviceByEndpoint(ctx context.Context, endpoint string) error
}

// Notifier delivers an explicit or test notification, bypassing dedup and
// caps, and reports what happened (implemented by *pipeline.Engine).
type Notifier interface {
	Asked(ctx context.Context, n notification.Notification) deliver.Report
}

// Mutes manages pane mutes (implemented by *pipeline.Mutes).
type Mutes interface {
	Set(ctx context.Context, m store.Mute) error
	Delete(ctx context.Context, ref agent.PaneRef) error
	List(now time.Time) []store.Mute
}

// Kinds stores devices' kind choices (implemented by *store.Store).
type Kinds interface {
	SetDeviceKind(ctx context.Context, deviceID int64, kind string, enabled, isDefault bool) error
	DeviceKinds(ctx context.Context) (map[int64]map[string]bool, error)
}

// Decisions reads the decision log (implemented by *store.Store).
type Decisions interface {
	Decisions(ctx context.Context, host, pane string, limit int) ([]store.Decision, error)
}

// Config is what the API serves with.
type Config struct {
	Registry  Registry
	Notifier  Notifier
	Mutes     Mutes
	Kinds     Kinds
	Decisions Decisions
	Presence  *presence.Registry
	Board     *board.Board
	Replies   Replies
	Audit     Audit
	// Channels manages ntfy, Telegram, … channels (channels.go); nil
	// answers 503.
	Channels Channels
	// Host is this host's name: a pane given without a host is on it, and
	// "local" is its alias.
	Host string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Asked builds the notification for an explicit notify call, and says
	// why when it could not title it with the calling agent's name.
	Asked func(ctx context.Context, req NotifyRequest) (n notification.Notification, why string)
	// VAPIDPublicKey is the base64url uncompressed P-256 point.
	VAPIDPublicKey string
	// Token is the API bearer token; requests without it get 401.
	Token string
	// AllowInsecureEndpoints accepts http:// push endpoints on loopback.
	AllowInsecureEndpoints bool
	Log                    *slog.Logger
	// Web configures the web app and browser sign-in (web.go, auth.go).
	Web Web
	// Hosts configures other hosts: their listing, per-host credentials,
	// remote hook events and the MCP server (hosttoken.go, mcp.go).
	Hosts Hosts
}

// Server is the HTTP handler.
type Server struct {
	cfg Config
	mux *http.ServeMux
	web webState
}

// New returns the API handler.
func New(cfg Config) *Server {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	s := &Server{cfg: cfg, mux: http.NewServeMux()}
	s.web.closing = make(chan struct{})
	s.route("GET /api/push/vapid-public-key", false, s.vapidPublicKey)
	s.route("POST /api/push/subscribe", true, s.subscribe)
	s.route("DELETE /api/push/subscribe", true, s.unsubscribe)
	s.route("GET /api/devices", true, s.devices)
	s.route("POST /api/notify", true, s.notify)
	s.route("POST /api/test", true, s.test)
	s.route("PATCH /api/devices/{id}", true, s.patchDevice)
	s.route("POST /api/presence", true, s.presence)
	s.route("GET /api/mutes", true, s.listMutes)
	s.route("POST /api/mutes", true, s.mute)
	s.route("DELETE /api/mutes", true, s.unmute)
	s.route("GET /api/decisions", true, s.decisions)
	s.route("GET /api/panes", true, s.listPanes)
	s.route("GET /api/panes/{host}/{pane}", true, s.getPane)
	s.route("POST /api/pair", true, s.pair)
	s.route("POST /api/pair/redeem", false, s.redeem)
	s.route("GET /api/session", true, s.session)
	s.route("PATCH /api/session", true, s.patchSession)
	s.route("GET /api/credentials", true, s.listCredentials)
	s.route("DELETE /api/credentials/{id}", true, s.revokeCredential)
	s.route("DELETE /api/credentials", true, s.revokeAll)
	s.route("DELETE /api/devices/{id}", true, s.deleteDevice)
	s.route("GET /api/events", true, s.events)
	s.route("POST /api/push/answer", false, s.answer)
	s.route("GET /api/audit", true, s.audit)
	s.route("GET /api/channels", true, s.listChannels)
	s.route("POST /api/channels", true, s.addChannel)
	s.route("PATCH /api/channels/{name}", true, s.patchChannel)
	s.route("DELETE /api/channels/{name}", true, s.removeChannel)
	s.route("POST /api/channels/{name}/test", true, s.testChannel)
	s.route("POST /api/channels/{name}/tokens", true, s.addChannelToken)
	s.routeWeb()
	s.routeHosts()
	return s
}

type handler func(w http.ResponseWriter, r *http.Request) error

func (s *Server) route(pattern string, auth bool, h handler) {
	s.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		if auth {
			var err error
			if r, err = s.authorize(r); err != nil {
				s.fail(w, r, err)
				return
			}
		}
		if err := h(w, r); err != nil {
			s.fail(w, r, err)
		}
	})
}

// ServeHTTP applies the Host and Origin guards, then routes.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !loopbackHost(r.Host) && !s.publicHost(r.Host) {
		s.fail(w, r, errForeignHost)
		return
	}
	if foreignOrigin(r) && !s.publicOrigin(r) {
		s.fail(w, r, errForeignOrigin)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	s.mux.ServeHTTP(w, r)
}

func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	e := asError(err)
	if e == errInternal {
		s.cfg.Log.Error("api request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	} else {
		s.cfg.Log.Info("api request refused", "method", r.Method, "path", r.URL.Path, "code", e.Code)
	}
	writeJSON(w, e.Status, map[string]*Error{"error": e})
}

func writeJSON(w http.ResponseWriter, status int, v any) error {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	return json.NewEncoder(w).Encode(v)
}

// maxBody bounds request bodies: a subscription or a notify call is small.
const maxBody = 64 << 10

// decode reads a JSON body into v with a size bound and clear errors.
func decode(w http.ResponseWriter, r *http.Request, v any) error {
	if ct := r.Header.Get("Content-Type"); ct != "" && !strings.HasPrefix(ct, "application/json") {
		return errUnsupportedMedia
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBody))
	if err := dec.Decode(v); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return errTooLarge.with("at most %d bytes", maxBody)
		}
		return errBadJSON.with("%v", err)
	}
	return nil
}

// loopbackHost reports whether a request's Host names this machine's
// loopback: "localhost", 127.0.0.0/8 or ::1, with any port.
func loopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// foreignOrigin reports whether the request carries an Origin (or, without
// one, a Referer) whose host is not this request's Host: a web page on
// another site must not drive the daemon.
func foreignOrigin(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" {
		o = r.Header.Get("Referer")
	}
	if o == "" {
		return false
	}
	u, err := url.Parse(o)
	if err != nil || u.Host == "" {
		return true
	}
	return !strings.EqualFold(u.Host, r.Host)
}
