package channel

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/attn-dev/attn/internal/deliver"
	"github.com/attn-dev/attn/internal/notification"
	"github.com/attn-dev/attn/internal/store"
)

// Store is what the Dispatcher keeps in the store (implemented by
// *store.Store).
type Store interface {
	Channels(ctx context.Context) ([]store.Channel, error)
	AddChannel(ctx context.Context, name, kind, rawURL string) (int64, error)
	RemoveChannel(ctx context.Context, name string) error
	SetChannelKind(ctx context.Context, id int64, kind string, enabled, isDefault bool) error
	RecordChannelOutcome(ctx context.Context, id int64, outcome, detail string) error
	SaveChannelRef(ctx context.Context, r store.ChannelRef) error
	TakeChannelRefs(ctx context.Context, fingerprint string) ([]store.ChannelRef, error)
	PruneChannelRefs(ctx context.Context, before time.Time) error
	AddChannelToken(ctx context.Context, id int64, token string) (revived bool, err error)
}

// Opener builds a live channel from its stored configuration; the error
// says what is wrong with it and what to do.
type Opener func(cfg store.Channel) (Channel, error)

// Parser checks a channel URL and returns its kind and its redacted form
// (secrets replaced by "***"); the error says what to write instead.
type Parser func(rawURL string) (kind, redacted string, err error)

