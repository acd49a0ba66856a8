package store

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

func TestPairingRedeemedOnceUnderRace(t *testing.T) {
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	s, err := Open(context.Background(), t.TempDir(), func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	code := []byte("code-hash-000000000000000000000001")
	if err := s.AddPairing(ctx, code, now.Add(10*time.Minute)); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() {
			_, errs[i] = s.RedeemPairing(ctx, code, []byte{byte(i), 1, 2, 3}, "browser")
		})
	}
	wg.Wait()
	ok, used := 0, 0
	for _, err := range errs {
		switch {
		case err == nil:
			ok++
		case errors.Is(err, ErrPairingUsed):
			used++
		default:
			t.Fatalf("unexpected error %v", err)
		}
	}
	if ok != 1 || used != 7 {
		t.Fatalf("%d signed in, %d refused as used; want 1 and 7", ok, used)
	}
	creds, err := s.Credentials(ctx)
	if err != nil || len(creds) != 1 {
		t.Fatalf("credentials = %+v, %v", creds, err)
	}
}

func TestRevokeCredentialRemovesItsDevice(t *testing.T) {
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	s, err := Open(context.Background(), t.TempDir(), func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	s.AddPairing(ctx, []byte("a"), now.Add(time.Minute))
	c, err := s.RedeemPairing(ctx, []byte("a"), []byte("tok"), "phone")
	if err != nil {
		t.Fatal(err)
	}
	dev, _, _ := s.UpsertDevice(ctx, "https://push.example/1", []byte{4}, []byte{1}, "phone")
	keep, _, _ := s.UpsertDevice(ctx, "https://push.example/2", []byte{4}, []byte{1}, "cli-registered")
	if err := s.SetCredentialDevice(ctx, c.ID, dev); err != nil {
		t.Fatal(err)
	}
	if err := s.SetCredentialDevice(ctx, c.ID, 99); !errors.Is(err, ErrNotFound) {
		t.Fatalf("link to a missing device: %v", err)
	}
	if err := s.RevokeCredential(ctx, c.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.RevokeCredential(ctx, c.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("revoke twice: %v", err)
	}
	devs, _ := s.Devices(ctx)
	if len(devs) != 1 || devs[0].ID != keep {
		t.Fatalf("devices = %+v, want only %d", devs, keep)
	}
	if _, err := s.CredentialByToken(ctx, []byte("tok")); !errors.Is(err, ErrNotFound) {
		t.Fatalf("revoked credential still found: %v", err)
	}
	// Removing a device unlinks it from its credential.
	s.AddPairing(ctx, []byte("b"), now.Add(time.Minute))
	c2, _ := s.RedeemPairing(ctx, []byte("b"), []byte("tok2"), "laptop")
	s.SetCredentialDevice(ctx, c2.ID, keep)
	if err := s.DeleteDevice(ctx, keep); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.CredentialByToken(ctx, []byte("tok2")); got.DeviceID != 0 {
		t.Fatalf("credential still linked to a removed device: %+v", got)
	}
}
