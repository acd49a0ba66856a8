// Package e2e holds attn's end-to-end tests: the built binary, a private
// tmux server with real panes, and web-push-testing as an independent push
// service that checks VAPID and decrypts every message. The helpers here
// start and stop those parts; the tests are in *_test.go.
package e2e
