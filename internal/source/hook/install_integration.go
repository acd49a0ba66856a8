package hook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Env says where agents keep their settings.
type Env struct {
	// Home is the user's home directory.
	Home string
	// ConfigHome is $XDG_CONFIG_HOME, where OpenCode keeps its plugins;
	// "" means Home/.config.
	ConfigHome string
}

// Plan is what `attn integration install` or `uninstall` changes for one
// agent: one Install per file, in the order they are written, each with
// its own backup.
type Plan struct {
	Agent string
	Files []*Install
}

// Changed reports whether Apply would write anything.
func (p *Plan) Changed() bool {
	return slices.ContainsFunc(p.Files, (*Install).Changed)
}

// Notes returns what the person still has to do or know after the plan is
// applied, one sentence each.
func (p *Plan) Notes() []string {
	var out []string
	for _, in := range p.Files {
		out = append(out, in.Notes...)
	}
	return out
}

// Apply writes every file that changes, in order, and returns the backups
// it made. It stops at the first error: the files before it are written
// (their backups returned), the rest untouched.
func (p *Plan) Apply(now time.Time) (backups []string, err error) {
	for _, in := range p.Files {
		b, err := in.Apply(now)
		if b != "" {
			backups = append(backups, b)
		}
		if err != nil {
			return backups, err
		}
	}
	return backups, nil
}

// PlanIntegration reads every file of agent's integration and works out
// the change that makes the agent call `attn hook <agent>` (see
// PlanInstall; for codex also ~/.codex/hooks.json's PermissionRequest
// hook). Every file is read and checked before anything is written: a
// file attn cannot parse refuses the whole plan.
func PlanIntegration(agent string, env Env) (*Plan, error) {
	return planAll(agent, env, false)
}

// PlanRemoval works out the change that takes attn's entries, and only
// them, out of every file of agent's integration: hook entries running
// `attn hook <agent>` (and the groups and lists that leaves empty),
// Codex's notify line when it runs attn, attn's OpenCode plugin. A file
// left with nothing in it is removed; every file changed is backed up.
func PlanRemoval(agent string, env Env) (*Plan, error) {
	return planAll(agent, env, true)
}

func planAll(agent string, env Env, remove bool) (*Plan, error) {
	ts, err := targets(agent)
	if err != nil {
		return nil, err
	}
	p := &Plan{Agent: agent}
	for _, t := range ts {
		in, err := planTarget(agent, env, t, remove)
		if err != nil {
			return nil, err
		}
		p.Files = append(p.Files, in)
	}
	return p, nil
}

// The states of an integration's file.
const (
	StateInstalled    = "installed"        // every entry attn needs is there
	StatePartial      = "partly installed" // some are, or an older copy
	StateNotInstalled = "not installed"    // none is
	StateUnreadable   = "unreadable"       // attn cannot read it, or will not edit it
)

// FileStatus is one file of an integration.
type FileStatus struct {
	Display  string // e.g. "~/.claude/settings.json"
	Contents string // what attn puts there
	State    string // one of the State constants
	Detail   string // why, or what is missing ("" when nothing to say)
}

// Status is what `attn integration status` reports for one agent.
type Status struct {
	Agent string
	Files []FileStatus
	// Needs says what the agent still needs from the person before attn
	// hears from it, one sentence each.
	Needs []string
}

// State sums the files up: unreadable when any file is, installed when
// every file is, not installed when none has anything of attn's, partly
// installed otherwise.
func (s Status) State() string {
	all, none := true, true
	for _, f := range s.Files {
		if f.State == StateUnreadable {
			return StateUnreadable
		}
		all = all && f.State == StateInstalled
		none = none && f.State == StateNotInstalled
	}
	switch {
	case all:
		return StateInstalled
	case none:
		return StateNotInstalled
	}
	return StatePartial
}

