package api

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/attn-dev/attn/internal/hosts"
	"github.com/attn-dev/attn/internal/source/hook"
	"github.com/attn-dev/attn/internal/store"
)

// HostTokenPrefix starts every per-host credential, so that one is
// recognisable in a config file (and never mistaken for the API token).
const HostTokenPrefix = "attnh_"

// HostList is what the hosts routes need of the hosts (implemented by
// *hosts.Manager).
type HostList interface {
	List() hosts.Listing
	Resolve(arg string) (string, error)
	Refresh()
}

// HostTokenStore keeps per-host credentials as hashes (implemented by
// *store.Store).
type HostTokenStore interface {
	SetHostToken(ctx context.Context, host string, tokenHash []byte) error
	HostByToken(ctx context.Context, tokenHash []byte) (store.HostToken, error)
	DeleteHostToken(ctx context.Context, host string) error
}

// Hosts configures the routes for the hosts attn reaches: GET /api/hosts,
// per-host credentials (POST and DELETE /api/hosts/{host}/token, API
// token only), remote hook events (POST /api/hosts/{host}/hook, with that
// host's credential) and the MCP server at /mcp.
type Hosts struct {
	List   HostList
	Tokens HostTokenStore
	// OnHook hands a hook event from host to that host's watcher.
	OnHook func(host string, ev hook.Event)
	// MCP is the MCP server's streamable HTTP handler; nil serves no /mcp.
	MCP http.Handler
}

// routeHosts adds the hosts routes.
func (s *Server) routeHosts() {
	s.route("GET /api/hosts", true, s.listHosts)
	s.route("POST /api/hosts/{host}/token", true, s.issueHostToken)
	s.route("DELETE /api/hosts/{host}/token", true, s.revokeHostToken)
	s.route("POST /api/hosts/{host}/hook", false, s.hostHook)
	s.routeMCP()
}

func (s *Server) listHosts(w http.ResponseWriter, r *http.Request) error {
	if s.cfg.Hosts.List == nil {
		return writeJSON(w, http.StatusOK, hosts.Listing{Active: s.cfg.Host,
			Hosts: []hosts.Host{{Name: s.cfg.Host, Own: true, State: hosts.StateReachable}}})
	}
	if r.URL.Query().Get("refresh") != "" {
		s.cfg.Hosts.List.Refresh()
	}
	return writeJSON(w, http.StatusOK, s.cfg.Hosts.List.List())
}

// HostTokenResponse is a freshly issued per-host credential: shown once,
// only its hash is kept.
type HostTokenResponse struct {
	Host  string `json:"host"`
	Token string `json:"token"`
	// HookURL is where that host's `attn hook` sends events, as this
	// daemon was reached (through a forwarded port, it is the same URL on
	// the other host).
	HookURL string `json:"hook_url"`
	// MCPURL is this daemon's MCP endpoint, for `attn mcp` there.
	MCPURL string `json:"mcp_url"`
}

// resolveHost maps the {host} path value to a host's name.
func (s *Server) resolveHost(r *http.Request) (string, error) {
	if s.cfg.Hosts.List == nil {
		return "", errNoHostsAPI
	}
	h, err := s.cfg.Hosts.List.Resolve(r.PathValue("host"))
	if err != nil {
		return "", errUnknownHost.with("%q", r.PathValue("host"))
	}
	return h, nil
}

// issueHostToken makes a new credential for a host, replacing its old one.
func (s *Server) issueHostToken(w http.ResponseWriter, r *http.Request) error {
	if p, _ := principalFrom(r.Context()); !p.bearer {
		return errHostTokenBearer
	}
	host, err := s.resolveHost(r)
	if err != nil {
		return err
	}
	_, text := newSecret(32)
	token := HostTokenPrefix + text
	if err := s.cfg.Hosts.Tokens.SetHostToken(r.Context(), host, hashSecret([]byte(token))); err != nil {
		return err
	}
	s.cfg.Log.Info("host credential issued", "host", host)
	base := "http://" + r.Host
	if r.TLS != nil {
		base = "https://" + r.Host
	}
	return writeJSON(w, http.StatusCreated, HostTokenResponse{Host: host, Token: token,
		HookURL: base + "/api/hosts/" + host + "/hook", MCPURL: base + "/mcp"})
}

func (s *Server) revokeHostToken(w http.ResponseWriter, r *http.Request) error {
	if p, _ := principalFrom(r.Context()); !p.bearer {
		return errHostTokenBearer
	}
	host, err := s.resolveHost(r)
	if err != nil {
		return err
	}
	if err := s.cfg.Hosts.Tokens.DeleteHostToken(r.Context(), host); errors.Is(err, store.ErrNotFound) {
		return errNoTokenForHost
	} else if err != nil {
		return err
	}
	s.cfg.Log.Info("host credential revoked", "host", host)
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// callerHost authenticates a bearer token for the hosts routes: the API
// token reaches every host (""), a host credential its own host; ok false
// for anything else.
func (s *Server) callerHost(ctx context.Context, tok string) (host string, ok bool, err error) {
	if tok == "" {
		return "", false, nil
	}
	if s.cfg.Token != "" && subtle.ConstantTimeCompare([]byte(tok), []byte(s.cfg.Token)) == 1 {
		return "", true, nil
	}
	if !strings.HasPrefix(tok, HostTokenPrefix) || s.cfg.Hosts.Tokens == nil {
		return "", false, nil
	}
	t, err := s.cfg.Hosts.Tokens.HostByToken(ctx, hashSecret([]byte(tok)))
	if errors.Is(err, store.ErrNotFound) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	return t.Host, true, nil
}

// maxHookBody bounds a hook event's body, as the socket bounds its line.
const maxHookBody = hook.MaxLine

// hostHook takes one hook event from another host. The credential must be
// that host's (or the API token): a host's credential cannot report for
// another host.
func (s *Server) hostHook(w http.ResponseWriter, r *http.Request) error {
	host, err := s.resolveHost(r)
	if err != nil {
		return err
	}
	tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	caller, ok, err := s.callerHost(r.Context(), tok)
	if err != nil {
		return err
	}
	if !ok {
		return errHostToken
	}
	if caller != "" && caller != host {
		return errWrongHost.with("it is the credential of %s and can only report for %s, not for %s", caller, caller, host)
	}
	if ct := r.Header.Get("Content-Type"); ct != "" && !strings.HasPrefix(ct, "application/json") {
		return errUnsupportedMedia
	}
	var raw json.RawMessage
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxHookBody))
	if err := dec.Decode(&raw); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return errTooLarge.with("at most %d bytes", maxHookBody)
		}
		return errBadHookEvent.with("%v", err)
	}
	ev, err := hook.DecodeEvent(raw)
	if err != nil {
		return errBadHookEvent.with("%v", err)
	}
	if ev.At.IsZero() {
		ev.At = s.cfg.Now()
	}
	if s.cfg.Hosts.OnHook != nil {
		s.cfg.Hosts.OnHook(host, ev)
	}
	return writeJSON(w, http.StatusAccepted, map[string]bool{"ok": true})
}
