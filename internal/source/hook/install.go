package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// Installable lists the agents whose settings `attn integration install`
// (alias `attn hook install`) edits: every agent with hooks.
var Installable = []string{AgentClaude, AgentCodex, AgentGemini, AgentOpenCode}

// HookCommand is the command an agent's settings run for agent, e.g.
// "attn hook claude". It names attn by its bare name: the agent finds it
// on its PATH, so a reinstalled or moved attn keeps working.
func HookCommand(agent string) string { return "attn hook " + agent }

// Install is the change attn makes to one of an agent's files: Before and
// After are the file's whole content. Build it with PlanInstall (or, for
// every file of an agent, PlanIntegration and PlanRemoval), show it with
// Diff, write it with Apply.
type Install struct {
	Agent string
	// Path is the settings file, symlinks resolved: e.g.
	// /home/dev/.claude/settings.json.
	Path string
	// Display is Path as a person reads it, e.g. "~/.claude/settings.json".
	Display string
	// Exists is whether the file exists now.
	Exists bool
	// Before is the file's content now (nil when it does not exist);
	// After what attn would write. Equal when there is nothing to do.
	Before, After []byte
	// Remove says Apply deletes the file (after backing it up) instead of
	// writing After: an uninstall that leaves nothing of it.
	Remove bool
	// Mode is the file's permission bits, kept by Apply (0600 for a new
	// file).
	Mode os.FileMode
	// Notes say what the person still has to do or know, one sentence
	// each.
	Notes []string

	removal bool // planned by PlanRemoval: error messages name uninstall
}

// Changed reports whether Apply would write anything.
func (in *Install) Changed() bool { return in.Remove || !bytes.Equal(in.Before, in.After) }

// Diff returns the change as a unified diff of the settings file, "" when
// there is none.
func (in *Install) Diff() string {
	a, b := in.Display, in.Display
	if !in.Exists {
		a = "/dev/null"
	}
	after := string(in.After)
	if in.Remove {
		b, after = "/dev/null", ""
	}
	if !in.Changed() {
		return ""
	}
	return unifiedDiff(a, b, string(in.Before), after)
}

// again is the command that retries this change.
func (in *Install) again() string {
	if in.removal {
		return "attn integration uninstall " + in.Agent
	}
	return "attn integration install " + in.Agent
}

// target is one file an agent's integration edits.
type target struct {
	rel      string // path under the home directory, or under ConfigHome
	config   bool   // rel is under Env.ConfigHome (XDG), not Home
	install  func(in *Install) error
	remove   func(in *Install) error
	check    func(in *Install) (state, detail string)
	notes    []string // for the person, after an install
	contents string   // what the file is for, in status
}

