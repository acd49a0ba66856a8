package config

import (
	"strings"
	"testing"
	"time"
)

func validServe() Serve {
	return Serve{Listen: DefaultListen, StateDir: "/tmp/x", Poll: time.Second, Settle: time.Second,
		PushContact: DefaultPushContact, RecordSize: DefaultRecordSize, BuzzInterval: time.Minute}
}

func TestListenBeyondLoopback(t *testing.T) {
	cases := []struct {
		name   string
		change func(*Serve)
		want   string // "" = valid
	}{
		{"tls with public url", func(c *Serve) {
			c.Listen, c.TLSCert, c.TLSKey, c.PublicURLs = "0.0.0.0:7477", "c.pem", "k.pem", []string{"https://laptop.example.ts.net:7477"}
		}, ""},
		{"proxy with public url", func(c *Serve) {
			c.Listen, c.TLSProxy, c.PublicURLs = "100.64.0.2:7477", true, []string{"https://attn.example.org/"}
		}, ""},
		{"no tls", func(c *Serve) { c.Listen, c.PublicURLs = "0.0.0.0:7477", []string{"https://a.example"} }, "--tls-cert and --tls-key, or"},
		{"no public url", func(c *Serve) { c.Listen, c.TLSProxy = "0.0.0.0:7477", true }, "--public-url"},
		{"cert without key", func(c *Serve) { c.TLSCert = "c.pem" }, "go together"},
		{"both tls kinds", func(c *Serve) { c.TLSCert, c.TLSKey, c.TLSProxy = "c", "k", true }, "pick one"},
		{"http public url", func(c *Serve) { c.PublicURLs = []string{"http://laptop.local"} }, "https:// origin"},
		{"public url with path", func(c *Serve) { c.PublicURLs = []string{"https://a.example/attn"} }, "https:// origin"},
	}
	for _, tc := range cases {
		c := validServe()
		tc.change(&c)
		err := c.Validate()
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
	c := validServe()
	c.PublicURLs = []string{"https://Laptop.Example.ts.net/"}
	if err := c.Validate(); err != nil || c.PublicURLs[0] != "https://laptop.example.ts.net" || c.SecureCookies() {
		t.Fatalf("normalized %v, err %v", c.PublicURLs, err)
	}
}
