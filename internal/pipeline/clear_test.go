package pipeline_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/attn-dev/attn/internal/pipeline"
	"github.com/attn-dev/attn/internal/tracker"
)

type clearer struct{ got []string }

func (c *clearer) Clear(_ context.Context, fp string) { c.got = append(c.got, fp) }

func TestClearedWaitIsClearedOnChannels(t *testing.T) {
	c := &clearer{}
	e := pipeline.New(pipeline.Config{Clearer: c, Log: &memLog{}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	e.Handle(context.Background(), time.Now(), []tracker.Transition{{Kind: tracker.Cleared, Fingerprint: "fp1"}})
	if len(c.got) != 1 || c.got[0] != "fp1" {
		t.Fatalf("cleared %v", c.got)
	}
	// Without a Clearer nothing breaks.
	pipeline.New(pipeline.Config{Log: &memLog{}}).Handle(context.Background(), time.Now(),
		[]tracker.Transition{{Kind: tracker.Cleared, Fingerprint: "fp1"}})
}
