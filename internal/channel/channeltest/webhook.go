package channeltest

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Webhook is a receiver of attn's signed webhooks, written from the
// documented scheme and not from attn's code: it recomputes
// X-Attn-Signature ("sha256=" + hex HMAC-SHA256 of
// "<X-Attn-Timestamp>.<body>" with Secret), refuses a timestamp more than
// Tolerance away from its clock and a signature it has seen before (a
// replay), answering 401; otherwise 204.
type Webhook struct {
	*httptest.Server
	recorder

	Secret    string
	Tolerance time.Duration
	Now       func() time.Time

	mu       sync.Mutex
	seen     map[string]bool
	verified []Request
	refused  []string
}

// NewWebhook starts a receiver; it is closed when the test ends.
func NewWebhook(t interface{ Cleanup(func()) }, secret string) *Webhook {
	f := &Webhook{Secret: secret, Tolerance: 5 * time.Minute, Now: time.Now, seen: map[string]bool{}}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

// Verified returns the requests whose signature checked out.
func (f *Webhook) Verified() []Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Request(nil), f.verified...)
}

// Refused returns why requests were refused.
func (f *Webhook) Refused() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.refused...)
}

func (f *Webhook) refuse(w http.ResponseWriter, why string) {
	f.mu.Lock()
	f.refused = append(f.refused, why)
	f.mu.Unlock()
	http.Error(w, why, http.StatusUnauthorized)
}

func (f *Webhook) serve(w http.ResponseWriter, r *http.Request) {
	rec := f.record(r)
	if f.scripted(w, r) {
		return
	}
	if f.Secret != "" {
		ts := r.Header.Get("X-Attn-Timestamp")
		sig, ok := strings.CutPrefix(r.Header.Get("X-Attn-Signature"), "sha256=")
		sec, err := strconv.ParseInt(ts, 10, 64)
		if !ok || err != nil {
			f.refuse(w, "missing signature or timestamp")
			return
		}
		if d := f.Now().Sub(time.Unix(sec, 0)); d > f.Tolerance || d < -f.Tolerance {
			f.refuse(w, "timestamp outside tolerance")
			return
		}
		mac := hmac.New(sha256.New, []byte(f.Secret))
		mac.Write([]byte(ts + "."))
		mac.Write(rec.Body)
		want := hex.EncodeToString(mac.Sum(nil))
		if !hmac.Equal([]byte(sig), []byte(want)) {
			f.refuse(w, "bad signature")
			return
		}
		f.mu.Lock()
		replay := f.seen[sig]
		f.seen[sig] = true
		f.mu.Unlock()
		if replay {
			f.refuse(w, "replayed")
			return
		}
	}
	f.mu.Lock()
	f.verified = append(f.verified, rec)
	f.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}
