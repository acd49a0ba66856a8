package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func openTest(t *testing.T, dir string) *Store {
	t.Helper()
	clock := time.Unix(1_700_000_000, 0)
	s, err := Open(context.Background(), dir, func() time.Time { clock = clock.Add(time.Millisecond); return clock })
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestOpenMakesPrivateFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	openTest(t, dir)
	fi, err := os.Stat(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode().Perm(); got != 0o600 {
		t.Errorf("store mode = %o, want 600", got)
	}
	di, _ := os.Stat(dir)
	if got := di.Mode().Perm(); got != 0o700 {
		t.Errorf("state dir mode = %o, want 700", got)
	}
}

func TestOpenUnwritableDirSaysWhatToDo(t *testing.T) {
	f := filepath.Join(t.TempDir(), "file")
	os.WriteFile(f, nil, 0o600)
	_, err := Open(context.Background(), filepath.Join(f, "sub"), nil)
	if err == nil || !strings.Contains(err.Error(), "--state-dir") {
		t.Fatalf("err = %v, want one naming --state-dir", err)
	}
}

func TestNewerSchemaRefused(t *testing.T) {
	dir := t.TempDir()
	s := openTest(t, dir)
	if _, err := s.db.Exec(sqlInsertMigration, len(migrations)+1, 0); err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, err := Open(context.Background(), dir, nil)
	if err == nil || !strings.Contains(err.Error(), "newer than this attn knows") {
		t.Fatalf("err = %v", err)
	}
}

func TestSettingFirstWriterWinsAcrossReopen(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	s := openTest(t, dir)
	v1, err := s.GetOrCreateSetting(ctx, SettingVAPIDPrivate, func() ([]byte, error) { return []byte("one"), nil })
	if err != nil || string(v1) != "one" {
		t.Fatalf("first = %q, %v", v1, err)
	}
	s.Close()
	s = openTest(t, dir)
	v2, err := s.GetOrCreateSetting(ctx, SettingVAPIDPrivate, func() ([]byte, error) { return []byte("two"), nil })
	if err != nil || string(v2) != "one" {
		t.Fatalf("after reopen = %q, %v; want the first value kept", v2, err)
	}
	_, err = s.GetOrCreateSetting(ctx, "other", func() ([]byte, error) { return nil, errors.New("boom") })
	if err == nil || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("create error not passed on: %v", err)
	}
}

func TestUpsertDeviceIsIdempotent(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, t.TempDir())
	id1, created, err := s.UpsertDevice(ctx, "https://push.example/a", []byte{4, 1}, []byte{9}, "phone")
	if err != nil || !created {
		t.Fatalf("first upsert: id=%d created=%v err=%v", id1, created, err)
	}
	id2, created, err := s.UpsertDevice(ctx, "https://push.example/a", []byte{4, 2}, []byte{8}, "")
	if err != nil || created || id2 != id1 {
		t.Fatalf("second upsert: id=%d created=%v err=%v, want id %d not created", id2, created, err, id1)
	}
	devs, err := s.Devices(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(devs) != 1 || devs[0].Name != "phone" || devs[0].P256DH[1] != 2 || devs[0].Auth[0] != 8 {
		t.Fatalf("devices = %+v, want one named phone with the new keys", devs)
	}
	if err := s.RecordOutcome(ctx, id1, "rejected", "400 bad"); err != nil {
		t.Fatal(err)
	}
	devs, _ = s.Devices(ctx)
	if devs[0].LastOutcome != "rejected" || devs[0].LastDetail != "400 bad" || !devs[0].LastSuccessAt.IsZero() {
		t.Fatalf("after failure: %+v", devs[0])
	}
	s.RecordOutcome(ctx, id1, OutcomeDelivered, "ignored")
	devs, _ = s.Devices(ctx)
	if devs[0].LastOutcome != OutcomeDelivered || devs[0].LastDetail != "" || devs[0].LastSuccessAt.IsZero() {
		t.Fatalf("after success: %+v", devs[0])
	}
	if n, _ := s.CountDevices(ctx); n != 1 {
		t.Fatalf("count = %d", n)
	}
	if err := s.DeleteDeviceByEndpoint(ctx, "https://push.example/a"); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteDeviceByEndpoint(ctx, "https://push.example/a"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second delete = %v, want ErrNotFound", err)
	}
	if err := s.DeleteDevice(ctx, id1); !errors.Is(err, ErrNotFound) {
		t.Fatalf("delete by id = %v, want ErrNotFound", err)
	}
}

