package detect

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/attn-dev/attn/internal/agent"
)

// pending lists shared fixtures whose agent the classifier does not read
// yet, with the reason. A pending fixture is still classified: it must
// not panic, must return a valid reading, and must never read as Claude
// Code blocked. When one starts to pass, the test says so: move it out.
// Gemini CLI and OpenCode have a first-cut table each (gemini.go,
// opencode.go) and pass, so the list is empty for now.
var pending = map[string]string{
	// "gemini-shell-confirm": "Gemini CLI table not written yet",
}

// fixture is one screen and what a correct classifier makes of it: the
// shape of shared/fixtures/screens/NAME.json, plus an optional headline
// (used by this package's own fixtures in testdata/).
type fixture struct {
	name   string // "shared/NAME" or "testdata/NAME"
	screen string
	want   struct {
		Agent    string          `json:"agent"`
		Title    string          `json:"title"`
		Status   agent.Status    `json:"status"`
		Question *agent.Question `json:"question"`
		Headline *string         `json:"headline"`
	}
}

// fixturesDir finds shared/fixtures/screens: $ATTN_FIXTURES if set, else
// the first shared/fixtures/screens in the working directory or one of
// its parents (the repository sits beside shared/).
func fixturesDir(tb testing.TB) string {
	tb.Helper()
	if d := os.Getenv("ATTN_FIXTURES"); d != "" {
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			tb.Fatalf("ATTN_FIXTURES=%q is not a directory", d)
		}
		return d
	}
	wd, err := os.Getwd()
	if err != nil {
		tb.Fatalf("working directory: %v", err)
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		cand := filepath.Join(dir, "shared", "fixtures", "screens")
		if fi, err := os.Stat(cand); err == nil && fi.IsDir() {
			return cand
		}
		if filepath.Dir(dir) == dir {
			break
		}
	}
	tb.Fatalf("screen fixtures not found: no shared/fixtures/screens in %s or any parent; "+
		"set ATTN_FIXTURES to the directory holding NAME.txt/NAME.json pairs", wd)
	return ""
}

// loadFixtures reads every NAME.json in dir with its NAME.txt; a file
// without its pair fails the test.
func loadFixtures(tb testing.TB, dir, prefix string) []fixture {
	tb.Helper()
	jsons, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		tb.Fatal(err)
	}
	txts, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil {
		tb.Fatal(err)
	}
	if len(jsons) == 0 {
		tb.Fatalf("no fixtures (*.json) in %s", dir)
	}
	for _, txt := range txts {
		if !slices.Contains(jsons, strings.TrimSuffix(txt, ".txt")+".json") {
			tb.Errorf("%s has no .json with the expected reading", txt)
		}
	}
	var out []fixture
	for _, js := range jsons {
		name := strings.TrimSuffix(filepath.Base(js), ".json")
		f := fixture{name: prefix + "/" + name}
		raw, err := os.ReadFile(js)
		if err != nil {
			tb.Fatal(err)
		}
		if err := json.Unmarshal(raw, &f.want); err != nil {
			tb.Fatalf("%s: %v", js, err)
		}
		screen, err := os.ReadFile(strings.TrimSuffix(js, ".json") + ".txt")
		if err != nil {
			tb.Fatalf("%s: its screen: %v", js, err)
		}
		f.screen = string(screen)
		out = append(out, f)
	}
	return out
}

// allFixtures is the shared fixtures and this package's own.
func allFixtures(tb testing.TB) []fixture {
	tb.Helper()
	return append(loadFixtures(tb, fixturesDir(tb), "shared"), loadFixtures(tb, "testdata", "testdata")...)
}

func TestFixtures(t *testing.T) {
	for _, f := range allFixtures(t) {
		t.Run(f.name, func(t *testing.T) {
			got := Classify(f.screen, f.want.Title)
			checkInvariants(t, got)
			if reason, ok := pending[strings.TrimPrefix(f.name, "shared/")]; ok {
				if got.Agent == claude.name && got.Status == agent.StatusBlocked {
					t.Fatalf("pending fixture (%s) misread as Claude Code blocked: %+v", reason, got)
				}
				if diff := compare(f, got); diff == "" {
					t.Logf("pending fixture now reads right: take it out of the pending list")
				}
				return
			}
			if diff := compare(f, got); diff != "" {
				t.Error(diff)
			}
		})
	}
}