// targets returns the files of agent's integration, in the order they are
// written.
func targets(agent string) ([]target, error) {
	jsonTarget := func(rel string, events []string, entry func(event string) *jobject, notes ...string) target {
		return target{rel: rel, notes: notes,
			contents: "hooks " + strings.Join(events, ", ") + " → `" + HookCommand(agent) + "`",
			install:  func(in *Install) error { return in.planJSON(events, entry) },
			remove:   func(in *Install) error { return in.planJSONRemoval() },
			check:    func(in *Install) (string, string) { return in.checkJSON(events) },
		}
	}
	command := func(timeout string) *jobject {
		return obj("type", "command", "command", HookCommand(agent), "timeout", json.Number(timeout))
	}
	switch agent {
	case AgentClaude:
		return []target{jsonTarget(".claude/settings.json", []string{"PermissionRequest", "Notification", "Stop"},
			func(event string) *jobject {
				h := &jarray{elems: []any{command("5")}}
				if event == "Stop" {
					return obj("hooks", h)
				}
				return obj("matcher", "*", "hooks", h)
			},
			"Claude Code sessions already running take the new hooks after you review them in /hooks, or when restarted.")}, nil
	case AgentCodex:
		return []target{
			{rel: ".codex/config.toml", contents: codexNotify,
				notes:   []string{"Codex reads config.toml when it starts: restart running Codex sessions."},
				install: (*Install).planCodex, remove: (*Install).planCodexRemoval, check: (*Install).checkCodex},
			jsonTarget(".codex/hooks.json", []string{"PermissionRequest"},
				func(string) *jobject { return obj("hooks", &jarray{elems: []any{command("5")}}) },
				CodexTrustNote),
		}, nil
	case AgentGemini:
		return []target{jsonTarget(".gemini/settings.json", []string{"Notification", "AfterAgent"},
			func(string) *jobject {
				return obj("hooks", &jarray{elems: []any{obj("name", "attn", "type", "command", "command", HookCommand(agent), "timeout", json.Number("5000"))}})
			},
			"Gemini CLI runs hooks only when they are enabled: older releases need \"hooksConfig\": {\"enabled\": true} (or \"tools\": {\"enableHooks\": true}) in ~/.gemini/settings.json.")}, nil
	case AgentOpenCode:
		return []target{{rel: "opencode/plugins/" + OpenCodePluginName, config: true,
			contents: "a plugin forwarding permission.asked, permission.updated, question.asked and session.idle to `" + HookCommand(agent) + "`",
			notes:    []string{"OpenCode loads plugins when it starts: restart running OpenCode sessions."},
			install:  (*Install).planPlugin, remove: (*Install).planPluginRemoval, check: (*Install).checkPlugin}}, nil
	}
	return nil, fmt.Errorf("unknown agent %q: attn integrates %s", agent, strings.Join(Installable, ", "))
}

// CodexTrustNote is what Codex needs from the person once its hook is
// written.
const CodexTrustNote = "Codex runs a new or changed hook only after you trust it: open /hooks in Codex and trust the PermissionRequest hook `attn hook codex` (until then only finished turns reach attn, through notify)."

// PlanInstall reads agent's main settings file under home (the user's
// home directory) and works out the entries that make the agent call
// `attn hook <agent>`, keeping every other setting and the file's key
// order:
//
//   - claude: ~/.claude/settings.json, hooks PermissionRequest,
//     Notification and Stop, each {"type": "command", "command": "attn
//     hook claude", "timeout": 5} (seconds);
//   - codex: ~/.codex/config.toml, notify = ["attn", "hook", "codex"]
//     (PlanIntegration adds ~/.codex/hooks.json's PermissionRequest);
//   - gemini: ~/.gemini/settings.json, hooks Notification and AfterAgent,
//     each {"name": "attn", "type": "command", "command": "attn hook
//     gemini", "timeout": 5000} (milliseconds);
//   - opencode: the plugin ~/.config/opencode/plugins/attn.js.
//
// An entry already there (a command running `attn hook <agent>`, by any
// path to attn) is left as it is, so installing twice changes nothing.
// PlanInstall refuses, with an error that says what to do, a file it
// cannot parse, a settings shape it does not know (e.g. "hooks" that is
// not an object), a Codex notify that runs another program (Codex runs
// only one), and a plugin file attn did not write.
func PlanInstall(agent, home string) (*Install, error) {
	ts, err := targets(agent)
	if err != nil {
		return nil, err
	}
	return planTarget(agent, Env{Home: home}, ts[0], false)
}

// planTarget reads t's file and plans its install (or, with remove, its
// removal).
func planTarget(agent string, env Env, t target, remove bool) (*Install, error) {
	in, err := readTarget(agent, env, t)
	if err != nil {
		return nil, err
	}
	in.removal = remove
	if remove {
		err = t.remove(in)
	} else {
		err = t.install(in)
		in.Notes = append(in.Notes, t.notes...)
	}
	if err != nil {
		return nil, err
	}
	return in, nil
}

