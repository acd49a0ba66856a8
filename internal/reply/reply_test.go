package reply

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/attn-dev/attn/internal/agent"
	"github.com/attn-dev/attn/internal/detect"
	"github.com/attn-dev/attn/internal/fixtures"
	"github.com/attn-dev/attn/internal/source/tmux"
	"github.com/attn-dev/attn/internal/store"
)

// menu is a fake terminal running a Claude Code-style permission menu: it
// moves its cursor on Up/Down, and on Enter (or Escape) prints the choice
// and clears the prompt, as the real one does.
type menu struct {
	mu       sync.Mutex
	lines    []string // the fixture screen
	rows     []int    // line index of each option row
	sel      int
	chosen   string
	command  string
	pid      string
	ignore   int // keystrokes to ignore (a program that drops input)
	keys     []string
	typedErr error
}

func newMenu(t *testing.T) *menu {
	t.Helper()
	m := &menu{lines: strings.Split(fixtures.Screen(t, "claude-bash-permission"), "\n"), command: "claude", pid: "100"}
	for i, l := range m.lines {
		if strings.Contains(l, "1. Yes") || strings.Contains(l, "2. Yes, and") || strings.Contains(l, "3. No") {
			m.rows = append(m.rows, i)
		}
	}
	if len(m.rows) != 3 {
		t.Fatalf("menu rows = %v", m.rows)
	}
	return m
}

func (m *menu) screen() string {
	if m.chosen != "" {
		return "⏺ You chose: " + m.chosen + "\n\n✻ Working… (esc to interrupt)\n"
	}
	out := make([]string, len(m.lines))
	copy(out, m.lines)
	for i, r := range m.rows {
		l := strings.TrimLeft(strings.Replace(out[r], "❯", " ", 1), " ")
		if i == m.sel {
			out[r] = " ❯ " + l
		} else {
			out[r] = "   " + l
		}
	}
	return strings.Join(out, "\n")
}

func (m *menu) Describe(_ context.Context, pane string) (tmux.Pane, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return tmux.Pane{ID: pane, PID: m.pid, Command: m.command, Title: "✳ Claude Code"}, nil
}

func (m *menu) Capture(context.Context, string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.screen(), nil
}

func (m *menu) SendKeys(_ context.Context, _ string, literal bool, keys ...string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, k := range keys {
		m.keys = append(m.keys, k)
		if m.ignore > 0 {
			m.ignore--
			continue
		}
		if m.chosen != "" {
			continue
		}
		switch k {
		case "Down":
			m.sel = min(m.sel+1, len(m.rows)-1)
		case "Up":
			m.sel = max(m.sel-1, 0)
		case "Enter":
			m.chosen = fmt.Sprint(m.sel + 1)
		case "Escape":
			m.chosen = "esc"
		}
	}
	return nil
}

func (m *menu) reading() agent.Reading {
	return detect.ClassifyPane(detect.Pane{Screen: m.screen(), Title: "✳ Claude Code", Command: m.command})
}

var ref = agent.PaneRef{Host: "box", Pane: "%1"}

// setup returns a service over a real store and the fake menu, and a
// nonce minted for the menu's first two options.
func setup(t *testing.T) (*Service, *menu, *store.Store, string) {
	t.Helper()
	st, err := store.Open(context.Background(), t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	m := newMenu(t)
	s := &Service{Host: "box", Term: m, Store: st, NonceTTL: 10 * time.Minute,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), StepWait: 500 * time.Millisecond, Step: 10 * time.Millisecond}
	r := m.reading()
	if r.Status != agent.StatusBlocked {
		t.Fatalf("the fake menu reads as %+v", r)
	}
	fp := agent.Fingerprint(ref, m.pid, r.Question, r.Headline)
	nonce, err := s.Mint(context.Background(), ref, m.pid, fp, []int{0, 1})
	if err != nil {
		t.Fatal(err)
	}
	return s, m, st, nonce
}

func lastAudit(t *testing.T, st *store.Store) store.AuditEntry {
	t.Helper()
	a, err := st.Audit(context.Background(), 1)
	if err != nil || len(a) != 1 {
		t.Fatalf("audit = %v, %v", a, err)
	}
	return a[0]
}

