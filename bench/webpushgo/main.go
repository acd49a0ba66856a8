// Command webpushgo is bench-only: it sends N Web Push messages with Go's
// github.com/SherClockHolmes/webpush-go to a loopback sink through the
// shared harness (harness.go, identical to bench/cmd/attnbench's), so that
// bench/run can compare it with attn's sender. It lives in its own module
// so that webpush-go never becomes a dependency of attn.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	webpush "github.com/SherClockHolmes/webpush-go"
)

func main() {
	fs := flag.NewFlagSet("webpushgo", flag.ExitOnError)
	var cfg sendConfig
	cfg.flags(fs)
	recordSize := fs.Int("record-size", 0, "webpush-go's RecordSize: 0 keeps its default, which pads every body to 4096 octets; -1 means payload+103, the size attn sends (no padding)")
	fs.Parse(os.Args[1:])
	cfg.check()

	priv, pub, err := webpush.GenerateVAPIDKeys()
	if err != nil {
		fatalf("VAPID key: %v", err)
	}
	_, p256dh, auth := newUserAgent()
	sub := &webpush.Subscription{Endpoint: cfg.sink + "/push/webpush-go", Keys: webpush.Keys{P256dh: p256dh, Auth: auth}}
	rs := *recordSize
	name, what := "webpush-go", "webpush-go v1.4.0 defaults: body padded to 4096 octets, JWT signed per message"
	if rs < 0 {
		rs = cfg.payload + 103
		name, what = "webpush-go-samesize", fmt.Sprintf("webpush-go v1.4.0 with RecordSize %d: the same %d-octet body as attn, JWT signed per message", rs, rs)
	}
	opts := &webpush.Options{
		HTTPClient:      newClient(),
		Subscriber:      "mailto:bench@attn.example",
		VAPIDPublicKey:  pub,
		VAPIDPrivateKey: priv,
		TTL:             int((10 * time.Minute).Seconds()),
		Urgency:         webpush.UrgencyHigh,
		Topic:           "attn-bench",
		RecordSize:      uint32(rs),
	}
	payload := newPayload(cfg.payload)
	send := func(ctx context.Context) error {
		resp, err := webpush.SendNotificationWithContext(ctx, payload, sub, opts)
		if err != nil {
			return err
		}
		io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
		resp.Body.Close()
		if resp.StatusCode != http.StatusCreated {
			return fmt.Errorf("status %d", resp.StatusCode)
		}
		return nil
	}
	r := runSends(cfg, send)
	report(name, what, cfg.conc, cfg.payload, r)
	if r.errors > 0 {
		os.Exit(1)
	}
}
