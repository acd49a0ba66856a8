// Package config holds the daemon's options in one place: each option's
// default (with the reason for it), its environment twin ATTN_*, and the
// checks that refuse a bad value at start with a message saying what to do.
package config

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/attn-dev/attn/internal/webpush"
)

// Defaults, each with its reason.
const (
	// DefaultListen is loopback only: the daemon can type into terminals,
	// so nothing off this machine reaches it unless the person says so.
	DefaultListen = "127.0.0.1:7477"
	// DefaultServer is the URL client commands use to reach the daemon.
	DefaultServer = "http://" + DefaultListen
	// DefaultPoll is how often screens are read: a second keeps a blocked
	// agent's latency low while costing one capture-pane per pane.
	DefaultPoll = time.Second
	// DefaultSettle is how long a question must hold still before it is
	// sent: long enough to absorb redraws and a person answering at the
	// terminal, short enough to matter (seed 001, "Settle before pushing").
	DefaultSettle = 5 * time.Second
	// DefaultPushContact is the VAPID "sub" used when none is set: a
	// project URL, which every push service accepts. Set your own contact
	// so a push service operator can reach you (RFC 8292 §2.1).
	DefaultPushContact = "https://github.com/attn-dev/attn"
	// DefaultRecordSize is the aes128gcm record size every push service
	// must accept (RFC 8291 §4).
	DefaultRecordSize = 4096
	// DefaultBuzzInterval: at most one audible push per agent per 5
	// minutes; newer questions inside it replace the shown one silently
	// (DESIGN.md, "Blocked").
	DefaultBuzzInterval = 5 * time.Minute
)

// Serve is the configuration of `attn serve`.
type Serve struct {
	Listen                     string        // host:port, loopback
	StateDir                   string        // holds the store and the API token
	TmuxSocket                 string        // tmux -L NAME; "" = the default server
	Poll                       time.Duration // screen poll interval
	Settle                     time.Duration // how long a fingerprint must hold still
	PushContact                string        // VAPID sub
	AllowInsecurePushEndpoints bool          // accept http:// endpoints on loopback (tests)
	RecordSize                 int           // aes128gcm record size, bytes
	BuzzInterval               time.Duration // least time between audible pushes per agent
	EscalateAfter              time.Duration // re-buzz an unanswered wait once after this; 0 = off
	LogContent                 bool          // keep notification text in the decision log
	ReplyActions               bool          // answer buttons on notifications, and answers from them
	// TLSCert and TLSKey are PEM files: with them attn serves HTTPS, and
	// may listen beyond loopback.
	TLSCert, TLSKey string
	// TLSProxy says a TLS-terminating proxy forwards to attn: browsers see
	// HTTPS, so cookies are Secure, and attn may listen beyond loopback.
	TLSProxy bool
	// PublicURLs are the https:// origins browsers use to reach attn from
	// other machines; their names pass the Host guard, and the first one
	// starts pairing links. Validate normalizes them to scheme://host[:port].
	PublicURLs []string
}

// DefaultStateDir returns $XDG_STATE_HOME/attn, or ~/.local/state/attn
// when XDG_STATE_HOME is unset (XDG Base Directory Specification).
func DefaultStateDir() string {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "attn")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return filepath.Join(os.TempDir(), "attn-state")
	}
	return filepath.Join(home, ".local", "state", "attn")
}

// TLS reports whether attn serves HTTPS itself.
func (c *Serve) TLS() bool { return c.TLSCert != "" && c.TLSKey != "" }

// SecureCookies reports whether browsers reach attn over HTTPS.
func (c *Serve) SecureCookies() bool { return c.TLS() || c.TLSProxy }

// Validate checks every option and returns all problems at once.
func (c *Serve) Validate() error {
	var errs []error
	host, _, err := net.SplitHostPort(c.Listen)
	if err != nil {
		errs = append(errs, fmt.Errorf("--listen %q: want host:port, e.g. %s", c.Listen, DefaultListen))
	} else if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		if !c.TLS() && !c.TLSProxy {
			errs = append(errs, fmt.Errorf("--listen %q: attn listens on loopback only (it can type into your terminals), unless browsers reach it over HTTPS: give --tls-cert and --tls-key, or put a TLS-terminating proxy in front and pass --tls-proxy", c.Listen))
		}
		if len(c.PublicURLs) == 0 {
			errs = append(errs, fmt.Errorf("--listen %q: beyond loopback, name the URL browsers use with --public-url (e.g. https://laptop.example.ts.net:7477)", c.Listen))
		}
	}
	if (c.TLSCert == "") != (c.TLSKey == "") {
		errs = append(errs, errors.New("--tls-cert and --tls-key go together: give both PEM files, or neither"))
	}
	if c.TLS() && c.TLSProxy {
		errs = append(errs, errors.New("--tls-proxy with --tls-cert: pick one; attn serves HTTPS itself, or a proxy in front does"))
	}
	for i, raw := range c.PublicURLs {
		u, err := url.Parse(strings.TrimSpace(raw))
		if err != nil || u.Scheme != "https" || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
			errs = append(errs, fmt.Errorf("--public-url %q: want an https:// origin such as https://laptop.example.ts.net (phones need HTTPS for notifications)", raw))
			continue
		}
		c.PublicURLs[i] = "https://" + strings.ToLower(u.Host)
	}
	if c.StateDir == "" {
		errs = append(errs, errors.New("--state-dir is empty: give a directory for attn's store"))
	}
	if c.Poll < 100*time.Millisecond || c.Poll > time.Minute {
		errs = append(errs, fmt.Errorf("--poll %v: want between 100ms and 1m", c.Poll))
	}
	if c.Settle < 0 || c.Settle > 10*time.Minute {
		errs = append(errs, fmt.Errorf("--settle %v: want between 0s and 10m", c.Settle))
	}
	if err := webpush.ValidateContact(c.PushContact); err != nil {
		errs = append(errs, fmt.Errorf("--push-contact: %w", err))
	}
	if c.BuzzInterval < 0 || c.BuzzInterval > 24*time.Hour {
		errs = append(errs, fmt.Errorf("--buzz-interval %v: want between 0s and 24h", c.BuzzInterval))
	}
	if c.EscalateAfter < 0 || (c.EscalateAfter > 0 && c.EscalateAfter < time.Minute) || c.EscalateAfter > 24*time.Hour {
		errs = append(errs, fmt.Errorf("--escalate-after %v: want 0 (off) or between 1m and 24h", c.EscalateAfter))
	}
	if c.RecordSize < 1024 || c.RecordSize > 4096 {
		errs = append(errs, fmt.Errorf("--record-size %d: want between 1024 and 4096 bytes", c.RecordSize))
	}
	return errors.Join(errs...)
}
