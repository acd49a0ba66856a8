package channel

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/attn-dev/attn/internal/notification"
	"github.com/attn-dev/attn/internal/store"
)

// memStore is an in-memory Store.
type memStore struct {
	mu       sync.Mutex
	chans    []store.Channel
	outcomes map[int64][]string
	refs     []store.ChannelRef
	rows     []store.Decision
}

func (m *memStore) Channels(context.Context) ([]store.Channel, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]store.Channel(nil), m.chans...), nil
}
func (m *memStore) AddChannel(_ context.Context, name, kind, raw string) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, c := range m.chans {
		if c.Name == name {
			return 0, store.ErrExists
		}
	}
	id := int64(len(m.chans) + 1)
	m.chans = append(m.chans, store.Channel{ID: id, Name: name, Kind: kind, URL: raw, Kinds: map[string]bool{}})
	return id, nil
}
func (m *memStore) RemoveChannel(_ context.Context, name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, c := range m.chans {
		if c.Name == name {
			m.chans = append(m.chans[:i], m.chans[i+1:]...)
			return nil
		}
	}
	return store.ErrNotFound
}
func (m *memStore) SetChannelKind(_ context.Context, id int64, kind string, on, def bool) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i := range m.chans {
		if m.chans[i].ID == id {
			if def {
				delete(m.chans[i].Kinds, kind)
			} else {
				m.chans[i].Kinds[kind] = on
			}
			return nil
		}
	}
	return store.ErrNotFound
}
func (m *memStore) RecordChannelOutcome(_ context.Context, id int64, outcome, detail string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.outcomes == nil {
		m.outcomes = map[int64][]string{}
	}
	m.outcomes[id] = append(m.outcomes[id], outcome)
	return nil
}
func (m *memStore) SaveChannelRef(_ context.Context, r store.ChannelRef) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.refs = append(m.refs, r)
	return nil
}
func (m *memStore) TakeChannelRefs(_ context.Context, fp string) ([]store.ChannelRef, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out, keep []store.ChannelRef
	for _, r := range m.refs {
		if r.Fingerprint == fp {
			out = append(out, r)
		} else {
			keep = append(keep, r)
		}
	}
	m.refs = keep
	return out, nil
}
func (m *memStore) PruneChannelRefs(context.Context, time.Time) error            { return nil }
func (m *memStore) AddChannelToken(context.Context, int64, string) (bool, error) { return false, nil }
func (m *memStore) AddDecision(_ context.Context, d store.Decision) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.rows = append(m.rows, d)
	return nil
}
func (m *memStore) decisions() []store.Decision {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]store.Decision(nil), m.rows...)
}

// fakeChannel answers with a scripted function and records each send.
type fakeChannel struct {
	kind  string
	mu    sync.Mutex
	sends []sent
	fn    func(ctx context.Context, m Message) Result
	clrs  []string
}

type sent struct {
	at time.Time
	m  Message
}

func (f *fakeChannel) Kind() string { return f.kind }
func (f *fakeChannel) Capabilities() Capabilities {
	return Capabilities{Title: true, Body: true, Clear: true}
}
func (f *fakeChannel) Send(ctx context.Context, m Message) Result {
	f.mu.Lock()
	f.sends = append(f.sends, sent{time.Now(), m})
	fn := f.fn
	f.mu.Unlock()
	if fn == nil {
		return Delivered("ref-" + m.Title)
	}
	return fn(ctx, m)
}
func (f *fakeChannel) Clear(_ context.Context, ref string) Result {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.clrs = append(f.clrs, ref)
	return Delivered(ref)
}
func (f *fakeChannel) log() []sent {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]sent(nil), f.sends...)
}

func newDispatcher(t *testing.T, st *memStore, chans map[string]*fakeChannel, opt Options) *Dispatcher {
	t.Helper()
	for name, ch := range chans {
		st.AddChannel(context.Background(), name, ch.kind, ch.kind+"://x")
	}
	opt.Decisions = st
	opt.Open = func(c store.Channel) (Channel, error) {
		ch, ok := chans[c.Name]
		if !ok {
			return nil, fmt.Errorf("unknown")
		}
		return ch, nil
	}
	opt.Parse = func(raw string) (string, string, error) { return "fake", raw, nil }
	d := NewDispatcher(st, opt)
	if err := d.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	return d
}

