package webpush

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdh"
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
	// RFC 8291 §3.3, §3.4 (HKDF with SHA-256, RFC 5869; every output is at
	// most 32 octets, so HKDF-Expand is one HMAC with the counter 0x01):
	//   ecdh_secret = ECDH(as_private, ua_public)
	//   PRK_key = HMAC-SHA-256(auth_secret, ecdh_secret)
	//   key_info = "WebPush: info" ‖ 0x00 ‖ ua_public ‖ as_public
	//   IKM = HMAC-SHA-256(PRK_key, key_info ‖ 0x01)
	secret, err := asPriv.ECDH(uaPub)
	if err != nil {
		return nil, fmt.Errorf("webpush: ecdh: %w", err)
	}
	asPub := asPriv.PublicKey().Bytes()
	prkKey := hmacSHA256(sub.Auth, "", secret)
	ikm := hmacSHA256(prkKey[:], keyInfo, sub.P256DH, asPub, counter1)

	// RFC 8188 §2.2, §2.3 (with IKM in place of the shared key):
	//   PRK = HMAC-SHA-256(salt, IKM)
	//   CEK = HMAC-SHA-256(PRK, cek_info ‖ 0x01)[:16]
	//   NONCE = HMAC-SHA-256(PRK, nonce_info ‖ 0x01)[:12]
	// The only record has sequence number 0, so the nonce is NONCE itself.
	prk := hmacSHA256(salt, "", ikm[:])
	cekFull := hmacSHA256(prk[:], cekInfo+"\x01")
	nonceFull := hmacSHA256(prk[:], nonceInfo+"\x01")
	cek, nonce := cekFull[:16], nonceFull[:12]
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

// counter1 is HKDF-Expand's first (and here only) block counter, RFC 5869 §2.3.
var counter1 = []byte{0x01}

// hmacMaxMsg bounds the message [hmacSHA256] takes: key_info ‖ 0x01 is the
// longest, 14 + 65 + 65 + 1 = 145 octets.
const hmacMaxMsg = 160

// hmacSHA256 returns HMAC-SHA-256(key, label ‖ parts...) (RFC 2104) for a
// key of at most 64 octets (one SHA-256 block) and a message of at most
// hmacMaxMsg octets, on the stack: the HKDF steps of [seal] allocate
// nothing. It panics on longer input, which its callers never give.
func hmacSHA256(key []byte, label string, parts ...[]byte) [sha256.Size]byte {
	const block = 64 // SHA-256 block size
	if len(key) > block {
		panic("webpush: hmacSHA256: key longer than a block")
	}
	if len(label) > hmacMaxMsg {
		panic("webpush: hmacSHA256: message too long")
	}
	var buf [block + hmacMaxMsg]byte
	copy(buf[:], key)
	for i := range block {
		buf[i] ^= 0x36 // ipad
	}
	n := block + copy(buf[block:], label)
	for _, p := range parts {
		if len(p) > len(buf)-n {
			panic("webpush: hmacSHA256: message too long")
		}
		n += copy(buf[n:], p)
	}
	inner := sha256.Sum256(buf[:n])
	for i := range block {
		buf[i] ^= 0x36 ^ 0x5c // ipad off, opad on
	}
	copy(buf[block:], inner[:])
	return sha256.Sum256(buf[:block+sha256.Size])
}
