// Package app wires the daemon: the store, the VAPID key and API token,
// the Web Push sender and delivery queue, the tmux watcher and blocked
// decider, and the HTTP API. New builds it, Run serves until the context
// ends, Close releases what New opened.
package app

import (
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/attn-dev/attn/internal/api"
	"github.com/attn-dev/attn/internal/board"
	"github.com/attn-dev/attn/internal/channel"
	"github.com/attn-dev/attn/internal/config"
	"github.com/attn-dev/attn/internal/deliver"
	"github.com/attn-dev/attn/internal/inapp"
	"github.com/attn-dev/attn/internal/pipeline"
	"github.com/attn-dev/attn/internal/presence"
	"github.com/attn-dev/attn/internal/reply"
	"github.com/attn-dev/attn/internal/route"
	"github.com/attn-dev/attn/internal/settings"
	"github.com/attn-dev/attn/internal/source/herdr"
	"github.com/attn-dev/attn/internal/source/hook"
	"github.com/attn-dev/attn/internal/source/tmux"
	"github.com/attn-dev/attn/internal/store"
	"github.com/attn-dev/attn/internal/tracker"
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
	engine    *pipeline.Engine
	presence  *presence.Registry
	inapp     *inapp.Broker
	watcher   *watch.Watcher
	fleet     *fleet // the hosts, a watcher per reachable one (hosts.go)
	hooks     *hook.Receiver
	replies   *reply.Service
	channels  *channel.Dispatcher
	board     *board.Board
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
		a.Close()
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
	if a.fleet, err = newFleet(opt, opt.Log); err != nil {
		return err
	}
	host := a.fleet.hosts.Own()
	log := opt.Log
	resolver := &settings.Resolver{
		Defaults: settings.Settings{Settle: opt.Settle, BuzzInterval: opt.BuzzInterval,
			EscalateAfter: opt.EscalateAfter, Kinds: settings.KnownKinds},
		Now: opt.Now,
		OnError: func(path string, err error) {
			log.Warn("project settings file ignored; fix it to apply it", "path", path, "err", err)
		},
	}
	mutes, err := pipeline.LoadMutes(ctx, a.store)
	if err != nil {
		return err
	}
	var engine *pipeline.Engine // set below; the deliverer reports failures to it
	sender := &webpush.Sender{Key: a.vapid, Contact: opt.PushContact, RecordSize: opt.RecordSize, Now: opt.Now}
	a.deliverer = deliver.New(sender, a.store, log, deliver.Options{
		RecordSize: opt.RecordSize, Outbox: a.store, Decisions: a.store, LogContent: opt.LogContent, Now: opt.Now,
		OnFailure: func(dev store.Device, out deliver.DeviceOutcome) {
			since := dev.LastSuccessAt
			if since.IsZero() {
				since = dev.Created
			}
			if failing := opt.Now().Sub(since); failing >= DeviceFailingAfter {
				engine.Error(context.Background(), fmt.Sprintf("device-failing:%d", dev.ID),
					fmt.Sprintf("attn cannot reach %s", deviceName(dev)),
					fmt.Sprintf("Pushes to %s have failed for %s: %s", deviceName(dev), failing.Round(time.Minute), out.Detail))
			}
		},
	})
	a.presence = presence.NewRegistry()
	a.inapp = inapp.NewBroker()
	if a.channels, err = a.openChannels(ctx, host, &engine); err != nil {
		return err
	}
	router := &route.Router{Devices: a.store, Presence: a.presence, InApp: a.inapp, WebPush: a.deliverer,
		Channels: a.channels, Decisions: a.store, LogContent: opt.LogContent, Log: log, Now: opt.Now}
	panes := &tmux.Client{Socket: opt.TmuxSocket}
	ownPanes, events, herdrSrc := a.ownSources(panes, log) // sources.go
	a.replies = &reply.Service{Host: host, Term: panes, Store: a.store, Log: log, Now: opt.Now,
		NonceTTL: pipeline.BlockedTTL, ActionsOff: !opt.ReplyActions}
	a.replies.Terms = a.terms(host, herdrSrc)
	engine = pipeline.New(pipeline.Config{Settings: resolver, Mutes: mutes, Router: router, Log: a.store,
		Logger: log, LogContent: opt.LogContent, Now: opt.Now, Replies: a.replies, ReplyActions: opt.ReplyActions,
		Clearer: a.channels})
	a.engine = engine
	track, err := tracker.New(ctx, engine.Settle, a.store, log)
	if err != nil {
		return err
	}
	track.OnStoreError = func(err error) {
		engine.Error(context.Background(), "store", "attn cannot write its store",
			fmt.Sprintf("%v. Blocked agents may be announced again after a restart; check the disk and %s.", err, opt.StateDir))
	}
	a.board = board.New()
	a.watcher = &watch.Watcher{Host: host, Panes: ownPanes, Tracker: a.fleet.lockTracker(track), Engine: engine,
		Devices: deviceOrChannel{a.store, a.channels}, Board: a.board, Poll: opt.Poll, Now: opt.Now, Log: log,
		Events: events}
	asked := &askedBuilder{host: host, panes: panes, now: opt.Now}
	handler := api.New(api.Config{
		Registry: a.store, Notifier: engine, Asked: asked.build, Mutes: mutes, Kinds: a.store,
		Decisions: a.store, Presence: a.presence, Board: a.board, Host: host, Now: opt.Now,
		Replies: a.replies, Audit: a.store, Channels: a.channels,
		VAPIDPublicKey: a.vapid.PublicKeyBase64(), Token: a.token,
		AllowInsecureEndpoints: opt.AllowInsecurePushEndpoints, Log: log,
		Web: api.Web{Store: a.store, InApp: a.inapp, SecureCookies: opt.SecureCookies(), PublicURLs: opt.PublicURLs},
		Hosts: api.Hosts{List: a.fleet.hosts, Tokens: a.store, OnHook: a.fleet.remoteHook,
			MCP: a.fleet.mcpHandler(engine, a.replies, opt.Now)},
	})
	a.hooks, err = hook.Listen(filepath.Join(opt.StateDir, hook.SocketName))
	if err != nil {
		return fmt.Errorf("agent hook socket: %w", err)
	}
	a.listener, err = net.Listen("tcp", opt.Listen)
	if err != nil {
		if errors.Is(err, syscallEADDRINUSE) {
			return fmt.Errorf("listen on %s: the address is in use; is another `attn serve` running? (or pick another with --listen): %w", opt.Listen, err)
		}
		return fmt.Errorf("listen on %s: %w", opt.Listen, err)
	}
	a.http = &http.Server{Handler: handler, ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 30 * time.Second,
		IdleTimeout: 2 * time.Minute, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	a.http.RegisterOnShutdown(handler.CloseStreams) // open web app windows' event streams
	if opt.TLS() {
		cert, err := tls.LoadX509KeyPair(opt.TLSCert, opt.TLSKey)
		if err != nil {
			return fmt.Errorf("--tls-cert %s / --tls-key %s: %w (give a PEM certificate chain and its private key, readable by this user)", opt.TLSCert, opt.TLSKey, err)
		}
		a.http.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
		a.listener = tls.NewListener(a.listener, a.http.TLSConfig)
	}
	return nil
}

// DecisionRetention is how long decision-log rows are kept.
const DecisionRetention = 30 * 24 * time.Hour

// pruneDecisions drops decision-log rows older than DecisionRetention, at
// start and then hourly, until ctx ends.
func (a *App) pruneDecisions(ctx context.Context) {
	t := time.NewTicker(time.Hour)
	defer t.Stop()
	for {
		if err := a.store.PruneDecisions(ctx, a.opt.Now().Add(-DecisionRetention)); err != nil && ctx.Err() == nil {
			a.opt.Log.Warn("cannot prune the decision log", "err", err)
		}
		if err := a.store.PruneNonces(ctx, a.opt.Now()); err != nil && ctx.Err() == nil {
			a.opt.Log.Warn("cannot prune expired answer nonces", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// DeviceFailingAfter is how long a device's pushes must have failed before
// attn raises an error notification about it (DESIGN.md, "Errors").
const DeviceFailingAfter = 10 * time.Minute

func deviceName(d store.Device) string {
	if d.Name != "" {
		return fmt.Sprintf("'%s'", d.Name)
	}
	return fmt.Sprintf("device %d", d.ID)
}

// Addr is the address the API listens on.
func (a *App) Addr() string { return a.listener.Addr().String() }

// Run serves until ctx ends, then shuts down gracefully: the API stops
// taking requests, sends in flight finish (bounded by their timeouts).
func (a *App) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	if resent, dropped, err := a.deliverer.Recover(ctx); err != nil {
		a.opt.Log.Error("cannot recover unsent notifications", "err", err)
	} else if resent+dropped > 0 {
		a.opt.Log.Info("recovered unsent notifications", "resent", resent, "dropped_expired", dropped)
	}
	wg.Go(func() { a.deliverer.Run(ctx, 8) })
	wg.Go(func() { a.channels.Run(ctx) })
	wg.Go(func() { a.fleet.run(ctx, a.watcher) })
	wg.Go(func() { a.pruneDecisions(ctx) })
	wg.Go(func() {
		if err := a.hooks.Serve(ctx, a.onHook); err != nil && ctx.Err() == nil {
			a.opt.Log.Error("agent hook socket stopped", "err", err)
		}
	})
	serveErr := make(chan error, 1)
	go func() { serveErr <- a.http.Serve(a.listener) }()
	scheme := "http://"
	if a.opt.TLS() {
		scheme = "https://"
	}
	a.opt.Log.Info("attn serving", "listen", scheme+a.Addr(), "state_dir", a.opt.StateDir,
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

// Close releases the store and, if Run never served it, the hook socket.
func (a *App) Close() error {
	if a.hooks != nil {
		a.hooks.Close()
	}
	if a.listener != nil {
		a.listener.Close()
	}
	return a.store.Close()
}

// onHook turns an agent hook's event into a hint for the watcher: the
// screen stays the truth, a hook only makes attn look now (blocked) or
// tells it a turn ended (finished). Events from another tmux server are
// not this watcher's.
func (a *App) onHook(_ context.Context, ev hook.Event) {
	log := a.opt.Log.With("agent", ev.Agent, "kind", ev.Kind, "pane", ev.Pane)
	if ev.Kind == hook.KindIgnored || ev.Kind == hook.KindReminder {
		log.Debug("agent hook: nothing to do", "reason", ev.Reason)
		return
	}
	if ev.HerdrPane != "" && os.Getenv(herdr.SocketEnv) != "" {
		// The agent runs in a herdr pane of this host (sources.go), even
		// when herdr itself runs in a tmux pane.
		ev.Pane, ev.TmuxSocket = ev.HerdrPane, ""
	}
	if ev.Pane == "" {
		log.Debug("agent hook from outside tmux: ignored")
		return
	}
	if want := a.opt.TmuxSocket; ev.TmuxSocket != "" && filepath.Base(ev.TmuxSocket) != cmp.Or(want, "default") {
		log.Debug("agent hook from another tmux server: ignored", "socket", ev.TmuxSocket)
		return
	}
	if !a.watcher.Hint(watch.Hint{Pane: ev.Pane, Finished: ev.Kind == hook.KindFinished, Blocked: ev.Kind == hook.KindBlocked}) {
		log.Warn("agent hook dropped: too many pending; the next poll reads the screen anyway")
	}
}

// HostName is this host's name as attn shows it: the hostname, lower-case,
// or "local" when it cannot be read.
func HostName() string {
	h, err := os.Hostname()
	if err != nil || h == "" {
		return "local"
	}
	return strings.ToLower(h)
}