func TestNotifiedSetSurvivesReopen(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := openTest(t, dir)
	a := Announced{Fingerprint: "fp1", Host: "local", Pane: "%1", At: time.Unix(5, 0)}
	if ok, err := s.MarkNotified(ctx, a); !ok || err != nil {
		t.Fatalf("first mark = %v, %v", ok, err)
	}
	if ok, err := s.MarkNotified(ctx, a); ok || err != nil {
		t.Fatalf("second mark = %v, %v; want false", ok, err)
	}
	s.Close()
	s = openTest(t, dir)
	got, err := s.Notified(ctx)
	if err != nil || len(got) != 1 || got[0].Fingerprint != "fp1" || got[0].Pane != "%1" || !got[0].At.Equal(time.Unix(5, 0)) {
		t.Fatalf("notified = %+v, %v", got, err)
	}
	s.ForgetNotified(ctx, "fp1")
	if got, _ := s.Notified(ctx); len(got) != 0 {
		t.Fatalf("after forget: %+v", got)
	}
}

func TestNonceConsumedOnce(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, t.TempDir())
	now := time.Unix(1_800_000_000, 0)
	n := Nonce{Nonce: "n1", Fingerprint: "fp", Host: "box", Pane: "%1", Incarnation: "9", Options: []int{0, 1},
		Generation: 3, Created: now, Expires: now.Add(10 * time.Minute)}
	if err := s.AddNonce(ctx, n); err != nil {
		t.Fatal(err)
	}
	live, err := s.LiveNonce(ctx, "fp", now)
	if err != nil || live.Nonce != "n1" || live.Generation != 3 || len(live.Options) != 2 {
		t.Fatalf("live = %+v, %v", live, err)
	}
	got, err := s.ConsumeNonce(ctx, "n1", now)
	if err != nil || got.Pane != "%1" || got.Options[1] != 1 || got.Incarnation != "9" {
		t.Fatalf("consume = %+v, %v", got, err)
	}
	if _, err := s.ConsumeNonce(ctx, "n1", now); !errors.Is(err, ErrNonceUsed) {
		t.Fatalf("second consume = %v, want ErrNonceUsed", err)
	}
	if _, err := s.ConsumeNonce(ctx, "nope", now); !errors.Is(err, ErrNonceUnknown) {
		t.Fatalf("unknown = %v", err)
	}
	n.Nonce = "n2"
	s.AddNonce(ctx, n)
	if _, err := s.ConsumeNonce(ctx, "n2", now.Add(11*time.Minute)); !errors.Is(err, ErrNonceUnknown) {
		t.Fatalf("expired = %v, want ErrNonceUnknown", err)
	}
	n.Nonce = "n3"
	s.AddNonce(ctx, n)
	s.ForgetNonces(ctx, "fp")
	if _, err := s.ConsumeNonce(ctx, "n3", now); !errors.Is(err, ErrNonceUnknown) {
		t.Fatalf("after forget = %v", err)
	}
	if _, err := s.ConsumeNonce(ctx, "n1", now); !errors.Is(err, ErrNonceUsed) {
		t.Fatalf("a used nonce after its wait cleared = %v, want ErrNonceUsed", err)
	}
	g1, _ := s.BumpGeneration(ctx, "box", "%1")
	g2, _ := s.BumpGeneration(ctx, "box", "%1")
	s.MarkTyped(ctx, "box", "%1", 1)
	g, typed, _ := s.Generation(ctx, "box", "%1")
	if g1 != 1 || g2 != 2 || g != 2 || typed != 1 {
		t.Fatalf("generations %d %d %d, typed %d", g1, g2, g, typed)
	}
	s.AddAudit(ctx, AuditEntry{Surface: "card", Host: "box", Pane: "%1", OptionIndex: 1, Outcome: "refused", Gate: "nonce-used"})
	if a, _ := s.Audit(ctx, 10); len(a) != 1 || a[0].Gate != "nonce-used" || a[0].At.IsZero() {
		t.Fatalf("audit = %+v", a)
	}
}
