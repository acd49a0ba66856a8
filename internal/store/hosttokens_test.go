package store

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"
)

func TestHostTokens(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	st, err := Open(ctx, t.TempDir(), func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	a, b := bytes.Repeat([]byte{1}, 32), bytes.Repeat([]byte{2}, 32)
	if err := st.SetHostToken(ctx, "devbox", a); err != nil {
		t.Fatal(err)
	}
	got, err := st.HostByToken(ctx, a)
	if err != nil || got.Host != "devbox" || !got.Created.Equal(now) || !got.LastUsed.IsZero() {
		t.Fatalf("HostByToken = %+v, %v", got, err)
	}
	if _, err := st.HostByToken(ctx, b); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown token: err = %v", err)
	}
	// A new credential for the host revokes the old one.
	now = now.Add(time.Hour)
	if err := st.SetHostToken(ctx, "devbox", b); err != nil {
		t.Fatal(err)
	}
	if _, err := st.HostByToken(ctx, a); !errors.Is(err, ErrNotFound) {
		t.Fatalf("replaced token still works: err = %v", err)
	}
	if got, err := st.HostByToken(ctx, b); err != nil || got.Host != "devbox" {
		t.Fatalf("new token: %+v, %v", got, err)
	}
	list, err := st.HostTokens(ctx)
	if err != nil || len(list) != 1 || list[0].Host != "devbox" || !list[0].LastUsed.Equal(now) {
		t.Fatalf("HostTokens = %+v, %v", list, err)
	}
	if err := st.DeleteHostToken(ctx, "devbox"); err != nil {
		t.Fatal(err)
	}
	if err := st.DeleteHostToken(ctx, "devbox"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second delete: err = %v", err)
	}
}
