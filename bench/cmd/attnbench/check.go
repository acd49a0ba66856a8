package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/attn-dev/attn/internal/webpush"
)

// checkMain sends a handful of messages with attn's Sender to
// web-push-testing (an independent push service in node, which checks the
// VAPID JWT's ES256 signature and decrypts aes128gcm with http_ece) and
// requires every message back, decrypted, byte for byte. A wrapper around
// the HTTP transport reads each request's Authorization header and
// requires a JWT whose exp is in the future and within 24 h (RFC 8292 §2),
// whose aud is the endpoint's origin and whose k is the VAPID key.
func checkMain(args []string) {
	fs := flag.NewFlagSet("check", flag.ExitOnError)
	peer := fs.String("peer", "", "web-push-testing base URL, http://127.0.0.1:PORT")
	subs := fs.Int("subs", 2, "subscriptions")
	perSub := fs.Int("n", 4, "messages per subscription")
	fs.Parse(args)
	if u, err := url.Parse(*peer); err != nil || u.Scheme != "http" || !isLoopback(u.Hostname()) {
		fatalf("-peer %q: want http://127.0.0.1:PORT (loopback only)", *peer)
	}
	if *subs < 1 || *subs > 10 || *perSub < 1 || *perSub > 20 {
		fatalf("-subs 1..10, -n 1..20")
	}
	key, err := webpush.GenerateVAPIDKey()
	if err != nil {
		fatalf("%v", err)
	}
	jc := &jwtCheck{base: newClient().Transport, key: key.PublicKeyBase64(), contact: "mailto:bench@attn.example"}
	client := newClient()
	client.Transport = jc
	s := &webpush.Sender{Key: key, Contact: jc.contact, Client: client}
	sizes := []int{1, 120, 1024, webpush.MaxPlaintext(0)} // up to the largest that fits 4096
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	sent, ok := 0, 0
	for i := range *subs {
		ps := peerSubscribe(*peer, key.PublicKeyBase64())
		sub, err := webpush.ParseSubscription(ps.Endpoint, ps.Keys.P256DH, ps.Keys.Auth, true)
		if err != nil {
			fatalf("web-push-testing's subscription: %v", err)
		}
		var want []string
		for j := range *perSub {
			size := sizes[j%len(sizes)]
			text := fmt.Sprintf("attn check: subscription %d, message %d. ", i, j)
			text = (text + strings.Repeat("x", size))[:size]
			res, err := s.Send(ctx, sub, webpush.Message{Payload: []byte(text), TTL: time.Hour, Urgency: "high"})
			sent++
			if err != nil {
				fatalf("send %d to web-push-testing: %v (%+v)", j, err, res)
			}
			want = append(want, text)
		}
		got := peerMessages(*peer, ps.ClientHash, len(want))
		for j, w := range want {
			if j < len(got) && got[j] == w {
				ok++
			} else {
				fatalf("subscription %d message %d (%d octets) did not come back decrypted as sent", i, j, len(w))
			}
		}
	}
	jc.mu.Lock()
	defer jc.mu.Unlock()
	if jc.err != nil {
		fatalf("JWT check: %v", jc.err)
	}
	if jc.seen != sent {
		fatalf("JWT check saw %d requests, %d were sent", jc.seen, sent)
	}
	fmt.Printf("check: %d of %d messages decrypted at web-push-testing byte for byte (%d subscriptions, payloads of %v octets); every JWT: ES256 accepted by the peer, exp in %s (≤ 24 h), aud = endpoint origin, k = VAPID key\n",
		ok, sent, *subs, sizes, jc.maxAhead.Round(time.Second))
	fmt.Printf("RESULT name=check decrypted=%d sent=%d jwt_exp_ahead_s=%.0f\n", ok, sent, jc.maxAhead.Seconds())
}

// jwtCheck is an http.RoundTripper that checks each request's VAPID
// Authorization header before passing it on.
type jwtCheck struct {
	base     http.RoundTripper
	key      string
	contact  string
	mu       sync.Mutex
	seen     int
	maxAhead time.Duration
	err      error
}

