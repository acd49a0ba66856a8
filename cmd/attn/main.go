// Command attn tells a person, wherever they are, that an AI coding agent
// running in a terminal needs them. See `attn --help`.
package main

import (
	"context"
	"os"

	"github.com/attn-dev/attn/internal/cli"
)

func main() {
	os.Exit(cli.Main(context.Background(), os.Args, cli.Stdio{In: os.Stdin, Out: os.Stdout, Err: os.Stderr}))
}
