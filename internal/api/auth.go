package api

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/attn-dev/attn/internal/inapp"
	"github.com/attn-dev/attn/internal/store"
)

// Two credentials reach the API: the daemon's bearer token (the CLI, read
// from <state-dir>/api-token) and, for browsers, a long-lived device
// credential in an HttpOnly, SameSite=Strict cookie, minted by redeeming a
// one-time pairing code (`attn pair`). Only SHA-256 hashes of pairing codes
// and credentials are stored; neither is ever logged.

// WebStore keeps pairing codes and browser credentials (implemented by
// *store.Store).
type WebStore interface {
	AddPairing(ctx context.Context, codeHash []byte, expires time.Time) error
	RedeemPairing(ctx context.Context, codeHash, tokenHash []byte, name string) (store.Credential, error)
	CredentialByToken(ctx context.Context, tokenHash []byte) (store.Credential, error)
	Credentials(ctx context.Context) ([]store.Credential, error)
	TouchCredential(ctx context.Context, id int64) error
	SetCredentialDevice(ctx context.Context, id, deviceID int64) error
	RenameCredential(ctx context.Context, id int64, name string) error
	RevokeCredential(ctx context.Context, id int64) error
	RevokeAllCredentials(ctx context.Context) (int, error)
	DeleteDevice(ctx context.Context, id int64) error
}

// Web configures the web app and browser sign-in.
type Web struct {
	Store WebStore
	// InApp hands notifications to open windows (the SSE stream's toasts).
	InApp *inapp.Broker
	// SecureCookies marks the credential cookie Secure (and names it with
	// the __Host- prefix): set when browsers reach attn over HTTPS, served
	// by attn itself or by a TLS-terminating proxy in front.
	SecureCookies bool
	// PublicURLs are the origins browsers use to reach attn beyond
	// loopback ("https://laptop.example.ts.net"): their hosts pass the
	// Host guard and their origins the Origin guard.
	PublicURLs []string
	// PairBase is the URL pairing links start with; "" means the first
	// public URL, else the address of the request that minted the code.
	PairBase string
	// PairTTL is how long a pairing link works; 0 means DefaultPairTTL.
	PairTTL time.Duration
}

// DefaultPairTTL is how long a pairing link works.
const DefaultPairTTL = 10 * time.Minute

// CredentialMaxAge is the credential cookie's lifetime, renewed whenever
// the web app starts (400 days is the most browsers keep a cookie).
const CredentialMaxAge = 400 * 24 * time.Hour

// touchEvery bounds how often a credential's last-seen time is written.
const touchEvery = time.Minute

// principal is who made a request: the bearer token, or a browser's
// credential.
type principal struct {
	bearer bool
	cred   store.Credential
}

type principalKey struct{}

func principalFrom(ctx context.Context) (principal, bool) {
	p, ok := ctx.Value(principalKey{}).(principal)
	return p, ok
}

// cookieName is the credential cookie's name: with the __Host- prefix
// when Secure, so that no subdomain can set or shadow it.
func (s *Server) cookieName() string {
	if s.cfg.Web.SecureCookies {
		return "__Host-attn"
	}
	return "attn"
}

// authenticate finds the request's principal: the bearer token, else a
// credential cookie that names a live credential.
func (s *Server) authenticate(r *http.Request) (principal, bool) {
	if tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		good := s.cfg.Token != "" && subtle.ConstantTimeCompare([]byte(tok), []byte(s.cfg.Token)) == 1
		return principal{bearer: true}, good
	}
	c, err := r.Cookie(s.cookieName())
	if err != nil || c.Value == "" || s.cfg.Web.Store == nil {
		return principal{}, false
	}
	raw, err := base64.RawURLEncoding.Strict().DecodeString(c.Value)
	if err != nil || len(raw) != 32 {
		return principal{}, false
	}
	cred, err := s.cfg.Web.Store.CredentialByToken(r.Context(), hashSecret(raw))
	if err != nil {
		if !errors.Is(err, store.ErrNotFound) {
			s.cfg.Log.Error("cannot check a browser credential", "err", err)
		}
		return principal{}, false
	}
	if s.touch(r.Context(), cred.ID) {
		cred.LastSeen = s.cfg.Now().UTC()
	}
	return principal{cred: cred}, true
}

// authorize authenticates r and returns it carrying its principal. A
// browser's request that changes something must come with an Origin (the
// Origin guard has already refused a foreign one): SameSite=Strict keeps
// the cookie off cross-site requests, this keeps it off anything else.
func (s *Server) authorize(r *http.Request) (*http.Request, error) {
	p, ok := s.authenticate(r)
	if !ok {
		return r, errUnauthorized
	}
	if !p.bearer && !safeMethod(r.Method) && r.Header.Get("Origin") == "" {
		return r, errNoOrigin
	}
	return r.WithContext(context.WithValue(r.Context(), principalKey{}, p)), nil
}

func safeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}

// webState is the Server's state for browsers: when each credential's
// last use was written, and the open event streams.
type webState struct {
	touchedAt sync.Map // credential id → time.Time
	closeOnce sync.Once
	closing   chan struct{}
}

