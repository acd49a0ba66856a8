package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"syscall"
)

// DecodeEvent reads and checks one Event in JSON, as the hook socket and
// the daemon's hook endpoint for other hosts take it: a known agent and
// kind, or an error saying what was wrong.
func DecodeEvent(b []byte) (Event, error) { return decodeEvent(b) }

// SendHTTP hands ev to the daemon's hook endpoint for another host
// (POST url, normally http://127.0.0.1:PORT/api/hosts/HOST/hook through a
// forwarded port) with that host's credential as a bearer token, and
// waits for the answer, within SendTimeout. The token travels in the
// Authorization header only; errors never carry it. The error wraps
// ErrNoDaemon when nothing listens at url.
func SendHTTP(ctx context.Context, url, token string, ev Event) error {
	ctx, cancel := context.WithTimeout(ctx, SendTimeout)
	defer cancel()
	b, err := json.Marshal(ev)
	if err != nil {
		return fmt.Errorf("encode hook event: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("hook URL %q: %w (set ATTN_HOOK_URL to the URL `attn host token` printed)", url, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := (&http.Client{Timeout: SendTimeout}).Do(req)
	if err != nil {
		if errors.Is(err, syscall.ECONNREFUSED) {
			return fmt.Errorf("%w at %s: start `attn serve`, and forward its port to this host (ssh -R)", ErrNoDaemon, url)
		}
		return fmt.Errorf("send hook event to %s: %w", url, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, MaxLine))
	if resp.StatusCode/100 == 2 {
		return nil
	}
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &e) == nil && e.Error.Message != "" {
		return fmt.Errorf("the attn daemon refused the hook event (%s): %s", resp.Status, e.Error.Message)
	}
	return fmt.Errorf("the attn daemon at %s answered %s", url, resp.Status)
}
