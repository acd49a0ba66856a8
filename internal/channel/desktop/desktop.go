// Package desktop is attn's desktop channel: a notification on the
// daemon's own machine, with a sound, for a person sitting at it —
// notify-send (libnotify) on Linux, osascript's "display notification"
// on macOS. Where neither is present the send is skipped with an outcome
// that says what to install; it never fails the other channels.
//
// Channel URL: desktop:// (add ?sound=no for silence).
package desktop

import (
	"context"
	"fmt"
	"net/url"
	"os/exec"
	"runtime"
	"strings"

	"github.com/attn-dev/attn/internal/channel"
)

// Usage is the URL form, for errors.
const Usage = "desktop:// (or desktop://?sound=no)"

// Config is a parsed desktop:// URL.
type Config struct {
	Sound bool
}

// Parse reads a desktop:// URL.
func Parse(u *url.URL) (Config, error) {
	if u.Scheme != "desktop" || u.Host != "" || strings.Trim(u.Path, "/") != "" {
		return Config{}, fmt.Errorf("want %s", Usage)
	}
	c := Config{Sound: true}
	for k, v := range u.Query() {
		switch {
		case k == "sound" && (v[0] == "no" || v[0] == "false"):
			c.Sound = false
		case k == "sound" && (v[0] == "yes" || v[0] == "true"):
		default:
			return Config{}, fmt.Errorf("unknown parameter %s=%s: a desktop URL takes only sound=no", k, v[0])
		}
	}
	return c, nil
}

// Redact returns the URL: it holds no secret.
func Redact(u *url.URL) string {
	if u.RawQuery != "" {
		return "desktop://?" + u.RawQuery
	}
	return "desktop://"
}

// Options are a Channel's collaborators (injectable for tests).
type Options struct {
	// GOOS is the operating system (default runtime.GOOS).
	GOOS string
	// LookPath finds a program (default exec.LookPath).
	LookPath func(string) (string, error)
	// Run runs a program and returns its combined output (default
	// exec.CommandContext).
	Run func(ctx context.Context, path string, args ...string) ([]byte, error)
}

// Channel shows notifications on this machine's desktop.
type Channel struct {
	cfg Config
	opt Options
}

// New returns a desktop channel.
func New(cfg Config, opt Options) *Channel {
	if opt.GOOS == "" {
		opt.GOOS = runtime.GOOS
	}
	if opt.LookPath == nil {
		opt.LookPath = exec.LookPath
	}
	if opt.Run == nil {
		opt.Run = func(ctx context.Context, path string, args ...string) ([]byte, error) {
			return exec.CommandContext(ctx, path, args...).CombinedOutput()
		}
	}
	return &Channel{cfg: cfg, opt: opt}
}

// Kind returns "desktop".
func (c *Channel) Kind() string { return "desktop" }

// Capabilities: title, body, urgency. No buttons, no link, nothing
// leaves the machine.
func (c *Channel) Capabilities() channel.Capabilities {
	return channel.Capabilities{Title: true, Body: true, Priority: true, E2E: true, MaxTitle: 200, MaxBody: 1000, Unit: channel.Runes}
}

// Command returns the program and arguments that show m, or a skipped
// Result saying why nothing can.
func (c *Channel) Command(m channel.Message) (string, []string, *channel.Result) {
	switch c.opt.GOOS {
	case "linux", "freebsd", "openbsd", "netbsd":
		path, err := c.opt.LookPath("notify-send")
		if err != nil {
			return "", nil, &channel.Result{Status: channel.StatusSkipped,
				Detail: "notify-send is not installed on the daemon's machine (Debian/Ubuntu: apt install libnotify-bin; Fedora: dnf install libnotify): desktop notification skipped"}
		}
		urgency := "normal"
		switch {
		case m.Priority >= 4:
			urgency = "critical"
		case m.Priority <= 2:
			urgency = "low"
		}
		args := []string{"--app-name=attn", "--urgency=" + urgency}
		if c.cfg.Sound && !m.Silent {
			args = append(args, "--hint=string:sound-name:message-new-instant")
		}
		return path, append(args, "--", m.Title, m.Body), nil
	case "darwin":
		path, err := c.opt.LookPath("osascript")
		if err != nil {
			return "", nil, &channel.Result{Status: channel.StatusSkipped, Detail: "osascript is not on the daemon's PATH: desktop notification skipped"}
		}
		script := fmt.Sprintf("display notification %s with title %s", appleString(m.Body), appleString(m.Title))
		if c.cfg.Sound && !m.Silent {
			script += ` sound name "Glass"`
		}
		return path, []string{"-e", script}, nil
	}
	return "", nil, &channel.Result{Status: channel.StatusSkipped, Detail: fmt.Sprintf("no desktop notifier for %s: desktop notification skipped", c.opt.GOOS)}
}

// appleString quotes s as an AppleScript string literal, on one line.
func appleString(s string) string {
	s = channel.CleanLine(s)
	s = strings.ReplaceAll(s, `\`, `\\`)
	return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"`
}

// Send shows m.
func (c *Channel) Send(ctx context.Context, m channel.Message) channel.Result {
	path, args, skip := c.Command(m)
	if skip != nil {
		return *skip
	}
	out, err := c.opt.Run(ctx, path, args...)
	if err != nil {
		detail := channel.Excerpt(out)
		if detail == "" {
			detail = err.Error()
		}
		if strings.Contains(strings.ToLower(detail), "d-bus") || strings.Contains(strings.ToLower(detail), "dbus") {
			detail += " (the daemon runs outside a desktop session: start attn serve from it, or set DBUS_SESSION_BUS_ADDRESS)"
		}
		return channel.Failed(fmt.Sprintf("%s failed: %s", path, detail))
	}
	return channel.Delivered("")
}
