package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/attn-dev/attn/internal/webpush"
)

// TestWebPushRoundTrip: attn's sender, decrypted by an independent push
// service (web-push-testing checks the VAPID JWT and decrypts aes128gcm).
func TestWebPushRoundTrip(t *testing.T) {
	ps := startPushService(t)
	key, err := webpush.GenerateVAPIDKey()
	if err != nil {
		t.Fatal(err)
	}
	s := ps.subscribe(t, key.PublicKeyBase64())
	sub, err := webpush.ParseSubscription(s.Endpoint, s.Keys.P256DH, s.Keys.Auth, true)
	if err != nil {
		t.Fatal(err)
	}
	sender := &webpush.Sender{Key: key, Contact: "mailto:e2e@example.org"}
	max := webpush.MaxPlaintext(webpush.DefaultRecordSize)
	payloads := []string{
		`{"title":"api","body":"Do you want to proceed?"}`,
		"ünïcødé ✳ ⏺ 漢字 — no-break\u00a0space",
		strings.Repeat("x", max), // the largest plaintext one record holds
		"",                       // an empty payload is still a valid message
	}
	for i, p := range payloads {
		res, err := sender.Send(context.Background(), sub, webpush.Message{Payload: []byte(p), TTL: time.Minute, Urgency: "high", Topic: "abc"})
		if err != nil || res.Outcome != webpush.Delivered || res.Status != 201 {
			t.Fatalf("payload %d (%d bytes): %+v, %v", i, len(p), res, err)
		}
	}
	got := ps.messages(t, s.ClientHash)
	if len(got) != len(payloads) {
		t.Fatalf("push service holds %d messages, want %d", len(got), len(payloads))
	}
	for i := range payloads {
		if got[i] != payloads[i] {
			t.Errorf("message %d decrypted to %d bytes %.40q, want %d bytes %.40q", i, len(got[i]), got[i], len(payloads[i]), payloads[i])
		}
	}
	// Over the record: refused before sending, nothing reaches the service.
	res, err := sender.Send(context.Background(), sub, webpush.Message{Payload: make([]byte, max+1), TTL: time.Minute})
	if err == nil || res.Outcome != webpush.TooLarge {
		t.Fatalf("oversize: %+v, %v", res, err)
	}
	// Expired at the push service: 410, Gone.
	ps.expire(t, s.ClientHash)
	res, err = sender.Send(context.Background(), sub, webpush.Message{Payload: []byte("x"), TTL: time.Minute})
	if err == nil || res.Outcome != webpush.Gone || res.Status != 410 {
		t.Fatalf("expired: %+v, %v", res, err)
	}
	if len(ps.messages(t, s.ClientHash)) != len(payloads) {
		t.Fatal("a refused message reached the push service")
	}
}