// serve runs d until the returned stop is called.
func serve(d *Dispatcher) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { d.Run(ctx); close(done) }()
	return func() { cancel(); <-done }
}

func note(title string, ttl time.Duration) notification.Notification {
	return notification.Notification{Kind: notification.KindBlocked, Title: title, Body: "b", Renotify: true,
		Fingerprint: "fp-" + title, TTL: ttl, Created: time.Now()}
}

func targets(d *Dispatcher) []Target {
	ts, _ := d.Targets(context.Background())
	return ts
}

func TestRetryHonorsRetryAfter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		calls := 0
		ch := &fakeChannel{kind: "telegram", fn: func(context.Context, Message) Result {
			calls++
			if calls == 1 {
				return Retry("429 Too Many Requests", 7*time.Second)
			}
			return Delivered("")
		}}
		st := &memStore{}
		d := newDispatcher(t, st, map[string]*fakeChannel{"tg": ch}, Options{})
		out := d.Deliver(context.Background(), note("q", 10*time.Minute), targets(d))
		if out[0].Outcome != "delivered" {
			t.Fatalf("outcome %+v", out[0])
		}
		log := ch.log()
		if len(log) != 2 || log[1].at.Sub(log[0].at) != 7*time.Second {
			t.Fatalf("sends %d, gap %v: want the retry exactly 7s later", len(log), log[1].at.Sub(log[0].at))
		}
	})
}

func TestAtMostThreeAttemptsWithBackoff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ch := &fakeChannel{kind: "ntfy", fn: func(context.Context, Message) Result { return Retry("503 Service Unavailable", 0) }}
		st := &memStore{}
		d := newDispatcher(t, st, map[string]*fakeChannel{"n": ch}, Options{})
		out := d.Deliver(context.Background(), note("q", 10*time.Minute), targets(d))
		log := ch.log()
		if len(log) != 3 || log[1].at.Sub(log[0].at) != time.Second || log[2].at.Sub(log[1].at) != 2*time.Second {
			t.Fatalf("%d sends", len(log))
		}
		if out[0].Outcome != "retry" || !strings.Contains(out[0].Detail, "503") {
			t.Fatalf("outcome %+v", out[0])
		}
		rows := st.decisions()
		if len(rows) != 1 || rows[0].Outcome != store.DecisionFailed || !strings.Contains(rows[0].Detail, "after 3 attempts") ||
			rows[0].Channel != "ntfy" || rows[0].Device != "n" {
			t.Fatalf("decisions %+v", rows)
		}
	})
}

func TestRetryAfterBeyondTTLGivesUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ch := &fakeChannel{kind: "ntfy", fn: func(context.Context, Message) Result { return Retry("429", 50*time.Second) }}
		d := newDispatcher(t, &memStore{}, map[string]*fakeChannel{"n": ch}, Options{})
		out := d.Deliver(context.Background(), note("q", 30*time.Second), targets(d))
		if len(ch.log()) != 1 || !strings.Contains(out[0].Detail, "past its TTL") {
			t.Fatalf("%d sends, %+v", len(ch.log()), out[0])
		}
	})
}

func TestStalledChannelNeverDelaysAnother(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		stall := &fakeChannel{kind: "ntfy", fn: func(ctx context.Context, _ Message) Result {
			<-ctx.Done() // a push service that never answers: the attempt times out
			return Retry("no answer in time", 0)
		}}
		fast := &fakeChannel{kind: "gotify"}
		st := &memStore{}
		d := newDispatcher(t, st, map[string]*fakeChannel{"slow": stall, "fast": fast}, Options{})
		defer serve(d)()
		start := time.Now()
		if q, refused := d.Enqueue(context.Background(), note("q", 10*time.Minute), targets(d)); q != 2 || len(refused) != 0 {
			t.Fatalf("queued %d refused %v", q, refused)
		}
		synctest.Wait()
		if got := fast.log(); len(got) != 1 || got[0].at.Sub(start) >= time.Second {
			t.Fatalf("fast channel: %d sends", len(got))
		}
		if len(stall.log()) != 1 {
			t.Fatal("stalled channel not tried")
		}
	})
}

