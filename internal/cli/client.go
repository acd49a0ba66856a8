package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	ucli "github.com/urfave/cli/v3"

	"github.com/attn-dev/attn/internal/app"
	"github.com/attn-dev/attn/internal/config"
)

// clientFlags are the flags every command that talks to the daemon takes.
func clientFlags() []ucli.Flag {
	return []ucli.Flag{
		&ucli.StringFlag{Name: "server", Usage: "URL of the attn daemon", Value: config.DefaultServer,
			Sources: ucli.EnvVars("ATTN_SERVER")},
		stateDirFlag(),
	}
}

// client calls the daemon's HTTP API.
type client struct {
	base  string
	token string
	http  *http.Client
}

// newClient reads the API token from $ATTN_TOKEN or the state directory.
func newClient(cmd *ucli.Command) (*client, error) {
	tok := os.Getenv("ATTN_TOKEN")
	if tok == "" {
		path := filepath.Join(cmd.String("state-dir"), app.TokenFile)
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fail(1, "cannot read the API token %s (%v): run this as the user who runs `attn serve`, pass --state-dir, or set ATTN_TOKEN", path, err)
		}
		tok = strings.TrimSpace(string(b))
	}
	return &client{base: strings.TrimRight(cmd.String("server"), "/"), token: tok,
		http: &http.Client{Timeout: 60 * time.Second}}, nil
}

// apiError is the daemon's error body.
type apiError struct {
	Error struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// do sends a JSON request and decodes a JSON answer into out (when not nil).
func (c *client) do(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return fmt.Errorf("encode request: %w", err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, body)
	if err != nil {
		return fail(2, "--server %q: %v", c.base, err)
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		if errors.Is(err, syscall.ECONNREFUSED) {
			return fail(1, "cannot reach the attn daemon at %s: is `attn serve` running? Start it with `attn serve` (or point --server / ATTN_SERVER at it)", c.base)
		}
		return fail(1, "cannot reach the attn daemon at %s: %v", c.base, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return fmt.Errorf("read answer from %s: %w", c.base, err)
	}
	if resp.StatusCode >= 300 {
		var e apiError
		if json.Unmarshal(raw, &e) == nil && e.Error.Message != "" {
			return fail(1, "daemon refused: %s (code %d)", e.Error.Message, e.Error.Code)
		}
		return fail(1, "daemon answered %s", resp.Status)
	}
	if out != nil && len(raw) > 0 {
		if err := json.Unmarshal(raw, out); err != nil {
			return fmt.Errorf("decode answer from %s: %w", c.base, err)
		}
	}
	return nil
}
