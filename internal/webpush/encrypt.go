package webpush

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdh"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// ErrTooLarge is wrapped by the error for a plaintext longer than
// [MaxPlaintext] allows (RFC 8291 §4), and by the error [Sender.Send] returns
// for a 413 answer (RFC 8030 §7.2). Cut the text before sending; Encrypt
// never truncates.
var ErrTooLarge = errors.New("webpush: payload too large")

// DefaultRecordSize is the record size used when a size of zero or less is
// given: 4096 octets, the payload body every push service must accept
// (RFC 8030 §7.2, RFC 8291 §4).
const DefaultRecordSize = 4096

// Sizes of the aes128gcm body (RFC 8188 §2, §2.1; RFC 8291 §4).
const (
	saltLen   = 16                                // RFC 8188 §2.1 "salt"
	headerLen = saltLen + 4 + 1 + P256DHLen       // salt ‖ rs ‖ idlen ‖ keyid = 86
	tagLen    = 16                                // AEAD_AES_128_GCM tag, RFC 8188 §2
	overhead  = headerLen + 1 + tagLen            // header, delimiter, tag = 103
	maxRS     = math.MaxUint32                    // rs is a uint32, RFC 8188 §2.1
	keyInfo   = "WebPush: info\x00"               // RFC 8291 §3.4
	cekInfo   = "Content-Encoding: aes128gcm\x00" // RFC 8188 §2.2
	nonceInfo = "Content-Encoding: nonce\x00"     // RFC 8188 §2.3
)

// MaxPlaintext returns the longest plaintext, in octets, that [Encrypt]
// takes for recordSize: recordSize − 103 (the 86-octet header, the 1-octet
// padding delimiter and the 16-octet tag; RFC 8291 §4). recordSize is the
// largest encrypted body in octets a push service is trusted to take; zero
// or less means [DefaultRecordSize], so MaxPlaintext(0) and
// MaxPlaintext(4096) are both 3993. A recordSize under 103 fits nothing and
// gives 0 (and [Encrypt] refuses it).
func MaxPlaintext(recordSize int) int {
	if recordSize <= 0 {
		recordSize = DefaultRecordSize
	}
	return max(recordSize-overhead, 0)
}

// Encrypt encrypts plaintext for sub as one aes128gcm record (RFC 8291 §3,
// §4; RFC 8188 §2) and returns the whole request body:
//
//	salt(16) ‖ rs(4, big-endian) ‖ idlen(1)=65 ‖ keyid(65) ‖ ciphertext ‖ tag(16)
//
// where keyid is a fresh ephemeral ECDH public key, the salt is 16 random
// octets (RFC 8291 §2), and the ciphertext covers plaintext ‖ 0x02 (the
// last-record padding delimiter, RFC 8188 §2; no further padding). The body
// is len(plaintext)+103 octets.
//
// recordSize is the largest body, in octets, the push service is trusted to
// take (zero or less means [DefaultRecordSize]); it is written as the "rs"
// field, which RFC 8291 §4 wants larger than the record, and it bounds the
// plaintext: see [MaxPlaintext]. Errors: a longer plaintext wraps
// [ErrTooLarge]; bad keys in sub wrap [ErrInvalidSubscription]; a recordSize
// from 1 to 102 or over 2³²−1 is refused.
func Encrypt(plaintext []byte, sub Subscription, recordSize int) ([]byte, error) {
	rs, uaPub, err := checkEncrypt(plaintext, sub, recordSize)
	if err != nil {
		return nil, err
	}
	asPriv, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("webpush: ephemeral key: %w", err)
	}
	var salt [saltLen]byte
	rand.Read(salt[:]) // never fails (crypto/rand documentation)
	return seal(plaintext, sub, rs, uaPub, asPriv, salt[:])
}

// encrypt is [Encrypt] with the ephemeral key asPriv and the salt given, so
// that a test can hold it to RFC 8291 §5 and Appendix A. Never reuse a
// key or a salt for a second message.
func encrypt(plaintext []byte, sub Subscription, recordSize int, asPriv *ecdh.PrivateKey, salt []byte) ([]byte, error) {
	rs, uaPub, err := checkEncrypt(plaintext, sub, recordSize)
	if err != nil {
		return nil, err
	}
	if len(salt) != saltLen {
		return nil, fmt.Errorf("webpush: salt: want %d bytes, got %d", saltLen, len(salt))
	}
	return seal(plaintext, sub, rs, uaPub, asPriv, salt)
}