func TestOutageNeverSendsStale(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		t0 := time.Now()
		outage := 20 * time.Minute
		ch := &fakeChannel{kind: "ntfy", fn: func(ctx context.Context, m Message) Result {
			if time.Since(t0) < outage {
				<-ctx.Done()
				return Retry("no answer in time", 0)
			}
			return Delivered("")
		}}
		st := &memStore{}
		d := newDispatcher(t, st, map[string]*fakeChannel{"n": ch}, Options{})
		defer serve(d)()
		// A burst as the outage starts (each costs the stalled channel
		// three timed-out attempts, so a backlog builds up), then one
		// notification a minute until after it ends.
		for i := range 40 {
			d.Enqueue(context.Background(), note(fmt.Sprintf("burst%d", i), 10*time.Minute), targets(d))
		}
		for i := range 25 {
			d.Enqueue(context.Background(), note(fmt.Sprintf("n%d", i), 10*time.Minute), targets(d))
			time.Sleep(time.Minute)
		}
		time.Sleep(time.Hour) // let the queue drain
		synctest.Wait()
		delivered := 0
		for _, s := range ch.log() {
			if s.at.Sub(t0) >= outage {
				if age := s.at.Sub(s.m.Created); age >= 10*time.Minute {
					t.Errorf("%s sent %s after it was made, past its 10m TTL", s.m.Title, age)
				}
				delivered++
			}
		}
		if delivered == 0 {
			t.Fatal("nothing delivered after the outage")
		}
		expired := 0
		for _, r := range st.decisions() {
			if r.Reason == "expired" {
				expired++
			}
		}
		if expired == 0 {
			t.Fatal("no notification was dropped as expired: the test did not exercise the TTL")
		}
	})
}

func TestQueueFullRefusesAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		block := make(chan struct{})
		ch := &fakeChannel{kind: "ntfy", fn: func(ctx context.Context, _ Message) Result {
			select {
			case <-block:
			case <-ctx.Done():
			}
			return Delivered("")
		}}
		st := &memStore{}
		d := newDispatcher(t, st, map[string]*fakeChannel{"n": ch}, Options{QueueSize: 2})
		defer serve(d)()
		d.Enqueue(context.Background(), note("a", time.Hour), targets(d))
		synctest.Wait() // the worker holds "a"
		d.Enqueue(context.Background(), note("b", time.Hour), targets(d))
		d.Enqueue(context.Background(), note("c", time.Hour), targets(d))
		q, refused := d.Enqueue(context.Background(), note("d", time.Hour), targets(d))
		if q != 0 || len(refused) != 1 || !strings.Contains(refused[0].Detail, "queue is full") {
			t.Fatalf("queued %d refused %+v", q, refused)
		}
		rows := st.decisions()
		if last := rows[len(rows)-1]; last.Reason != "queue-full" || last.Outcome != store.DecisionFailed {
			t.Fatalf("decision %+v", last)
		}
		close(block)
	})
}

func TestFailingReportedOnceAnHour(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ch := &fakeChannel{kind: "ntfy", fn: func(context.Context, Message) Result { return Failed("403 Forbidden: forbidden") }}
		st := &memStore{}
		var mu sync.Mutex
		var reports []string
		opt := Options{OnFailing: func(_ context.Context, key, title, body string) {
			mu.Lock()
			reports = append(reports, key+"|"+title+"|"+body)
			mu.Unlock()
		}}
		st.chans = nil
		d := newDispatcher(t, st, map[string]*fakeChannel{"phone": ch}, opt)
		d.workers[1].cfg.Created = time.Now()
		send := func() { d.Deliver(context.Background(), note("q", time.Hour), targets(d)) }
		send()
		time.Sleep(11 * time.Minute)
		send()
		time.Sleep(20 * time.Minute)
		send()
		time.Sleep(45 * time.Minute)
		send()
		mu.Lock()
		defer mu.Unlock()
		if len(reports) != 2 || !strings.HasPrefix(reports[0], "channel-failing:phone|attn cannot reach channel 'phone'|") ||
			!strings.Contains(reports[0], "403 Forbidden") || !strings.Contains(reports[0], "attn channel test phone") {
			t.Fatalf("reports %q", reports)
		}
	})
}

