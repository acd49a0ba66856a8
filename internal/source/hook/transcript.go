package hook

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// transcriptTail is how much of the end of a Claude Code transcript
// noticeTurn reads, in bytes.
const transcriptTail = 512 << 10

// noticeTurn reports whether the Claude Code turn that just ended, as the
// transcript (JSON Lines) at path records it, was opened by a background
// task's notice rather than by the person: such a turn only reacts to
// work the agent started itself, and is never a finished turn.
//
// Claude Code's Stop payload does not say what opened the turn (before
// v2.1.145 it does not list background work either), so this reads the
// transcript's last 512 KiB, a format Claude Code does not document. The
// heuristic, walking back from the end:
//
//   - a background task's notice is a "user" entry whose text starts with
//     "<task-notification>" or whose origin.kind is "task-notification";
//   - it opened the turn when the entry before it (skipping entries other
//     than "user" and "assistant", and meta, command and stop-hook
//     feedback entries) is an assistant message without a tool_use block:
//     the previous turn had ended. Before it a tool_use or a tool_result
//     means it landed while a turn was under way, and the search goes on;
//   - a prompt from the person (any other "user" text) means the turn is
//     the person's: not a notice turn.
//
// Anything undetermined (no transcript, not a regular file, unreadable, a
// window of one huge line) answers false: the Stop stays finished.
func noticeTurn(path string) bool {
	if !filepath.IsAbs(path) {
		return false
	}
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return false // never open a FIFO or device named by a payload
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	start := fi.Size() - transcriptTail
	if start < 0 {
		start = 0
	}
	buf, err := io.ReadAll(io.NewSectionReader(f, start, transcriptTail))
	if err != nil {
		return false
	}
	lines := bytes.Split(buf, []byte("\n"))
	if start > 0 && len(lines) > 0 {
		lines = lines[1:] // the first line is cut
	}
	candidate := false // a notice seen, its opener status not yet known
	for i := len(lines) - 1; i >= 0; i-- {
		switch classify(lines[i]) {
		case entryAssistantEnd:
			if candidate {
				return true
			}
		case entryAssistantTool, entryToolResult:
			candidate = false
		case entryNotice:
			candidate = true
		case entryPrompt:
			return false
		}
	}
	return candidate && start == 0
}

type entryClass int

const (
	entryOther         entryClass = iota // not part of the conversation, or unreadable
	entryAssistantEnd                    // assistant message without tool_use
	entryAssistantTool                   // assistant message with tool_use
	entryToolResult                      // user entry carrying tool results
	entryNotice                          // a background task's notice
	entryPrompt                          // the person's prompt
)

// classify reads one transcript line.
func classify(line []byte) entryClass {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' {
		return entryOther
	}
	var e struct {
		Type    string          `json:"type"`
		IsMeta  any             `json:"isMeta"`
		Origin  json.RawMessage `json:"origin"`
		Message struct {
			Content json.RawMessage `json:"content"`
		} `json:"message"`
	}
	if json.Unmarshal(line, &e) != nil {
		return entryOther
	}
	var text string
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(e.Message.Content, &text) != nil {
		if json.Unmarshal(e.Message.Content, &blocks) != nil {
			return entryOther
		}
	}
	var texts []string
	for _, b := range blocks {
		switch b.Type {
		case "tool_use":
			if e.Type == "assistant" {
				return entryAssistantTool
			}
		case "tool_result":
			if e.Type == "user" {
				return entryToolResult
			}
		case "text":
			texts = append(texts, b.Text)
		}
	}
	switch e.Type {
	case "assistant":
		return entryAssistantEnd
	case "user":
	default:
		return entryOther
	}
	if len(texts) > 0 {
		text = strings.Join(texts, "\n")
	}
	text = strings.TrimSpace(text)
	var origin struct {
		Kind string `json:"kind"`
	}
	_ = json.Unmarshal(e.Origin, &origin)
	if origin.Kind == "task-notification" || strings.HasPrefix(text, "<task-notification>") {
		return entryNotice
	}
	if meta, _ := e.IsMeta.(bool); meta || text == "" {
		return entryOther
	}
	for _, p := range []string{"<command-name>", "<command-message>", "<local-command-", "<system-reminder>", "Stop hook feedback:", "Caveat:"} {
		if strings.HasPrefix(text, p) {
			return entryOther
		}
	}
	return entryPrompt
}
