package hosts

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/attn-dev/attn/internal/source/tmux"
)

// Host states, as list_hosts and `attn hosts` show them.
const (
	// StateProbing: attn has not heard from the host yet; ask again in a
	// second or two rather than report it unavailable.
	StateProbing = "probing"
	// StateReachable: ssh and tmux answered at the last check.
	StateReachable = "reachable"
	// StateUnreachable: the last check failed; Error says why.
	StateUnreachable = "unreachable"
)

// Host is one host as attn sees it now.
type Host struct {
	// Name is what every result calls the host: the own host's hostname
	// (or "local"), else the SSH alias.
	Name string `json:"name"`
	// Own marks attn's own host.
	Own bool `json:"own,omitempty"`
	// Also are other names that reach the host as a host argument: for
	// the own host "local" and the hostname.
	Also []string `json:"also,omitempty"`
	// State is probing, reachable or unreachable.
	State string `json:"state"`
	// Error says why an unreachable host cannot be used, and what to do.
	Error string `json:"error,omitempty"`
	// CheckedAt is when the host last answered or failed (zero while
	// probing).
	CheckedAt time.Time `json:"checked_at,omitzero"`
}

// Listing is every addressable host, the own host first.
type Listing struct {
	// Active is attn's own host, named as in Hosts: the host a caller
	// that names none targets.
	Active string `json:"active"`
	Hosts  []Host `json:"hosts"`
	// Probing is true while at least one host has not answered yet:
	// call again in a second or two before reporting it unavailable.
	Probing bool `json:"probing"`
}

// Options configure a Manager. Zero values take the defaults named.
type Options struct {
	// Hostname is the machine's hostname; "" means os.Hostname.
	Hostname string
	// SSHConfig is the SSH client config to read aliases from; "" means
	// ~/.ssh/config. Another file is also given to ssh (-F). Home is the home directory for "~" and relative
	// Includes; "" means os.UserHomeDir.
	SSHConfig, Home string
	// Remote turns other hosts on; false lists the own host only.
	Remote bool
	// SSH runs ssh; its ControlDir defaults to ControlDir(StateDir).
	SSH *SSH
	// StateDir is attn's state directory.
	StateDir string
	// Local is the own host's tmux client.
	Local *tmux.Client
	// ProbeTimeout bounds one probe (default 15 s); ProbeEvery is how
	// often a host is checked again, reachable or not (default 30 s).
	ProbeTimeout, ProbeEvery time.Duration
	// CallTimeout bounds one tmux call on another host (default 20 s).
	CallTimeout time.Duration
	// Serve, when set, runs for each host while it is reachable (the
	// own host: always), until its ctx ends: the host's screen watcher.
	Serve func(ctx context.Context, host string, c *Client)
	// Down, when set, hears that a host stopped being reachable (after
	// its Serve returned).
	Down func(host string)
	Now  func() time.Time
	Log  *slog.Logger
}

// Manager keeps the addressable hosts, probes the others over ssh, each
// in its own goroutine with a timeout (a host that hangs never stalls
// another), and runs Serve for each reachable host. Safe for concurrent
// use.
type Manager struct {
	opt    Options
	naming Naming
	config SSHConfig

	mu      sync.Mutex
	hosts   map[string]*hostState
	kick    map[string]chan struct{}
	started bool
	wg      sync.WaitGroup
}

type hostState struct {
	Host
	client *Client
}

// ControlDir returns where the master connections' sockets live: under
// stateDir, unless that path is too long for a unix socket (about 100
// bytes, and ssh adds a random suffix while it creates one); then in the
// temporary directory, in a directory named for stateDir.
func ControlDir(stateDir string) string {
	d := filepath.Join(stateDir, "ssh")
	if len(d)+1+12+20 < 100 {
		return d
	}
	h := sha256.Sum256([]byte(stateDir))
	return filepath.Join(os.TempDir(), fmt.Sprintf("attn-ssh-%d-%s", os.Getuid(), hex.EncodeToString(h[:4])))
}

