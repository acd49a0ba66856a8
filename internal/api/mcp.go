package api

import (
	"context"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/attn-dev/attn/internal/mcp"
)

// routeMCP serves the MCP server at /mcp (streamable HTTP). A caller
// sends a bearer: the daemon's API token reaches every host, a host's
// credential (`attn host token HOST`) that host only; the scope travels
// to the tools in the request's TokenInfo.
func (s *Server) routeMCP() {
	if s.cfg.Hosts.MCP == nil {
		return
	}
	verify := func(ctx context.Context, token string, r *http.Request) (*auth.TokenInfo, error) {
		host, ok, err := s.callerHost(ctx, token)
		if err != nil {
			s.cfg.Log.Error("cannot check an MCP credential", "err", err)
			return nil, err
		}
		if !ok {
			s.cfg.Log.Info("api request refused", "path", "/mcp", "code", errUnauthorized.Code)
			return nil, auth.ErrInvalidToken
		}
		ti := &auth.TokenInfo{UserID: "fleet", Expiration: s.cfg.Now().Add(24 * time.Hour), Extra: map[string]any{}}
		if host != "" {
			ti.UserID = "host:" + host
			ti.Extra[mcp.ScopeHost] = host
		}
		return ti, nil
	}
	h := auth.RequireBearerToken(verify, nil)(s.cfg.Hosts.MCP)
	s.mux.Handle("/mcp", h)
}