func TestClearGoesToTheChannelThatShowedIt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, b := &fakeChannel{kind: "ntfy"}, &fakeChannel{kind: "telegram"}
		st := &memStore{}
		d := newDispatcher(t, st, map[string]*fakeChannel{"a": a, "b": b}, Options{})
		defer serve(d)()
		d.Deliver(context.Background(), note("q", time.Hour), targets(d))
		d.Clear(context.Background(), "fp-q")
		d.Clear(context.Background(), "fp-q") // twice: nothing left to clear
		synctest.Wait()
		if len(a.clrs) != 1 || a.clrs[0] != "ref-q" || len(b.clrs) != 1 {
			t.Fatalf("clears %v %v", a.clrs, b.clrs)
		}
	})
}

func TestExpiredNotSentAtAll(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ch := &fakeChannel{kind: "ntfy"}
		st := &memStore{}
		d := newDispatcher(t, st, map[string]*fakeChannel{"n": ch}, Options{})
		n := note("old", time.Minute)
		n.Created = time.Now().Add(-2 * time.Minute)
		out := d.Deliver(context.Background(), n, targets(d))
		if len(ch.log()) != 0 || out[0].Outcome != store.DecisionSuppressed {
			t.Fatalf("%d sends, %+v", len(ch.log()), out[0])
		}
	})
}

func TestManage(t *testing.T) {
	st := &memStore{}
	ch := &fakeChannel{kind: "ntfy"}
	opt := Options{KindDefault: func(k string) bool { return k != "finished" }}
	d := newDispatcher(t, st, map[string]*fakeChannel{}, opt)
	d.opt.Open = func(store.Channel) (Channel, error) { return ch, nil }
	d.opt.Parse = func(raw string) (string, string, error) {
		if !strings.HasPrefix(raw, "ntfy://") {
			return "", "", fmt.Errorf("want ntfy://")
		}
		return "ntfy", "ntfy://***@host/to***", nil
	}
	on, off := true, false
	v, err := d.Add(context.Background(), "phone", "ntfy://tk_secret@host/topic", map[string]*bool{"finished": &on, "blocked": &on})
	if err != nil || v.URL != "ntfy://***@host/to***" || v.Kind != "ntfy" || !v.Choices["finished"] || len(v.Choices) != 1 {
		t.Fatalf("add: %+v %v", v, err)
	}
	if _, err := d.Add(context.Background(), "phone", "ntfy://h/t", nil); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Fatalf("duplicate: %v", err)
	}
	if _, err := d.Add(context.Background(), "bad name!", "ntfy://h/t", nil); err == nil || !strings.Contains(err.Error(), "1 to 40") {
		t.Fatalf("bad name: %v", err)
	}
	if _, err := d.Add(context.Background(), "x", "gopher://h", nil); err == nil || !strings.Contains(err.Error(), "want ntfy://") {
		t.Fatalf("bad url: %v", err)
	}
	if v, err = d.SetKinds(context.Background(), "phone", map[string]*bool{"finished": nil, "error": &off}); err != nil || len(v.Choices) != 1 || v.Choices["error"] {
		t.Fatalf("set kinds: %+v %v", v, err)
	}
	if d.Count() != 1 {
		t.Fatal("count")
	}
	out, err := d.Test(context.Background(), "phone")
	if err != nil || out.Outcome != "delivered" || ch.log()[0].m.Kind != notification.KindTest {
		t.Fatalf("test: %+v %v", out, err)
	}
	if err := d.Remove(context.Background(), "phone"); err != nil || d.Count() != 0 {
		t.Fatalf("remove: %v", err)
	}
	if err := d.Remove(context.Background(), "phone"); err == nil || !strings.Contains(err.Error(), "attn channel list") {
		t.Fatalf("remove again: %v", err)
	}
}

func TestDeliveredRowKeepsTheChannelsNote(t *testing.T) {
	ch := &fakeChannel{kind: "telegram", fn: func(context.Context, Message) Result {
		return Result{Status: StatusDelivered, Detail: "answer buttons dropped: too long"}
	}}
	st := &memStore{}
	d := newDispatcher(t, st, map[string]*fakeChannel{"tg": ch}, Options{})
	out := d.Deliver(context.Background(), note("q", time.Hour), targets(d))
	rows := st.decisions()
	if out[0].Outcome != "delivered" || out[0].Detail != "" || rows[0].Outcome != store.DecisionSent ||
		rows[0].Detail != "answer buttons dropped: too long" {
		t.Fatalf("outcome %+v, row %+v", out[0], rows[0])
	}
}
