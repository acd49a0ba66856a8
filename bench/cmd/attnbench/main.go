// Command attnbench is bench-only, driven by bench/run. Its subcommands:
//
//	send    N messages with attn's internal/webpush Sender to the loopback
//	        sink, through the harness shared with bench/webpushgo
//	floor   the cryptographic floor: the crypto of one message alone,
//	        with and without an ES256 signature, on the standard library
//	check   a few messages from attn's Sender to web-push-testing, which
//	        must decrypt each one; every JWT's exp must be within 24 h
//	daemon  a running `attn serve`: register devices pointing at the sink,
//	        POST /api/notify steadily while sampling the daemon's VmRSS, then
//	        time 1 → 100-device fan-outs through the API
//	freeport  print a free TCP port on 127.0.0.1
//
// Every address it talks to must be loopback; every loop is bounded.
package main

import (
	"fmt"
	"net"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		fatalf("usage: attnbench send|floor|check|daemon|freeport [flags]")
	}
	switch os.Args[1] {
	case "send":
		sendMain(os.Args[2:])
	case "floor":
		floorMain(os.Args[2:])
	case "check":
		checkMain(os.Args[2:])
	case "daemon":
		daemonMain(os.Args[2:])
	case "freeport":
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			fatalf("%v", err)
		}
		fmt.Println(ln.Addr().(*net.TCPAddr).Port)
		ln.Close()
	default:
		fatalf("attnbench: unknown subcommand %q: want send, floor, check, daemon or freeport", os.Args[1])
	}
}
