package hook

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestSendHTTP(t *testing.T) {
	var got string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if r.Header.Get("Authorization") != "Bearer attnh_secret" {
			w.WriteHeader(403)
			io.WriteString(w, `{"error":{"code":40380,"message":"this credential speaks for another host"}}`)
			return
		}
		ev, err := DecodeEvent(b)
		if err != nil {
			t.Errorf("decode: %v", err)
		}
		got = r.URL.Path + " " + ev.Agent + " " + string(ev.Kind)
		w.WriteHeader(202)
	}))
	defer srv.Close()
	ev := Event{Agent: AgentClaude, Kind: KindBlocked, Reason: "PermissionRequest", Pane: "%3", At: time.Unix(1, 0)}
	ctx := context.Background()
	if err := SendHTTP(ctx, srv.URL+"/api/hosts/devbox/hook", "attnh_secret", ev); err != nil || got != "/api/hosts/devbox/hook claude blocked" {
		t.Fatalf("SendHTTP: %v, server got %q", err, got)
	}
	err := SendHTTP(ctx, srv.URL+"/api/hosts/devbox/hook", "attnh_other", ev)
	if err == nil || !strings.Contains(err.Error(), "speaks for another host") || strings.Contains(err.Error(), "attnh_other") {
		t.Fatalf("refused: %v", err)
	}
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := l.Addr().String()
	l.Close()
	if err := SendHTTP(ctx, "http://"+addr+"/api/hosts/devbox/hook", "attnh_secret", ev); !errors.Is(err, ErrNoDaemon) || strings.Contains(err.Error(), "attnh_secret") {
		t.Fatalf("no daemon: %v", err)
	}
	if _, err := DecodeEvent([]byte(`{"agent":"claude","kind":"nope"}`)); err == nil {
		t.Fatal("DecodeEvent took an unknown kind")
	}
}