// readTarget reads t's file into a new Install whose After is its Before.
func readTarget(agent string, env Env, t target) (*Install, error) {
	if env.Home == "" {
		return nil, errors.New("no home directory: set $HOME")
	}
	base, shown := env.Home, "~/"
	if t.config {
		base, shown = filepath.Join(env.Home, ".config"), "~/.config/"
		if env.ConfigHome != "" {
			base, shown = env.ConfigHome, env.ConfigHome+"/"
		}
	}
	in := &Install{Agent: agent, Path: filepath.Join(base, t.rel), Display: shown + t.rel, Mode: 0o600}
	if real, err := filepath.EvalSymlinks(in.Path); err == nil {
		in.Path = real // edit a dotfile manager's target, keep its link
	}
	fi, err := os.Stat(in.Path)
	switch {
	case err == nil && !fi.Mode().IsRegular():
		return nil, fmt.Errorf("%s is not a regular file: attn leaves it alone", in.Display)
	case err == nil:
		in.Exists, in.Mode = true, fi.Mode().Perm()
		if in.Before, err = os.ReadFile(in.Path); err != nil {
			return nil, fmt.Errorf("read %s: %w (check its permissions)", in.Display, err)
		}
	case !errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("%s: %w (check its permissions)", in.Display, err)
	}
	in.After = in.Before
	return in, nil
}

// planJSON adds a hook group made by entry to each of events under the
// settings' "hooks" object, unless one there already runs attn's hook. It
// inserts text into the file and changes no other byte of it.
func (in *Install) planJSON(events []string, entry func(event string) *jobject) error {
	indent := indentOf(in.Before)
	if len(bytes.TrimSpace(in.Before)) == 0 {
		hooks := &jobject{}
		for _, event := range events {
			hooks.members = append(hooks.members, jmember{event, &jarray{elems: []any{entry(event)}}})
		}
		in.After = encodeOrdered(obj("hooks", hooks), indent)
		return nil
	}
	v, err := decodeOrdered(in.Before)
	if err != nil {
		return fmt.Errorf("%s is not valid JSON (%v): attn leaves it alone; fix it, then run `%s` again", in.Display, err, in.again())
	}
	root, ok := v.(*jobject)
	if !ok {
		return fmt.Errorf("%s holds a JSON %s, not an object: attn leaves it alone", in.Display, kindOf(v))
	}
	v, ok = root.get("hooks")
	if !ok {
		hooks := &jobject{}
		for _, event := range events {
			hooks.members = append(hooks.members, jmember{event, &jarray{elems: []any{entry(event)}}})
		}
		in.After = applyInsertions(in.Before, []insertion{appendMember(root, "hooks", hooks, indent, 0)})
		root.members = append(root.members, jmember{"hooks", hooks})
		in.reformatOneLiner(root)
		return nil
	}
	hooks, ok := v.(*jobject)
	if !ok {
		return fmt.Errorf(`"hooks" in %s is a JSON %s, not an object: attn leaves the file alone; fix it, then run `+"`%s`"+` again`, in.Display, kindOf(v), in.again())
	}
	var ins []insertion
	added := &jobject{} // events the hooks object lacks
	for _, event := range events {
		v, ok := hooks.get(event)
		if !ok {
			added.members = append(added.members, jmember{event, &jarray{elems: []any{entry(event)}}})
			continue
		}
		groups, ok := v.(*jarray)
		if !ok {
			return fmt.Errorf(`"hooks.%s" in %s is a JSON %s, not an array: attn leaves the file alone`, event, in.Display, kindOf(v))
		}
		if !hasAttnHook(groups, in.Agent) {
			e := entry(event)
			ins = append(ins, appendElem(groups, e, indent, 2))
			groups.elems = append(groups.elems, e)
		}
	}
	for _, m := range added.members {
		ins = append(ins, appendMember(hooks, m.key, m.val, indent, 1))
		hooks.members = append(hooks.members, m) // the next one follows a comma
	}
	in.After = applyInsertions(in.Before, ins)
	if _, err := decodeOrdered(in.After); err != nil { // cannot happen
		return fmt.Errorf("attn's edit of %s would not be valid JSON (%v): nothing written; please report this", in.Display, err)
	}
	if len(ins) > 0 {
		in.reformatOneLiner(root)
	}
	return nil
}

