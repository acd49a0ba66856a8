package webpush

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"math/big"
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestVAPIDKeyStoreRoundTrip(t *testing.T) {
	k, err := GenerateVAPIDKey()
	if err != nil {
		t.Fatal(err)
	}
	raw := k.MarshalPrivate()
	if len(raw) != 32 {
		t.Fatalf("MarshalPrivate = %d bytes, want 32", len(raw))
	}
	k2, err := ParseVAPIDPrivate(raw)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(k.PublicKey(), k2.PublicKey()) || k.PublicKeyBase64() != k2.PublicKeyBase64() {
		t.Fatal("the parsed key has another public key")
	}
	pub := b64(t, k.PublicKeyBase64()) // unpadded base64url
	if len(pub) != 65 || pub[0] != 0x04 || !bytes.Equal(pub, k.PublicKey()) {
		t.Fatalf("PublicKeyBase64 decodes to %x", pub)
	}
	if strings.ContainsAny(k.PublicKeyBase64(), "=+/") {
		t.Fatalf("PublicKeyBase64 %q is not unpadded base64url", k.PublicKeyBase64())
	}
	if _, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), pub); err != nil {
		t.Fatal(err)
	}
}

func TestParseVAPIDPrivateRefuses(t *testing.T) {
	order := elliptic.P256().Params().N.FillBytes(make([]byte, 32))
	for _, tc := range []struct {
		name string
		raw  []byte
		want string
	}{
		{"empty", nil, "want a 32-byte raw P-256 scalar, got 0 bytes"},
		{"pkcs8-sized", make([]byte, 138), "got 138 bytes"},
		{"zero", make([]byte, 32), "not a valid P-256 scalar"},
		{"group order", order, "not a valid P-256 scalar"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseVAPIDPrivate(tc.raw)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
	if _, err := NewVAPIDKey(nil); err == nil {
		t.Error("NewVAPIDKey(nil) accepted")
	}
	p384, err := ecdsa.GenerateKey(elliptic.P384(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewVAPIDKey(p384); err == nil {
		t.Error("NewVAPIDKey(P-384) accepted")
	}
}

// parsedJWT is a VAPID Authorization value taken apart and verified.
type parsedJWT struct {
	token  string
	header map[string]any
	aud    string
	exp    int64
	sub    string
}

// parseAuthorization checks "vapid t=<jwt>, k=<key>" (RFC 8292 §3), the JWT
// header, and the ES256 signature against the k key (RFC 7515, RFC 7518
// §3.4), and returns the claims.
func parseAuthorization(t *testing.T, v string, key *VAPIDKey) parsedJWT {
	t.Helper()
	rest, ok := strings.CutPrefix(v, "vapid t=")
	if !ok {
		t.Fatalf("Authorization %q does not start with \"vapid t=\"", v)
	}
	token, k, ok := strings.Cut(rest, ", k=")
	if !ok || k != key.PublicKeyBase64() {
		t.Fatalf("Authorization k = %q, want %q", k, key.PublicKeyBase64())
	}
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		t.Fatalf("JWT has %d parts", len(parts))
	}
	var p parsedJWT
	p.token = token
	if h := string(b64(t, parts[0])); h != `{"typ":"JWT","alg":"ES256"}` {
		t.Fatalf("JWT header %s", h)
	}
	var claims struct {
		Aud string `json:"aud"`
		Exp int64  `json:"exp"`
		Sub string `json:"sub"`
	}
	if err := json.Unmarshal(b64(t, parts[1]), &claims); err != nil {
		t.Fatal(err)
	}
	p.aud, p.exp, p.sub = claims.Aud, claims.Exp, claims.Sub
	sig := b64(t, parts[2])
	if len(sig) != 64 {
		t.Fatalf("signature is %d bytes, want 64 (R ‖ S)", len(sig))
	}
	pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), b64(t, k))
	if err != nil {
		t.Fatal(err)
	}
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	r, s := new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])
	if !ecdsa.Verify(pub, digest[:], r, s) {
		t.Fatal("JWT signature does not verify")
	}
	return p
}

