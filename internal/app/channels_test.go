package app

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/attn-dev/attn/internal/channel/channeltest"
)

// TestNotifyReachesAChannel runs the daemon with no device and one ntfy
// channel added through the API: an explicit notify is delivered there.
func TestNotifyReachesAChannel(t *testing.T) {
	ntfy := channeltest.NewNtfy(t)
	dir := t.TempDir()
	a, err := New(context.Background(), options(t, dir, "127.0.0.1:0"))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	defer func() { cancel(); <-done }()
	call := func(method, path string, body any) (int, map[string]any) {
		b, _ := json.Marshal(body)
		req, _ := http.NewRequest(method, "http://"+a.Addr()+path, bytes.NewReader(b))
		req.Header.Set("Authorization", "Bearer "+a.token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		json.NewDecoder(resp.Body).Decode(&out)
		return resp.StatusCode, out
	}
	url := "ntfy://" + strings.TrimPrefix(ntfy.URL, "http://") + "/attn-app-test?scheme=http"
	if code, out := call("POST", "/api/channels", map[string]any{"name": "phone", "url": url}); code != 201 {
		t.Fatalf("add: %d %v", code, out)
	}
	code, out := call("POST", "/api/notify", map[string]any{"message": "build is green ✓"})
	if code != 200 || out["sent"] != true || strings.Join(toStrings(out["transports"]), ",") != "ntfy" {
		t.Fatalf("notify: %d %v", code, out)
	}
	if msgs := ntfy.Messages(); len(msgs) != 1 || msgs[0].Message != "build is green ✓" || msgs[0].Priority != 4 {
		t.Fatalf("ntfy got %+v", msgs)
	}
	if n, _ := (deviceOrChannel{a.store, a.channels}).CountDevices(ctx); n != 1 {
		t.Fatalf("watcher would see %d targets, want the channel", n)
	}
}

func toStrings(v any) []string {
	var out []string
	list, _ := v.([]any)
	for _, x := range list {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}