// reformatOneLiner writes a settings file that was all on one line as
// indented JSON (keys in their order, values as written): insertions into
// one line read badly. root is the edited document.
func (in *Install) reformatOneLiner(root *jobject) {
	if !bytes.Contains(bytes.TrimSpace(in.Before), []byte("\n")) {
		in.After = encodeOrdered(root, "  ")
	}
}

// hasAttnHook reports whether a hook group list already runs `attn hook
// agent`.
func hasAttnHook(groups *jarray, agent string) bool {
	for _, g := range groups.elems {
		group, ok := g.(*jobject)
		if !ok {
			continue
		}
		v, _ := group.get("hooks")
		list, _ := v.(*jarray)
		if list == nil {
			continue
		}
		for _, h := range list.elems {
			hk, ok := h.(*jobject)
			if !ok {
				continue
			}
			if c, _ := hk.get("command"); isAttnHook(c, agent) {
				return true
			}
		}
	}
	return false
}

// isAttnHook reports whether a command runs `attn hook agent`, by any path
// to attn: "attn hook claude", "/usr/local/bin/attn hook claude".
func isAttnHook(cmd any, agent string) bool {
	s, ok := cmd.(string)
	if !ok {
		return false
	}
	f := strings.Fields(s)
	return len(f) >= 3 && filepath.Base(f[0]) == "attn" && f[1] == "hook" && f[2] == agent
}

