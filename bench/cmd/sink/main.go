// Command sink is bench-only: a loopback push service that reads every
// POST to /push/... and answers 201 Created, counting requests and body
// bytes. GET /stats answers "requests=N bytes=B cpu_us=C" (C: the sink's own user+system CPU
// so far). It listens on 127.0.0.1
// only, prints "sink listening on http://127.0.0.1:PORT" once ready, and
// exits on SIGTERM/SIGINT or after -max-life.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

func main() {
	addr := flag.String("listen", "127.0.0.1:0", "loopback address to listen on")
	maxLife := flag.Duration("max-life", 15*time.Minute, "exit after this long whatever happens")
	flag.Parse()
	host, _, err := net.SplitHostPort(*addr)
	if err != nil || (host != "127.0.0.1" && host != "localhost") {
		log.Fatalf("sink: -listen %q: want 127.0.0.1:PORT (loopback only)", *addr)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	var requests, bytes atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("POST /push/", func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		requests.Add(1)
		bytes.Add(n)
		w.WriteHeader(http.StatusCreated)
	})
	mux.HandleFunc("GET /stats", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "requests=%d bytes=%d cpu_us=%d\n", requests.Load(), bytes.Load(), cpuTime().Microseconds())
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		select {
		case <-ctx.Done():
		case <-time.After(*maxLife):
			log.Printf("sink: -max-life %v reached, exiting", *maxLife)
		}
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
	}()
	fmt.Printf("sink listening on http://%s\n", strings.Replace(ln.Addr().String(), "localhost", "127.0.0.1", 1))
	if err := srv.Serve(ln); err != nil && err != http.ErrServerClosed {
		log.Fatal(err)
	}
	fmt.Printf("sink: served requests=%d bytes=%d\n", requests.Load(), bytes.Load())
}

// cpuTime is this process's user+system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
