package api

import (
	"io/fs"
	"net/http"
	"path"
	"strings"

	"github.com/attn-dev/attn/web"
)

// The web app's pages all load index.html; the modules in web/app route on
// the path. Pages, modules and the service worker need a credential like
// the API; an unpaired browser asking for a page gets pair.html with 401,
// which says how to pair and never acts by itself. The pairing page, its
// script, the style sheet, the manifest and the icons are public: they hold
// nothing but the app's own look, and install prompts fetch the manifest
// and icons without cookies.

// contentSecurityPolicy allows the app's own scripts, styles and fetches
// only: no inline script, no other origin, no framing.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; manifest-src 'self'; worker-src 'self'; object-src 'none'; base-uri 'none'; " +
	"form-action 'self'; frame-ancestors 'none'"

func (s *Server) routeWeb() {
	for _, p := range []string{"GET /{$}", "GET /settings", "GET /panes/{host}/{pane}"} {
		s.mux.HandleFunc(p, s.page)
	}
	s.mux.HandleFunc("GET /pair", s.static("pair.html", false))
	s.mux.HandleFunc("GET /pair.js", s.static("pair.js", false))
	s.mux.HandleFunc("GET /manifest.webmanifest", s.static("manifest.webmanifest", false))
	s.mux.HandleFunc("GET /sw.js", s.static("sw.js", true))
	s.mux.HandleFunc("GET /app/{file}", s.asset("app", true))
	s.mux.HandleFunc("GET /icons/{file}", s.asset("icons", false))
}

// page serves the app shell to a signed-in browser, else the pairing page
// with 401.
func (s *Server) page(w http.ResponseWriter, r *http.Request) {
	if _, ok := s.authenticate(r); !ok {
		s.serveFile(w, r, "pair.html", http.StatusUnauthorized)
		return
	}
	s.serveFile(w, r, "index.html", http.StatusOK)
}

// static serves one file, needing a credential when auth is set.
func (s *Server) static(name string, auth bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if auth {
			if _, ok := s.authenticate(r); !ok {
				s.fail(w, r, errUnauthorized)
				return
			}
		}
		s.serveFile(w, r, name, http.StatusOK)
	}
}

// asset serves a file from one directory of the app; the style sheet is
// public (the pairing page uses it), the modules are not.
func (s *Server) asset(dir string, auth bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		name := path.Join(dir, r.PathValue("file"))
		if auth && name != "app/style.css" {
			if _, ok := s.authenticate(r); !ok {
				s.fail(w, r, errUnauthorized)
				return
			}
		}
		s.serveFile(w, r, name, http.StatusOK)
	}
}

// contentTypes are the types of the app's files, by extension.
var contentTypes = map[string]string{
	".html":        "text/html; charset=utf-8",
	".js":          "text/javascript; charset=utf-8",
	".css":         "text/css; charset=utf-8",
	".webmanifest": "application/manifest+json",
	".png":         "image/png",
	".svg":         "image/svg+xml",
}

func (s *Server) serveFile(w http.ResponseWriter, r *http.Request, name string, status int) {
	ct, known := contentTypes[path.Ext(name)]
	b, err := fs.ReadFile(web.Files, name)
	if err != nil || !known || strings.Contains(name, "..") {
		http.NotFound(w, r)
		return
	}
	h := w.Header()
	h.Set("Content-Type", ct)
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Security-Policy", contentSecurityPolicy)
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	if name == "sw.js" {
		h.Set("Service-Worker-Allowed", "/")
	}
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		w.Write(b)
	}
}
