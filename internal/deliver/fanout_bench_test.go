package deliver

import (
	"context"
	"crypto/ecdh"
	"crypto/rand"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/attn-dev/attn/internal/notification"
	"github.com/attn-dev/attn/internal/store"
	"github.com/attn-dev/attn/internal/webpush"
)

// BenchmarkFanout100 is one notification fanned out to 100 registered
// devices through attn's real delivery path: Deliverer.Deliver with its
// default concurrency bound (16 in flight), a real webpush.Sender with its
// default HTTP client (encryption per device, the JWT reused), to a
// loopback sink answering 201. The device registry is an in-memory fake,
// so the figure is delivery alone, not SQLite. It reports ms per fan-out
// (all 100 answers in) and allocations per send (the in-process sink's
// included).
func BenchmarkFanout100(b *testing.B) { benchmarkFanout(b, 100) }

// BenchmarkFanout1 is the same path with a single device, for scale.
func BenchmarkFanout1(b *testing.B) { benchmarkFanout(b, 1) }

func benchmarkFanout(b *testing.B, n int) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		hits.Add(1)
		w.WriteHeader(http.StatusCreated)
	}))
	b.Cleanup(srv.Close)

	devs := &benchDevices{}
	for i := range n {
		k, err := ecdh.P256().GenerateKey(rand.Reader)
		if err != nil {
			b.Fatal(err)
		}
		auth := make([]byte, 16)
		rand.Read(auth)
		devs.devs = append(devs.devs, store.Device{ID: int64(i + 1), Name: fmt.Sprintf("bench-%d", i),
			Endpoint: fmt.Sprintf("%s/push/device-%d", srv.URL, i), P256DH: k.PublicKey().Bytes(), Auth: auth})
	}
	key, err := webpush.GenerateVAPIDKey()
	if err != nil {
		b.Fatal(err)
	}
	sender := &webpush.Sender{Key: key, Contact: "mailto:bench@attn.example"}
	d := New(sender, devs, slog.New(slog.NewTextHandler(io.Discard, nil)), Options{})
	n0 := notification.Notification{Kind: notification.KindAsked, Title: "claude in api/%3",
		Body: strings.Repeat("The agent asks whether to run the migration. ", 10), Urgency: "high", TTL: time.Hour,
		Tag: "block:host/%3", Created: time.Now()}
	ctx := context.Background()
	deliver := func() {
		r := d.Deliver(ctx, n0)
		if !r.Sent || len(r.Devices) != n || r.Detail != "" {
			b.Fatalf("fan-out to %d devices: sent %v, %d outcomes, %s", n, r.Sent, len(r.Devices), r.Detail)
		}
	}
	deliver() // connections and the JWT, as in a running daemon
	hits.Store(0)
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	b.ResetTimer()
	for b.Loop() {
		deliver()
	}
	b.StopTimer()
	runtime.ReadMemStats(&m1)
	if got := hits.Load(); got != int64(b.N*n) {
		b.Fatalf("sink got %d requests, want %d", got, b.N*n)
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/fanout")
	b.ReportMetric(float64(m1.Mallocs-m0.Mallocs)/float64(b.N*n), "allocs/send")
}

// benchDevices is a registry that keeps nothing.
type benchDevices struct{ devs []store.Device }

func (f *benchDevices) Devices(context.Context) ([]store.Device, error)            { return f.devs, nil }
func (f *benchDevices) DeleteDevice(context.Context, int64) error                  { return nil }
func (f *benchDevices) RecordOutcome(context.Context, int64, string, string) error { return nil }