// checkEncrypt checks the record size (returning it with the default
// applied), the plaintext length and the subscription's keys, returning
// the user agent's parsed public key.
func checkEncrypt(plaintext []byte, sub Subscription, recordSize int) (int, *ecdh.PublicKey, error) {
	if recordSize <= 0 {
		recordSize = DefaultRecordSize
	}
	if recordSize < overhead || int64(recordSize) > maxRS {
		return 0, nil, fmt.Errorf("webpush: record size %d is out of range: want %d to %d octets (RFC 8188 §2.1, RFC 8291 §4)", recordSize, overhead, int64(maxRS))
	}
	if limit := recordSize - overhead; len(plaintext) > limit {
		return 0, nil, fmt.Errorf("%w: %d bytes of plaintext, at most %d fit a %d-byte record (RFC 8291 §4): cut the text before sending",
			ErrTooLarge, len(plaintext), limit, recordSize)
	}
	uaPub, err := parseP256DH(sub.P256DH)
	if err != nil {
		return 0, nil, err
	}
	if err := checkAuth(sub.Auth); err != nil {
		return 0, nil, err
	}
	return recordSize, uaPub, nil
}

// seal derives the key and nonce and builds the body (RFC 8291 §3.3, §3.4;
// RFC 8188 §2). Its inputs are checked.
func seal(plaintext []byte, sub Subscription, recordSize int, uaPub *ecdh.PublicKey, asPriv *ecdh.PrivateKey, salt []byte) ([]byte, error) {
	// RFC 8291 §3.3, §3.4:
	//   ecdh_secret = ECDH(as_private, ua_public)
	//   PRK_key = HMAC-SHA-256(auth_secret, ecdh_secret)
	//   key_info = "WebPush: info" ‖ 0x00 ‖ ua_public ‖ as_public
	//   IKM = HMAC-SHA-256(PRK_key, key_info ‖ 0x01)
	secret, err := asPriv.ECDH(uaPub)
	if err != nil {
		return nil, fmt.Errorf("webpush: ecdh: %w", err)
	}
	asPub := asPriv.PublicKey().Bytes()
	info := make([]byte, 0, len(keyInfo)+2*P256DHLen)
	info = append(info, keyInfo...)
	info = append(info, sub.P256DH...)
	info = append(info, asPub...)
	ikm, err := hkdf.Key(sha256.New, secret, sub.Auth, string(info), 32)
	if err != nil {
		return nil, fmt.Errorf("webpush: hkdf: %w", err)
	}

	// RFC 8188 §2.2, §2.3 (with IKM in place of the shared key):
	//   PRK = HMAC-SHA-256(salt, IKM)
	//   CEK = HMAC-SHA-256(PRK, cek_info ‖ 0x01)[:16]
	//   NONCE = HMAC-SHA-256(PRK, nonce_info ‖ 0x01)[:12]
	// The only record has sequence number 0, so the nonce is NONCE itself.
	prk, err := hkdf.Extract(sha256.New, ikm, salt)
	if err != nil {
		return nil, fmt.Errorf("webpush: hkdf: %w", err)
	}
	cek, err := hkdf.Expand(sha256.New, prk, cekInfo, 16)
	if err != nil {
		return nil, fmt.Errorf("webpush: hkdf: %w", err)
	}
	nonce, err := hkdf.Expand(sha256.New, prk, nonceInfo, 12)
	if err != nil {
		return nil, fmt.Errorf("webpush: hkdf: %w", err)
	}
	block, err := aes.NewCipher(cek)
	if err != nil {
		return nil, fmt.Errorf("webpush: aes: %w", err)
	}
	gcm, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("webpush: gcm: %w", err)
	}

	// Header (RFC 8188 §2.1), then plaintext ‖ 0x02 sealed in place.
	body := make([]byte, headerLen, len(plaintext)+overhead)
	copy(body, salt)
	binary.BigEndian.PutUint32(body[saltLen:], uint32(recordSize))
	body[saltLen+4] = P256DHLen
	copy(body[saltLen+5:], asPub)
	body = append(body, plaintext...)
	body = append(body, 0x02)
	sealed := gcm.Seal(body[headerLen:headerLen], nonce, body[headerLen:], nil)
	return body[:headerLen+len(sealed)], nil
}