// Options configure a Dispatcher. Zero values take the documented
// defaults.
type Options struct {
	// Attempts bounds tries per send on retryable answers (default 3).
	Attempts int
	// AttemptTimeout bounds one attempt: connect, send and answer
	// (default 15 s, as seed 003 §8 does for FCM).
	AttemptTimeout time.Duration
	// Backoff is the first wait between tries, doubled each time, when
	// the service did not say how long (default 1 s).
	Backoff time.Duration
	// MaxBackoff caps one wait between tries; a service asking for longer
	// (Retry-After) is not retried early but given up on (default 60 s).
	MaxBackoff time.Duration
	// QueueSize bounds each channel's queue (default 64). A full queue
	// refuses new work at once: detection never waits on a channel.
	QueueSize int
	// FailingAfter is how long a channel must have failed before it is
	// reported through OnFailing (default 10 min), at most once per
	// ReportEvery (default 1 h).
	FailingAfter, ReportEvery time.Duration
	// PublicURL is attn's public base URL (--public-url): click links and
	// answer buttons need it.
	PublicURL string
	// Decisions, when set, gets one row per channel and send.
	Decisions deliver.DecisionLog
	// LogContent keeps notification text in decision rows.
	LogContent bool
	// OnFailing raises an error notification (the pipeline engine's
	// Error(ctx, key, title, body)); nil: only logged.
	OnFailing func(ctx context.Context, key, title, body string)
	// KindDefault says whether a kind is on for a channel that chose
	// nothing (the router's defaults: blocked, asked, error on).
	KindDefault func(kind string) bool
	// Parse and Open turn stored URLs into channels.
	Parse Parser
	Open  Opener
	Log   *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Dispatcher delivers notifications to the configured channels and
// manages their configuration. Create it with NewDispatcher, load the
// channels with Reload, and serve the queues with Run.
type Dispatcher struct {
	st  Store
	opt Options
	log *slog.Logger

	mu      sync.Mutex
	workers map[int64]*worker
	runCtx  context.Context
	wg      sync.WaitGroup
}

// worker is one configured channel: its live Channel and its queue.
type worker struct {
	cfg      store.Channel // ID, Name, Kind, Created: fixed; Kinds: under Dispatcher.mu
	ch       Channel       // nil when it could not be opened
	openErr  error
	redacted string
	queue    chan job
	cancel   context.CancelFunc

	mu          sync.Mutex // guards the two below
	lastSuccess time.Time
	lastReport  time.Time
}

// job is one queued send, or (clearRef set) one clear.
type job struct {
	n        notification.Notification
	clearRef string
}

// Target is a channel the router may send to, with its kind choices.
type Target struct {
	ID    int64
	Name  string
	Kind  string
	Kinds map[string]bool // changed choices only: absent kinds follow the default
}

// NewDispatcher returns a Dispatcher over st.
func NewDispatcher(st Store, opt Options) *Dispatcher {
	if opt.Attempts <= 0 {
		opt.Attempts = 3
	}
	if opt.AttemptTimeout <= 0 {
		opt.AttemptTimeout = 15 * time.Second
	}
	if opt.Backoff <= 0 {
		opt.Backoff = time.Second
	}
	if opt.MaxBackoff <= 0 {
		opt.MaxBackoff = time.Minute
	}
	if opt.QueueSize <= 0 {
		opt.QueueSize = 64
	}
	if opt.FailingAfter <= 0 {
		opt.FailingAfter = 10 * time.Minute
	}
	if opt.ReportEvery <= 0 {
		opt.ReportEvery = time.Hour
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Log == nil {
		opt.Log = slog.New(slog.DiscardHandler)
	}
	opt.PublicURL = strings.TrimRight(opt.PublicURL, "/")
	return &Dispatcher{st: st, opt: opt, log: opt.Log, workers: map[int64]*worker{}}
}

// Reload reads the channels from the store: new ones are opened (and
// started when Run is serving), removed ones stopped, changed kind choices
// applied. A channel that cannot be opened stays listed, and every send
// to it fails saying why.
func (d *Dispatcher) Reload(ctx context.Context) error {
	chans, err := d.st.Channels(ctx)
	if err != nil {
		return fmt.Errorf("load channels: %w", err)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	seen := map[int64]bool{}
	for _, c := range chans {
		seen[c.ID] = true
		if w, ok := d.workers[c.ID]; ok {
			w.cfg.Kinds = c.Kinds
			continue
		}
		w := &worker{cfg: c, queue: make(chan job, d.opt.QueueSize), lastSuccess: c.LastSuccessAt}
		w.redacted = c.Kind + "://…"
		if d.opt.Parse != nil {
			if _, red, err := d.opt.Parse(c.URL); err == nil {
				w.redacted = red
			}
		}
		if d.opt.Open == nil {
			w.openErr = fmt.Errorf("no channel opener is configured")
		} else if w.ch, w.openErr = d.opt.Open(c); w.openErr != nil {
			d.log.Error("channel cannot be opened; fix it with `attn channel remove` and `attn channel add`",
				"channel", c.Name, "kind", c.Kind, "err", w.openErr)
		}
		d.workers[c.ID] = w
		if d.runCtx != nil {
			d.start(w)
		}
	}
	for id, w := range d.workers {
		if !seen[id] {
			if w.cancel != nil {
				w.cancel()
			}
			delete(d.workers, id)
		}
	}
	return nil
}

// Run serves every channel's queue (and two-way channels' listeners)
// until ctx ends, then waits for sends in flight to finish (each bounded
// by its attempt timeout).
func (d *Dispatcher) Run(ctx context.Context) {
	d.mu.Lock()
	d.runCtx = ctx
	for _, w := range d.workers {
		d.start(w)
	}
	d.mu.Unlock()
	t := time.NewTicker(time.Hour)
	defer t.Stop()
	for {
		if err := d.st.PruneChannelRefs(ctx, d.opt.Now().Add(-RefRetention)); err != nil && ctx.Err() == nil {
			d.log.Warn("cannot prune channel message references", "err", err)
		}
		select {
		case <-ctx.Done():
			d.mu.Lock()
			d.runCtx = nil
			d.mu.Unlock()
			d.wg.Wait()
			return
		case <-t.C:
		}
	}
}

// RefRetention is how long a shown message's reference is kept for
// clearing: longer than any notification's TTL.
const RefRetention = 24 * time.Hour

// start runs w's queue and listener; d.mu is held.
func (d *Dispatcher) start(w *worker) {
	ctx, cancel := context.WithCancel(d.runCtx)
	w.cancel = cancel
	d.wg.Go(func() { d.serve(ctx, w) })
	if r, ok := w.ch.(Runner); ok {
		d.wg.Go(func() {
			if err := r.Run(ctx); err != nil && ctx.Err() == nil {
				d.log.Error("channel listener stopped", "channel", w.cfg.Name, "kind", w.cfg.Kind, "err", err)
			}
		})
	}
}

func (d *Dispatcher) serve(ctx context.Context, w *worker) {
	for {
		select {
		case <-ctx.Done():
			return
		case j := <-w.queue:
			if j.clearRef != "" {
				d.clearOne(ctx, w, j.clearRef)
			} else {
				d.deliver(ctx, w, j.n)
			}
		}
	}
}

// Targets lists the channels the router may send to.
func (d *Dispatcher) Targets(context.Context) ([]Target, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]Target, 0, len(d.workers))
	for _, w := range d.workers {
		out = append(out, Target{ID: w.cfg.ID, Name: w.cfg.Name, Kind: w.cfg.Kind, Kinds: w.cfg.Kinds})
	}
	sortTargets(out)
	return out, nil
}

// Count returns how many channels are configured.
func (d *Dispatcher) Count() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.workers)
}

func sortTargets(ts []Target) {
	slices.SortFunc(ts, func(a, b Target) int { return cmp.Compare(a.ID, b.ID) })
}

func (d *Dispatcher) worker(id int64) *worker {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.workers[id]
}

func (d *Dispatcher) workerNamed(name string) *worker {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, w := range d.workers {
		if w.cfg.Name == name {
			return w
		}
	}
	return nil
}