// CheckIntegration reads agent's files and says what is installed and
// what the agent still needs from the person: Codex asks to trust new
// hooks in /hooks (and runs none with hooks turned off in [features]);
// Gemini CLI runs none when hooksConfig.enabled is false, or attn's when
// hooksConfig.disabled names it, and older releases need them turned on.
// It writes nothing.
func CheckIntegration(agent string, env Env) (Status, error) {
	ts, err := targets(agent)
	if err != nil {
		return Status{}, err
	}
	st := Status{Agent: agent}
	var files []*Install
	for _, t := range ts {
		fs := FileStatus{Contents: t.contents}
		in, err := readTarget(agent, env, t)
		if err != nil {
			fs.Display, fs.State, fs.Detail = t.rel, StateUnreadable, err.Error()
		} else {
			fs.Display = in.Display
			fs.State, fs.Detail = t.check(in)
		}
		st.Files = append(st.Files, fs)
		files = append(files, in)
	}
	switch state := st.State(); {
	case state == StateNotInstalled:
		st.Needs = append(st.Needs, fmt.Sprintf("Run `attn integration install %s`.", agent))
	case state == StatePartial:
		st.Needs = append(st.Needs, fmt.Sprintf("Run `attn integration install %s` to complete it.", agent))
	case state == StateUnreadable:
		st.Needs = append(st.Needs, fmt.Sprintf("Fix (or move away) the file attn cannot edit, then run `attn integration install %s`.", agent))
	}
	switch agent {
	case AgentCodex:
		if files[0] != nil {
			if key := codexHooksOff(files[0].Before); key != "" {
				st.Needs = append(st.Needs, fmt.Sprintf("Codex hooks are turned off (%s = false under [features] in %s): set it to true, or attn hears only finished turns.", key, files[0].Display))
			}
		}
		if st.Files[1].State != StateNotInstalled {
			st.Needs = append(st.Needs, CodexTrustNote+" Codex before 0.124 also needs hooks = true under [features] in ~/.codex/config.toml.")
		}
	case AgentGemini:
		if files[0] != nil {
			st.Needs = append(st.Needs, geminiHooksNeeds(files[0])...)
		}
	case AgentOpenCode:
		if st.Files[0].State == StateInstalled {
			st.Needs = append(st.Needs, "OpenCode sessions started before the install load the plugin when restarted; attn must be on OpenCode's PATH.")
		}
	case AgentClaude:
		if st.Files[0].State == StateInstalled {
			st.Needs = append(st.Needs, "Claude Code sessions started before the install take the hooks after you review them in /hooks, or when restarted.")
		}
	}
	return st, nil
}

var (
	tomlFeatures = regexp.MustCompile(`^\s*\[\s*features\s*\]`)
	tomlHooksOff = regexp.MustCompile(`^\s*(hooks|codex_hooks)\s*=\s*false\b`)
)

// codexHooksOff returns the [features] key of config.toml that turns
// Codex hooks off ("hooks" or the older "codex_hooks"), "" when none does.
func codexHooksOff(toml []byte) string {
	in := false
	for line := range strings.SplitSeq(string(toml), "\n") {
		if tomlHeader.MatchString(line) {
			in = tomlFeatures.MatchString(line)
			continue
		}
		if m := tomlHooksOff.FindStringSubmatch(line); in && m != nil {
			return m[1]
		}
	}
	return ""
}

// geminiHooksNeeds reads Gemini CLI's hook switches: hooksConfig.enabled
// (default on in current releases), hooksConfig.disabled (hook names to
// skip) and the older tools.enableHooks.
func geminiHooksNeeds(in *Install) []string {
	var s struct {
		HooksConfig struct {
			Enabled  *bool    `json:"enabled"`
			Disabled []string `json:"disabled"`
		} `json:"hooksConfig"`
		Tools struct {
			EnableHooks *bool `json:"enableHooks"`
		} `json:"tools"`
	}
	if len(bytes.TrimSpace(in.Before)) > 0 && json.Unmarshal(in.Before, &s) != nil {
		return nil // reported as unreadable
	}
	var out []string
	enabled, legacy := s.HooksConfig.Enabled, s.Tools.EnableHooks
	switch {
	case enabled != nil && !*enabled:
		out = append(out, fmt.Sprintf("Gemini CLI hooks are turned off (\"hooksConfig\": {\"enabled\": false} in %s): set it to true.", in.Display))
	case enabled == nil && legacy != nil && !*legacy:
		out = append(out, fmt.Sprintf("Gemini CLI hooks are turned off (\"tools\": {\"enableHooks\": false} in %s): set it to true.", in.Display))
	case enabled == nil && legacy == nil:
		out = append(out, fmt.Sprintf("Gemini CLI releases that do not run hooks by default need \"hooksConfig\": {\"enabled\": true} (older ones \"tools\": {\"enableHooks\": true}) in %s.", in.Display))
	}
	if slices.Contains(s.HooksConfig.Disabled, "attn") {
		out = append(out, fmt.Sprintf("Gemini CLI skips attn's hook: take \"attn\" out of hooksConfig.disabled in %s.", in.Display))
	}
	return out
}
