// This file is the shared half of the Go send harness. It is kept
// byte-for-byte identical in bench/cmd/attnbench (attn's sender, main
// module) and bench/webpushgo (webpush-go, its own module), which cannot
// share a package; bench/run refuses to run if the two copies differ. Each
// program adds only its library's send function, so both libraries are
// driven with the same flags, payload, HTTP client settings, concurrency
// model, timing and output.

package main

import (
	"context"
	"crypto/ecdh"
	"crypto/rand"
	"encoding/base64"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// sendConfig is what every send benchmark takes.
type sendConfig struct {
	sink    string        // base URL of the loopback sink, http://127.0.0.1:PORT
	n       int           // timed sends
	warmup  int           // untimed sends first (connections, caches)
	conc    int           // sends in flight
	payload int           // plaintext octets per message
	maxTime time.Duration // the timed phase stops here even if n is not reached
}

func (c *sendConfig) flags(fs *flag.FlagSet) {
	fs.StringVar(&c.sink, "sink", "", "base URL of the loopback sink (http://127.0.0.1:PORT)")
	fs.IntVar(&c.n, "n", 20000, "timed messages")
	fs.IntVar(&c.warmup, "warmup", 500, "untimed messages sent first")
	fs.IntVar(&c.conc, "conc", 8, "messages in flight")
	fs.IntVar(&c.payload, "payload", 1024, "payload octets")
	fs.DurationVar(&c.maxTime, "max-time", 60*time.Second, "stop the timed phase after this long")
}

// check refuses anything but a loopback sink and sane counts.
func (c *sendConfig) check() {
	u, err := url.Parse(c.sink)
	if err != nil || u.Scheme != "http" || !isLoopback(u.Hostname()) {
		fatalf("-sink %q: want http://127.0.0.1:PORT (loopback only)", c.sink)
	}
	if c.n < 1 || c.n > 1_000_000 || c.conc < 1 || c.conc > 1024 || c.warmup < 0 || c.payload < 0 {
		fatalf("bad counts: -n %d -conc %d -warmup %d -payload %d", c.n, c.conc, c.warmup, c.payload)
	}
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// newClient returns the HTTP client both Go senders use: the settings of
// attn's webpush.NewHTTPClient (what the daemon uses), spelled out here so
// that webpush-go gets exactly the same.
func newClient() *http.Client {
	d := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}
	return &http.Client{
		Timeout: 10 * time.Second,
		Transport: &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           d.DialContext,
			ForceAttemptHTTP2:     true,
			TLSHandshakeTimeout:   5 * time.Second,
			ExpectContinueTimeout: time.Second,
			MaxIdleConns:          100,
			MaxIdleConnsPerHost:   16,
			IdleConnTimeout:       90 * time.Second,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// newUserAgent makes a browser-side subscription key pair: the P-256 public
// key and the 16-octet auth secret, base64url without padding as
// PushSubscription.toJSON() gives them. The private key is returned for
// receivers that decrypt.
func newUserAgent() (priv *ecdh.PrivateKey, p256dh, auth string) {
	priv, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		fatalf("user agent key: %v", err)
	}
	secret := make([]byte, 16)
	rand.Read(secret)
	b64 := base64.RawURLEncoding
	return priv, b64.EncodeToString(priv.PublicKey().Bytes()), b64.EncodeToString(secret)
}

// newPayload returns n random octets: one payload reused for every message.
func newPayload(n int) []byte {
	p := make([]byte, n)
	rand.Read(p)
	return p
}

// result is one timed phase.
type result struct {
	sent, errors int
	elapsed      time.Duration
	cpu          time.Duration // user+system CPU of this process during the phase
	sinkCPU      time.Duration // the sink's CPU during the phase
	firstErr     error
}

func (r result) rate() float64 { return float64(r.sent) / r.elapsed.Seconds() }

// drive calls send up to n times with conc calls in flight (conc
// goroutines taking the next message number from a shared counter). It
// stops taking new messages at maxTime; sends in flight then finish.
func drive(conc, n int, maxTime time.Duration, send func(ctx context.Context) error) result {
	ctx := context.Background()
	deadline := time.Now().Add(maxTime)
	var next, ok, errs atomic.Int64
	var first atomic.Pointer[error]
	var wg sync.WaitGroup
	cpu0 := cpuTime()
	start := time.Now()
	for range conc {
		wg.Go(func() {
			for next.Add(1) <= int64(n) && time.Now().Before(deadline) {
				if err := send(ctx); err != nil {
					errs.Add(1)
					first.CompareAndSwap(nil, &err)
				} else {
					ok.Add(1)
				}
			}
		})
	}
	wg.Wait()
	r := result{sent: int(ok.Load()), errors: int(errs.Load()), elapsed: time.Since(start), cpu: cpuTime() - cpu0}
	if p := first.Load(); p != nil {
		r.firstErr = *p
	}
	return r
}

// runSends is a send benchmark: cfg.warmup untimed sends, then the timed
// phase, with the sink's request count and CPU read before and after it.
// Every timed send that succeeded must have reached the sink.
func runSends(cfg sendConfig, send func(ctx context.Context) error) result {
	if cfg.warmup > 0 {
		if w := drive(cfg.conc, cfg.warmup, cfg.maxTime, send); w.errors > 0 {
			fatalf("warm-up: %d of %d sends failed, first: %v", w.errors, cfg.warmup, w.firstErr)
		}
	}
	req0, cpu0 := sinkStats(cfg.sink)
	r := drive(cfg.conc, cfg.n, cfg.maxTime, send)
	req1, cpu1 := sinkStats(cfg.sink)
	if got := req1 - req0; got < r.sent || got > r.sent+r.errors {
		fatalf("the sink counted %d requests for %d successful sends", got, r.sent)
	}
	r.sinkCPU = cpu1 - cpu0
	return r
}

// sinkStats reads the sink's request count and CPU time (GET /stats).
func sinkStats(sink string) (requests int, cpu time.Duration) {
	resp, err := http.Get(sink + "/stats")
	if err != nil {
		fatalf("sink: %v", err)
	}
	defer resp.Body.Close()
	var line [256]byte
	n, _ := io.ReadFull(resp.Body, line[:])
	var us int64
	var bytes int64
	if _, err := fmt.Sscanf(string(line[:n]), "requests=%d bytes=%d cpu_us=%d", &requests, &bytes, &us); err != nil {
		fatalf("sink /stats %q: %v", line[:n], err)
	}
	return requests, time.Duration(us) * time.Microsecond
}

// cpuTime is this process's user+system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// report prints one human line and one machine-readable line
// ("RESULT key=value ..."), which bench/run parses.
func report(name, what string, conc, payload int, r result) {
	per := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(max(r.sent, 1)) }
	fmt.Printf("%-20s %7.0f msgs/s  (%d sent in %.2fs, %d in flight, %d-byte payload, %d errors; CPU per message: %.1f µs in the sender, %.1f µs in the sink) — %s\n",
		name, r.rate(), r.sent, r.elapsed.Seconds(), conc, payload, r.errors, per(r.cpu), per(r.sinkCPU), what)
	fmt.Printf("RESULT name=%s rate=%.1f sent=%d errors=%d seconds=%.3f cpu_us_per_msg=%.1f sink_cpu_us_per_msg=%.1f\n",
		name, r.rate(), r.sent, r.errors, r.elapsed.Seconds(), per(r.cpu), per(r.sinkCPU))
	if r.errors > 0 {
		fmt.Fprintf(os.Stderr, "%s: %d sends failed, first: %v\n", name, r.errors, r.firstErr)
	}
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
	os.Exit(1)
}
