package webpush

import (
	"bytes"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"testing"
)

// TestHMACSHA256 holds the stack HMAC to crypto/hmac for every key and
// message length it takes.
func TestHMACSHA256(t *testing.T) {
	for keyLen := 0; keyLen <= 64; keyLen += 8 {
		for msgLen := 0; msgLen <= hmacMaxMsg; msgLen += 7 {
			key := make([]byte, keyLen)
			msg := make([]byte, msgLen)
			rand.Read(key)
			rand.Read(msg)
			m := hmac.New(sha256.New, key)
			m.Write(msg)
			want := m.Sum(nil)
			// The same message split as label ‖ part ‖ part.
			split := msgLen / 3
			got := hmacSHA256(key, string(msg[:split]), msg[split:2*split], msg[2*split:])
			if !bytes.Equal(got[:], want) {
				t.Fatalf("key %d, msg %d octets: got %x, want %x", keyLen, msgLen, got, want)
			}
		}
	}
}

// TestHKDFSteps holds seal's HKDF steps (RFC 8291 §3.3, §3.4; RFC 8188
// §2.2, §2.3) to crypto/hkdf on random inputs.
func TestHKDFSteps(t *testing.T) {
	for range 20 {
		secret, auth, salt := make([]byte, 32), make([]byte, 16), make([]byte, 16)
		ua, as := make([]byte, 65), make([]byte, 65)
		for _, b := range [][]byte{secret, auth, salt, ua, as} {
			rand.Read(b)
		}
		info := string(append(append([]byte(keyInfo), ua...), as...))
		wantIKM, _ := hkdf.Key(sha256.New, secret, auth, info, 32)
		wantPRK, _ := hkdf.Extract(sha256.New, wantIKM, salt)
		wantCEK, _ := hkdf.Expand(sha256.New, wantPRK, cekInfo, 16)
		wantNonce, _ := hkdf.Expand(sha256.New, wantPRK, nonceInfo, 12)

		prkKey := hmacSHA256(auth, "", secret)
		ikm := hmacSHA256(prkKey[:], keyInfo, ua, as, counter1)
		prk := hmacSHA256(salt, "", ikm[:])
		cek := hmacSHA256(prk[:], cekInfo+"\x01")
		nonce := hmacSHA256(prk[:], nonceInfo+"\x01")
		if !bytes.Equal(ikm[:], wantIKM) || !bytes.Equal(prk[:], wantPRK) || !bytes.Equal(cek[:16], wantCEK) || !bytes.Equal(nonce[:12], wantNonce) {
			t.Fatal("HKDF steps differ from crypto/hkdf")
		}
	}
}

func TestHMACSHA256Allocs(t *testing.T) {
	key, a, b := make([]byte, 32), make([]byte, 65), make([]byte, 65)
	if n := testing.AllocsPerRun(100, func() { hmacSHA256(key, keyInfo, a, b, counter1) }); n != 0 {
		t.Errorf("hmacSHA256 allocates %v times, want 0", n)
	}
}

func TestHMACSHA256Panics(t *testing.T) {
	for name, f := range map[string]func(){
		"long key":   func() { hmacSHA256(make([]byte, 65), "") },
		"long part":  func() { hmacSHA256(nil, "", make([]byte, hmacMaxMsg+1)) },
		"long label": func() { hmacSHA256(nil, string(make([]byte, hmacMaxMsg+1))) },
		"long sum":   func() { hmacSHA256(nil, "ab", make([]byte, hmacMaxMsg-1)) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}
