package deliver

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/attn-dev/attn/internal/notification"
	"github.com/attn-dev/attn/internal/store"
	"github.com/attn-dev/attn/internal/webpush"
)

// fakeSender answers per endpoint from a script of results, and records
// every send with the time it was made.
type fakeSender struct {
	mu      sync.Mutex
	answers map[string][]webpush.Result
	sends   []sent
}

type sent struct {
	endpoint string
	at       time.Time
	size     int
	msg      webpush.Message
}

func (f *fakeSender) Send(_ context.Context, sub webpush.Subscription, msg webpush.Message) (webpush.Result, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sends = append(f.sends, sent{sub.Endpoint, time.Now(), len(msg.Payload), msg})
	q := f.answers[sub.Endpoint]
	if len(q) == 0 {
		return webpush.Result{Status: 201, Outcome: webpush.Delivered}, nil
	}
	r := q[0]
	if len(q) > 1 {
		f.answers[sub.Endpoint] = q[1:]
	}
	if r.Outcome == webpush.RetryLater && r.Status == 0 {
		return r, errors.New("connection refused")
	}
	return r, nil
}

type fakeDevices struct {
	mu       sync.Mutex
	devs     []store.Device
	outcomes map[int64][2]string
	deleted  []int64
}

func (f *fakeDevices) Devices(context.Context) ([]store.Device, error) { return f.devs, nil }
func (f *fakeDevices) DeleteDevice(_ context.Context, id int64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.deleted = append(f.deleted, id)
	return nil
}
func (f *fakeDevices) RecordOutcome(_ context.Context, id int64, o, d string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.outcomes[id] = [2]string{o, d}
	return nil
}

func devices(names ...string) *fakeDevices {
	f := &fakeDevices{outcomes: map[int64][2]string{}}
	for i, n := range names {
		f.devs = append(f.devs, store.Device{ID: int64(i + 1), Name: n, Endpoint: "https://push.example/" + n})
	}
	return f
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

var note = notification.Notification{Kind: notification.KindBlocked, Title: "api", Body: "Do you want to proceed?",
	Tag: "block:box/%1", Urgency: "high", TTL: 10 * time.Minute}

func TestFanOutOutcomes(t *testing.T) {
	snd := &fakeSender{answers: map[string][]webpush.Result{
		"https://push.example/gone": {{Status: 410, Outcome: webpush.Gone, Detail: "410 Gone"}},
		"https://push.example/auth": {{Status: 403, Outcome: webpush.Unauthorized, Detail: "403 BadJwtToken"}},
		"https://push.example/bad":  {{Status: 400, Outcome: webpush.Rejected, Detail: "400 Bad Request"}},
	}}
	devs := devices("ok", "gone", "auth", "bad")
	r := New(snd, devs, quiet, Options{}).Deliver(context.Background(), note)
	if !r.Sent || len(r.Transports) != 1 || r.Transports[0] != "webpush" {
		t.Fatalf("report = %+v", r)
	}
	if len(snd.sends) != 4 {
		t.Fatalf("sends = %d, want one per device", len(snd.sends))
	}
	if got := devs.deleted; len(got) != 1 || got[0] != 2 {
		t.Fatalf("deleted = %v, want [2] (the gone device only)", got)
	}
	want := map[int64][2]string{
		1: {"delivered", ""},
		3: {"unauthorized", "403 BadJwtToken"},
		4: {"rejected", "400 Bad Request"},
	}
	for id, w := range want {
		if devs.outcomes[id] != w {
			t.Errorf("device %d outcome = %v, want %v", id, devs.outcomes[id], w)
		}
	}
	if _, ok := devs.outcomes[2]; ok {
		t.Error("gone device got an outcome recorded after removal")
	}
	if !strings.Contains(r.Detail, "some devices failed") || !strings.Contains(r.Detail, "device 2 (gone)") {
		t.Errorf("detail = %q", r.Detail)
	}
	for _, s := range snd.sends {
		if s.msg.Urgency != "high" || s.msg.TTL != 10*time.Minute || len(s.msg.Topic) != 32 {
			t.Errorf("message headers = %+v", s.msg)
		}
	}
}

func TestNoDevices(t *testing.T) {
	r := New(&fakeSender{}, devices(), quiet, Options{}).Deliver(context.Background(), note)
	if r.Sent || !strings.Contains(r.Detail, "no device is registered") {
		t.Fatalf("report = %+v", r)
	}
}

func TestRetryHonorsRetryAfter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		snd := &fakeSender{answers: map[string][]webpush.Result{
			"https://push.example/p": {
				{Status: 429, Outcome: webpush.RetryLater, RetryAfter: 7 * time.Second, Detail: "429"},
				{Status: 503, Outcome: webpush.RetryLater, Detail: "503"},
				{Status: 201, Outcome: webpush.Delivered},
			},
		}}
		start := time.Now()
		r := New(snd, devices("p"), quiet, Options{}).Deliver(context.Background(), note)
		if !r.Sent || len(snd.sends) != 3 {
			t.Fatalf("report %+v after %d sends", r, len(snd.sends))
		}
		// 7 s from Retry-After, then the second backoff step (2 s).
		if d := snd.sends[1].at.Sub(start); d != 7*time.Second {
			t.Errorf("second try after %v, want 7s", d)
		}
		if d := snd.sends[2].at.Sub(snd.sends[1].at); d != 2*time.Second {
			t.Errorf("third try after %v, want 2s", d)
		}
	})
}

func TestRetryIsBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		snd := &fakeSender{answers: map[string][]webpush.Result{
			"https://push.example/p": {{Outcome: webpush.RetryLater, RetryAfter: time.Hour}},
		}}
		devs := devices("p")
		start := time.Now()
		r := New(snd, devs, quiet, Options{}).Deliver(context.Background(), note)
		if r.Sent || len(snd.sends) != 3 {
			t.Fatalf("report %+v after %d sends, want 3 failed tries", r, len(snd.sends))
		}
		if d := time.Since(start); d != 60*time.Second {
			t.Errorf("gave up after %v, want 2 waits capped at 30s", d)
		}
		if devs.outcomes[1][0] != "retry-later" || !strings.Contains(devs.outcomes[1][1], "connection refused") {
			t.Errorf("outcome = %v", devs.outcomes[1])
		}
		if len(devs.deleted) != 0 {
			t.Error("a device was removed for a network error")
		}
	})
}

func TestTooLargeRetriesSmaller(t *testing.T) {
	snd := &fakeSender{answers: map[string][]webpush.Result{
		"https://push.example/p": {{Status: 413, Outcome: webpush.TooLarge}, {Status: 201, Outcome: webpush.Delivered}},
	}}
	big := note
	big.Body = strings.Repeat("long output line\n", 400)
	r := New(snd, devices("p"), quiet, Options{}).Deliver(context.Background(), big)
	if !r.Sent || len(snd.sends) != 2 {
		t.Fatalf("report %+v, sends %d", r, len(snd.sends))
	}
	if first, second := snd.sends[0].size, snd.sends[1].size; first != webpush.MaxPlaintext(4096) || second > first/2 {
		t.Errorf("payload sizes %d then %d: want the record's maximum then at most half", first, second)
	}
}

func TestEnqueueNeverBlocks(t *testing.T) {
	devs := devices("p", "q")
	d := New(&fakeSender{}, devs, quiet, Options{QueueSize: 3})
	ctx := context.Background()
	if d.Enqueue(ctx, note, devs.devs[:1]) != nil || d.Enqueue(ctx, note, devs.devs[:1]) != nil {
		t.Fatal("enqueue into an empty queue failed")
	}
	// Two more sends do not fit in the one slot left: none is queued.
	if err := d.Enqueue(ctx, note, devs.devs); !errors.Is(err, ErrQueueFull) {
		t.Fatalf("enqueue past capacity = %v, want ErrQueueFull", err)
	}
	if len(d.queue) != 2 {
		t.Fatalf("queue holds %d, want the 2 that fit", len(d.queue))
	}
}

func TestRunDrainsQueue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		snd := &fakeSender{}
		d := New(snd, devices("a", "b"), quiet, Options{})
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { d.Run(ctx, 2); close(done) }()
		for range 3 {
			if err := d.Enqueue(ctx, note, devices("a", "b").devs); err != nil {
				t.Fatal(err)
			}
		}
		synctest.Wait()
		cancel()
		<-done
		if len(snd.sends) != 6 {
			t.Fatalf("sends = %d, want 3 notifications × 2 devices", len(snd.sends))
		}
	})
}
