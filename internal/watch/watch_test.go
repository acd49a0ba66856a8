package watch

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/attn-dev/attn/internal/notification"
	"github.com/attn-dev/attn/internal/pipeline"
	"github.com/attn-dev/attn/internal/source/tmux"
	"github.com/attn-dev/attn/internal/store"
)

type fakePanes struct {
	panes   []tmux.Pane
	screens map[string]string
	calls   int
}

func (f *fakePanes) ListPanes(context.Context) ([]tmux.Pane, error) {
	f.calls++
	return f.panes, nil
}

func (f *fakePanes) Capture(_ context.Context, id string) (string, error) {
	f.calls++
	return f.screens[id], nil
}

type fakeQueue struct {
	got  []notification.Notification
	full bool
}

func (q *fakeQueue) Enqueue(n notification.Notification) error {
	if q.full {
		return errFull
	}
	q.got = append(q.got, n)
	return nil
}

var errFull = io.ErrShortBuffer

type count int

func (c count) CountDevices(context.Context) (int, error) { return int(c), nil }

func newWatcher(t *testing.T, devices int) (*Watcher, *fakePanes, *fakeQueue, *time.Time) {
	t.Helper()
	st, err := store.Open(context.Background(), t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	b, err := pipeline.NewBlocked(context.Background(), 5*time.Second, st, log)
	if err != nil {
		t.Fatal(err)
	}
	screen := readFixture(t, "claude-bash-permission.txt")
	panes := &fakePanes{
		panes:   []tmux.Pane{{ID: "%3", PID: "42", Title: "✳ Claude Code", WindowName: "api", Command: "claude"}},
		screens: map[string]string{"%3": screen},
	}
	now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	q := &fakeQueue{}
	w := &Watcher{Host: "box", Panes: panes, Decider: b, Queue: q, Devices: count(devices),
		Poll: time.Second, Now: func() time.Time { return now }, Log: log}
	return w, panes, q, &now
}

func readFixture(t *testing.T, name string) string {
	t.Helper()
	dir, _ := os.Getwd()
	for ; dir != filepath.Dir(dir); dir = filepath.Dir(dir) {
		if b, err := os.ReadFile(filepath.Join(dir, "shared", "fixtures", "screens", name)); err == nil {
			return string(b)
		}
	}
	t.Fatalf("fixture %s not found above %s", name, dir)
	return ""
}

func TestNoDeviceTouchesNoTmux(t *testing.T) {
	w, panes, q, _ := newWatcher(t, 0)
	for range 3 {
		if err := w.Tick(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if panes.calls != 0 || len(q.got) != 0 {
		t.Fatalf("tmux calls = %d, queued = %d; want none with no device", panes.calls, len(q.got))
	}
}

func TestBlockedPaneIsQueuedOnceAfterSettle(t *testing.T) {
	w, _, q, now := newWatcher(t, 1)
	ctx := context.Background()
	start := *now
	for _, at := range []time.Duration{0, 4 * time.Second, 5 * time.Second, 6 * time.Second} {
		*now = start.Add(at)
		if err := w.Tick(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if len(q.got) != 1 {
		t.Fatalf("queued %d, want 1", len(q.got))
	}
	n := q.got[0]
	if n.Kind != notification.KindBlocked || n.Title != "api" || n.Body != "Do you want to proceed?\nclaude on box" ||
		n.Tag != "block:box/%3" || n.Urgency != "high" || n.TTL != BlockedTTL || !n.Renotify || n.Question == nil ||
		len(n.Question.Options) != 3 {
		t.Fatalf("notification = %+v", n)
	}
}

func TestFullQueueRetries(t *testing.T) {
	w, _, q, now := newWatcher(t, 1)
	ctx := context.Background()
	q.full = true
	w.Tick(ctx)
	*now = now.Add(5 * time.Second)
	w.Tick(ctx) // settled, but the queue is full: retracted
	q.full = false
	*now = now.Add(time.Second)
	w.Tick(ctx) // settling again
	if len(q.got) != 0 {
		t.Fatalf("queued %d before settling again", len(q.got))
	}
	*now = now.Add(5 * time.Second)
	w.Tick(ctx)
	if len(q.got) != 1 {
		t.Fatalf("queued %d, want 1 once the queue has room", len(q.got))
	}
}