func mustURL(t testing.TB, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestJWTClaims(t *testing.T) {
	key, err := GenerateVAPIDKey()
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	s := &Sender{Key: key, Contact: "mailto:ops@attn.example", Now: func() time.Time { return now }}
	for _, tc := range []struct{ endpoint, aud string }{
		{"https://fcm.googleapis.com/fcm/send/abc:xyz", "https://fcm.googleapis.com"},
		{"https://web.push.apple.com/QGuQyavXutnMH6Ig2uYOJDwA", "https://web.push.apple.com"},
		{"https://Updates.Push.Services.Mozilla.com:443/wpush/v2/gAAA", "https://updates.push.services.mozilla.com"},
		{"http://127.0.0.1:8090/notify/abc", "http://127.0.0.1:8090"},
	} {
		v, err := s.authorization(mustURL(t, tc.endpoint), now)
		if err != nil {
			t.Fatal(err)
		}
		p := parseAuthorization(t, v[0], key)
		if p.aud != tc.aud {
			t.Errorf("aud = %q, want %q", p.aud, tc.aud)
		}
		if p.sub != "mailto:ops@attn.example" {
			t.Errorf("sub = %q", p.sub)
		}
		exp := time.Unix(p.exp, 0)
		if want := now.Add(12 * time.Hour); !exp.Equal(want) {
			t.Errorf("exp = %v, want %v", exp, want)
		}
		if exp.Sub(now) > 24*time.Hour || !exp.After(now) {
			t.Errorf("exp %v is not within 24h after %v (RFC 8292 §2)", exp, now)
		}
	}
}

func TestJWTReuse(t *testing.T) {
	key, err := GenerateVAPIDKey()
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	s := &Sender{Key: key, Contact: "mailto:ops@attn.example"}
	fcm := mustURL(t, "https://fcm.googleapis.com/fcm/send/one")
	fcm2 := mustURL(t, "https://fcm.googleapis.com/fcm/send/two")
	apple := mustURL(t, "https://web.push.apple.com/three")
	get := func(u *url.URL, now time.Time) parsedJWT {
		t.Helper()
		v, err := s.authorization(u, now)
		if err != nil {
			t.Fatal(err)
		}
		return parseAuthorization(t, v[0], s.Key)
	}

	first := get(fcm, t0)
	for _, tc := range []struct {
		name  string
		u     *url.URL
		at    time.Time
		reuse bool
	}{
		{"same endpoint, same instant", fcm, t0, true},
		{"other endpoint, same origin", fcm2, t0.Add(time.Minute), true},
		{"10h59m later", fcm, t0.Add(10*time.Hour + 59*time.Minute), true},
		{"last second before the margin", fcm, t0.Add(11*time.Hour - time.Second), true},
		{"other origin", apple, t0, false},
		{"clock went back", fcm, t0.Add(-time.Minute), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Reset the cache to the first token for each case.
			s.jwts[audience{fcm.Scheme, fcm.Host}] = jwtEntry{
				value: []string{"vapid t=" + first.token + s.Key.kParam}, key: s.Key, contact: s.Contact,
				issued: t0.Unix(), refresh: t0.Add(11 * time.Hour).Unix(),
			}
			got := get(tc.u, tc.at)
			if (got.token == first.token) != tc.reuse {
				t.Fatalf("reused = %v, want %v", got.token == first.token, tc.reuse)
			}
		})
	}

	// Within 1 hour of exp a new JWT is signed, with a later exp, and is
	// reused in turn.
	at := t0.Add(11 * time.Hour)
	second := get(fcm, at)
	if second.token == first.token {
		t.Fatal("JWT not re-signed within an hour of its exp")
	}
	if want := at.Add(12 * time.Hour).Unix(); second.exp != want {
		t.Fatalf("new exp = %d, want %d", second.exp, want)
	}
	if again := get(fcm, at.Add(time.Hour)); again.token != second.token {
		t.Fatal("new JWT not reused")
	}

	// A changed contact or key is not served the old token.
	s.Contact = "mailto:other@attn.example"
	if p := get(fcm, at); p.token == second.token || p.sub != s.Contact {
		t.Fatal("contact change did not re-sign")
	}
	s.Key, err = GenerateVAPIDKey()
	if err != nil {
		t.Fatal(err)
	}
	get(fcm, at) // parseAuthorization verifies against the new key
}

