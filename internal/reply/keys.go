package reply

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/attn-dev/attn/internal/agent"
	"github.com/attn-dev/attn/internal/detect"
	"github.com/attn-dev/attn/internal/source/tmux"
)

// shells are foreground programs that mean the agent has exited.
var shells = map[string]bool{"bash": true, "zsh": true, "fish": true, "sh": true, "dash": true, "ksh": true,
	"tcsh": true, "csh": true, "nu": true, "login": true}

// IsShell reports whether command is a plain shell: no agent to answer.
func IsShell(command string) bool { return shells[strings.TrimPrefix(command, "-")] }

// read captures and classifies a pane now.
func (s *Service) read(ctx context.Context, term Terminal, p tmux.Pane) (agent.Reading, error) {
	screen, err := term.Capture(ctx, p.ID)
	if err != nil {
		return agent.Reading{}, err
	}
	return detect.ClassifyPane(detect.Pane{Screen: screen, Title: p.Title, Command: p.Command}), nil
}

// step is one key and what the screen must show after it.
type step struct {
	key     string
	literal bool
	final   bool // the key that submits: the prompt must change
}

// Plan maps an option to the keys that choose it, for the question as the
// screen shows it now (the agent and answer style decide): arrows to the
// row and Enter for cursor menus (never a digit: Claude Code reads digits
// unreliably across releases), Escape for the row the agent marks "(esc)",
// Left/Right and Enter for tab rows, the option's letter and Enter for
// letter prompts. screen is used to find the "(esc)" row.
func Plan(r agent.Reading, screen string, option int) ([]step, error) {
	q := r.Question
	if q == nil || option < 0 || option >= len(q.Options) {
		return nil, fmt.Errorf("option %d is not on screen", option)
	}
	switch q.AnswerStyle {
	case agent.AnswerMenu, "":
		if escRow(screen, q.Options[option]) {
			return []step{{key: "Escape", final: true}}, nil
		}
		return moves(q.Selected, option, "Up", "Down"), nil
	case agent.AnswerTabs:
		return moves(q.Selected, option, "Left", "Right"), nil
	case agent.AnswerLetter:
		c, _ := utf8.DecodeRuneInString(q.Options[option])
		if c == utf8.RuneError || !unicode.IsLetter(c) {
			return nil, fmt.Errorf("option %q has no letter to type", q.Options[option])
		}
		return []step{{key: string(unicode.ToLower(c)), literal: true}, {key: "Enter", final: true}}, nil
	}
	return nil, fmt.Errorf("answer style %q cannot be typed", q.AnswerStyle)
}

func moves(from, to int, back, forward string) []step {
	var out []step
	for ; from < to; from++ {
		out = append(out, step{key: forward})
	}
	for ; from > to; from-- {
		out = append(out, step{key: back})
	}
	return append(out, step{key: "Enter", final: true})
}

// escRow reports whether the screen line holding label is marked "(esc)".
func escRow(screen, label string) bool {
	for _, line := range strings.Split(screen, "\n") {
		if strings.Contains(line, label) && strings.Contains(line, "(esc)") {
			return true
		}
	}
	return false
}

// typeAnswer sends the plan one key at a time. After each key it re-reads
// the screen: if nothing at all changed it sends that key once more, then
// gives up ("not applied"); after the final key the answer is "applied"
// only if the prompt changed.
func (s *Service) typeAnswer(ctx context.Context, term Terminal, p tmux.Pane, ref agent.PaneRef, fingerprint string, r agent.Reading, option int) Result {
	screen, err := term.Capture(ctx, p.ID)
	if err != nil {
		return refuse(GatePane, "cannot read the pane: %v", err)
	}
	steps, err := Plan(r, screen, option)
	if err != nil {
		return refuse(GatePrompt, "%v", err)
	}
	for _, st := range steps {
		changed, after, err := s.press(ctx, term, p.ID, st, screen)
		if err != nil {
			return Result{Outcome: "error", Detail: err.Error()}
		}
		if !changed {
			changed, after, err = s.press(ctx, term, p.ID, st, screen)
			if err != nil {
				return Result{Outcome: "error", Detail: err.Error()}
			}
		}
		if !changed {
			return Result{Outcome: NotApplied, Detail: fmt.Sprintf("the agent did not react to %s, twice", st.key)}
		}
		screen = after
	}
	screen = s.settle(ctx, term, p.ID, screen)
	now := detect.ClassifyPane(detect.Pane{Screen: screen, Title: p.Title, Command: p.Command})
	if now.Status == agent.StatusBlocked && agent.Fingerprint(ref, p.PID, now.Question, now.Headline) == fingerprint {
		return Result{Outcome: NotApplied, Detail: "the keys were typed but the question is still on screen"}
	}
	return Result{Outcome: Applied, Detail: "the agent took the answer"}
}

// press sends one key and waits (bounded) for the screen to change.
func (s *Service) press(ctx context.Context, term Terminal, pane string, st step, before string) (bool, string, error) {
	if err := term.SendKeys(ctx, pane, st.literal, st.key); err != nil {
		return false, before, fmt.Errorf("type %s: %w", st.key, err)
	}
	wait, tick := s.StepWait, s.Step
	if wait == 0 {
		wait = 2 * time.Second
	}
	if tick == 0 {
		tick = 50 * time.Millisecond
	}
	t := time.NewTicker(tick)
	defer t.Stop()
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	for {
		select {
		case <-ctx.Done():
			return false, before, ctx.Err()
		case <-deadline.C:
			return false, before, nil
		case <-t.C:
			after, err := term.Capture(ctx, pane)
			if err != nil {
				return false, before, fmt.Errorf("re-read the pane: %w", err)
			}
			if after != before {
				return true, after, nil
			}
		}
	}
}

// settle re-reads the pane until it holds still for three reads in a row
// (a redraw can take more than one frame), bounded by StepWait.
func (s *Service) settle(ctx context.Context, term Terminal, pane, screen string) string {
	wait, tick := s.StepWait, s.Step
	if wait == 0 {
		wait = 2 * time.Second
	}
	if tick == 0 {
		tick = 50 * time.Millisecond
	}
	t := time.NewTicker(tick)
	defer t.Stop()
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	for same := 0; same < 3; {
		select {
		case <-ctx.Done():
			return screen
		case <-deadline.C:
			return screen
		case <-t.C:
			after, err := term.Capture(ctx, pane)
			if err != nil {
				return screen
			}
			if after == screen {
				same++
			} else {
				screen, same = after, 0
			}
		}
	}
	return screen
}