// New reads the SSH config and names the hosts; nothing is probed until
// Start. A broken SSH config is an error that names the file.
func New(opt Options) (*Manager, error) {
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Log == nil {
		opt.Log = slog.New(slog.DiscardHandler)
	}
	if opt.Local == nil {
		opt.Local = &tmux.Client{}
	}
	opt.ProbeTimeout = cmp.Or(opt.ProbeTimeout, 15*time.Second)
	opt.ProbeEvery = cmp.Or(opt.ProbeEvery, 30*time.Second)
	opt.CallTimeout = cmp.Or(opt.CallTimeout, 20*time.Second)
	if opt.Hostname == "" {
		opt.Hostname, _ = os.Hostname()
	}
	if opt.Home == "" {
		opt.Home, _ = os.UserHomeDir()
	}
	if opt.SSH == nil {
		opt.SSH = &SSH{}
	}
	if opt.SSHConfig != "" && opt.SSH.ConfigFile == "" {
		// Not the user's default: ssh must read the same file.
		opt.SSH.ConfigFile = opt.SSHConfig
	}
	if opt.SSHConfig == "" && opt.Home != "" {
		opt.SSHConfig = filepath.Join(opt.Home, ".ssh", "config")
	}
	if opt.SSH.ControlDir == "" {
		opt.SSH.ControlDir = ControlDir(opt.StateDir)
	}
	m := &Manager{opt: opt, hosts: map[string]*hostState{}, kick: map[string]chan struct{}{}}
	var aliases []string
	if opt.Remote && opt.SSHConfig != "" {
		c, err := ReadSSHConfig(opt.SSHConfig, opt.Home)
		if err != nil {
			return nil, err
		}
		m.config = c
		aliases = c.Aliases
		for _, p := range c.Problems {
			opt.Log.Warn("SSH config: part skipped", "problem", p)
		}
	}
	m.naming = NewNaming(opt.Hostname, aliases)
	for _, a := range m.naming.Shadowed {
		opt.Log.Warn("SSH alias not addressable: \"local\" names attn's own host; rename the alias in your SSH config", "alias", a)
	}
	own := &hostState{Host: Host{Name: m.naming.Own, Own: true, State: StateReachable, CheckedAt: opt.Now()},
		client: &Client{Client: opt.Local, host: m.naming.Own}}
	for _, n := range []string{Local, m.naming.Hostname} {
		if n != "" && n != own.Name && !slices.Contains(own.Also, n) {
			if r, _ := m.naming.Resolve(n); r == own.Name {
				own.Also = append(own.Also, n)
			}
		}
	}
	m.hosts[own.Name] = own
	for _, a := range m.naming.Aliases {
		m.hosts[a] = &hostState{Host: Host{Name: a, State: StateProbing}}
	}
	return m, nil
}

// Own returns the own host's name.
func (m *Manager) Own() string { return m.naming.Own }

// Naming returns how the hosts are named.
func (m *Manager) Naming() Naming { return m.naming }

// Resolve maps a host argument to a host's name ("" is the own host). An
// argument that names no addressable host is an error listing the ones
// that are.
func (m *Manager) Resolve(arg string) (string, error) {
	if n, ok := m.naming.Resolve(arg); ok {
		return n, nil
	}
	return "", fmt.Errorf("host %q is not one attn can address: it addresses its own host (%s, or %s) and the concrete aliases of your SSH config (%s)",
		arg, m.naming.Own, Local, cmp.Or(strings.Join(m.naming.Aliases, ", "), "none"))
}

// List returns every host as known now, without waiting for any probe:
// the own host first, then the aliases in the SSH config's order.
func (m *Manager) List() Listing {
	m.mu.Lock()
	defer m.mu.Unlock()
	l := Listing{Active: m.naming.Own}
	for _, n := range m.naming.Names() {
		h := m.hosts[n].Host
		h.Also = slices.Clone(h.Also)
		l.Hosts = append(l.Hosts, h)
		if h.State == StateProbing {
			l.Probing = true
		}
	}
	return l
}

// Get returns one host (by its name, as Resolve gives it).
func (m *Manager) Get(name string) (Host, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	h, ok := m.hosts[name]
	if !ok {
		return Host{}, false
	}
	return h.Host, true
}

// Client returns a host's tmux client (by its name, as Resolve gives
// it). A host that is not reachable now is an error that says why.
func (m *Manager) Client(name string) (*Client, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	h, ok := m.hosts[name]
	switch {
	case !ok:
		return nil, fmt.Errorf("host %q is not one attn can address", name)
	case h.State == StateProbing:
		return nil, fmt.Errorf("host %s is still being probed: try again in a second or two", name)
	case h.State == StateUnreachable || h.client == nil:
		return nil, fmt.Errorf("host %s is unreachable: %s", name, h.Error)
	}
	return h.client, nil
}

// Refresh asks every host that is not probing now to be checked again at
// once; it does not wait.
func (m *Manager) Refresh() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, k := range m.kick {
		select {
		case k <- struct{}{}:
		default:
		}
	}
}

// Suspect asks for host to be checked again at once (a call to it
// failed); it does not wait.
func (m *Manager) Suspect(host string) {
	m.mu.Lock()
	k := m.kick[host]
	m.mu.Unlock()
	if k != nil {
		select {
		case k <- struct{}{}:
		default:
		}
	}
}

// OnServe sets Options.Serve and Options.Down; call it before Start.
func (m *Manager) OnServe(serve func(ctx context.Context, host string, c *Client), down func(host string)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.opt.Serve, m.opt.Down = serve, down
}

// Start runs Serve for the own host and one goroutine per other host
// (probe, then Serve while reachable), until ctx ends. Call Wait after
// ctx ends to let them finish.
func (m *Manager) Start(ctx context.Context) {
	m.mu.Lock()
	if m.started {
		m.mu.Unlock()
		return
	}
	m.started = true
	own := m.hosts[m.naming.Own]
	for _, a := range m.naming.Aliases {
		m.kick[a] = make(chan struct{}, 1)
	}
	m.mu.Unlock()
	if m.opt.Serve != nil {
		m.wg.Go(func() { m.opt.Serve(ctx, own.Name, own.client) })
	}
	for _, a := range m.naming.Aliases {
		m.wg.Go(func() { m.run(ctx, a) })
	}
}