// touch records a credential's use, at most once per touchEvery; it
// reports whether it did.
func (s *Server) touch(ctx context.Context, id int64) bool {
	now := s.cfg.Now()
	if v, ok := s.web.touchedAt.Load(id); ok && now.Sub(v.(time.Time)) < touchEvery {
		return false
	}
	s.web.touchedAt.Store(id, now)
	if err := s.cfg.Web.Store.TouchCredential(ctx, id); err != nil {
		s.cfg.Log.Warn("cannot record a browser's last use", "err", err)
		return false
	}
	return true
}

func hashSecret(b []byte) []byte {
	h := sha256.Sum256(b)
	return h[:]
}

// newSecret returns n random bytes and their base64url text.
func newSecret(n int) ([]byte, string) {
	b := make([]byte, n)
	rand.Read(b)
	return b, base64.RawURLEncoding.EncodeToString(b)
}

// PairResponse is a fresh pairing link. The URL carries the one-time code
// in its fragment, which browsers never send to a server or in a Referer.
type PairResponse struct {
	URL       string    `json:"url"`
	ExpiresAt time.Time `json:"expires_at"`
}

// pair mints a one-time pairing code (API token only).
func (s *Server) pair(w http.ResponseWriter, r *http.Request) error {
	if p, _ := principalFrom(r.Context()); !p.bearer {
		return errBearerOnly
	}
	ttl := s.cfg.Web.PairTTL
	if ttl <= 0 {
		ttl = DefaultPairTTL
	}
	raw, code := newSecret(16)
	expires := s.cfg.Now().Add(ttl)
	if err := s.cfg.Web.Store.AddPairing(r.Context(), hashSecret(raw), expires); err != nil {
		return err
	}
	base := s.cfg.Web.PairBase
	if base == "" && len(s.cfg.Web.PublicURLs) > 0 {
		base = s.cfg.Web.PublicURLs[0]
	}
	if base == "" {
		scheme := "http"
		if r.TLS != nil || s.cfg.Web.SecureCookies {
			scheme = "https"
		}
		base = scheme + "://" + r.Host
	}
	s.cfg.Log.Info("pairing link minted", "expires", expires.Format(time.RFC3339))
	return writeJSON(w, http.StatusCreated, PairResponse{URL: strings.TrimRight(base, "/") + "/pair#" + code, ExpiresAt: expires})
}

// RedeemRequest is the body of POST /api/pair/redeem.
type RedeemRequest struct {
	Code string `json:"code"`
	Name string `json:"name"`
}

// redeem turns a pairing code into a credential cookie (no credential
// needed: the code is one).
func (s *Server) redeem(w http.ResponseWriter, r *http.Request) error {
	if r.Header.Get("Origin") == "" {
		return errNoOrigin
	}
	var req RedeemRequest
	if err := decode(w, r, &req); err != nil {
		return err
	}
	code := strings.TrimSpace(strings.TrimPrefix(req.Code, "#"))
	if code == "" {
		return errPairingMissing
	}
	raw, err := base64.RawURLEncoding.Strict().DecodeString(code) // one spelling per code
	if err != nil || len(raw) != 16 {
		return errPairingUnknown
	}
	name := strings.TrimSpace(req.Name)
	if len(name) > maxNameLen {
		return errBadJSON.with("name is %d bytes; at most %d", len(name), maxNameLen)
	}
	if name == "" {
		name = "browser"
	}
	secret, token := newSecret(32)
	cred, err := s.cfg.Web.Store.RedeemPairing(r.Context(), hashSecret(raw), hashSecret(secret), name)
	switch {
	case errors.Is(err, store.ErrPairingUnknown):
		return errPairingUnknown
	case errors.Is(err, store.ErrPairingUsed):
		return errPairingUsed
	case errors.Is(err, store.ErrPairingExpired):
		return errPairingExpired
	case err != nil:
		return err
	}
	s.setCookie(w, token, CredentialMaxAge)
	s.cfg.Log.Info("browser paired", "credential", cred.ID, "name", cred.Name)
	return writeJSON(w, http.StatusCreated, map[string]any{"credential": cred})
}

func (s *Server) setCookie(w http.ResponseWriter, value string, maxAge time.Duration) {
	c := &http.Cookie{Name: s.cookieName(), Value: value, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: s.cfg.Web.SecureCookies, MaxAge: int(maxAge / time.Second)}
	if maxAge <= 0 {
		c.MaxAge = -1
	}
	http.SetCookie(w, c)
}

// SessionView is what GET /api/session tells the web app about itself.
type SessionView struct {
	// Credential is this browser's credential (nil for the API token).
	Credential *store.Credential `json:"credential"`
	// Host is the daemon's host name.
	Host string `json:"host"`
	// VAPIDPublicKey is the key subscriptions must be made with.
	VAPIDPublicKey string `json:"vapid_public_key"`
	// Answer says whether POST /api/push/answer is served (the reply path).
	Answer bool `json:"answer"`
}

