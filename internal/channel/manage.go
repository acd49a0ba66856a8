package channel

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/attn-dev/attn/internal/deliver"
	"github.com/attn-dev/attn/internal/notification"
	"github.com/attn-dev/attn/internal/store"
)

// Errors of channel management; each says what to do.
var (
	ErrNoChannel  = errors.New("no channel by that name: `attn channel list` shows them")
	ErrNameTaken  = errors.New("a channel by that name exists: pick another name, or `attn channel remove` it first")
	ErrBadName    = errors.New("a channel name is 1 to 40 letters, digits, '.', '_' or '-', e.g. phone-ntfy")
	ErrBadURL     = errors.New("bad channel URL")
	ErrNotTokened = errors.New("only fcm channels take device tokens")
)

var validName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$`)

// ValidName reports whether name may name a channel: 1 to 40 letters,
// digits, '.', '_' or '-', starting with a letter or digit.
func ValidName(name string) bool { return validName.MatchString(name) }

// View is a channel as `attn channel list` shows it: never its secrets.
type View struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
	// URL is the channel URL with every secret replaced by "***".
	URL string `json:"url"`
	// Choices holds the changed kind choices only (kind → on); the API
	// resolves them over the defaults.
	Choices       map[string]bool `json:"-"`
	Capabilities  Capabilities    `json:"capabilities"`
	Created       time.Time       `json:"created_at"`
	LastOutcome   string          `json:"last_outcome"`
	LastDetail    string          `json:"last_detail,omitempty"`
	LastAttemptAt *time.Time      `json:"last_attempt_at,omitempty"`
	LastSuccessAt *time.Time      `json:"last_success_at,omitempty"`
	// Problem says why the channel cannot be opened ("" when it can).
	Problem string `json:"problem,omitempty"`
}

// List returns every channel, oldest first.
func (d *Dispatcher) List(ctx context.Context) ([]View, error) {
	chans, err := d.st.Channels(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]View, 0, len(chans))
	for _, c := range chans {
		v := View{Name: c.Name, Kind: c.Kind, URL: c.Kind + "://…", Choices: c.Kinds, Created: c.Created,
			LastOutcome: c.LastOutcome, LastDetail: c.LastDetail}
		if !c.LastAttemptAt.IsZero() {
			v.LastAttemptAt = &c.LastAttemptAt
		}
		if !c.LastSuccessAt.IsZero() {
			v.LastSuccessAt = &c.LastSuccessAt
		}
		if w := d.worker(c.ID); w != nil {
			v.URL = w.redacted
			if w.ch != nil {
				v.Capabilities = w.ch.Capabilities()
			} else if w.openErr != nil {
				v.Problem = w.openErr.Error()
			}
		}
		out = append(out, v)
	}
	return out, nil
}

// Add checks and stores a new channel, applies its kind choices (nil
// values return a kind to its default), and starts it. Errors: ErrBadName,
// ErrBadURL (wrapping what to write), ErrNameTaken, or why the channel
// cannot be opened (a credentials file that cannot be read).
func (d *Dispatcher) Add(ctx context.Context, name, rawURL string, kinds map[string]*bool) (View, error) {
	if !ValidName(name) {
		return View{}, fmt.Errorf("%q: %w", name, ErrBadName)
	}
	if d.opt.Parse == nil || d.opt.Open == nil {
		return View{}, errors.New("channels are not configured in this daemon")
	}
	kind, _, err := d.opt.Parse(rawURL)
	if err != nil {
		return View{}, fmt.Errorf("%w: %w", ErrBadURL, err)
	}
	if _, err := d.opt.Open(store.Channel{Name: name, Kind: kind, URL: rawURL}); err != nil {
		return View{}, fmt.Errorf("%w: %w", ErrBadURL, err)
	}
	id, err := d.st.AddChannel(ctx, name, kind, rawURL)
	if errors.Is(err, store.ErrExists) {
		return View{}, fmt.Errorf("%q: %w", name, ErrNameTaken)
	}
	if err != nil {
		return View{}, err
	}
	if err := d.setKinds(ctx, id, kinds); err != nil {
		return View{}, err
	}
	if err := d.Reload(ctx); err != nil {
		return View{}, err
	}
	d.log.Info("channel added", "channel", name, "kind", kind)
	return d.view(ctx, name)
}

// Remove deletes a channel and stops it. ErrNoChannel when there is none.
func (d *Dispatcher) Remove(ctx context.Context, name string) error {
	if err := d.st.RemoveChannel(ctx, name); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("%q: %w", name, ErrNoChannel)
		}
		return err
	}
	d.log.Info("channel removed", "channel", name)
	return d.Reload(ctx)
}

// SetKinds changes a channel's kind choices (nil: back to the default).
func (d *Dispatcher) SetKinds(ctx context.Context, name string, kinds map[string]*bool) (View, error) {
	w := d.workerNamed(name)
	if w == nil {
		return View{}, fmt.Errorf("%q: %w", name, ErrNoChannel)
	}
	if err := d.setKinds(ctx, w.cfg.ID, kinds); err != nil {
		return View{}, err
	}
	if err := d.Reload(ctx); err != nil {
		return View{}, err
	}
	return d.view(ctx, name)
}

// setKinds stores kind choices; only those that differ from the default
// are kept, so a kind whose default changes later follows it.
func (d *Dispatcher) setKinds(ctx context.Context, id int64, kinds map[string]*bool) error {
	for k, v := range kinds {
		def := d.opt.KindDefault != nil && d.opt.KindDefault(k)
		on := def
		if v != nil {
			on = *v
		}
		if err := d.st.SetChannelKind(ctx, id, k, on, on == def); err != nil {
			return err
		}
	}
	return nil
}

func (d *Dispatcher) view(ctx context.Context, name string) (View, error) {
	views, err := d.List(ctx)
	if err != nil {
		return View{}, err
	}
	for _, v := range views {
		if v.Name == name {
			return v, nil
		}
	}
	return View{}, fmt.Errorf("%q: %w", name, ErrNoChannel)
}

// Test sends a test notification to one channel, whatever its choices,
// and waits for its answer.
func (d *Dispatcher) Test(ctx context.Context, name string) (deliver.DeviceOutcome, error) {
	w := d.workerNamed(name)
	if w == nil {
		return deliver.DeviceOutcome{}, fmt.Errorf("%q: %w", name, ErrNoChannel)
	}
	n := notification.Notification{Kind: notification.KindTest, Title: "attn test",
		Body: "Notifications from attn reach this channel.", Tag: "test", Renotify: true,
		Urgency: "normal", TTL: 10 * time.Minute, Created: d.opt.Now()}
	return d.deliver(ctx, w, n), nil
}

// RegisterToken registers (or revives, when it was dropped as
// unregistered) a device token on an fcm channel.
func (d *Dispatcher) RegisterToken(ctx context.Context, name, token string) (revived bool, err error) {
	w := d.workerNamed(name)
	if w == nil {
		return false, fmt.Errorf("%q: %w", name, ErrNoChannel)
	}
	if w.cfg.Kind != "fcm" {
		return false, fmt.Errorf("%q is a %s channel: %w", name, w.cfg.Kind, ErrNotTokened)
	}
	if token == "" || len(token) > 4096 {
		return false, fmt.Errorf("%w: a device token is 1 to 4096 characters, as FirebaseMessaging.getToken() returns it", ErrBadURL)
	}
	revived, err = d.st.AddChannelToken(ctx, w.cfg.ID, token)
	if err == nil {
		d.log.Info("device token registered", "channel", name, "revived", revived)
	}
	return revived, err
}
