// Package webpush sends Web Push messages on the Go standard library alone:
// RFC 8030 (the HTTP push protocol), RFC 8291 with RFC 8188 (aes128gcm
// message encryption) and RFC 8292 (VAPID application server identification).
//
// The pieces, one file each:
//
//   - subscription.go: [Subscription] and [ParseSubscription], which checks
//     what a browser's PushSubscription.toJSON() handed over.
//   - encrypt.go: [Encrypt] and [MaxPlaintext], one aes128gcm record per
//     message (RFC 8291 §4).
//   - vapid.go: [VAPIDKey], the ES256 JWT and [ValidateContact].
//   - sender.go: [Sender], [Message], [Result] and [Outcome]: one POST per
//     message, its answer sorted into what the caller should do next.
//   - redact.go: what keeps secrets out of errors, [Result.Detail] and fmt
//     output.
//
// Secrets stay out of text: no error, [Result.Detail] or fmt rendering of a
// [Subscription], [VAPIDKey] or [Sender] carries a JWT, a private key or an
// auth secret, and since an endpoint's path is a capability token, they
// name an endpoint by its origin only.
package webpush