func (c *jwtCheck) RoundTrip(r *http.Request) (*http.Response, error) {
	ahead, err := checkVAPID(r, c.key, c.contact, time.Now())
	c.mu.Lock()
	c.seen++
	c.maxAhead = max(c.maxAhead, ahead)
	if err != nil && c.err == nil {
		c.err = err
	}
	c.mu.Unlock()
	return c.base.RoundTrip(r)
}

// checkVAPID checks "vapid t=<jwt>, k=<key>" (RFC 8292 §3) and returns how
// far ahead of now the JWT's exp is.
func checkVAPID(r *http.Request, key, contact string, now time.Time) (time.Duration, error) {
	h := r.Header.Get("Authorization")
	rest, ok := strings.CutPrefix(h, "vapid ")
	if !ok {
		return 0, fmt.Errorf("Authorization is not a vapid scheme")
	}
	var t, k string
	for _, p := range strings.Split(rest, ",") {
		name, v, _ := strings.Cut(strings.TrimSpace(p), "=")
		switch name {
		case "t":
			t = v
		case "k":
			k = v
		}
	}
	if k != key {
		return 0, fmt.Errorf("k is not the VAPID public key")
	}
	parts := strings.Split(t, ".")
	if len(parts) != 3 {
		return 0, fmt.Errorf("t is not a JWS compact serialization")
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return 0, fmt.Errorf("JWT claims: %v", err)
	}
	var claims struct {
		Aud string `json:"aud"`
		Exp int64  `json:"exp"`
		Sub string `json:"sub"`
	}
	if err := json.NewDecoder(bytes.NewReader(raw)).Decode(&claims); err != nil {
		return 0, fmt.Errorf("JWT claims: %v", err)
	}
	if want := r.URL.Scheme + "://" + r.URL.Host; claims.Aud != want {
		return 0, fmt.Errorf("JWT aud %q, want %q", claims.Aud, want)
	}
	if claims.Sub != contact {
		return 0, fmt.Errorf("JWT sub %q, want %q", claims.Sub, contact)
	}
	ahead := time.Unix(claims.Exp, 0).Sub(now)
	if ahead <= 0 || ahead > 24*time.Hour {
		return ahead, fmt.Errorf("JWT exp is %v from now: want in the future and within 24 h (RFC 8292 §2)", ahead)
	}
	return ahead, nil
}

type peerSub struct {
	Endpoint string `json:"endpoint"`
	Keys     struct {
		P256DH string `json:"p256dh"`
		Auth   string `json:"auth"`
	} `json:"keys"`
	ClientHash string `json:"clientHash"`
}

func peerSubscribe(peer, vapidPublic string) peerSub {
	var out struct {
		Data peerSub `json:"data"`
	}
	peerPost(peer+"/subscribe", map[string]string{"userVisibleOnly": "true", "applicationServerKey": vapidPublic}, &out)
	if out.Data.Endpoint == "" {
		fatalf("web-push-testing /subscribe gave no endpoint")
	}
	if u, err := url.Parse(out.Data.Endpoint); err != nil || !isLoopback(u.Hostname()) {
		fatalf("web-push-testing endpoint is not loopback")
	}
	return out.Data
}

// peerMessages polls (bounded) until the subscription holds n messages.
func peerMessages(peer, clientHash string, n int) []string {
	deadline := time.Now().Add(10 * time.Second)
	for {
		var out struct {
			Data struct {
				Messages []string `json:"messages"`
			} `json:"data"`
		}
		peerPost(peer+"/get-notifications", map[string]string{"clientHash": clientHash}, &out)
		if len(out.Data.Messages) >= n || time.Now().After(deadline) {
			return out.Data.Messages
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func peerPost(u string, body, out any) {
	b, _ := json.Marshal(body)
	c := &http.Client{Timeout: 10 * time.Second}
	resp, err := c.Post(u, "application/json", bytes.NewReader(b))
	if err != nil {
		fatalf("web-push-testing: %v", err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusOK {
		fatalf("web-push-testing %s: %d %s", u, resp.StatusCode, data)
	}
	if err := json.Unmarshal(data, out); err != nil {
		fatalf("web-push-testing %s: %v", u, err)
	}
}
