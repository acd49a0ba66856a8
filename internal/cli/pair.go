package cli

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v3"
	"rsc.io/qr"
)

func pairCommand(stdio Stdio) *ucli.Command {
	return &ucli.Command{
		Name:  "pair",
		Usage: "print a one-time link (and its QR code) that signs a phone or browser in to attn's web app",
		Description: "The link works once, for 10 minutes. Opening it shows a button that signs that browser in\n" +
			"with a long-lived credential, listed (and revocable) in the web app's Settings. Phones\n" +
			"need HTTPS: serve attn with --tls-cert/--tls-key or behind a TLS proxy, with --public-url.\n" +
			"--revoke-all signs every browser out instead.",
		Flags: append(clientFlags(),
			&ucli.BoolFlag{Name: "revoke-all", Usage: "sign every paired browser out and stop their notifications"},
		),
		Action: func(ctx context.Context, cmd *ucli.Command) error {
			if cmd.NArg() > 0 {
				return fail(2, "pair takes no arguments")
			}
			c, err := newClient(cmd)
			if err != nil {
				return err
			}
			if cmd.Bool("revoke-all") {
				var out struct {
					Revoked int `json:"revoked"`
				}
				if err := c.do(ctx, "DELETE", "/api/credentials", nil, &out); err != nil {
					return err
				}
				fmt.Fprintf(stdio.Out, "signed out %d browser(s); pair again with `attn pair`\n", out.Revoked)
				return nil
			}
			var out struct {
				URL       string    `json:"url"`
				ExpiresAt time.Time `json:"expires_at"`
			}
			if err := c.do(ctx, "POST", "/api/pair", struct{}{}, &out); err != nil {
				return err
			}
			return printPairing(stdio.Out, out.URL, time.Until(out.ExpiresAt))
		},
	}
}

// printPairing prints the link, its QR code, and a warning when the link
// can only work on this machine.
func printPairing(w io.Writer, link string, valid time.Duration) error {
	code, err := qr.Encode(link, qr.M)
	if err != nil {
		return fmt.Errorf("make the QR code: %w", err)
	}
	fmt.Fprintf(w, "Open this link on the phone or browser to sign it in (it works once, for %d minutes):\n\n  %s\n\n",
		int(valid.Round(time.Minute)/time.Minute), link)
	writeQR(w, code)
	if u, err := url.Parse(link); err == nil && isLoopback(u.Hostname()) {
		fmt.Fprintln(w, "\nThis link works only on this machine. To pair a phone, serve attn over HTTPS and set\n"+
			"--public-url (see the README, \"Reach it from your phone\").")
	}
	return nil
}

// writeQR draws code with half blocks, two modules per character row,
// dark on light with explicit colours (whatever the terminal's theme) and
// a quiet zone of two modules.
func writeQR(w io.Writer, code *qr.Code) {
	const quiet = 2
	n := code.Size + 2*quiet
	dark := func(x, y int) bool {
		x, y = x-quiet, y-quiet
		return x >= 0 && y >= 0 && x < code.Size && y < code.Size && code.Black(x, y)
	}
	var b strings.Builder
	for y := 0; y < n; y += 2 {
		b.WriteString("  ")
		for x := 0; x < n; x++ {
			fg, bg := "97", "107" // bright white
			if dark(x, y) {
				fg = "30"
			}
			if dark(x, y+1) {
				bg = "40"
			}
			fmt.Fprintf(&b, "\x1b[%s;%sm▀", fg, bg)
		}
		b.WriteString("\x1b[0m\n")
	}
	io.WriteString(w, b.String())
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