// compare returns how got differs from the fixture's expected reading,
// or "".
func compare(f fixture, got agent.Reading) string {
	var b strings.Builder
	w := f.want
	if got.Agent != w.Agent {
		b.WriteString("agent: got " + quote(got.Agent) + ", want " + quote(w.Agent) + "\n")
	}
	if got.Status != w.Status {
		b.WriteString("status: got " + quote(string(got.Status)) + ", want " + quote(string(w.Status)) + "\n")
	}
	switch {
	case w.Question == nil && got.Question != nil:
		b.WriteString("question: got " + jsonString(got.Question) + ", want none\n")
	case w.Question != nil && got.Question == nil:
		b.WriteString("question: got none, want " + jsonString(w.Question) + "\n")
	case w.Question != nil:
		g, e := *got.Question, *w.Question
		if g.Prompt != e.Prompt || g.AnswerStyle != e.AnswerStyle || g.Selected != e.Selected || !slices.Equal(g.Options, e.Options) {
			b.WriteString("question:\n  got  " + jsonString(g) + "\n  want " + jsonString(e) + "\n")
		}
	}
	if w.Headline != nil && got.Headline != *w.Headline {
		b.WriteString("headline: got " + quote(got.Headline) + ", want " + quote(*w.Headline) + "\n")
	}
	return b.String()
}

func quote(s string) string { return `"` + s + `"` }

func jsonString(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	return string(b)
}

// checkInvariants fails when a reading breaks the contract Classify
// promises whatever its input.
func checkInvariants(t testing.TB, r agent.Reading) {
	t.Helper()
	switch r.Status {
	case agent.StatusWorking, agent.StatusBlocked, agent.StatusIdle, agent.StatusUnknown:
	default:
		t.Fatalf("invalid status %q", r.Status)
	}
	if (r.Agent == "") != (r.Status == agent.StatusUnknown) {
		t.Fatalf("agent %q with status %q: no agent is exactly status unknown", r.Agent, r.Status)
	}
	if r.Status != agent.StatusBlocked {
		if r.Question != nil || r.Headline != "" {
			t.Fatalf("status %q with a question or headline: %+v", r.Status, r)
		}
		return
	}
	oneLine(t, "headline", r.Headline)
	if r.Headline == "" || utf8.RuneCountInString(r.Headline) > maxHeadline {
		t.Fatalf("blocked reading's headline %q: want 1..%d runes", r.Headline, maxHeadline)
	}
	q := r.Question
	if q == nil {
		return
	}
	switch q.AnswerStyle {
	case agent.AnswerMenu, agent.AnswerTabs, agent.AnswerLetter, agent.AnswerText:
	default:
		t.Fatalf("invalid answer style %q", q.AnswerStyle)
	}
	if q.Selected < 0 {
		t.Fatalf("selected %d < 0", q.Selected)
	}
	oneLine(t, "prompt", q.Prompt)
	for _, o := range q.Options {
		if o == "" {
			t.Fatalf("empty option in %q", q.Options)
		}
		oneLine(t, "option", o)
	}
}

// oneLine fails unless s is valid UTF-8 without control runes.
func oneLine(t testing.TB, what, s string) {
	t.Helper()
	if !utf8.ValidString(s) || strings.IndexFunc(s, unicode.IsControl) >= 0 {
		t.Fatalf("%s %q: not one line of valid UTF-8", what, s)
	}
}

// TestHeadlines pins the headline of each shared blocked fixture: the
// tool call when the screen shows one, else the prompt.
func TestHeadlines(t *testing.T) {
	want := map[string]string{
		"claude-bash-permission":        "Bash(touch /tmp/scratch/notes.txt)",
		"claude-bash-permission-legacy": "Bash(rm -rf build/)",
		"claude-edit-file":              "Update(src/session.ts)",
		"claude-ask-user-question":      "Which type should the new created_at column use?",
		"claude-plan-gate":              "Claude has written up a plan and is ready to execute. Would you like to proceed?",
		"codex-exec-approval":           "$ ./bin/migrate up --db ../shared/dev.sqlite",
		"gemini-shell-confirm":          "Shell npm run build (Build the bundle)",
		"opencode-permission":           "Permission required: git push origin feature/importer",
	}
	seen := 0
	for _, f := range loadFixtures(t, fixturesDir(t), "shared") {
		name := strings.TrimPrefix(f.name, "shared/")
		h, ok := want[name]
		if !ok {
			continue
		}
		seen++
		if got := Classify(f.screen, f.want.Title).Headline; got != h {
			t.Errorf("%s: headline %q, want %q", name, got, h)
		}
	}
	if seen != len(want) {
		t.Errorf("found %d of the %d fixtures named here", seen, len(want))
	}
}

