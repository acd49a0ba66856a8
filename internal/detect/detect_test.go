package detect

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
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
	raw    []byte // NAME.json as stored
	want   struct {
		Agent    string          `json:"agent"`
		Title    string          `json:"title"`
		Command  string          `json:"command"`
		Status   agent.Status    `json:"status"`
		Question *agent.Question `json:"question"`
		Headline *string         `json:"headline"`
	}
}

// pane is the fixture as ClassifyPane reads it.
func (f fixture) pane() Pane {
	return Pane{Screen: f.screen, Title: f.want.Title, Command: f.want.Command}
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
		f.raw = raw
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
			got := ClassifyPane(f.pane())
			checkInvariants(t, got)
			if f.want.Command == "" {
				if c := Classify(f.screen, f.want.Title); !reflect.DeepEqual(c, got) {
					t.Fatalf("Classify and ClassifyPane without a command disagree:\n%+v\n%+v", c, got)
				}
			}
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
			checkCLIShape(t, f, got)
		})
	}
}

// checkCLIShape checks the reading as `attn detect` prints it: the JSON
// encoding of agent.Reading, whose {"agent","status","question"} must be
// the fixture's (the headline is not part of the fixtures' shape).
func checkCLIShape(t *testing.T, f fixture, got agent.Reading) {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(got); err != nil {
		t.Fatalf("encode reading: %v", err)
	}
	gotView, err := cliView(buf.Bytes())
	if err != nil {
		t.Fatalf("reading as printed: %v", err)
	}
	wantView, err := cliView(f.raw)
	if err != nil {
		t.Fatalf("%s.json: %v", f.name, err)
	}
	if !reflect.DeepEqual(gotView, wantView) {
		g, _ := json.Marshal(gotView)
		w, _ := json.Marshal(wantView)
		t.Errorf("as `attn detect` prints it:\n  got  %s\n  want %s", g, w)
	}
}

// cliView keeps of a JSON reading the keys the fixtures pin: agent,
// status and the question's prompt, options, answer_style and selected.
func cliView(b []byte) (map[string]any, error) {
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	out := map[string]any{"agent": m["agent"], "status": m["status"]}
	if q, ok := m["question"].(map[string]any); ok {
		out["question"] = map[string]any{
			"prompt": q["prompt"], "options": q["options"], "answer_style": q["answer_style"], "selected": q["selected"],
		}
	} else if m["question"] != nil {
		return nil, fmt.Errorf("question is %T, not an object", m["question"])
	}
	return out, nil
}

// agentNames are the agent CLIs the classifier must read, each with its
// own fixtures.
var agentNames = []string{"claude", "codex", "gemini", "opencode", "cursor", "copilot", "amp", "aider"}

// TestCorpus checks the fixture corpus covers every agent: at least
// three blocked shapes, one working and one idle screen each, and logs
// the counts (go test -v -run TestCorpus).
func TestCorpus(t *testing.T) {
	counts := map[string]map[agent.Status]int{}
	for _, f := range allFixtures(t) {
		a := f.want.Agent
		if a == "" {
			a = "(none)"
		}
		if counts[a] == nil {
			counts[a] = map[agent.Status]int{}
		}
		counts[a][f.want.Status]++
	}
	for _, name := range agentNames {
		c := counts[name]
		if c[agent.StatusBlocked] < 3 || c[agent.StatusWorking] < 1 || c[agent.StatusIdle] < 1 {
			t.Errorf("%s: %d blocked, %d working, %d idle fixtures; want at least 3, 1, 1",
				name, c[agent.StatusBlocked], c[agent.StatusWorking], c[agent.StatusIdle])
		}
	}
	names := make([]string, 0, len(counts))
	for a := range counts {
		names = append(names, a)
	}
	sort.Strings(names)
	t.Logf("%-10s %8s %8s %8s %8s", "agent", "blocked", "working", "idle", "unknown")
	for _, a := range names {
		c := counts[a]
		t.Logf("%-10s %8d %8d %8d %8d", a, c[agent.StatusBlocked], c[agent.StatusWorking], c[agent.StatusIdle], c[agent.StatusUnknown])
	}
	if len(tables) != len(agentNames) {
		t.Errorf("%d tables, %d agent names: keep agentNames in step with tables", len(tables), len(agentNames))
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
		{"✋  Action Required (app)", "", agent.Reading{Agent: "gemini", Status: agent.StatusBlocked, Headline: "✋  Action Required (app)"}},
		{"✦  Working… (app)", "", agent.Reading{Agent: "gemini", Status: agent.StatusWorking}},
		{"OC | Fix the importer", "", agent.Reading{Agent: "opencode", Status: agent.StatusWorking}},
		{"vim notes.txt", "", agent.Reading{Status: agent.StatusUnknown}},
	} {
		got := Classify(tc.screen, tc.title)
		checkInvariants(t, got)
		if got.Agent != tc.want.Agent || got.Status != tc.want.Status || got.Headline != tc.want.Headline || got.Question != nil {
			t.Errorf("Classify(%q, %q) = %+v, want %+v", tc.screen, tc.title, got, tc.want)
		}
	}
}

