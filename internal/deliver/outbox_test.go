package deliver

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/attn-dev/attn/internal/store"
)

// memOutbox is an in-memory Outbox and DecisionLog.
type memOutbox struct {
	mu        sync.Mutex
	rows      map[int64]store.Pending
	next      int64
	decisions []store.Decision
}

func newMemOutbox() *memOutbox { return &memOutbox{rows: map[int64]store.Pending{}} }

func (m *memOutbox) AddPending(_ context.Context, p store.Pending) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.next++
	p.ID = m.next
	m.rows[p.ID] = p
	return p.ID, nil
}

func (m *memOutbox) DonePending(_ context.Context, id int64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.rows, id)
	return nil
}

func (m *memOutbox) PendingSends(context.Context) ([]store.Pending, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []store.Pending
	for i := int64(1); i <= m.next; i++ {
		if p, ok := m.rows[i]; ok {
			out = append(out, p)
		}
	}
	return out, nil
}

func (m *memOutbox) AddDecision(_ context.Context, d store.Decision) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.decisions = append(m.decisions, d)
	return nil
}

func TestSendIsRecordedOnlyAfterTheChannelAnswers(t *testing.T) {
	ob := newMemOutbox()
	snd := &fakeSender{}
	devs := devices("phone")
	d := New(snd, devs, quiet, Options{Outbox: ob, Decisions: ob, LogContent: true})
	n := note
	n.Created = time.Now()
	n.Name = "api"
	rep := d.DeliverTo(context.Background(), n, devs.devs)
	if !rep.Sent || len(ob.rows) != 0 {
		t.Fatalf("report %+v, outbox rows left %d", rep, len(ob.rows))
	}
	if len(ob.decisions) != 1 {
		t.Fatalf("decisions = %+v", ob.decisions)
	}
	got := ob.decisions[0]
	if got.Outcome != "sent" || got.Channel != "webpush" || got.Device != "phone" || got.Name != "api" ||
		got.Kind != "blocked" || got.Content != "api\nDo you want to proceed?" {
		t.Fatalf("decision = %+v", got)
	}
}

func TestRecoverResendsFreshDropsStale(t *testing.T) {
	ob := newMemOutbox()
	devs := devices("phone")
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	fresh, stale := note, note
	fresh.Created, fresh.Body = now.Add(-time.Minute), "fresh"
	stale.Created, stale.Body = now.Add(-11*time.Minute), "stale" // TTL 10 min
	for _, n := range []struct {
		n   any
		exp time.Time
	}{{fresh, fresh.Created.Add(fresh.TTL)}, {stale, stale.Created.Add(stale.TTL)}} {
		b, _ := json.Marshal(n.n)
		ob.AddPending(context.Background(), store.Pending{DeviceID: 1, Created: now, Expires: n.exp, Notification: b})
	}
	// A row for a device removed meanwhile, and one that is not JSON.
	ob.AddPending(context.Background(), store.Pending{DeviceID: 99, Expires: now.Add(time.Hour), Notification: []byte(`{}`)})
	ob.AddPending(context.Background(), store.Pending{DeviceID: 1, Expires: now.Add(time.Hour), Notification: []byte(`not json`)})

	snd := &fakeSender{}
	// The deliverer's queue must be made inside the bubble for Wait to see
	// its worker blocked on it.
	synctest.Test(t, func(t *testing.T) {
		d := New(snd, devs, quiet, Options{Outbox: ob, Decisions: ob, Now: func() time.Time { return now }})
		resent, dropped, err := d.Recover(context.Background())
		if err != nil || resent != 1 || dropped != 3 {
			t.Fatalf("recover = %d resent, %d dropped, %v; want 1, 3", resent, dropped, err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { d.Run(ctx, 1); close(done) }()
		synctest.Wait() // the worker has drained the queue and blocks
		cancel()
		<-done
	})
	if len(ob.decisions) != 3 || ob.decisions[0].Reason != "expired-at-restart" ||
		!strings.Contains(ob.decisions[0].Detail, "10m0s TTL") || ob.decisions[1].Reason != "unreadable" ||
		ob.decisions[2].Outcome != "sent" {
		t.Fatalf("decisions = %+v", ob.decisions)
	}
	if len(ob.rows) != 0 {
		t.Fatalf("outbox rows left after the resend: %d", len(ob.rows))
	}
	if len(snd.sends) != 1 {
		t.Fatalf("sends after recover = %d, want the fresh one", len(snd.sends))
	}
	var sent map[string]any
	json.Unmarshal(mustPayload(t, snd.sends[0]), &sent)
	if sent["body"] != "fresh" {
		t.Fatalf("resent %v, want the fresh notification", sent["body"])
	}
}

func mustPayload(t *testing.T, s sent) []byte {
	t.Helper()
	return s.msg.Payload
}