func TestJWTCacheBounded(t *testing.T) {
	key, err := GenerateVAPIDKey()
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	s := &Sender{Key: key, Contact: "https://attn.example/contact"}
	for i := range maxAudiences + 10 {
		u := &url.URL{Scheme: "https", Host: "push" + string(rune('a'+i%26)) + strings.Repeat("x", i/26) + ".example"}
		if _, err := s.authorization(u, now); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(s.jwts); n > maxAudiences {
		t.Fatalf("cache holds %d audiences, bound is %d", n, maxAudiences)
	}
}

func TestAuthorizationRefusesBadContact(t *testing.T) {
	key, err := GenerateVAPIDKey()
	if err != nil {
		t.Fatal(err)
	}
	s := &Sender{Key: key, Contact: "mailto:mailto:ops@attn.example"}
	_, err = s.authorization(mustURL(t, "https://web.push.apple.com/x"), time.Now())
	if !errors.Is(err, ErrInvalidContact) {
		t.Fatalf("error %v, want ErrInvalidContact", err)
	}
}

func TestValidateContact(t *testing.T) {
	const apple = "Apple's push service answers 403 BadJwtToken"
	for _, tc := range []struct {
		sub  string
		want string // "" means valid
	}{
		{"mailto:ops@attn.example", ""},
		{"MAILTO:ops@attn.example", ""},
		{"mailto:first.last+push@sub.attn.example", ""},
		{"mailto:ops@attn.example?subject=push", ""},
		{"mailto:ops%40attn.example", ""},
		{"https://attn.example", ""},
		{"https://attn.example/contact?x=1", ""},
		{"https://attn.example:8443/", ""},
		{"", "empty"},
		{" mailto:ops@attn.example", "white space"},
		{"ops@attn.example", `has no scheme: write "mailto:ops@attn.example"`},
		{"mailto:mailto:ops@attn.example", `repeats "mailto:"`},
		{"mailto:MAILTO:ops@attn.example", `repeats "mailto:"`},
		{"mailto:", "plain email address"},
		{"mailto:ops", "plain email address"},
		{"mailto:Ops <ops@attn.example>", "plain email address"},
		{"mailto:ops@localhost", apple},
		{"mailto:ops@LocalHost", apple},
		{"https://LOCALHOST./x", apple},
		{"mailto:ops@box.local", apple},
		{"mailto:ops@dev.localhost", apple},
		{"mailto:ops@[127.0.0.1]", "ops@[127.0.0.1]"},
		{"https://localhost", apple},
		{"https://localhost:8443/x", apple},
		{"https://127.0.0.1", apple},
		{"https://127.1.2.3/x", apple},
		{"https://[::1]:8443", apple},
		{"https://printer.local/", apple},
		{"https://app.localhost", apple},
		{"https://0.0.0.0", apple},
		{"https://", "absolute"},
		{"https:attn.example", "absolute"},
		{"http://attn.example", "must be https, not http"},
		{"tel:+15551234", `want "mailto:" and an address, or an "https:" URL`},
	} {
		t.Run(tc.sub, func(t *testing.T) {
			err := ValidateContact(tc.sub)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("accepted")
			}
			if !errors.Is(err, ErrInvalidContact) {
				t.Errorf("error %v does not wrap ErrInvalidContact", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not say %q", err, tc.want)
			}
		})
	}
}
