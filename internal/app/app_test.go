package app

import (
	"context"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/attn-dev/attn/internal/config"
)

func TestTokenMadeOnceAndPrivate(t *testing.T) {
	dir := t.TempDir()
	a, err := LoadOrCreateToken(dir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := LoadOrCreateToken(dir)
	if err != nil || a != b || len(a) != 43 {
		t.Fatalf("tokens %q, %q, %v: want one stable 43-character token", a, b, err)
	}
	fi, _ := os.Stat(filepath.Join(dir, TokenFile))
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("token mode %o", fi.Mode().Perm())
	}
	os.WriteFile(filepath.Join(dir, TokenFile), []byte("short\n"), 0o600)
	if _, err := LoadOrCreateToken(dir); err == nil || !strings.Contains(err.Error(), "delete the file") {
		t.Fatalf("short token: %v", err)
	}
}

func options(t *testing.T, dir, listen string) Options {
	return Options{Serve: config.Serve{Listen: listen, StateDir: dir, Poll: time.Second, Settle: time.Second,
		PushContact: "mailto:t@example.org", RecordSize: 4096, TmuxSocket: "attn-app-test-none"},
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
}

func TestVAPIDKeyStableAcrossRestarts(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	a, err := New(ctx, options(t, dir, "127.0.0.1:0"))
	if err != nil {
		t.Fatal(err)
	}
	k1 := a.vapid.PublicKeyBase64()
	a.Close()
	b, err := New(ctx, options(t, dir, "127.0.0.1:0"))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if k2 := b.vapid.PublicKeyBase64(); k1 != k2 || len(k1) != 87 {
		t.Fatalf("VAPID public key changed across restarts: %q → %q", k1, k2)
	}
}

func TestAddressInUse(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, err = New(context.Background(), options(t, t.TempDir(), l.Addr().String()))
	if err == nil || !strings.Contains(err.Error(), "is another `attn serve` running?") {
		t.Fatalf("err = %v", err)
	}
}