func TestAnswerEachOption(t *testing.T) {
	for option, want := range map[int]string{0: "1", 1: "2"} {
		synctest.Test(t, func(t *testing.T) {
			s, m, st, nonce := setup(t)
			res := s.Answer(context.Background(), Request{Nonce: nonce, OptionIndex: option, Surface: SurfacePush, Device: "phone"})
			if res.Outcome != Applied || m.chosen != want {
				t.Fatalf("option %d: %+v, program chose %q (keys %v)", option, res, m.chosen, m.keys)
			}
			wantKeys := map[int]string{0: "Enter", 1: "Down Enter"}[option]
			if strings.Join(m.keys, " ") != wantKeys {
				t.Fatalf("keys %v, want %s", m.keys, wantKeys)
			}
			if a := lastAudit(t, st); a.Outcome != Applied || a.Surface != "push" || a.Device != "phone" || a.Pane != "%1" || a.OptionIndex != option {
				t.Fatalf("audit %+v", a)
			}
		})
	}
}

func TestRefusals(t *testing.T) {
	cases := []struct {
		name string
		prep func(s *Service, m *menu, nonce string) Request
		gate string
	}{
		{"unknown nonce", func(s *Service, m *menu, n string) Request { return Request{Nonce: "forged", Surface: SurfacePush} }, GateNonce},
		{"same nonce twice", func(s *Service, m *menu, n string) Request {
			s.Answer(context.Background(), Request{Nonce: n, OptionIndex: 0, Surface: SurfacePush})
			m.keys = nil
			return Request{Nonce: n, OptionIndex: 0, Surface: SurfacePush}
		}, GateNonceUsed},
		{"index not minted", func(s *Service, m *menu, n string) Request {
			return Request{Nonce: n, OptionIndex: 2, Surface: SurfacePush}
		}, GateOption},
		{"negative index", func(s *Service, m *menu, n string) Request {
			return Request{Nonce: n, OptionIndex: -1, Surface: SurfacePush}
		}, GateOption},
		{"agent exited", func(s *Service, m *menu, n string) Request {
			m.command = "bash"
			return Request{Nonce: n, OptionIndex: 0, Surface: SurfacePush}
		}, GateAgentExited},
		{"another process", func(s *Service, m *menu, n string) Request {
			m.pid = "200"
			return Request{Nonce: n, OptionIndex: 0, Surface: SurfacePush}
		}, GateIncarnation},
		{"prompt answered at the terminal, another shown", func(s *Service, m *menu, n string) Request {
			m.lines = append([]string{}, m.lines...)
			for i, l := range m.lines {
				m.lines[i] = strings.Replace(l, "Do you want to proceed?", "Do you want to create notes.txt?", 1)
			}
			return Request{Nonce: n, OptionIndex: 0, Surface: SurfacePush}
		}, GatePrompt},
		{"input moved since minting", func(s *Service, m *menu, n string) Request {
			g, _ := s.Store.BumpGeneration(context.Background(), "box", "%1") // another surface typed
			s.Store.MarkTyped(context.Background(), "box", "%1", g)
			return Request{Nonce: n, OptionIndex: 0, Surface: SurfacePush}
		}, GateGeneration},
		{"reply actions off", func(s *Service, m *menu, n string) Request {
			s.ActionsOff = true
			return Request{Nonce: n, OptionIndex: 0, Surface: SurfaceNtfy}
		}, GateActionsOff},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s, m, st, nonce := setup(t)
				req := tc.prep(s, m, nonce)
				res := s.Answer(context.Background(), req)
				if res.Outcome != Refused || res.Gate != tc.gate {
					t.Fatalf("result %+v, want refused at %s", res, tc.gate)
				}
				if len(m.keys) != 0 {
					t.Fatalf("typed %v: a refusal types nothing", m.keys)
				}
				if a := lastAudit(t, st); a.Outcome != Refused || a.Gate != tc.gate {
					t.Fatalf("audit %+v", a)
				}
			})
		})
	}
}

