package route

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/attn-dev/attn/internal/deliver"
	"github.com/attn-dev/attn/internal/inapp"
	"github.com/attn-dev/attn/internal/notification"
	"github.com/attn-dev/attn/internal/presence"
	"github.com/attn-dev/attn/internal/store"
)

type fakeDevices struct {
	devs    []store.Device
	choices map[int64]map[string]bool
}

func (f *fakeDevices) Devices(context.Context) ([]store.Device, error) { return f.devs, nil }
func (f *fakeDevices) DeviceKinds(context.Context) (map[int64]map[string]bool, error) {
	return f.choices, nil
}

type fakePush struct {
	mu       sync.Mutex
	waited   []string
	queued   []string
	queueErr error
}

func names(devs []store.Device) string {
	var out []string
	for _, d := range devs {
		out = append(out, d.Name)
	}
	return strings.Join(out, ",")
}

func (f *fakePush) DeliverTo(_ context.Context, n notification.Notification, devs []store.Device) deliver.Report {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.waited = append(f.waited, names(devs))
	var outs []deliver.DeviceOutcome
	for _, d := range devs {
		outs = append(outs, deliver.DeviceOutcome{DeviceID: d.ID, Name: d.Name, Channel: "webpush", Outcome: "delivered"})
	}
	return deliver.Summarize(outs)
}

func (f *fakePush) Enqueue(_ context.Context, n notification.Notification, devs []store.Device) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.queueErr != nil {
		return f.queueErr
	}
	f.queued = append(f.queued, names(devs))
	return nil
}

type memLog struct {
	rows []store.Decision
}

func (m *memLog) AddDecision(_ context.Context, d store.Decision) error {
	m.rows = append(m.rows, d)
	return nil
}

func (m *memLog) summary() string {
	var out []string
	for _, d := range m.rows {
		out = append(out, d.Device+":"+d.Outcome+":"+d.Reason+":"+d.Channel)
	}
	return strings.Join(out, " ")
}

var now = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

func newRouter() (*Router, *fakeDevices, *fakePush, *memLog) {
	devs := &fakeDevices{devs: []store.Device{{ID: 1, Name: "phone"}, {ID: 2, Name: "laptop"}, {ID: 3, Name: "tablet"}},
		choices: map[int64]map[string]bool{}}
	push, log := &fakePush{}, &memLog{}
	r := &Router{Devices: devs, Presence: presence.NewRegistry(), InApp: inapp.NewBroker(), WebPush: push,
		Decisions: log, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: func() time.Time { return now }}
	return r, devs, push, log
}

var blocked = notification.Notification{Kind: notification.KindBlocked, Title: "api", Host: "box", Pane: "%3", Created: now}

func TestKindChoices(t *testing.T) {
	r, devs, push, log := newRouter()
	devs.choices[2] = map[string]bool{"blocked": false}
	devs.choices[3] = map[string]bool{"finished": true}
	r.Route(context.Background(), blocked, false)
	finished := blocked
	finished.Kind = notification.KindFinished
	r.Route(context.Background(), finished, false)
	if got := strings.Join(push.queued, " | "); got != "phone,tablet | tablet" {
		t.Fatalf("queued %q: want blocked to phone and tablet, finished (off by default) to tablet only", got)
	}
	if got := log.summary(); got != "laptop:suppressed:kind-off: phone:suppressed:kind-off: laptop:suppressed:kind-off:" {
		t.Fatalf("decisions %q", got)
	}
}

func TestTestReachesEveryDeviceWhateverItChose(t *testing.T) {
	r, devs, push, _ := newRouter()
	for id := range int64(3) {
		devs.choices[id+1] = map[string]bool{"blocked": false, "asked": false, "error": false}
	}
	rep := r.Route(context.Background(), notification.Notification{Kind: notification.KindTest, Created: now}, true)
	if !rep.Sent || strings.Join(push.waited, "|") != "phone,laptop,tablet" {
		t.Fatalf("report %+v, waited %q", rep, push.waited)
	}
}

func TestPresence(t *testing.T) {
	r, _, push, log := newRouter()
	win, cancel := r.InApp.Subscribe(1)
	defer cancel()
	r.Presence.Report(1, presence.State{Visible: true, At: now.Add(-10 * time.Second)})           // phone: app visible
	r.Presence.Report(2, presence.State{Visible: true, Focused: "box/%3", At: now})               // laptop: on this very pane
	r.Presence.Report(3, presence.State{Visible: true, At: now.Add(-presence.TTL - time.Second)}) // tablet: stale report
	rep := r.Route(context.Background(), blocked, false)
	if got := strings.Join(push.queued, "|"); got != "tablet" {
		t.Fatalf("pushed to %q: want only the tablet (its presence lapsed)", got)
	}
	select {
	case n := <-win:
		if n.Title != "api" {
			t.Fatalf("in-app got %+v", n)
		}
	default:
		t.Fatal("the phone's visible window got nothing")
	}
	if !rep.Sent || !rep.Queued || strings.Join(rep.Transports, ",") != "inapp" {
		t.Fatalf("report %+v", rep)
	}
	if got := log.summary(); got != "phone:sent::inapp laptop:suppressed:focused:inapp" {
		t.Fatalf("decisions %q", got)
	}
}

func TestVisibleWithoutAWindowListeningStillPushes(t *testing.T) {
	r, _, push, _ := newRouter()
	r.Presence.Report(1, presence.State{Visible: true, At: now})
	r.Route(context.Background(), blocked, false)
	if got := strings.Join(push.queued, "|"); got != "phone,laptop,tablet" {
		t.Fatalf("pushed to %q", got)
	}
}

func TestFocusedOnAnotherPaneGetsTheToast(t *testing.T) {
	r, _, push, _ := newRouter()
	win, cancel := r.InApp.Subscribe(2)
	defer cancel()
	r.Presence.Report(2, presence.State{Visible: true, Focused: "box/%9", At: now})
	r.Route(context.Background(), blocked, false)
	if len(win) != 1 || strings.Join(push.queued, "|") != "phone,tablet" {
		t.Fatalf("toasts %d, pushed %q", len(win), push.queued)
	}
}

func TestNoDeviceAndFullQueue(t *testing.T) {
	r, devs, push, log := newRouter()
	push.queueErr = deliver.ErrQueueFull
	if rep := r.Route(context.Background(), blocked, false); !rep.QueueFull {
		t.Fatalf("report %+v: want QueueFull so the wait is retried", rep)
	}
	devs.devs = nil
	rep := r.Route(context.Background(), blocked, true)
	if rep.Sent || !strings.Contains(rep.Detail, "no device is registered") || !strings.Contains(log.summary(), ":suppressed:no-device:") {
		t.Fatalf("report %+v, decisions %q", rep, log.summary())
	}
}

func TestKindEnabledDefaults(t *testing.T) {
	for kind, want := range map[notification.Kind]bool{"blocked": true, "asked": true, "error": true, "test": true, "finished": false} {
		if got := KindEnabled(nil, kind); got != want {
			t.Errorf("%s default = %v, want %v", kind, got, want)
		}
	}
	if KindEnabled(map[string]bool{"finished": true}, "finished") != true {
		t.Error("a stored choice did not override the default")
	}
}
