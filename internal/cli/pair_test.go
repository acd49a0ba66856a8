package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"rsc.io/qr"
)

func TestPrintPairing(t *testing.T) {
	var b bytes.Buffer
	link := "http://127.0.0.1:7477/pair#AAAAAAAAAAAAAAAAAAAAAA"
	if err := printPairing(&b, link, 10*time.Minute); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	code, _ := qr.Encode(link, qr.M)
	rows := (code.Size + 4 + 1) / 2
	if !strings.Contains(out, "it works once, for 10 minutes") || !strings.Contains(out, "\n  "+link+"\n") ||
		strings.Count(out, "▀\x1b[0m\n") != rows || !strings.Contains(out, "works only on this machine") {
		t.Fatalf("output:\n%s", out)
	}
	b.Reset()
	printPairing(&b, "https://laptop.example.ts.net/pair#AAAAAAAAAAAAAAAAAAAAAA", 10*time.Minute)
	if strings.Contains(b.String(), "works only on this machine") {
		t.Fatalf("a public link is said to be local:\n%s", b.String())
	}
}