func kindOf(v any) string {
	switch v.(type) {
	case *jobject:
		return "object"
	case *jarray:
		return "array"
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}

// codexNotify is the line attn adds to ~/.codex/config.toml.
const codexNotify = `notify = ["attn", "hook", "codex"]`

var (
	tomlNotify = regexp.MustCompile(`^\s*(notify|"notify"|'notify')\s*=`)
	tomlHeader = regexp.MustCompile(`^\s*\[`)
	tomlArgs   = regexp.MustCompile(`"((?:[^"\\]|\\.)*)"|'([^']*)'`)
)

// planCodex sets the top-level notify key of ~/.codex/config.toml. It
// reads just enough TOML to find the top level (the lines before the
// first table header, outside multi-line strings and arrays), and inserts
// the line there, above the first header.
func (in *Install) planCodex() error {
	text := string(in.Before)
	lines := strings.SplitAfter(text, "\n")
	if text == "" {
		lines = nil
	}
	firstHeader := len(lines)
	var ml string // the closing quote of an open multi-line string
	depth := 0    // open brackets of a multi-line array value
	for i, line := range lines {
		if ml == "" && depth == 0 {
			if tomlHeader.MatchString(line) {
				firstHeader = i
				break
			}
			if tomlNotify.MatchString(line) {
				value := strings.TrimSpace(line[strings.Index(line, "=")+1:])
				if args := tomlStrings(value); len(args) >= 3 && filepath.Base(args[0]) == "attn" && args[1] == "hook" && args[2] == AgentCodex {
					in.After = in.Before
					return nil
				}
				return fmt.Errorf("%s already sets notify = %s, and Codex runs only one notify program: attn leaves it alone; replace that line with %s (or have your program also run `attn hook codex` with the same last argument)", in.Display, oneLine(value, 120), codexNotify)
			}
		}
		ml, depth = tomlScan(line, ml, depth)
	}
	if ml != "" || depth != 0 {
		return fmt.Errorf("%s has an unterminated string or array: attn leaves it alone; fix it, then run `%s` again", in.Display, in.again())
	}
	insert := codexNotify + "\n"
	if firstHeader < len(lines) {
		insert += "\n"
	}
	head := strings.Join(lines[:firstHeader], "")
	if head != "" && !strings.HasSuffix(head, "\n") {
		head += "\n"
	}
	in.After = []byte(head + insert + strings.Join(lines[firstHeader:], ""))
	return nil
}

// tomlStrings returns the string elements of a one-line TOML array.
func tomlStrings(v string) []string {
	var out []string
	for _, m := range tomlArgs.FindAllStringSubmatch(v, -1) {
		if m[1] != "" || strings.HasPrefix(m[0], `"`) {
			out = append(out, strings.ReplaceAll(m[1], `\"`, `"`))
		} else {
			out = append(out, m[2])
		}
	}
	return out
}

// tomlScan follows one line of TOML for the state that spans lines: an
// open multi-line string (ml: its closing delimiter) and the bracket depth
// of a multi-line array. Comments and one-line strings are skipped.
func tomlScan(line, ml string, depth int) (string, int) {
	for i := 0; i < len(line); i++ {
		if ml != "" {
			if strings.HasPrefix(line[i:], ml) {
				i += len(ml) - 1
				ml = ""
			} else if ml == `"""` && line[i] == '\\' {
				i++
			}
			continue
		}
		switch c := line[i]; {
		case c == '#':
			return ml, depth
		case strings.HasPrefix(line[i:], `"""`) || strings.HasPrefix(line[i:], `'''`):
			ml = line[i : i+3]
			i += 2
		case c == '"' || c == '\'':
			j := i + 1
			for j < len(line) && line[j] != c && line[j] != '\n' {
				if c == '"' && line[j] == '\\' {
					j++
				}
				j++
			}
			i = j
		case c == '[' && depth > 0, c == '[' && strings.Contains(line[:i], "="):
			depth++
		case c == ']' && depth > 0:
			depth--
		}
	}
	return ml, depth
}

// Apply writes After to the settings file, creating its directory (0700)
// when missing. The original, if any, is first copied beside it as
// <file>.attn-backup-<now, e.g. 20261130T091244>, returned as backup; the
// new content then replaces the file in one rename, keeping its mode (or,
// with Remove, the file is deleted). Apply refuses when the file changed
// since it was read. It does nothing and returns "" when nothing changes.
func (in *Install) Apply(now time.Time) (backup string, err error) {
	if !in.Changed() {
		return "", nil
	}
	dir := filepath.Dir(in.Path)
	if !in.Remove {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return "", fmt.Errorf("create %s: %w (check the permissions of its parent)", filepath.Dir(in.Display), err)
		}
	}
	current, err := os.ReadFile(in.Path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("read %s: %w", in.Display, err)
	}
	if in.Exists != (err == nil) || !bytes.Equal(current, in.Before) {
		return "", fmt.Errorf("%s changed while attn was editing it: run `%s` again", in.Display, in.again())
	}
	if in.Exists {
		var f *os.File
		stamp := in.Path + ".attn-backup-" + now.Format("20060102T150405")
		backup = stamp
		for n := 1; ; n++ {
			f, err = os.OpenFile(backup, os.O_WRONLY|os.O_CREATE|os.O_EXCL, in.Mode)
			if !errors.Is(err, os.ErrExist) || n == 100 {
				break
			}
			backup = fmt.Sprintf("%s-%d", stamp, n)
		}
		if err != nil {
			return "", fmt.Errorf("back up %s: %w", in.Display, err)
		}
		_, werr := f.Write(in.Before)
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			os.Remove(backup)
			return "", fmt.Errorf("back up %s: %w", in.Display, werr)
		}
	}
	if in.Remove {
		if err := os.Remove(in.Path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return backup, fmt.Errorf("remove %s: %w (check the permissions of %s)", in.Display, err, filepath.Dir(in.Display))
		}
		return backup, nil
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(in.Path)+".attn-*")
	if err != nil {
		return backup, fmt.Errorf("write %s: %w", in.Display, err)
	}
	defer os.Remove(tmp.Name()) // after the rename, a no-op
	_, werr := tmp.Write(in.After)
	if werr == nil {
		werr = tmp.Chmod(in.Mode)
	}
	if werr == nil {
		werr = tmp.Sync()
	}
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), in.Path)
	}
	if werr != nil {
		return backup, fmt.Errorf("write %s: %w", in.Display, werr)
	}
	return backup, nil
}