// Deliver sends n to every target concurrently and waits for each answer
// (retries included).
func (d *Dispatcher) Deliver(ctx context.Context, n notification.Notification, targets []Target) []deliver.DeviceOutcome {
	out := make([]deliver.DeviceOutcome, len(targets))
	var wg sync.WaitGroup
	for i, t := range targets {
		w := d.worker(t.ID)
		if w == nil {
			out[i] = deliver.DeviceOutcome{Name: t.Name, Channel: t.Kind, Outcome: string(StatusFailed), Detail: "the channel was removed"}
			continue
		}
		wg.Go(func() { out[i] = d.deliver(ctx, w, n) })
	}
	wg.Wait()
	return out
}

// Enqueue queues n for every target without waiting and returns how many
// took it. A target whose queue is full refuses it at once: its outcome
// (failed, "queue-full") is returned and logged.
func (d *Dispatcher) Enqueue(ctx context.Context, n notification.Notification, targets []Target) (queued int, refused []deliver.DeviceOutcome) {
	if n.Created.IsZero() {
		n.Created = d.opt.Now()
	}
	for _, t := range targets {
		w := d.worker(t.ID)
		if w == nil {
			continue
		}
		select {
		case w.queue <- job{n: n}:
			queued++
		default:
			res := Result{Status: StatusFailed, Detail: fmt.Sprintf("its queue is full (%d waiting): the channel is stalled; this notification was not sent to it", cap(w.queue))}
			refused = append(refused, d.record(w, n, Message{}, res, 0, "queue-full"))
		}
	}
	return queued, refused
}

// deliver adapts n to w's channel and sends it: a timeout per attempt, at
// most Attempts tries on retryable answers with backoff honoring the
// service's wait, never past the notification's TTL.
func (d *Dispatcher) deliver(ctx context.Context, w *worker, n notification.Notification) deliver.DeviceOutcome {
	if n.Created.IsZero() {
		n.Created = d.opt.Now()
	}
	if w.ch == nil {
		return d.record(w, n, Message{}, Failed(fmt.Sprintf("the channel cannot be opened: %v", w.openErr)), 0, "")
	}
	m := Adapt(n, w.ch.Capabilities(), d.opt.PublicURL)
	var res Result
	attempts := 0
	for {
		if !d.opt.Now().Before(m.Expires) {
			res = Result{Status: StatusExpired, Detail: fmt.Sprintf("older than its TTL (%s): not sent late", m.Expires.Sub(m.Created))}
			break
		}
		attempts++
		// An attempt never outlives the notification: nothing lands late.
		actx, cancel := context.WithTimeout(ctx, min(d.opt.AttemptTimeout, m.Expires.Sub(d.opt.Now())))
		res = w.ch.Send(actx, m)
		cancel()
		if res.Status != StatusRetry || attempts >= d.opt.Attempts {
			break
		}
		wait := res.RetryAfter
		if wait <= 0 {
			wait = d.opt.Backoff << (attempts - 1)
		}
		if wait > d.opt.MaxBackoff {
			res.Detail += fmt.Sprintf(" (asked to wait %s, longer than attn waits)", wait)
			break
		}
		if !d.opt.Now().Add(wait).Before(m.Expires) {
			res.Detail += fmt.Sprintf(" (a retry in %s would be past its TTL)", wait)
			break
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			res.Detail += fmt.Sprintf(" (gave up: %v)", ctx.Err())
			return d.record(w, n, m, res, attempts, "")
		case <-t.C:
		}
	}
	return d.record(w, n, m, res, attempts, "")
}

