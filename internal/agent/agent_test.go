package agent

import "testing"

func TestFingerprint(t *testing.T) {
	ref := PaneRef{Host: "box", Pane: "%1"}
	q := &Question{Prompt: "Do you want to proceed?", Options: []string{"Yes", "No"}, AnswerStyle: AnswerMenu}
	base := Fingerprint(ref, "100", q, "")
	if len(base) != 32 {
		t.Fatalf("fingerprint %q: want 32 hex digits", base)
	}
	same := Fingerprint(ref, "100", &Question{Prompt: q.Prompt, Options: []string{"Yes", "No"}, AnswerStyle: AnswerMenu, Selected: 1}, "other headline")
	if same != base {
		t.Error("the cursor row or headline changed the fingerprint of a question")
	}
	differ := map[string]string{
		"host":        Fingerprint(PaneRef{Host: "other", Pane: "%1"}, "100", q, ""),
		"pane":        Fingerprint(PaneRef{Host: "box", Pane: "%2"}, "100", q, ""),
		"incarnation": Fingerprint(ref, "101", q, ""),
		"options":     Fingerprint(ref, "100", &Question{Prompt: q.Prompt, Options: []string{"No", "Yes"}, AnswerStyle: AnswerMenu}, ""),
		"style":       Fingerprint(ref, "100", &Question{Prompt: q.Prompt, Options: q.Options, AnswerStyle: AnswerTabs}, ""),
		"headline":    Fingerprint(ref, "100", nil, "Bash(ls)"),
		// Field boundaries matter: no two tuples hash alike by concatenation.
		"boundary": Fingerprint(PaneRef{Host: "bo", Pane: "x%1"}, "100", q, ""),
		"joined":   Fingerprint(ref, "100", &Question{Prompt: q.Prompt, Options: []string{"Yes\x1fNo"}, AnswerStyle: AnswerMenu}, ""),
	}
	seen := map[string]string{base: "base"}
	for name, fp := range differ {
		if prev, ok := seen[fp]; ok {
			t.Errorf("%s gives the same fingerprint as %s", name, prev)
		}
		seen[fp] = name
	}
	if Fingerprint(ref, "100", nil, "a") == Fingerprint(ref, "100", nil, "b") {
		t.Error("question-less waits with different headlines share a fingerprint")
	}
}

func TestPaneRefString(t *testing.T) {
	if got := (PaneRef{Host: "box", Pane: "%3"}).String(); got != "box/%3" {
		t.Fatalf("got %q", got)
	}
}
