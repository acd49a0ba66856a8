package webpush

import (
	"bytes"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
)

func TestParseSubscriptionAccepts(t *testing.T) {
	p256dh := b64(t, rfcUAPublic)
	auth := b64(t, rfcAuth)
	std := base64.StdEncoding
	for _, tc := range []struct {
		name, endpoint, p256dh, auth string
		insecure                     bool
	}{
		{"base64url unpadded", "https://fcm.googleapis.com/fcm/send/abc:def", rfcUAPublic, rfcAuth, false},
		{"base64url padded", "https://updates.push.services.mozilla.com/wpush/v2/gAAA", base64.URLEncoding.EncodeToString(p256dh), base64.URLEncoding.EncodeToString(auth), false},
		{"standard base64 padded", "https://web.push.apple.com/QGuQyavXutnMH6Ig2uYOJDwA", std.EncodeToString(p256dh), std.EncodeToString(auth), false},
		{"standard base64 unpadded", "https://web.push.apple.com/x", base64.RawStdEncoding.EncodeToString(p256dh), base64.RawStdEncoding.EncodeToString(auth), false},
		{"surrounding space", "https://push.example/x", " " + rfcUAPublic + "\n", rfcAuth, false},
		{"http 127.0.0.1 allowed", "http://127.0.0.1:8090/notify/abc", rfcUAPublic, rfcAuth, true},
		{"http 127.9.9.9 allowed", "http://127.9.9.9/notify/abc", rfcUAPublic, rfcAuth, true},
		{"http localhost allowed", "http://localhost:8090/notify/abc", rfcUAPublic, rfcAuth, true},
		{"http LOCALHOST allowed", "http://LOCALHOST:8090/notify/abc", rfcUAPublic, rfcAuth, true},
		{"http [::1] allowed", "http://[::1]:8090/notify/abc", rfcUAPublic, rfcAuth, true},
		{"https loopback needs no flag", "https://127.0.0.1:8443/x", rfcUAPublic, rfcAuth, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sub, err := ParseSubscription(tc.endpoint, tc.p256dh, tc.auth, tc.insecure)
			if err != nil {
				t.Fatal(err)
			}
			if sub.Endpoint != tc.endpoint || !bytes.Equal(sub.P256DH, p256dh) || !bytes.Equal(sub.Auth, auth) {
				t.Fatalf("got %+v", sub)
			}
		})
	}
}

func TestParseSubscriptionRefuses(t *testing.T) {
	p256dh := b64(t, rfcUAPublic)
	compressed := append([]byte{0x02 | p256dh[64]&1}, p256dh[1:33]...)
	hybrid := append([]byte{0x06}, p256dh[1:]...)
	offCurve := append([]byte{0x04}, bytes.Repeat([]byte{7}, 64)...)
	enc := base64.RawURLEncoding.EncodeToString
	const ep = "https://fcm.googleapis.com/fcm/send/SECRETTOKEN"
	for _, tc := range []struct {
		name, endpoint, p256dh, auth string
		insecure                     bool
		want                         string
	}{
		{"empty endpoint", "", rfcUAPublic, rfcAuth, false, "endpoint is empty"},
		{"relative endpoint", "/fcm/send/SECRETTOKEN", rfcUAPublic, rfcAuth, false, "not an absolute URL"},
		{"unparsable endpoint", "https://fcm.googleapis.com/%zzSECRETTOKEN", rfcUAPublic, rfcAuth, false, "not an absolute URL"},
		{"no host", "https:///SECRETTOKEN", rfcUAPublic, rfcAuth, false, "not an absolute URL"},
		{"ftp", "ftp://push.example/SECRETTOKEN", rfcUAPublic, rfcAuth, false, "endpoint ftp://push.example: want an https URL"},
		{"http public", "http://push.example/SECRETTOKEN", rfcUAPublic, rfcAuth, true, "endpoint http://push.example is plain http"},
		{"http loopback without flag", "http://127.0.0.1:8090/SECRETTOKEN", rfcUAPublic, rfcAuth, false, "endpoint http://127.0.0.1:8090 is plain http"},
		{"http lookalike host", "http://localhost.evil.example/SECRETTOKEN", rfcUAPublic, rfcAuth, true, "plain http"},
		{"http 10.x", "http://10.0.0.1/SECRETTOKEN", rfcUAPublic, rfcAuth, true, "plain http"},
		{"user info", "https://user:SECRETPASS@push.example/SECRETTOKEN", rfcUAPublic, rfcAuth, false, "carries user credentials"},
		{"p256dh empty", ep, "", rfcAuth, false, "p256dh: not base64url (empty)"},
		{"p256dh not base64", ep, "!!!!", rfcAuth, false, "p256dh: not base64url"},
		{"p256dh mixed alphabets", ep, "ab-c+d", rfcAuth, false, "p256dh: not base64url"},
		{"p256dh compressed", ep, enc(compressed), rfcAuth, false, "p256dh: want a 65-byte uncompressed P-256 point (base64url), got 33 bytes (a compressed point"},
		{"p256dh short", ep, enc(p256dh[:64]), rfcAuth, false, "p256dh: want a 65-byte uncompressed P-256 point (base64url), got 64 bytes"},
		{"p256dh hybrid prefix", ep, enc(hybrid), rfcAuth, false, "starting with 0x04, got first byte 0x06"},
		{"p256dh off curve", ep, enc(offCurve), rfcAuth, false, "p256dh: not a point on P-256"},
		{"auth short", ep, rfcUAPublic, enc([]byte("SECRETSECRET")), false, "auth: want a 16-byte secret (base64url), got 12 bytes"},
		{"auth long", ep, rfcUAPublic, enc(make([]byte, 32)), false, "got 32 bytes"},
		{"auth not base64", ep, rfcUAPublic, "SECRET*SECRET", false, "auth: not base64url"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseSubscription(tc.endpoint, tc.p256dh, tc.auth, tc.insecure)
			if err == nil {
				t.Fatal("accepted")
			}
			if !errors.Is(err, ErrInvalidSubscription) {
				t.Errorf("error %v does not wrap ErrInvalidSubscription", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not say %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "SECRET") {
				t.Errorf("error %q repeats the endpoint path or a secret", err)
			}
		})
	}
}

func TestOrigin(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"https://fcm.googleapis.com/fcm/send/x", "https://fcm.googleapis.com"},
		{"https://Web.Push.Apple.com:443/x", "https://web.push.apple.com"},
		{"https://push.example:8443/x", "https://push.example:8443"},
		{"http://localhost:80/x", "http://localhost"},
		{"http://127.0.0.1:8090/notify/x", "http://127.0.0.1:8090"},
		{"http://[::1]:8090/x", "http://[::1]:8090"},
	} {
		u, err := parseEndpoint(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		if got := origin(u); got != tc.want {
			t.Errorf("origin(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
