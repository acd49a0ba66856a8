package main

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"flag"
	"fmt"
	"time"
)

// floorMain measures the cryptographic floor of one Web Push message on
// the Go standard library, written here independently of attn's code:
// a fresh P-256 key pair and ECDH with the subscription's key, the
// RFC 8291/8188 HKDF steps, AES-128-GCM over payload‖0x02, and (for the
// "sign" floor) one ES256 signature of a VAPID JWT. No HTTP, no encoding
// of headers. It is run with the send harness's concurrency model
// (-conc in flight on all cores: msgs/s) and with one goroutine (µs per
// message on one core).
func floorMain(args []string) {
	fs := flag.NewFlagSet("floor", flag.ExitOnError)
	n := fs.Int("n", 20000, "messages per floor")
	conc := fs.Int("conc", 8, "messages in flight")
	payloadLen := fs.Int("payload", 1024, "payload octets")
	maxTime := fs.Duration("max-time", 30*time.Second, "stop a phase after this long")
	fs.Parse(args)

	ua, _, _ := newUserAgent()
	uaPub := ua.PublicKey()
	uaRaw := uaPub.Bytes()
	authSecret := make([]byte, 16)
	rand.Read(authSecret)
	vapid, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		fatalf("%v", err)
	}
	payload := newPayload(*payloadLen)
	jwtInput := []byte(`eyJ0eXAiOiJKV1QiLCJhbGciOiJFUzI1NiJ9.eyJhdWQiOiJodHRwczovL2ZjbS5nb29nbGVhcGlzLmNvbSIsImV4cCI6MTc4MDAwMDAwMCwic3ViIjoibWFpbHRvOmJlbmNoQGF0dG4uZXhhbXBsZSJ9`)

	seal := func() error {
		as, err := ecdh.P256().GenerateKey(rand.Reader)
		if err != nil {
			return err
		}
		secret, err := as.ECDH(uaPub)
		if err != nil {
			return err
		}
		asPub := as.PublicKey().Bytes()
		info := make([]byte, 0, 14+130)
		info = append(append(append(info, "WebPush: info\x00"...), uaRaw...), asPub...)
		ikm, err := hkdf.Key(sha256.New, secret, authSecret, string(info), 32)
		if err != nil {
			return err
		}
		var salt [16]byte
		rand.Read(salt[:])
		prk, err := hkdf.Extract(sha256.New, ikm, salt[:])
		if err != nil {
			return err
		}
		cek, _ := hkdf.Expand(sha256.New, prk, "Content-Encoding: aes128gcm\x00", 16)
		nonce, _ := hkdf.Expand(sha256.New, prk, "Content-Encoding: nonce\x00", 12)
		block, err := aes.NewCipher(cek)
		if err != nil {
			return err
		}
		gcm, err := cipher.NewGCM(block)
		if err != nil {
			return err
		}
		body := make([]byte, 86, 86+len(payload)+17)
		copy(body, salt[:])
		binary.BigEndian.PutUint32(body[16:], 4096)
		body[20] = 65
		copy(body[21:], asPub)
		body = append(append(body, payload...), 2)
		gcm.Seal(body[86:86], nonce, body[86:], nil)
		return nil
	}
	sign := func() error {
		d := sha256.Sum256(jwtInput)
		_, _, err := ecdsa.Sign(rand.Reader, vapid, d[:])
		return err
	}
	floors := []struct {
		name, what string
		op         func(context.Context) error
	}{
		{"floor-sign", "fresh P-256 key + ECDH + HKDF + AES-128-GCM + one ES256 signature per message (the issue's floor; what a sender that signs every JWT cannot go below)",
			func(context.Context) error {
				if err := seal(); err != nil {
					return err
				}
				return sign()
			}},
		{"floor-nosign", "fresh P-256 key + ECDH + HKDF + AES-128-GCM per message, no signature (attn's floor: it reuses the JWT)",
			func(context.Context) error { return seal() }},
	}
	for _, f := range floors {
		drive(*conc, min(*n/20, 500), *maxTime, f.op) // warm-up
		multi := drive(*conc, *n, *maxTime, f.op)
		one := drive(1, *n/4, *maxTime, f.op)
		us := float64(one.elapsed.Microseconds()) / float64(max(one.sent, 1))
		cpu := float64(multi.cpu.Microseconds()) / float64(max(multi.sent, 1))
		fmt.Printf("%-20s %7.0f msgs/s  (%d in flight on all cores: %.1f µs CPU/msg; one goroutine: %.1f µs/msg) — %s\n", f.name, multi.rate(), *conc, cpu, us, f.what)
		fmt.Printf("RESULT name=%s rate=%.1f sent=%d errors=%d seconds=%.3f cpu_us_per_msg=%.1f us_per_msg_one_core=%.1f\n", f.name, multi.rate(), multi.sent, multi.errors, multi.elapsed.Seconds(), cpu, us)
	}
}
