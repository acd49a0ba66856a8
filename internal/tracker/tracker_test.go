package tracker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/attn-dev/attn/internal/agent"
	"github.com/attn-dev/attn/internal/store"
)

// memSet is an in-memory NotifiedSet that can be made to fail.
type memSet struct {
	rows map[string]store.Announced
	fail error
}

func newMemSet() *memSet { return &memSet{rows: map[string]store.Announced{}} }

func (m *memSet) MarkNotified(_ context.Context, a store.Announced) (bool, error) {
	if m.fail != nil {
		return false, m.fail
	}
	if _, ok := m.rows[a.Fingerprint]; ok {
		return false, nil
	}
	m.rows[a.Fingerprint] = a
	return true, nil
}

func (m *memSet) Notified(context.Context) ([]store.Announced, error) {
	var out []store.Announced
	for _, a := range m.rows {
		out = append(out, a)
	}
	return out, nil
}

func (m *memSet) ForgetNotified(_ context.Context, fp string) error {
	if m.fail != nil {
		return m.fail
	}
	delete(m.rows, fp)
	return nil
}

var (
	t0      = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	paneA   = agent.PaneRef{Host: "box", Pane: "%1"}
	proceed = &agent.Question{Prompt: "Do you want to proceed?", Options: []string{"Yes", "No"}, AnswerStyle: agent.AnswerMenu}
	other   = &agent.Question{Prompt: "Edit file?", Options: []string{"Yes", "No"}, AnswerStyle: agent.AnswerMenu}
)

func blockedObs(q *agent.Question) Observation {
	return Observation{Ref: paneA, Incarnation: "100", Name: "api",
		Reading: agent.Reading{Agent: "claude", Status: agent.StatusBlocked, Question: q}}
}

func workingObs() Observation {
	return Observation{Ref: paneA, Incarnation: "100", Name: "api",
		Reading: agent.Reading{Agent: "claude", Status: agent.StatusWorking}}
}