// session describes the caller and renews a browser's cookie.
func (s *Server) session(w http.ResponseWriter, r *http.Request) error {
	p, _ := principalFrom(r.Context())
	v := SessionView{Host: s.cfg.Host, VAPIDPublicKey: s.cfg.VAPIDPublicKey, Answer: s.serves(http.MethodPost, "/api/push/answer")}
	if !p.bearer {
		c := p.cred
		v.Credential = &c
		if ck, err := r.Cookie(s.cookieName()); err == nil {
			s.setCookie(w, ck.Value, CredentialMaxAge) // sliding lifetime
		}
	}
	return writeJSON(w, http.StatusOK, v)
}

// serves reports whether the mux routes method path to a handler.
func (s *Server) serves(method, path string) bool {
	_, pattern := s.mux.Handler(&http.Request{Method: method, URL: &url.URL{Path: path}, Host: "127.0.0.1"})
	return pattern != ""
}

// SessionPatch changes this browser's credential: its name, and the push
// device it registered (0 unlinks).
type SessionPatch struct {
	Name     *string `json:"name"`
	DeviceID *int64  `json:"device_id"`
}

func (s *Server) patchSession(w http.ResponseWriter, r *http.Request) error {
	p, _ := principalFrom(r.Context())
	if p.bearer {
		return errBrowserOnly
	}
	var req SessionPatch
	if err := decode(w, r, &req); err != nil {
		return err
	}
	if req.Name != nil {
		name := strings.TrimSpace(*req.Name)
		if len(name) > maxNameLen {
			return errBadJSON.with("name is %d bytes; at most %d", len(name), maxNameLen)
		}
		if err := s.cfg.Web.Store.RenameCredential(r.Context(), p.cred.ID, name); err != nil {
			return err
		}
	}
	if req.DeviceID != nil {
		if *req.DeviceID < 0 {
			return errBadDeviceID
		}
		if err := s.cfg.Web.Store.SetCredentialDevice(r.Context(), p.cred.ID, *req.DeviceID); err != nil {
			if errors.Is(err, store.ErrNotFound) {
				return errNoDevice
			}
			return err
		}
	}
	cred, err := s.cfg.Web.Store.CredentialByToken(r.Context(), mustCookieHash(r, s.cookieName()))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, map[string]any{"credential": cred})
}

// mustCookieHash returns the hash of the request's (already checked)
// credential cookie.
func mustCookieHash(r *http.Request, name string) []byte {
	c, _ := r.Cookie(name)
	raw, _ := base64.RawURLEncoding.DecodeString(c.Value)
	return hashSecret(raw)
}

func (s *Server) listCredentials(w http.ResponseWriter, r *http.Request) error {
	creds, err := s.cfg.Web.Store.Credentials(r.Context())
	if err != nil {
		return err
	}
	p, _ := principalFrom(r.Context())
	return writeJSON(w, http.StatusOK, map[string]any{"credentials": creds, "current": p.cred.ID})
}

// revokeCredential signs one browser out and removes its push device.
func (s *Server) revokeCredential(w http.ResponseWriter, r *http.Request) error {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		return errBadCredential
	}
	if err := s.cfg.Web.Store.RevokeCredential(r.Context(), id); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return errNoCredential
		}
		return err
	}
	s.web.touchedAt.Delete(id)
	if p, _ := principalFrom(r.Context()); !p.bearer && p.cred.ID == id {
		s.setCookie(w, "", 0)
	}
	s.cfg.Log.Info("browser signed out", "credential", id)
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// revokeAll signs every browser out and removes their push devices.
func (s *Server) revokeAll(w http.ResponseWriter, r *http.Request) error {
	n, err := s.cfg.Web.Store.RevokeAllCredentials(r.Context())
	if err != nil {
		return err
	}
	s.web.touchedAt.Clear()
	s.setCookie(w, "", 0)
	s.cfg.Log.Info("every browser signed out", "revoked", n)
	return writeJSON(w, http.StatusOK, map[string]int{"revoked": n})
}

// deleteDevice removes one push device (unticking it in Settings).
func (s *Server) deleteDevice(w http.ResponseWriter, r *http.Request) error {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		return errBadDeviceID
	}
	if err := s.cfg.Web.Store.DeleteDevice(r.Context(), id); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return errNoDevice
		}
		return err
	}
	s.cfg.Log.Info("device removed", "device", id)
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// publicHost reports whether a request's Host is one of the configured
// public URLs' hosts (any port when the URL names none).
func (s *Server) publicHost(hostport string) bool {
	for _, u := range s.cfg.Web.PublicURLs {
		pu, err := url.Parse(u)
		if err != nil {
			continue
		}
		if strings.EqualFold(pu.Host, hostport) || (pu.Port() == "" && strings.EqualFold(pu.Hostname(), hostOnly(hostport))) {
			return true
		}
	}
	return false
}

// publicOrigin reports whether the request's Origin is one of the public
// URLs' origins: a proxy in front may rewrite Host to attn's loopback
// address while the browser's Origin stays the public one.
func (s *Server) publicOrigin(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" {
		return false
	}
	for _, u := range s.cfg.Web.PublicURLs {
		if strings.EqualFold(strings.TrimRight(u, "/"), o) {
			return true
		}
	}
	return false
}

func hostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return hostport
}
