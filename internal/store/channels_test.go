package store

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestChannelsLifecycle(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, t.TempDir())
	id, err := s.AddChannel(ctx, "phone", "ntfy", "ntfy://tk_x@ntfy.sh/t")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddChannel(ctx, "phone", "ntfy", "ntfy://ntfy.sh/u"); !errors.Is(err, ErrExists) {
		t.Fatalf("duplicate name: %v", err)
	}
	if err := s.SetChannelKind(ctx, id, "finished", true, false); err != nil {
		t.Fatal(err)
	}
	if err := s.SetChannelKind(ctx, 99, "finished", true, false); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown channel: %v", err)
	}
	if err := s.RecordChannelOutcome(ctx, id, "failed", "403 Forbidden"); err != nil {
		t.Fatal(err)
	}
	chans, err := s.Channels(ctx)
	if err != nil || len(chans) != 1 {
		t.Fatalf("%v %v", chans, err)
	}
	c := chans[0]
	if c.Name != "phone" || c.Kind != "ntfy" || c.URL != "ntfy://tk_x@ntfy.sh/t" || !c.Kinds["finished"] ||
		c.LastOutcome != "failed" || c.LastDetail != "403 Forbidden" || c.LastAttemptAt.IsZero() || !c.LastSuccessAt.IsZero() {
		t.Fatalf("%+v", c)
	}
	s.RecordChannelOutcome(ctx, id, OutcomeDelivered, "")
	chans, _ = s.Channels(ctx)
	if chans[0].LastDetail != "" || chans[0].LastSuccessAt.IsZero() {
		t.Fatalf("%+v", chans[0])
	}
	if v, _ := s.ChannelState(ctx, id, "offset"); v != "" {
		t.Fatalf("unset state %q", v)
	}
	s.SetChannelState(ctx, id, "offset", "7")
	s.SetChannelState(ctx, id, "offset", "8")
	if v, _ := s.ChannelState(ctx, id, "offset"); v != "8" {
		t.Fatalf("state %q", v)
	}
	if err := s.RemoveChannel(ctx, "phone"); err != nil {
		t.Fatal(err)
	}
	if err := s.RemoveChannel(ctx, "phone"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second remove: %v", err)
	}
	if v, _ := s.ChannelState(ctx, id, "offset"); v != "" {
		t.Fatal("state outlived its channel")
	}
}

func TestChannelRefsSupersededAndTaken(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, t.TempDir())
	id, _ := s.AddChannel(ctx, "n", "ntfy", "ntfy://h/t")
	s.SaveChannelRef(ctx, ChannelRef{ChannelID: id, Fingerprint: "A", Ref: "seq1"})
	s.SaveChannelRef(ctx, ChannelRef{ChannelID: id, Fingerprint: "C", Ref: "seq2"})
	// B replaced A in place (same sequence id): clearing A must not clear B.
	s.SaveChannelRef(ctx, ChannelRef{ChannelID: id, Fingerprint: "B", Ref: "seq1"})
	if got, _ := s.TakeChannelRefs(ctx, "A"); len(got) != 0 {
		t.Fatalf("A still has %v", got)
	}
	got, err := s.TakeChannelRefs(ctx, "B")
	if err != nil || len(got) != 1 || got[0].Ref != "seq1" {
		t.Fatalf("B: %v %v", got, err)
	}
	if got, _ := s.TakeChannelRefs(ctx, "B"); len(got) != 0 {
		t.Fatal("taken twice")
	}
	s.PruneChannelRefs(ctx, time.Now().Add(time.Hour))
	if got, _ := s.TakeChannelRefs(ctx, "C"); len(got) != 0 {
		t.Fatal("not pruned")
	}
}

func TestChannelTokensDropAndRevive(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, t.TempDir())
	id, _ := s.AddChannel(ctx, "app", "fcm", "fcm://p?credentials=/x")
	if revived, err := s.AddChannelToken(ctx, id, "tok"); err != nil || revived {
		t.Fatalf("%v %v", revived, err)
	}
	s.DropChannelToken(ctx, id, "tok", "UNREGISTERED")
	s.EnsureChannelToken(ctx, id, "tok") // a URL token at restart: stays dropped
	toks, _ := s.ChannelTokens(ctx, id)
	if len(toks) != 1 || toks[0].Dropped.IsZero() || toks[0].Detail != "UNREGISTERED" {
		t.Fatalf("%+v", toks)
	}
	if revived, err := s.AddChannelToken(ctx, id, "tok"); err != nil || !revived {
		t.Fatalf("re-registration: %v %v", revived, err)
	}
	toks, _ = s.ChannelTokens(ctx, id)
	if !toks[0].Dropped.IsZero() || toks[0].Detail != "" {
		t.Fatalf("%+v", toks)
	}
}
