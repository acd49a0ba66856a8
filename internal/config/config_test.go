package config

import (
	"strings"
	"testing"
	"time"
)

func valid() Serve {
	return Serve{Listen: DefaultListen, StateDir: "/tmp/x", Poll: DefaultPoll, Settle: DefaultSettle,
		PushContact: DefaultPushContact, RecordSize: DefaultRecordSize, BuzzInterval: DefaultBuzzInterval}
}

func TestDefaultsAreValid(t *testing.T) {
	c := valid()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestValidateRefuses(t *testing.T) {
	cases := []struct {
		name string
		edit func(*Serve)
		want string
	}{
		{"public listen", func(c *Serve) { c.Listen = "0.0.0.0:7477" }, "loopback only"},
		{"lan listen", func(c *Serve) { c.Listen = "192.168.1.2:7477" }, "loopback only"},
		{"no port", func(c *Serve) { c.Listen = "127.0.0.1" }, "want host:port"},
		{"empty state dir", func(c *Serve) { c.StateDir = "" }, "--state-dir"},
		{"poll too fast", func(c *Serve) { c.Poll = time.Millisecond }, "--poll"},
		{"negative settle", func(c *Serve) { c.Settle = -time.Second }, "--settle"},
		{"localhost contact", func(c *Serve) { c.PushContact = "mailto:me@localhost" }, "BadJwtToken"},
		{"dot-local contact", func(c *Serve) { c.PushContact = "https://box.local/" }, "BadJwtToken"},
		{"double mailto", func(c *Serve) { c.PushContact = "mailto:mailto:me@example.org" }, "mailto"},
		{"record size", func(c *Serve) { c.RecordSize = 100 }, "--record-size"},
		{"escalate too soon", func(c *Serve) { c.EscalateAfter = time.Second }, "--escalate-after"},
		{"negative buzz", func(c *Serve) { c.BuzzInterval = -time.Second }, "--buzz-interval"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := valid()
			tc.edit(&c)
			err := c.Validate()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestValidateReportsAllProblems(t *testing.T) {
	c := valid()
	c.Listen, c.Poll = "0.0.0.0:1", 0
	err := c.Validate()
	if err == nil || !strings.Contains(err.Error(), "--listen") || !strings.Contains(err.Error(), "--poll") {
		t.Fatalf("err = %v", err)
	}
}

func TestDefaultStateDir(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", "/xdg")
	if got := DefaultStateDir(); got != "/xdg/attn" {
		t.Fatalf("got %q", got)
	}
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("HOME", "/home/u")
	if got := DefaultStateDir(); got != "/home/u/.local/state/attn" {
		t.Fatalf("got %q", got)
	}
}
