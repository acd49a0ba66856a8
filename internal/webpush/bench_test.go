package webpush

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func BenchmarkEncrypt(b *testing.B) {
	_, sub := newTestUA(b)
	payload := make([]byte, 1024)
	b.SetBytes(int64(len(payload)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Encrypt(payload, sub, 0); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkJWTSign is the cost of signing a VAPID JWT on every send.
func BenchmarkJWTSign(b *testing.B) {
	s := newTestSender(b)
	exp := testNow.Add(JWTLifetime).Unix()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Key.authorization("https://fcm.googleapis.com", s.Contact, exp); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkJWTReuse is the cost of the cached Authorization value.
func BenchmarkJWTReuse(b *testing.B) {
	s := newTestSender(b)
	u := mustURL(b, "https://fcm.googleapis.com/fcm/send/abc")
	if _, err := s.authorization(u, testNow); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.authorization(u, testNow); err != nil {
			b.Fatal(err)
		}
	}
}

// sink is a push service that takes everything with 201.
func sink(b *testing.B) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusCreated)
	}))
	b.Cleanup(srv.Close)
	return srv
}

// BenchmarkSend is a whole send of a 1 KB payload (validate, JWT from the
// cache, encrypt, POST, read the answer) to a loopback sink answering 201.
func BenchmarkSend(b *testing.B) {
	srv := sink(b)
	_, sub := newTestUA(b)
	sub.Endpoint = srv.URL + "/push/abc"
	s := newTestSender(b)
	s.Now = nil
	msg := Message{Payload: make([]byte, 1024), TTL: 10 * time.Minute, Urgency: "high", Topic: "block-1"}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if res, err := s.Send(ctx, sub, msg); err != nil || res.Outcome != Delivered {
			b.Fatal(res, err)
		}
	}
}

// BenchmarkSendParallel is BenchmarkSend from GOMAXPROCS goroutines.
func BenchmarkSendParallel(b *testing.B) {
	srv := sink(b)
	_, sub := newTestUA(b)
	sub.Endpoint = srv.URL + "/push/abc"
	s := newTestSender(b)
	s.Now = nil
	msg := Message{Payload: make([]byte, 1024), TTL: 10 * time.Minute, Urgency: "high", Topic: "block-1"}
	ctx := context.Background()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if res, err := s.Send(ctx, sub, msg); err != nil || res.Outcome != Delivered {
				b.Error(res, err)
				return
			}
		}
	})
}

// cannedTransport answers every request with 201 without a network, so
// that a benchmark counts only what Send itself (and http.Client)
// allocates.
type cannedTransport struct{}

func (cannedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		io.Copy(io.Discard, r.Body)
		r.Body.Close()
	}
	return &http.Response{StatusCode: http.StatusCreated, Status: "201 Created", Body: http.NoBody, Header: http.Header{}, Request: r}, nil
}

// BenchmarkSendNoNetwork is BenchmarkSend with a transport that answers
// 201 at once: attn's own cost per send (validate, JWT from the cache,
// encrypt, build the request, read the answer), without the sink's or the
// HTTP transport's allocations.
func BenchmarkSendNoNetwork(b *testing.B) {
	_, sub := newTestUA(b)
	sub.Endpoint = "https://push.example.net/push/abc"
	s := newTestSender(b)
	s.Now = nil
	s.Client = &http.Client{Transport: cannedTransport{}}
	msg := Message{Payload: make([]byte, 1024), TTL: 10 * time.Minute, Urgency: "high", Topic: "block-1"}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if res, err := s.Send(ctx, sub, msg); err != nil || res.Outcome != Delivered {
			b.Fatal(res, err)
		}
	}
}