// Wait waits for every goroutine Start started (they end with its ctx),
// then ends the master connections attn started.
func (m *Manager) Wait() {
	m.wg.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for _, a := range m.naming.Aliases {
		wg.Go(func() { m.opt.SSH.Stop(ctx, a) })
	}
	wg.Wait()
}

// run probes host until ctx ends; while it is reachable, Serve runs.
func (m *Manager) run(ctx context.Context, host string) {
	log := m.opt.Log.With("host", host)
	client := &Client{Client: &tmux.Client{Exec: m.opt.SSH.Exec(host)}, host: host, timeout: m.opt.CallTimeout, suspect: m.Suspect}
	var serving *serveRun
	down := func() {
		if serving != nil {
			serving.stop()
			serving = nil
			if m.opt.Down != nil {
				m.opt.Down(host)
			}
		}
	}
	defer down()
	m.mu.Lock()
	kick := m.kick[host]
	m.mu.Unlock()
	for {
		pctx, cancel := context.WithTimeout(ctx, m.opt.ProbeTimeout)
		err := m.opt.SSH.Probe(pctx, host)
		cancel()
		if ctx.Err() != nil {
			return
		}
		m.mu.Lock()
		h := m.hosts[host]
		was := h.State
		h.CheckedAt = m.opt.Now()
		if err != nil {
			h.State, h.Error, h.client = StateUnreachable, err.Error(), nil
		} else {
			h.State, h.Error, h.client = StateReachable, "", client
		}
		m.mu.Unlock()
		switch {
		case err != nil && was != StateUnreachable:
			log.Warn("host unreachable; attn keeps trying", "err", err)
			down()
		case err == nil && was != StateReachable:
			log.Info("host reachable")
			if m.opt.Serve != nil {
				serving = startServe(ctx, func(ctx context.Context) { m.opt.Serve(ctx, host, client) })
			}
		}
		t := time.NewTimer(m.opt.ProbeEvery)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		case <-kick:
			t.Stop()
		}
	}
}

// serveRun is one running Serve.
type serveRun struct {
	cancel context.CancelFunc
	done   chan struct{}
}

func startServe(ctx context.Context, f func(context.Context)) *serveRun {
	ctx, cancel := context.WithCancel(ctx)
	r := &serveRun{cancel: cancel, done: make(chan struct{})}
	go func() { defer close(r.done); f(ctx) }()
	return r
}

// stop ends the Serve and waits for it to return.
func (r *serveRun) stop() {
	r.cancel()
	<-r.done
}

// Client is one host's tmux client: the own host's as given, another
// host's through ssh, each call bounded by a timeout; a call that fails
// on the way to the host asks for the host to be checked again.
type Client struct {
	*tmux.Client
	host    string
	timeout time.Duration
	suspect func(host string)
}

// Host returns the host's name.
func (c *Client) Host() string { return c.host }

func (c *Client) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	if c.timeout <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, c.timeout)
}

func (c *Client) check(err error) error {
	if err != nil && c.suspect != nil && !errors.Is(err, tmux.ErrNoServer) && !errors.Is(err, context.Canceled) {
		c.suspect(c.host)
	}
	return err
}

// ListPanes lists the host's panes (tmux.Client.ListPanes).
func (c *Client) ListPanes(ctx context.Context) ([]tmux.Pane, error) {
	ctx, cancel := c.bound(ctx)
	defer cancel()
	p, err := c.Client.ListPanes(ctx)
	return p, c.check(err)
}

// Capture reads a pane's visible screen (tmux.Client.Capture).
func (c *Client) Capture(ctx context.Context, id string) (string, error) {
	ctx, cancel := c.bound(ctx)
	defer cancel()
	return c.Client.Capture(ctx, id)
}

// Describe describes one pane (tmux.Client.Describe).
func (c *Client) Describe(ctx context.Context, id string) (tmux.Pane, error) {
	ctx, cancel := c.bound(ctx)
	defer cancel()
	return c.Client.Describe(ctx, id)
}

// SendKeys types keys into a pane (tmux.Client.SendKeys).
func (c *Client) SendKeys(ctx context.Context, id string, literal bool, keys ...string) error {
	ctx, cancel := c.bound(ctx)
	defer cancel()
	return c.Client.SendKeys(ctx, id, literal, keys...)
}

// Run runs one tmux command (tmux.Client.Run).
func (c *Client) Run(ctx context.Context, args ...string) (string, error) {
	ctx, cancel := c.bound(ctx)
	defer cancel()
	return c.Client.Run(ctx, args...)
}

// Paste pastes text into a pane (tmux.Client.Paste).
func (c *Client) Paste(ctx context.Context, id, text string) error {
	ctx, cancel := c.bound(ctx)
	defer cancel()
	return c.Client.Paste(ctx, id, text)
}
