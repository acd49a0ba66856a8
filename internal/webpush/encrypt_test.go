package webpush

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdh"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// RFC 8291 §5 and Appendix A, with the line breaks of the RFC text joined.
const (
	rfcPlaintext = "When I grow up, I want to be a watermelon"
	rfcASPrivate = "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw"
	rfcASPublic  = "BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8"
	rfcUAPrivate = "q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94"
	rfcUAPublic  = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
	rfcSalt      = "DGv6ra1nlYgDCS1FRnbzlw"
	rfcAuth      = "BTBZMqHH6r4Tts7J_aSIgg"
	// Appendix A "header" and "ciphertext"; §5 gives the two joined.
	rfcHeader     = "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8"
	rfcCiphertext = "8pfeW0KbunFT06SuDKoJH9Ql87S1QUrdirN6GcG7sFz1y1sqLgVi1VhjVkHsUoEsbI_0LpXMuGvnzQ"
	rfcBody       = "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN"
)

func b64(t testing.TB, s string) []byte {
	t.Helper()
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		t.Fatalf("decode %q: %v", s, err)
	}
	return b
}

func TestEncryptRFC8291Example(t *testing.T) {
	asPriv, err := ecdh.P256().NewPrivateKey(b64(t, rfcASPrivate))
	if err != nil {
		t.Fatal(err)
	}
	if got := base64.RawURLEncoding.EncodeToString(asPriv.PublicKey().Bytes()); got != rfcASPublic {
		t.Fatalf("as_public = %s, want %s", got, rfcASPublic)
	}
	sub := Subscription{Endpoint: "https://push.example.net/push/JzLQ3raZJfFBR0aqvOMsLrt54w4rJUsV", P256DH: b64(t, rfcUAPublic), Auth: b64(t, rfcAuth)}
	got, err := encrypt([]byte(rfcPlaintext), sub, 4096, asPriv, b64(t, rfcSalt))
	if err != nil {
		t.Fatal(err)
	}
	if want := b64(t, rfcBody); !bytes.Equal(got, want) {
		t.Fatalf("body:\n got %s\nwant %s", base64.RawURLEncoding.EncodeToString(got), rfcBody)
	}
	if want := append(b64(t, rfcHeader), b64(t, rfcCiphertext)...); !bytes.Equal(got, want) {
		t.Fatal("body differs from Appendix A header ‖ ciphertext")
	}
	// And the independent decryption reads the RFC's body back.
	plain, err := testDecrypt(b64(t, rfcBody), b64(t, rfcUAPrivate), b64(t, rfcAuth))
	if err != nil || string(plain) != rfcPlaintext {
		t.Fatalf("decrypt RFC body = %q, %v", plain, err)
	}
}

// testDecrypt is the user agent's side (RFC 8291 §3.4, RFC 8188 §2),
// written from the RFCs with crypto/hmac only, independent of encrypt.
func testDecrypt(body, uaPrivRaw, auth []byte) ([]byte, error) {
	if len(body) < 21 {
		return nil, errors.New("short header")
	}
	salt := body[:16]
	rs := binary.BigEndian.Uint32(body[16:20])
	idlen := int(body[20])
	if len(body) < 21+idlen {
		return nil, errors.New("short keyid")
	}
	asPubRaw := body[21 : 21+idlen]
	record := body[21+idlen:]
	if rs < 18 {
		return nil, fmt.Errorf("rs %d below 18", rs)
	}
	if uint32(len(record)) >= rs { // RFC 8291 §4: rs greater than the record
		return nil, fmt.Errorf("record of %d octets does not fit rs %d", len(record), rs)
	}
	uaPriv, err := ecdh.P256().NewPrivateKey(uaPrivRaw)
	if err != nil {
		return nil, err
	}
	asPub, err := ecdh.P256().NewPublicKey(asPubRaw)
	if err != nil {
		return nil, err
	}
	secret, err := uaPriv.ECDH(asPub)
	if err != nil {
		return nil, err
	}
	mac := func(key []byte, parts ...[]byte) []byte {
		h := hmac.New(sha256.New, key)
		for _, p := range parts {
			h.Write(p)
		}
		return h.Sum(nil)
	}
	prkKey := mac(auth, secret)
	keyInfo := append(append([]byte("WebPush: info\x00"), uaPriv.PublicKey().Bytes()...), asPubRaw...)
	ikm := mac(prkKey, keyInfo, []byte{1})
	prk := mac(salt, ikm)
	cek := mac(prk, []byte("Content-Encoding: aes128gcm\x00\x01"))[:16]
	nonce := mac(prk, []byte("Content-Encoding: nonce\x00\x01"))[:12]
	block, err := aes.NewCipher(cek)
	if err != nil {
		return nil, err
	}
	gcm, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	plain, err := gcm.Open(nil, nonce, record, nil)
	if err != nil {
		return nil, err
	}
	// Strip padding zeros; the delimiter of the last record is 0x02.
	i := len(plain) - 1
	for i >= 0 && plain[i] == 0 {
		i--
	}
	if i < 0 || plain[i] != 0x02 {
		return nil, errors.New("no 0x02 padding delimiter")
	}
	return plain[:i], nil
}