// TestCommands pins the foreground-command table: an agent's binary
// names it, a shell or another program that is no agent rules every agent
// out, a runtime leaves it to the clues.
func TestCommands(t *testing.T) {
	for _, tc := range []struct {
		command string
		kind    commandKind
		table   *rules
	}{
		{"claude", cmdAgent, claude},
		{"/home/dev/.local/bin/claude", cmdAgent, claude},
		{"Codex", cmdAgent, codex},
		{"gemini", cmdAgent, gemini},
		{"opencode", cmdAgent, opencode},
		{"cursor-agent", cmdAgent, cursor},
		{"copilot", cmdAgent, copilot},
		{"amp", cmdAgent, amp},
		{"aider", cmdAgent, aider},
		{"bash", cmdShell, nil},
		{"-zsh", cmdShell, nil},
		{"/usr/bin/fish", cmdShell, nil},
		{"sh", cmdShell, nil},
		{"dash", cmdShell, nil},
		{"nvim", cmdShell, nil},
		{"node", cmdOther, nil},
		{"python3", cmdOther, nil},
		{"python3.12", cmdOther, nil},
		{"ssh", cmdOther, nil},
		{"", cmdOther, nil},
		{"agent", cmdOther, cursor},
	} {
		got := lookupCommand(tc.command)
		if got.kind != tc.kind || got.table != tc.table {
			t.Errorf("lookupCommand(%q) = kind %d table %v, want kind %d table %v", tc.command, got.kind, name(got.table), tc.kind, name(tc.table))
		}
	}
	for _, r := range tables {
		found := false
		for _, c := range commands {
			found = found || c.kind == cmdAgent && c.table == r
		}
		if !found {
			t.Errorf("%s: no command names it", r.name)
		}
	}
}

func name(r *rules) string {
	if r == nil {
		return "<nil>"
	}
	return r.name
}

// TestClassifyPaneCommand: the foreground command decides before the
// screen does. A live Claude Code dialog under a shell is leftover text;
// under a runtime the clues name Claude Code; under an agent's own
// command that agent's table reads it, whatever the title says.
func TestClassifyPaneCommand(t *testing.T) {
	fixtures := loadFixtures(t, fixturesDir(t), "shared")
	i := slices.IndexFunc(fixtures, func(f fixture) bool { return f.name == "shared/claude-bash-permission" })
	if i < 0 {
		t.Fatal("shared/claude-bash-permission not found")
	}
	screen := fixtures[i].screen
	for _, tc := range []struct {
		command, title string
		agent          string
		status         agent.Status
	}{
		{"bash", "✳ Claude Code", "", agent.StatusUnknown},
		{"zsh", "", "", agent.StatusUnknown},
		{"fish", "", "", agent.StatusUnknown},
		{"sh", "", "", agent.StatusUnknown},
		{"dash", "", "", agent.StatusUnknown},
		{"less", "", "", agent.StatusUnknown},
		{"claude", "", "claude", agent.StatusBlocked},
		{"claude", "Gemini CLI", "claude", agent.StatusBlocked},
		{"node", "", "claude", agent.StatusBlocked},
		{"", "✳ Claude Code", "claude", agent.StatusBlocked},
	} {
		got := ClassifyPane(Pane{Screen: screen, Title: tc.title, Command: tc.command})
		checkInvariants(t, got)
		if got.Agent != tc.agent || got.Status != tc.status {
			t.Errorf("command %q title %q: got %s/%s, want %s/%s", tc.command, tc.title, got.Agent, got.Status, tc.agent, tc.status)
		}
	}
	// An agent's command with a screen its table finds nothing on: the
	// agent is there all the same, not at rest and asking nothing.
	for _, r := range tables {
		got := ClassifyPane(Pane{Screen: "", Command: commandFor(r)})
		checkInvariants(t, got)
		if got.Agent != r.name || got.Status == agent.StatusBlocked {
			t.Errorf("%s on an empty screen: %+v", r.name, got)
		}
	}
}

