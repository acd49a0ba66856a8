package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"time"

	"github.com/attn-dev/attn/internal/webpush"
)

// sendMain sends with attn's Sender as the daemon does: one Sender, its
// JWT signed once per push-service origin and reused.
func sendMain(args []string) {
	fs := flag.NewFlagSet("send", flag.ExitOnError)
	var cfg sendConfig
	cfg.flags(fs)
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of the timed sends here")
	fs.Parse(args)
	cfg.check()

	key, err := webpush.GenerateVAPIDKey()
	if err != nil {
		fatalf("%v", err)
	}
	_, p256dh, auth := newUserAgent()
	sub, err := webpush.ParseSubscription(cfg.sink+"/push/attn", p256dh, auth, true)
	if err != nil {
		fatalf("%v", err)
	}
	s := &webpush.Sender{Key: key, Contact: "mailto:bench@attn.example", Client: newClient()}
	msg := webpush.Message{Payload: newPayload(cfg.payload), TTL: 10 * time.Minute, Urgency: "high", Topic: "attn-bench"}
	send := func(ctx context.Context) error {
		res, err := s.Send(ctx, sub, msg)
		if err == nil && res.Status != 201 {
			err = fmt.Errorf("status %d", res.Status)
		}
		return err
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fatalf("%v", err)
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	r := runSends(cfg, send)
	report("attn", fmt.Sprintf("attn internal/webpush Sender: %d-octet body, JWT signed once per origin and reused", cfg.payload+103), cfg.conc, cfg.payload, r)
	if r.errors > 0 {
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}
