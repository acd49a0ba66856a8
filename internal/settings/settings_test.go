package settings

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func defaults() Settings {
	return Settings{Settle: 5 * time.Second, BuzzInterval: 5 * time.Minute, Kinds: []string{"blocked", "asked", "finished", "error", "test"}}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestProjectFileReplacesDefaults(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "app", FileName), `settle = "10s"
escalate_after = "15m"
kinds = ["blocked"]
`)
	r := &Resolver{Defaults: defaults()}
	s := r.For(filepath.Join(root, "app", "src", "deep"))
	if s.Settle != 10*time.Second || s.EscalateAfter != 15*time.Minute || s.BuzzInterval != 5*time.Minute {
		t.Fatalf("settings = %+v", s)
	}
	if !slices.Equal(s.Kinds, []string{"blocked"}) || s.Allows("asked") {
		t.Fatalf("kinds = %v: the project's list must replace the default one, not merge", s.Kinds)
	}
	if s.Source != filepath.Join(root, "app", FileName) {
		t.Fatalf("source = %q", s.Source)
	}
	if other := r.For(filepath.Join(root, "elsewhere")); other.Settle != 5*time.Second || other.Source != "" {
		t.Fatalf("a directory outside the project got %+v", other)
	}
	if r.For("").Settle != 5*time.Second || r.For("relative/dir").Source != "" {
		t.Fatal("unknown directories must get the defaults")
	}
}

func TestNearestFileWins(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, FileName), `mute = true`)
	write(t, filepath.Join(root, "sub", FileName), `settle = "1s"`)
	r := &Resolver{Defaults: defaults()}
	s := r.For(filepath.Join(root, "sub"))
	if s.Muted || s.Settle != time.Second {
		t.Fatalf("nearest file did not win alone: %+v", s)
	}
	if s := r.For(root); !s.Muted || s.MutedBy != filepath.Join(root, FileName) {
		t.Fatalf("mute = %+v", s)
	}
}

func TestBadFilesAreReportedOnceAndIgnored(t *testing.T) {
	cases := map[string]string{
		"syntax":     `settle = `,
		"unknown":    `sette = "1s"`,
		"duration":   `settle = "soon"`,
		"range":      `settle = "48h"`,
		"kind":       `kinds = ["blockd"]`,
		"wrong type": `mute = "yes"`,
	}
	for name, content := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, filepath.Join(dir, FileName), content)
			var reports []string
			now := time.Unix(0, 0)
			r := &Resolver{Defaults: defaults(), Now: func() time.Time { return now },
				OnError: func(p string, err error) { reports = append(reports, err.Error()) }}
			s := r.For(dir)
			if s.Settle != 5*time.Second || s.Muted || s.Source != "" {
				t.Fatalf("a bad file changed the settings: %+v", s)
			}
			now = now.Add(time.Minute) // past the cache: looked up again, not reported again
			r.For(dir)
			if len(reports) != 1 || !strings.Contains(reports[0], FileName) {
				t.Fatalf("reports = %q, want one naming the file", reports)
			}
		})
	}
}

func TestCacheThenRefresh(t *testing.T) {
	dir := t.TempDir()
	now := time.Unix(0, 0)
	r := &Resolver{Defaults: defaults(), Now: func() time.Time { return now }}
	if r.For(dir).Muted {
		t.Fatal("muted before any file")
	}
	write(t, filepath.Join(dir, FileName), `mute = true`)
	if r.For(dir).Muted {
		t.Fatal("cache not used within CacheFor")
	}
	now = now.Add(11 * time.Second)
	if !r.For(dir).Muted {
		t.Fatal("file not seen after CacheFor")
	}
}
