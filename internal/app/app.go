// Package app wires the daemon: the store, the VAPID key and API token,
// the Web Push sender and delivery queue, the tmux watcher and blocked
// decider, and the HTTP API. New builds it, Run serves until the context
// ends, Close releases what New opened.
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/attn-dev/attn/internal/api"
	"github.com/attn-dev/attn/internal/config"
	"github.com/attn-dev/attn/internal/deliver"
	"github.com/attn-dev/attn/internal/pipeline"
	"github.com/attn-dev/attn/internal/source/tmux"
	"github.com/attn-dev/attn/internal/store"
	"github.com/attn-dev/attn/internal/watch"
	"github.com/attn-dev/attn/internal/webpush"
)

// Options configure the daemon.
type Options struct {
	config.Serve
	Log *slog.Logger
	Now func() time.Time // nil: time.Now
}

// App is a running daemon's parts.
type App struct {
	opt       Options
	store     *store.Store
	listener  net.Listener
	http      *http.Server
	deliverer *deliver.Deliverer
	watcher   *watch.Watcher
	vapid     *webpush.VAPIDKey
	token     string
}

// New opens the store, loads (or makes, on first start) the VAPID key and
// API token, and binds the listen address, so that every start-up problem
// is reported before Run.
func New(ctx context.Context, opt Options) (*App, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	st, err := store.Open(ctx, opt.StateDir, opt.Now)
	if err != nil {
		return nil, err
	}
	a := &App{opt: opt, store: st}
	if err := a.init(ctx); err != nil {
		st.Close()
		return nil, err
	}
	return a, nil
}

func (a *App) init(ctx context.Context) error {
	opt := a.opt
	raw, err := a.store.GetOrCreateSetting(ctx, store.SettingVAPIDPrivate, func() ([]byte, error) {
		k, err := webpush.GenerateVAPIDKey()
		if err != nil {
			return nil, err
		}
		return k.MarshalPrivate(), nil
	})
	if err != nil {
		return fmt.Errorf("VAPID key: %w", err)
	}
	if a.vapid, err = webpush.ParseVAPIDPrivate(raw); err != nil {
		return fmt.Errorf("VAPID key in the store is unreadable (%w); move %s aside to start afresh (every device must then register again)", err, opt.StateDir)
	}
	if a.token, err = LoadOrCreateToken(opt.StateDir); err != nil {
		return err
	}
	host := HostName()
	sender := &webpush.Sender{Key: a.vapid, Contact: opt.PushContact, RecordSize: opt.RecordSize, Now: opt.Now}
	a.deliverer = deliver.New(sender, a.store, opt.Log, deliver.Options{RecordSize: opt.RecordSize})
	blocked, err := pipeline.NewBlocked(ctx, opt.Settle, a.store, opt.Log)
	if err != nil {
		return err
	}
	panes := &tmux.Client{Socket: opt.TmuxSocket}
	a.watcher = &watch.Watcher{Host: host, Panes: panes, Decider: blocked, Queue: a.deliverer,
		Devices: a.store, Poll: opt.Poll, Now: opt.Now, Log: opt.Log}
	asked := &askedBuilder{host: host, panes: panes, now: opt.Now}
	handler := api.New(api.Config{
		Registry: a.store, Notifier: a.deliverer, Asked: asked.build,
		VAPIDPublicKey: a.vapid.PublicKeyBase64(), Token: a.token,
		AllowInsecureEndpoints: opt.AllowInsecurePushEndpoints, Log: opt.Log,
	})
	a.listener, err = net.Listen("tcp", opt.Listen)
	if err != nil {
		if errors.Is(err, syscallEADDRINUSE) {
			return fmt.Errorf("listen on %s: the address is in use; is another `attn serve` running? (or pick another with --listen): %w", opt.Listen, err)
		}
		return fmt.Errorf("listen on %s: %w", opt.Listen, err)
	}
	a.http = &http.Server{Handler: handler, ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 30 * time.Second,
		IdleTimeout: 2 * time.Minute, ErrorLog: slog.NewLogLogger(opt.Log.Handler(), slog.LevelWarn)}
	return nil
}

// Addr is the address the API listens on.
func (a *App) Addr() string { return a.listener.Addr().String() }

// Run serves until ctx ends, then shuts down gracefully: the API stops
// taking requests, sends in flight finish (bounded by their timeouts).
func (a *App) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	wg.Go(func() { a.deliverer.Run(ctx, 4) })
	wg.Go(func() { a.watcher.Run(ctx) })
	serveErr := make(chan error, 1)
	go func() { serveErr <- a.http.Serve(a.listener) }()
	a.opt.Log.Info("attn serving", "listen", "http://"+a.Addr(), "state_dir", a.opt.StateDir,
		"tmux_socket", a.opt.TmuxSocket, "settle", a.opt.Settle, "poll", a.opt.Poll)
	var err error
	select {
	case <-ctx.Done():
	case err = <-serveErr:
		err = fmt.Errorf("http server: %w", err)
	}
	cancel()
	shutdownCtx, stop := context.WithTimeout(context.Background(), 10*time.Second)
	defer stop()
	a.http.Shutdown(shutdownCtx)
	wg.Wait()
	return err
}

// Close releases the store.
func (a *App) Close() error { return a.store.Close() }

// HostName is this host's name as attn shows it: the hostname, lower-case,
// or "local" when it cannot be read.
func HostName() string {
	h, err := os.Hostname()
	if err != nil || h == "" {
		return "local"
	}
	return strings.ToLower(h)
}