// commandFor returns a command naming r.
func commandFor(r *rules) string {
	for c, cmd := range commands {
		if cmd.kind == cmdAgent && cmd.table == r {
			return c
		}
	}
	return ""
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
		"Run (once) (y)":                                       "Run (once)",
		"Skip (esc or n)":                                      "Skip",
		"No, and tell Copilot what to do differently (Esc to stop)": "No, and tell Copilot what to do differently",
		"Approve [Alt+1]":                    "Approve",
		"Allow all [for good]":               "Allow all [for good]",
		"Run it (to be sure)":                "Run it (to be sure)",
		"Add Shell(npm) to allowlist? (tab)": "Add Shell(npm) to allowlist?",
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
		f.Add(fx.screen, fx.want.Title, fx.want.Command)
	}
	f.Add("", "", "")
	f.Add("│\n│ │\n╭╮\n❯ 1.\n❯ 1. a\n  2. b", "✳", "claude")
	f.Add("\xff\xfe ❯ 1. \xff\n  2. (esc)\n  3. (y)", "\xff Claude Code", "node")
	f.Add(" ❯ 1. Yes\n   2. No", "Action Required", "")
	f.Add("  [ a ]  [ b ]\n  ⇆ select   enter confirm", "OpenCode", "opencode")
	f.Add("┃  △ Permission required\n┃   A   B   C   enter confirm", "", "opencode")
	f.Add("x? (Y)\nes/(N)o []:", "", "aider")
	f.Add("Run this command?\n▸● A [Alt+1]\n ○ B\n○ C", "", "amp")
	f.Add("  │ [a] x\n  │ [q]", "", "cursor-agent")
	f.Fuzz(func(t *testing.T, screen, title, command string) {
		checkInvariants(t, ClassifyPane(Pane{Screen: screen, Title: title, Command: command}))
	})
}

// benchScreen pads a fixture to a 200×50 screen: scrollback prose above
// it, every row drawn to 200 columns as a capture with trailing blanks
// kept prints it.
func benchScreen(screen string) string {
	const cols, rows = 200, 50
	lines := strings.Split(strings.TrimRight(screen, "\n"), "\n")
	prose := "The importer reads the file in one go, which is fine for small inputs but not for the 2 GB exports " +
		"the billing team sends; streaming the rows keeps the memory flat and lets the writer start sooner."
	for len(lines) < rows {
		lines = append([]string{prose[:min(len(prose), cols)]}, lines...)
	}
	for i, l := range lines {
		if n := utf8.RuneCountInString(l); n < cols {
			lines[i] = l + strings.Repeat(" ", cols-n)
		}
	}
	return strings.Join(lines, "\n") + "\n"
}

// BenchmarkClassify measures one 200×50 screen per agent, blocked (the
// costliest reading: a question parsed), named by its command and by
// clues alone, and the shared fixtures as they are.
func BenchmarkClassify(b *testing.B) {
	fixtures := allFixtures(b)
	byName := func(name string) fixture {
		i := slices.IndexFunc(fixtures, func(f fixture) bool { return f.name == name })
		if i < 0 {
			b.Fatalf("fixture %s not found", name)
		}
		return fixtures[i]
	}
	for _, name := range []string{
		"shared/claude-bash-permission", "shared/codex-exec-approval", "testdata/gemini-edit-confirm",
		"testdata/opencode-permission-bash", "testdata/cursor-run-command-allowlist", "testdata/copilot-run-command-boxed",
		"testdata/amp-invoke-tool", "testdata/aider-add-file",
	} {
		f := byName(name)
		screen := benchScreen(f.screen)
		agentName := f.want.Agent
		for _, cmd := range []string{agentName, ""} {
			label := "200x50/" + agentName + "/command"
			if cmd == "" {
				label = "200x50/" + agentName + "/clues"
			}
			if cmd == "cursor" {
				cmd = "cursor-agent"
			}
			p := Pane{Screen: screen, Title: f.want.Title, Command: cmd}
			if got := ClassifyPane(p); got.Status != f.want.Status || got.Agent != agentName {
				b.Fatalf("%s padded to 200x50 reads %+v", name, got)
			}
			b.Run(label, func(b *testing.B) {
				b.SetBytes(int64(len(screen)))
				b.ReportAllocs()
				for b.Loop() {
					ClassifyPane(p)
				}
			})
		}
	}
	for _, name := range []string{"claude-ask-user-question", "claude-working", "claude-idle", "shell-prompt"} {
		f := byName("shared/" + name)
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(f.screen)))
			b.ReportAllocs()
			for b.Loop() {
				Classify(f.screen, f.want.Title)
			}
		})
	}
}