func newTestBlocked(t *testing.T, set NotifiedSet) *Tracker {
	t.Helper()
	b, err := New(context.Background(), func(Observation) time.Duration { return 5 * time.Second }, set, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// step is one snapshot at an offset from t0, and how many announcements
// it must produce (and with which prompt, when one).
type step struct {
	at     time.Duration
	panes  []Observation
	want   int
	prompt string
}

func run(t *testing.T, b *Tracker, steps []step) {
	t.Helper()
	for i, s := range steps {
		got := settled(b.Observe(context.Background(), "box", t0.Add(s.at), s.panes))
		if len(got) != s.want {
			t.Fatalf("step %d at %v: %d announcements, want %d: %+v", i, s.at, len(got), s.want, got)
		}
		if s.want == 1 && got[0].Reading.Question.Prompt != s.prompt {
			t.Fatalf("step %d: announced %q, want %q", i, got[0].Reading.Question.Prompt, s.prompt)
		}
	}
}

func TestSettleThenOnce(t *testing.T) {
	b := newTestBlocked(t, newMemSet())
	run(t, b, []step{
		{0, []Observation{blockedObs(proceed)}, 0, ""},
		{4 * time.Second, []Observation{blockedObs(proceed)}, 0, ""},
		{5 * time.Second, []Observation{blockedObs(proceed)}, 1, proceed.Prompt},
		{6 * time.Second, []Observation{blockedObs(proceed)}, 0, ""},
		{60 * time.Second, []Observation{blockedObs(proceed)}, 0, ""},
	})
}

func TestClearedInsideSettleSendsNothing(t *testing.T) {
	b := newTestBlocked(t, newMemSet())
	run(t, b, []step{
		{0, []Observation{blockedObs(proceed)}, 0, ""},
		{2 * time.Second, []Observation{workingObs()}, 0, ""},
		{10 * time.Second, []Observation{workingObs()}, 0, ""},
	})
}

func TestChangedQuestionRestartsSettle(t *testing.T) {
	// A half-drawn frame then the full menu: one announcement, the full one.
	half := &agent.Question{Prompt: "Do you want to proceed?", AnswerStyle: agent.AnswerMenu}
	b := newTestBlocked(t, newMemSet())
	run(t, b, []step{
		{0, []Observation{blockedObs(half)}, 0, ""},
		{1 * time.Second, []Observation{blockedObs(proceed)}, 0, ""},
		{5 * time.Second, []Observation{blockedObs(proceed)}, 0, ""},
		{6 * time.Second, []Observation{blockedObs(proceed)}, 1, proceed.Prompt},
	})
}

func TestClearedThenReblockedNotifiesAgain(t *testing.T) {
	set := newMemSet()
	b := newTestBlocked(t, set)
	run(t, b, []step{
		{0, []Observation{blockedObs(proceed)}, 0, ""},
		{5 * time.Second, []Observation{blockedObs(proceed)}, 1, proceed.Prompt},
		{20 * time.Second, []Observation{workingObs()}, 0, ""},
	})
	if len(set.rows) != 0 {
		t.Fatalf("notified-set after clear = %v, want empty", set.rows)
	}
	run(t, b, []step{
		{30 * time.Second, []Observation{blockedObs(proceed)}, 0, ""},
		{35 * time.Second, []Observation{blockedObs(proceed)}, 1, proceed.Prompt},
	})
}

func TestNewQuestionReplacesOld(t *testing.T) {
	set := newMemSet()
	b := newTestBlocked(t, set)
	run(t, b, []step{
		{0, []Observation{blockedObs(proceed)}, 0, ""},
		{5 * time.Second, []Observation{blockedObs(proceed)}, 1, proceed.Prompt},
		{10 * time.Second, []Observation{blockedObs(other)}, 0, ""},
		{15 * time.Second, []Observation{blockedObs(other)}, 1, other.Prompt},
	})
	if len(set.rows) != 1 {
		t.Fatalf("notified-set = %v, want only the current question", set.rows)
	}
}

func TestRestartDoesNotAnnounceAgain(t *testing.T) {
	set := newMemSet()
	run(t, newTestBlocked(t, set), []step{
		{0, []Observation{blockedObs(proceed)}, 0, ""},
		{5 * time.Second, []Observation{blockedObs(proceed)}, 1, proceed.Prompt},
	})
	// A new decider on the same persisted set: the prompt is still there.
	run(t, newTestBlocked(t, set), []step{
		{time.Minute, []Observation{blockedObs(proceed)}, 0, ""},
		{2 * time.Minute, []Observation{blockedObs(proceed)}, 0, ""},
	})
}

func TestRestartMidSettleAnnouncesOnceAfter(t *testing.T) {
	set := newMemSet()
	run(t, newTestBlocked(t, set), []step{{0, []Observation{blockedObs(proceed)}, 0, ""}})
	run(t, newTestBlocked(t, set), []step{
		{3 * time.Second, []Observation{blockedObs(proceed)}, 0, ""},
		{8 * time.Second, []Observation{blockedObs(proceed)}, 1, proceed.Prompt},
		{9 * time.Second, []Observation{blockedObs(proceed)}, 0, ""},
	})
}

func TestVanishedPaneGrace(t *testing.T) {
	set := newMemSet()
	b := newTestBlocked(t, set)
	run(t, b, []step{
		{0, []Observation{blockedObs(proceed)}, 0, ""},
		{5 * time.Second, []Observation{blockedObs(proceed)}, 1, proceed.Prompt},
		{6 * time.Second, nil, 0, ""},                                             // gone
		{5 * time.Minute, []Observation{blockedObs(proceed)}, 0, ""},              // back within grace
		{6 * time.Minute, nil, 0, ""},                                             // gone again
		{17 * time.Minute, nil, 0, ""},                                            // 11 min later: forgotten
		{17*time.Minute + time.Second, []Observation{blockedObs(proceed)}, 0, ""}, // back: settles anew
		{17*time.Minute + 6*time.Second, []Observation{blockedObs(proceed)}, 1, proceed.Prompt},
	})
}

func TestOtherHostUntouched(t *testing.T) {
	set := newMemSet()
	set.rows["fp-remote"] = store.Announced{Fingerprint: "fp-remote", Host: "remote", Pane: "%1", At: t0}
	b := newTestBlocked(t, set)
	run(t, b, []step{{0, nil, 0, ""}, {time.Hour, nil, 0, ""}})
	if _, ok := set.rows["fp-remote"]; !ok {
		t.Fatal("a snapshot of host box forgot host remote's fingerprint")
	}
}

func TestStoreFailureRetriesNextSnapshot(t *testing.T) {
	set := newMemSet()
	b := newTestBlocked(t, set)
	run(t, b, []step{{0, []Observation{blockedObs(proceed)}, 0, ""}})
	set.fail = errors.New("disk full")
	run(t, b, []step{{5 * time.Second, []Observation{blockedObs(proceed)}, 0, ""}})
	set.fail = nil
	run(t, b, []step{{6 * time.Second, []Observation{blockedObs(proceed)}, 1, proceed.Prompt}})
}

func TestRetractAnnouncesAgain(t *testing.T) {
	set := newMemSet()
	b := newTestBlocked(t, set)
	var fp string
	for _, s := range []time.Duration{0, 5 * time.Second} {
		if a := settled(b.Observe(context.Background(), "box", t0.Add(s), []Observation{blockedObs(proceed)})); len(a) == 1 {
			fp = a[0].Fingerprint
		}
	}
	if fp == "" {
		t.Fatal("no announcement")
	}
	b.Retract(context.Background(), fp)
	run(t, b, []step{
		{6 * time.Second, []Observation{blockedObs(proceed)}, 0, ""},
		{11 * time.Second, []Observation{blockedObs(proceed)}, 1, proceed.Prompt},
	})
}

// settled keeps the Settled transitions.
func settled(ts []Transition) []Transition {
	var out []Transition
	for _, t := range ts {
		if t.Kind == Settled {
			out = append(out, t)
		}
	}
	return out
}

func kinds(ts []Transition) []Kind {
	var out []Kind
	for _, t := range ts {
		out = append(out, t.Kind)
	}
	return out
}

func TestTransitions(t *testing.T) {
	b := newTestBlocked(t, newMemSet())
	ctx := context.Background()
	idle := workingObs()
	idle.Reading.Status = agent.StatusIdle
	steps := []struct {
		at   time.Duration
		obs  Observation
		want []Kind
		held time.Duration
	}{
		{0, workingObs(), nil, 0},
		{time.Second, blockedObs(proceed), nil, 0},
		{3 * time.Second, workingObs(), []Kind{ClearedEarly}, 2 * time.Second}, // answered at the terminal
		{4 * time.Second, blockedObs(proceed), nil, 0},
		{9 * time.Second, blockedObs(proceed), []Kind{Settled}, 0},
		{20 * time.Second, workingObs(), []Kind{Cleared}, 11 * time.Second},
		{30 * time.Second, idle, []Kind{Finished}, 0},
		{31 * time.Second, idle, nil, 0},
	}
	for i, s := range steps {
		got := b.Observe(ctx, "box", t0.Add(s.at), []Observation{s.obs})
		if fmt.Sprint(kinds(got)) != fmt.Sprint(s.want) {
			t.Fatalf("step %d: transitions %v, want %v", i, kinds(got), s.want)
		}
		if len(got) == 1 && s.held != 0 && got[0].Held != s.held {
			t.Fatalf("step %d: held %v, want %v", i, got[0].Held, s.held)
		}
	}
}

func TestSinceIsWhenTheWaitBegan(t *testing.T) {
	half := &agent.Question{Prompt: "Do you want to proceed?", AnswerStyle: agent.AnswerMenu}
	b := newTestBlocked(t, newMemSet())
	ctx := context.Background()
	b.Observe(ctx, "box", t0, []Observation{blockedObs(half)})
	b.Observe(ctx, "box", t0.Add(2*time.Second), []Observation{blockedObs(proceed)})
	got := settled(b.Observe(ctx, "box", t0.Add(7*time.Second), []Observation{blockedObs(proceed)}))
	if len(got) != 1 || !got[0].Since.Equal(t0) {
		t.Fatalf("got %+v, want one settled with Since = the first blocked frame", got)
	}
}

func TestHookBlockedSkipsSettleOnceTheScreenAgrees(t *testing.T) {
	b := newTestBlocked(t, newMemSet())
	ctx := context.Background()
	b.Observe(ctx, "box", t0, []Observation{workingObs()})
	b.HookBlocked(paneA, t0.Add(time.Second))
	// The screen still draws the old frame: nothing yet, no contradiction.
	if got := b.Observe(ctx, "box", t0.Add(1500*time.Millisecond), []Observation{workingObs()}); len(got) != 0 {
		t.Fatalf("transitions %v", kinds(got))
	}
	got := b.Observe(ctx, "box", t0.Add(2*time.Second), []Observation{blockedObs(proceed)})
	if fmt.Sprint(kinds(got)) != fmt.Sprint([]Kind{Settled}) {
		t.Fatalf("transitions %v: want the wait announced at once", kinds(got))
	}
	// Later the backup hook for the same prompt: one occurrence, no repeat,
	// and no contradiction once the prompt is answered.
	b.HookBlocked(paneA, t0.Add(8*time.Second))
	if got := settled(b.Observe(ctx, "box", t0.Add(9*time.Second), []Observation{blockedObs(proceed)})); len(got) != 0 {
		t.Fatalf("repeat: %v", got)
	}
	got = b.Observe(ctx, "box", t0.Add(30*time.Second), []Observation{workingObs()})
	if fmt.Sprint(kinds(got)) != fmt.Sprint([]Kind{Cleared}) {
		t.Fatalf("transitions %v", kinds(got))
	}
}

func TestHookContradictedByTheScreen(t *testing.T) {
	b := newTestBlocked(t, newMemSet())
	ctx := context.Background()
	b.HookBlocked(paneA, t0)
	b.Observe(ctx, "box", t0.Add(time.Second), []Observation{workingObs()})
	got := b.Observe(ctx, "box", t0.Add(HookGrace), []Observation{workingObs()})
	if len(got) != 1 || got[0].Kind != HookContradicted || got[0].Held != HookGrace {
		t.Fatalf("transitions %+v", got)
	}
	if got := b.Observe(ctx, "box", t0.Add(10*time.Second), []Observation{workingObs()}); len(got) != 0 {
		t.Fatalf("reported twice: %v", kinds(got))
	}
}
