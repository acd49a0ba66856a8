// Package settings resolves the notification settings that apply to one
// pane: the system defaults (flags), then a project's .attn.toml found from
// the pane's working directory, then a mute on the pane itself. Each layer
// that sets a value replaces it whole; nothing merges (a project's kinds
// list is the list, not an addition to the default one).
package settings

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/BurntSushi/toml"
)

// Settings are the rules for one pane.
type Settings struct {
	// Settle is how long a blocked fingerprint must hold still.
	Settle time.Duration
	// BuzzInterval is the least time between two audible pushes for one
	// agent; a newer question inside it replaces the shown one silently.
	BuzzInterval time.Duration
	// EscalateAfter re-buzzes a blocked wait still unanswered after this
	// long, once; 0 turns escalation off.
	EscalateAfter time.Duration
	// Kinds lists the notification kinds this pane may send at all
	// (devices choose further among them).
	Kinds []string
	// Muted silences the pane; MutedBy says by what (a file path, "mute").
	Muted   bool
	MutedBy string
	// Source names the project file that set anything, "" for none.
	Source string
}

// Allows reports whether kind is in Kinds.
func (s Settings) Allows(kind string) bool { return slices.Contains(s.Kinds, kind) }

// FileName is the project settings file's name.
const FileName = ".attn.toml"

// project is the shape of .attn.toml. Every key is optional.
type project struct {
	Mute          *bool     `toml:"mute"`
	Settle        *duration `toml:"settle"`
	BuzzInterval  *duration `toml:"buzz_interval"`
	EscalateAfter *duration `toml:"escalate_after"`
	Kinds         *[]string `toml:"kinds"`
}

type duration struct{ time.Duration }

func (d *duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("%q is not a duration (write e.g. \"30s\" or \"15m\")", b)
	}
	if v < 0 || v > 24*time.Hour {
		return fmt.Errorf("%s is out of range (0 to 24h)", v)
	}
	d.Duration = v
	return nil
}

// KnownKinds are the kinds a project may list.
var KnownKinds = []string{"blocked", "asked", "finished", "error", "test"}

// parse reads one .attn.toml. Unknown keys and bad values are errors that
// name the file, the key and what to write instead.
func parse(path string, data []byte) (*project, error) {
	var p project
	md, err := toml.Decode(string(data), &p)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		keys := make([]string, len(und))
		for i, k := range und {
			keys[i] = k.String()
		}
		return nil, fmt.Errorf("%s: unknown key %s (known: mute, settle, buzz_interval, escalate_after, kinds)", path, strings.Join(keys, ", "))
	}
	if p.Kinds != nil {
		for _, k := range *p.Kinds {
			if !slices.Contains(KnownKinds, k) {
				return nil, fmt.Errorf("%s: kinds: unknown kind %q (known: %s)", path, k, strings.Join(KnownKinds, ", "))
			}
		}
	}
	return &p, nil
}

// apply lays p over s.
func (p *project) apply(s Settings, path string) Settings {
	s.Source = path
	if p.Mute != nil && *p.Mute {
		s.Muted, s.MutedBy = true, path
	}
	if p.Settle != nil {
		s.Settle = p.Settle.Duration
	}
	if p.BuzzInterval != nil {
		s.BuzzInterval = p.BuzzInterval.Duration
	}
	if p.EscalateAfter != nil {
		s.EscalateAfter = p.EscalateAfter.Duration
	}
	if p.Kinds != nil {
		s.Kinds = slices.Clone(*p.Kinds)
	}
	return s
}

// Resolver finds and caches project files. Safe for concurrent use.
type Resolver struct {
	Defaults Settings
	// CacheFor is how long a directory's lookup is reused before the file
	// system is asked again (default 10 s): panes are polled every second.
	CacheFor time.Duration
	Now      func() time.Time
	// OnError reports a project file that cannot be used; the defaults
	// apply meanwhile. Called once per file and modification time.
	OnError func(path string, err error)

	mu       sync.Mutex
	cache    map[string]cached // directory → the project that applies there
	reported map[string]time.Time
}

type cached struct {
	path string
	p    *project
	at   time.Time
}

// For returns the settings for a pane whose working directory is dir ("" =
// unknown: the defaults).
func (r *Resolver) For(dir string) Settings {
	s := r.Defaults
	s.Kinds = slices.Clone(s.Kinds)
	if dir == "" || !filepath.IsAbs(dir) {
		return s
	}
	path, p := r.lookup(filepath.Clean(dir))
	if p == nil {
		return s
	}
	return p.apply(s, path)
}

func (r *Resolver) lookup(dir string) (string, *project) {
	now := time.Now
	if r.Now != nil {
		now = r.Now
	}
	ttl := r.CacheFor
	if ttl == 0 {
		ttl = 10 * time.Second
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if c, ok := r.cache[dir]; ok && now().Sub(c.at) < ttl {
		return c.path, c.p
	}
	path, p := r.find(dir)
	if r.cache == nil {
		r.cache = map[string]cached{}
	}
	if len(r.cache) > 4096 {
		clear(r.cache) // bounded: panes move around
	}
	r.cache[dir] = cached{path: path, p: p, at: now()}
	return path, p
}

// find walks up from dir to the root for the nearest readable, valid file.
func (r *Resolver) find(dir string) (string, *project) {
	for d := dir; ; d = filepath.Dir(d) {
		path := filepath.Join(d, FileName)
		fi, err := os.Stat(path)
		if err == nil && fi.Mode().IsRegular() {
			data, err := os.ReadFile(path)
			if err == nil {
				var p *project
				if p, err = parse(path, data); err == nil {
					return path, p
				}
			}
			r.report(path, fi.ModTime(), err)
			return "", nil // a broken file stops the walk: the defaults apply, loudly
		} else if err != nil && !errors.Is(err, os.ErrNotExist) && !errors.Is(err, os.ErrPermission) {
			r.report(path, time.Time{}, err)
		}
		if filepath.Dir(d) == d {
			return "", nil
		}
	}
}

func (r *Resolver) report(path string, mod time.Time, err error) {
	if r.OnError == nil {
		return
	}
	if r.reported == nil {
		r.reported = map[string]time.Time{}
	}
	if last, ok := r.reported[path]; ok && last.Equal(mod) {
		return
	}
	r.reported[path] = mod
	r.OnError(path, err)
}