// record stores an outcome on the channel and in the decision log, keeps
// the message reference for clearing, and reports a channel failing for
// long.
func (d *Dispatcher) record(w *worker, n notification.Notification, m Message, res Result, attempts int, reason string) deliver.DeviceOutcome {
	// Bookkeeping must land even when the sender's context has ended.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	now := d.opt.Now()
	out := deliver.DeviceOutcome{Name: w.cfg.Name, Channel: w.cfg.Kind, Outcome: string(res.Status), Detail: res.Detail}
	row := deliver.Decision(n, store.Device{Name: w.cfg.Name}, w.cfg.Kind)
	row.Outcome, row.Reason, row.Detail = store.DecisionFailed, cmpOr(reason, string(res.Status)), res.Detail
	if attempts > 1 {
		row.Detail += fmt.Sprintf(" (after %d attempts)", attempts)
	}
	switch res.Status {
	case StatusDelivered:
		out.Detail = ""
		notes := m.Dropped
		if res.Detail != "" { // a note from the channel, e.g. buttons it could not carry
			notes = append(notes[:len(notes):len(notes)], res.Detail)
		}
		row.Outcome, row.Reason, row.Detail = store.DecisionSent, "", strings.Join(notes, "; ")
		w.mu.Lock()
		w.lastSuccess = now
		w.mu.Unlock()
		if err := d.st.RecordChannelOutcome(ctx, w.cfg.ID, store.OutcomeDelivered, ""); err != nil {
			d.log.Error("cannot record channel outcome", "channel", w.cfg.Name, "err", err)
		}
		if res.Ref != "" && n.Fingerprint != "" {
			if err := d.st.SaveChannelRef(ctx, store.ChannelRef{ChannelID: w.cfg.ID, Fingerprint: n.Fingerprint, Ref: res.Ref, Created: now}); err != nil {
				d.log.Error("cannot keep the message reference; it will not be cleared when the wait clears", "channel", w.cfg.Name, "err", err)
			}
		}
	case StatusExpired:
		out.Outcome = store.DecisionSuppressed
		row.Outcome, row.Reason = store.DecisionSuppressed, "expired"
	default:
		if err := d.st.RecordChannelOutcome(ctx, w.cfg.ID, string(res.Status), res.Detail); err != nil {
			d.log.Error("cannot record channel outcome", "channel", w.cfg.Name, "err", err)
		}
	}
	if !d.opt.LogContent {
		row.Content = ""
	}
	if d.opt.Decisions != nil {
		if err := d.opt.Decisions.AddDecision(ctx, row); err != nil {
			d.log.Error("cannot log decision", "err", err)
		}
	}
	level := slog.LevelInfo
	if res.Status == StatusFailed || res.Status == StatusRetry || res.Status == StatusGone {
		level = slog.LevelWarn
	}
	d.log.Log(ctx, level, "channel send", "channel", w.cfg.Name, "kind", w.cfg.Kind, "notification", n.Kind,
		"outcome", res.Status, "detail", res.Detail, "attempts", attempts)
	if res.Status == StatusFailed || res.Status == StatusRetry {
		d.reportFailing(ctx, w, now, res.Detail)
	}
	return out
}

// reportFailing raises an error notification when w has failed for
// FailingAfter, at most once per ReportEvery.
func (d *Dispatcher) reportFailing(ctx context.Context, w *worker, now time.Time, detail string) {
	w.mu.Lock()
	since := w.lastSuccess
	if since.IsZero() {
		since = w.cfg.Created
	}
	due := now.Sub(since) >= d.opt.FailingAfter && (w.lastReport.IsZero() || now.Sub(w.lastReport) >= d.opt.ReportEvery)
	if due {
		w.lastReport = now
	}
	w.mu.Unlock()
	if !due || d.opt.OnFailing == nil {
		return
	}
	d.opt.OnFailing(ctx, "channel-failing:"+w.cfg.Name, fmt.Sprintf("attn cannot reach channel '%s'", w.cfg.Name),
		fmt.Sprintf("Sends to %s channel '%s' have failed for %s: %s. Check it with `attn channel test %s`.",
			w.cfg.Kind, w.cfg.Name, now.Sub(since).Round(time.Minute), detail, w.cfg.Name))
}

// Clear takes back or edits, on every channel that can, the messages
// shown for a fingerprint whose wait has cleared. It never blocks: the
// clears are queued behind the channel's sends (so a clear never
// overtakes the message it clears).
func (d *Dispatcher) Clear(ctx context.Context, fingerprint string) {
	if fingerprint == "" {
		return
	}
	refs, err := d.st.TakeChannelRefs(ctx, fingerprint)
	if err != nil {
		d.log.Warn("cannot read shown messages to clear", "fingerprint", fingerprint, "err", err)
		return
	}
	for _, r := range refs {
		w := d.worker(r.ChannelID)
		if w == nil {
			continue
		}
		if _, ok := w.ch.(Clearer); !ok {
			continue
		}
		select {
		case w.queue <- job{clearRef: r.Ref}:
		default:
			d.log.Warn("channel queue full: a shown message is not cleared", "channel", w.cfg.Name)
		}
	}
}

// clearOne clears one shown message, retrying like a send.
func (d *Dispatcher) clearOne(ctx context.Context, w *worker, ref string) {
	c, ok := w.ch.(Clearer)
	if !ok {
		return
	}
	var res Result
	for attempt := 1; ; attempt++ {
		actx, cancel := context.WithTimeout(ctx, d.opt.AttemptTimeout)
		res = c.Clear(actx, ref)
		cancel()
		if res.Status != StatusRetry || attempt >= d.opt.Attempts {
			break
		}
		wait := res.RetryAfter
		if wait <= 0 {
			wait = d.opt.Backoff << (attempt - 1)
		}
		if wait > d.opt.MaxBackoff {
			break
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
	d.log.Info("channel clear", "channel", w.cfg.Name, "kind", w.cfg.Kind, "outcome", res.Status, "detail", res.Detail)
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