// TestTitleOnly: a title alone can name the agent and carry its state.
func TestTitleOnly(t *testing.T) {
	for _, tc := range []struct {
		title, screen string
		want          agent.Reading
	}{
		{"", "", agent.Reading{Status: agent.StatusUnknown}},
		{"bash", "$ ", agent.Reading{Status: agent.StatusUnknown}},
		{"⠐ Refactoring", "", agent.Reading{Agent: "claude", Status: agent.StatusWorking}},
		{"✳ Claude Code", "────\n❯ \n────\n", agent.Reading{Agent: "claude", Status: agent.StatusIdle}},
		{"Action Required", "", agent.Reading{Agent: "codex", Status: agent.StatusBlocked, Headline: "Action Required"}},
	} {
		got := Classify(tc.screen, tc.title)
		checkInvariants(t, got)
		if got.Agent != tc.want.Agent || got.Status != tc.want.Status || got.Headline != tc.want.Headline || got.Question != nil {
			t.Errorf("Classify(%q, %q) = %+v, want %+v", tc.screen, tc.title, got, tc.want)
		}
	}
}

func TestStripHints(t *testing.T) {
	for in, want := range map[string]string{
		"No, and tell Claude what to do differently (esc)": "No, and tell Claude what to do differently",
		"Yes, proceed (y)": "Yes, proceed",
		"Yes, allow all edits during this session (shift+tab)": "Yes, allow all edits during this session",
		"Use timestamptz (Recommended)":                        "Use timestamptz (Recommended)",
		"Yes (ctrl+y) (y)":                                     "Yes",
		"(esc)":                                                "",
		"f(x)":                                                 "f",
		"Run make (all)":                                       "Run make (all)",
	} {
		if got := stripHints(in); got != want {
			t.Errorf("stripHints(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseOption(t *testing.T) {
	for _, tc := range []struct {
		row    string
		ok     bool
		num    int
		cursor bool
		label  string
	}{
		{" ❯ 1. Yes", true, 1, true, "Yes"},
		{"   2. No", true, 2, false, "No"},
		{"› 1. Yes, proceed (y)", true, 1, true, "Yes, proceed (y)"},
		{"● 12) Allow", true, 12, true, "Allow"},
		{"→1. Go", true, 1, true, "Go"},
		{"  - 1. markdown", false, 0, false, ""},
		{"(1) text", false, 0, false, ""},
		{"1.5 is a number", false, 0, false, ""},
		{"2024. A year", false, 0, false, ""},
		{"3. ", false, 0, false, ""},
		{"Step 1. go", false, 0, false, ""},
	} {
		s := parseScreen(tc.row)
		o, ok := parseOption(s.lines[0])
		if ok != tc.ok || (ok && (o.num != tc.num || o.cursor != tc.cursor || o.label != tc.label)) {
			t.Errorf("parseOption(%q) = %+v, %v; want num %d cursor %v label %q ok %v", tc.row, o, ok, tc.num, tc.cursor, tc.label, tc.ok)
		}
	}
}

// TestRulesTables checks that every table has its own name and can be
// identified from its title alone.
func TestRulesTables(t *testing.T) {
	names := map[string]bool{}
	for _, r := range tables {
		if r.name == "" || names[r.name] {
			t.Errorf("table with empty or duplicate name %q", r.name)
		}
		names[r.name] = true
		top := 0
		for _, c := range r.titleClues {
			top = max(top, c.weight)
		}
		if top < minScore {
			t.Errorf("%s: no title clue reaches minScore %d on its own", r.name, minScore)
		}
	}
}

func FuzzClassify(f *testing.F) {
	for _, fx := range allFixtures(f) {
		f.Add(fx.screen, fx.want.Title)
	}
	f.Add("", "")
	f.Add("│\n│ │\n╭╮\n❯ 1.\n❯ 1. a\n  2. b", "✳")
	f.Add("\xff\xfe ❯ 1. \xff\n  2. (esc)\n  3. (y)", "\xff Claude Code")
	f.Add(" ❯ 1. Yes\n   2. No", "Action Required")
	f.Add("  [ a ]  [ b ]\n  ⇆ select   enter confirm", "OpenCode")
	f.Fuzz(func(t *testing.T, screen, title string) {
		checkInvariants(t, Classify(screen, title))
	})
}

func BenchmarkClassify(b *testing.B) {
	fixtures := loadFixtures(b, fixturesDir(b), "shared")
	for _, name := range []string{"claude-bash-permission", "claude-ask-user-question", "claude-working", "claude-idle", "codex-exec-approval", "shell-prompt"} {
		i := slices.IndexFunc(fixtures, func(f fixture) bool { return f.name == "shared/"+name })
		if i < 0 {
			b.Fatalf("fixture %s not found", name)
		}
		f := fixtures[i]
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(f.screen)))
			b.ReportAllocs()
			for b.Loop() {
				Classify(f.screen, f.want.Title)
			}
		})
	}
}
