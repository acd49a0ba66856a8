// Package presence keeps, per device, whether its web app window is visible
// and which pane it is focused on, as the window last reported it. A report
// lapses after TTL without a fresh one (a closed laptop sends no goodbye),
// so a stale "visible" never swallows a push.
package presence

import (
	"sync"
	"time"
)

// TTL is how long a presence report holds; windows report every 20 s.
const TTL = 45 * time.Second

// State is what one device's window reported.
type State struct {
	Visible bool `json:"visible"`
	// Focused is the pane the window shows ("host/%3"), "" for none.
	Focused string    `json:"focused,omitempty"`
	At      time.Time `json:"at"`
}

// Registry holds the latest State per device. Safe for concurrent use.
type Registry struct {
	mu       sync.Mutex
	byDevice map[int64]State
}

// NewRegistry returns an empty Registry.
func NewRegistry() *Registry { return &Registry{byDevice: map[int64]State{}} }

// Report stores a device's state.
func (r *Registry) Report(device int64, s State) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.byDevice[device] = s
}

// Get returns the device's state if reported within TTL of now.
func (r *Registry) Get(device int64, now time.Time) (State, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s, ok := r.byDevice[device]
	if !ok {
		return State{}, false
	}
	if now.Sub(s.At) >= TTL {
		delete(r.byDevice, device)
		return State{}, false
	}
	return s, true
}
