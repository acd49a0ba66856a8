// Package inapp is the in-app channel: notifications handed to the open
// web app windows of a device (the web app reads them over a live stream),
// instead of an OS push while a window is visible.
package inapp

import (
	"sync"

	"github.com/attn-dev/attn/internal/notification"
)

// Broker fans notifications out to the subscribed windows of each device.
// Safe for concurrent use.
type Broker struct {
	mu   sync.Mutex
	subs map[int64]map[chan notification.Notification]struct{}
}

// NewBroker returns an empty Broker.
func NewBroker() *Broker {
	return &Broker{subs: map[int64]map[chan notification.Notification]struct{}{}}
}

// Subscribe registers one window of a device. The channel has a small
// buffer; call cancel when the window goes away.
func (b *Broker) Subscribe(device int64) (<-chan notification.Notification, func()) {
	ch := make(chan notification.Notification, 16)
	b.mu.Lock()
	if b.subs[device] == nil {
		b.subs[device] = map[chan notification.Notification]struct{}{}
	}
	b.subs[device][ch] = struct{}{}
	b.mu.Unlock()
	return ch, func() {
		b.mu.Lock()
		delete(b.subs[device], ch)
		if len(b.subs[device]) == 0 {
			delete(b.subs, device)
		}
		b.mu.Unlock()
	}
}

// Publish hands n to every window of the device without blocking. It
// reports whether at least one window took it; a window whose buffer is
// full is skipped.
func (b *Broker) Publish(device int64, n notification.Notification) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	took := false
	for ch := range b.subs[device] {
		select {
		case ch <- n:
			took = true
		default:
		}
	}
	return took
}