func TestActionsOffStillTakesTheCard(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, m, _, nonce := setup(t)
		s.ActionsOff = true
		if res := s.Answer(context.Background(), Request{Nonce: nonce, OptionIndex: 0, Surface: SurfaceCard}); res.Outcome != Applied || m.chosen != "1" {
			t.Fatalf("%+v", res)
		}
	})
}

func TestIgnoredKeystrokeRetriedOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, m, _, nonce := setup(t)
		m.ignore = 1
		res := s.Answer(context.Background(), Request{Nonce: nonce, OptionIndex: 1, Surface: SurfacePush})
		if res.Outcome != Applied || m.chosen != "2" || strings.Join(m.keys, " ") != "Down Down Enter" {
			t.Fatalf("%+v, chose %q, keys %v: want the ignored Down sent again, then the right option", res, m.chosen, m.keys)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		s, m, _, nonce := setup(t)
		m.ignore = 2
		res := s.Answer(context.Background(), Request{Nonce: nonce, OptionIndex: 1, Surface: SurfacePush})
		if res.Outcome != NotApplied || m.chosen != "" || strings.Join(m.keys, " ") != "Down Down" {
			t.Fatalf("%+v, keys %v: want not applied after one retry", res, m.keys)
		}
	})
}

func TestRacingAnswersApplyOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, m, _, nonce := setup(t)
		// The card's nonce for the same question, minted separately.
		r := m.reading()
		card, err := s.NonceFor(context.Background(), ref, m.pid, agent.Fingerprint(ref, m.pid, r.Question, r.Headline), r.Question)
		if err != nil || card == nonce {
			t.Fatalf("card nonce %q, %v", card, err)
		}
		var wg sync.WaitGroup
		results := make([]Result, 2)
		for i, n := range []string{nonce, card} {
			wg.Go(func() {
				results[i] = s.Answer(context.Background(), Request{Nonce: n, OptionIndex: i, Surface: []string{SurfacePush, SurfaceCard}[i]})
			})
		}
		wg.Wait()
		applied := 0
		for _, r := range results {
			if r.Outcome == Applied {
				applied++
			} else if r.Outcome != Refused {
				t.Fatalf("results %+v", results)
			}
		}
		if applied != 1 || strings.Count(strings.Join(m.keys, " "), "Enter") != 1 {
			t.Fatalf("results %+v, keys %v: want exactly one applied", results, m.keys)
		}
	})
}

func TestPlan(t *testing.T) {
	q := func(style agent.AnswerStyle, sel int, opts ...string) agent.Reading {
		return agent.Reading{Question: &agent.Question{Options: opts, AnswerStyle: style, Selected: sel}}
	}
	cases := []struct {
		r      agent.Reading
		screen string
		option int
		want   string
	}{
		{q(agent.AnswerMenu, 0, "Yes", "No"), "", 1, "Down Enter"},
		{q(agent.AnswerMenu, 2, "A", "B", "C"), "", 0, "Up Up Enter"},
		{q(agent.AnswerMenu, 0, "Yes", "No, and tell Claude what to do differently"), "  3. No, and tell Claude what to do differently (esc)", 1, "Escape"},
		{q(agent.AnswerTabs, 0, "Allow once", "Allow always", "Reject"), "", 2, "Right Right Enter"},
		{q(agent.AnswerLetter, 0, "Yes", "No", "Don't ask again"), "", 2, "d Enter"},
	}
	for _, tc := range cases {
		steps, err := Plan(tc.r, tc.screen, tc.option)
		if err != nil {
			t.Fatal(err)
		}
		var keys []string
		for _, s := range steps {
			keys = append(keys, s.key)
		}
		if got := strings.Join(keys, " "); got != tc.want {
			t.Errorf("Plan(%v, option %d) = %s, want %s", tc.r.Question, tc.option, got, tc.want)
		}
	}
	if _, err := Plan(q(agent.AnswerText, 0, "x"), "", 0); err == nil {
		t.Error("free text has no plan")
	}
	if _, err := Plan(q(agent.AnswerMenu, 0, "x"), "", 3); err == nil {
		t.Error("an option off screen has no plan")
	}
}