// newTestUA returns a user agent's private key and a subscription for it.
func newTestUA(t testing.TB) (*ecdh.PrivateKey, Subscription) {
	t.Helper()
	ua, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	auth := make([]byte, 16)
	rand.Read(auth)
	return ua, Subscription{Endpoint: "https://push.example.net/wpush/v2/abc", P256DH: ua.PublicKey().Bytes(), Auth: auth}
}

func TestEncryptRoundTrip(t *testing.T) {
	ua, sub := newTestUA(t)
	for _, tc := range []struct {
		name        string
		size, rs    int
		wantRSField uint32
	}{
		{"empty", 0, 4096, 4096},
		{"one byte", 1, 4096, 4096},
		{"1 KB", 1024, 0, 4096},
		{"max for 4096", 3993, 4096, 4096},
		{"max for default", 3993, 0, 4096},
		{"max for 3070", 2967, 3070, 3070},
		{"max for minimum", 0, 103, 103},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plain := bytes.Repeat([]byte("x"), tc.size)
			rand.Read(plain)
			body, err := Encrypt(plain, sub, tc.rs)
			if err != nil {
				t.Fatal(err)
			}
			if len(body) != tc.size+103 {
				t.Errorf("body is %d bytes, want %d", len(body), tc.size+103)
			}
			if got := binary.BigEndian.Uint32(body[16:20]); got != tc.wantRSField {
				t.Errorf("rs field = %d, want %d", got, tc.wantRSField)
			}
			if body[20] != 65 || body[21] != 0x04 {
				t.Errorf("idlen/keyid = %d/0x%02x, want 65/0x04", body[20], body[21])
			}
			got, err := testDecrypt(body, ua.Bytes(), sub.Auth)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, plain) {
				t.Fatal("round trip changed the plaintext")
			}
		})
	}
}

func TestEncryptFreshKeyAndSalt(t *testing.T) {
	_, sub := newTestUA(t)
	a, err := Encrypt([]byte("same"), sub, 0)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Encrypt([]byte("same"), sub, 0)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(a[:16], b[:16]) || bytes.Equal(a[21:86], b[21:86]) {
		t.Fatal("two messages share a salt or an ephemeral key")
	}
}

func TestEncryptRefuses(t *testing.T) {
	_, sub := newTestUA(t)
	badPoint := append([]byte{4}, bytes.Repeat([]byte{1}, 64)...)
	for _, tc := range []struct {
		name    string
		size    int
		rs      int
		sub     Subscription
		wantErr error
		wantMsg string
	}{
		{"one over 4096", 3994, 4096, sub, ErrTooLarge, "3994 bytes of plaintext, at most 3993 fit a 4096-byte record"},
		{"one over default", 3994, 0, sub, ErrTooLarge, "at most 3993"},
		{"one over 3070", 2968, 3070, sub, ErrTooLarge, "at most 2967"},
		{"rs too small", 0, 102, sub, nil, "record size 102 is out of range: want 103"},
		{"short p256dh", 10, 0, Subscription{P256DH: sub.P256DH[:33], Auth: sub.Auth}, ErrInvalidSubscription, "got 33 bytes"},
		{"off-curve p256dh", 10, 0, Subscription{P256DH: badPoint, Auth: sub.Auth}, ErrInvalidSubscription, "not a point on P-256"},
		{"short auth", 10, 0, Subscription{P256DH: sub.P256DH, Auth: sub.Auth[:8]}, ErrInvalidSubscription, "want a 16-byte secret"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body, err := Encrypt(make([]byte, tc.size), tc.sub, tc.rs)
			if err == nil {
				t.Fatalf("Encrypt = %d bytes, want an error", len(body))
			}
			if tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Errorf("error %v does not wrap %v", err, tc.wantErr)
			}
			if !strings.Contains(err.Error(), tc.wantMsg) {
				t.Errorf("error %q does not say %q", err, tc.wantMsg)
			}
		})
	}
}

func TestMaxPlaintext(t *testing.T) {
	for _, tc := range []struct{ rs, want int }{
		{4096, 3993}, {0, 3993}, {-1, 3993}, {3070, 2967}, {103, 0}, {50, 0}, {8192, 8089},
	} {
		if got := MaxPlaintext(tc.rs); got != tc.want {
			t.Errorf("MaxPlaintext(%d) = %d, want %d", tc.rs, got, tc.want)
		}
	}
}
