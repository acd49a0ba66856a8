package pipeline

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/attn-dev/attn/internal/agent"
	"github.com/attn-dev/attn/internal/store"
)

// MuteStore persists pane mutes (implemented by *store.Store).
type MuteStore interface {
	SetMute(ctx context.Context, m store.Mute) error
	Mutes(ctx context.Context) ([]store.Mute, error)
	DeleteMute(ctx context.Context, host, pane string) error
}

// Mutes holds the pane mutes in memory over their store. Safe for
// concurrent use: the API sets them, the pipeline reads them.
type Mutes struct {
	store MuteStore
	mu    sync.Mutex
	byRef map[agent.PaneRef]store.Mute
}

// LoadMutes reads the stored mutes.
func LoadMutes(ctx context.Context, st MuteStore) (*Mutes, error) {
	rows, err := st.Mutes(ctx)
	if err != nil {
		return nil, err
	}
	m := &Mutes{store: st, byRef: map[agent.PaneRef]store.Mute{}}
	for _, r := range rows {
		m.byRef[agent.PaneRef{Host: r.Host, Pane: r.Pane}] = r
	}
	return m, nil
}

// Set mutes a pane (replacing any mute it had).
func (m *Mutes) Set(ctx context.Context, mu store.Mute) error {
	if mu.Until.IsZero() && !mu.UntilFinished {
		return fmt.Errorf("a mute needs an end: a time, or until the agent next finishes")
	}
	if err := m.store.SetMute(ctx, mu); err != nil {
		return err
	}
	m.mu.Lock()
	m.byRef[agent.PaneRef{Host: mu.Host, Pane: mu.Pane}] = mu
	m.mu.Unlock()
	return nil
}

// Delete unmutes a pane; store.ErrNotFound when it was not muted.
func (m *Mutes) Delete(ctx context.Context, ref agent.PaneRef) error {
	if err := m.store.DeleteMute(ctx, ref.Host, ref.Pane); err != nil {
		return err
	}
	m.mu.Lock()
	delete(m.byRef, ref)
	m.mu.Unlock()
	return nil
}

// Active returns the pane's mute if it is in force at now.
func (m *Mutes) Active(ref agent.PaneRef, now time.Time) (store.Mute, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	mu, ok := m.byRef[ref]
	if !ok {
		return mu, false
	}
	if !mu.Until.IsZero() && !now.Before(mu.Until) {
		delete(m.byRef, ref) // expired; the stored row is harmless and replaced on the next mute
		return mu, false
	}
	return mu, true
}

// List returns the mutes in force at now.
func (m *Mutes) List(now time.Time) []store.Mute {
	m.mu.Lock()
	refs := make([]agent.PaneRef, 0, len(m.byRef))
	for r := range m.byRef {
		refs = append(refs, r)
	}
	m.mu.Unlock()
	var out []store.Mute
	for _, r := range refs {
		if mu, ok := m.Active(r, now); ok {
			out = append(out, mu)
		}
	}
	return out
}

// Finished lifts a pane's "until it next finishes" mute.
func (m *Mutes) Finished(ctx context.Context, ref agent.PaneRef) {
	m.mu.Lock()
	mu, ok := m.byRef[ref]
	m.mu.Unlock()
	if ok && mu.UntilFinished {
		m.Delete(ctx, ref)
	}
}

// muteStage drops candidates for muted panes, and kinds a project file
// does not allow.
type muteStage struct{ mutes *Mutes }

func (muteStage) Name() string { return "mute" }

func (s muteStage) Apply(c *Candidate) *Drop {
	if c.Settings.Muted {
		return &Drop{Stage: "mute", Reason: ReasonProjectMuted, Detail: "muted by " + c.Settings.MutedBy}
	}
	if !c.Settings.Allows(string(c.N.Kind)) {
		return &Drop{Stage: "mute", Reason: ReasonProjectKinds,
			Detail: fmt.Sprintf("%s allows only %s", c.Settings.Source, strings.Join(c.Settings.Kinds, ", "))}
	}
	if mu, ok := s.mutes.Active(c.Ref, c.At); ok {
		return &Drop{Stage: "mute", Reason: ReasonMuted, Detail: muteEnd(mu)}
	}
	return nil
}

// muteEnd says until when a mute holds, in plain words.
func muteEnd(mu store.Mute) string {
	switch {
	case mu.UntilFinished && !mu.Until.IsZero():
		return "until it next finishes, or " + mu.Until.Local().Format("15:04")
	case mu.UntilFinished:
		return "until it next finishes"
	default:
		return "until " + mu.Until.Local().Format("15:04")
	}
}
