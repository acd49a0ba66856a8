package mcp

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/attn-dev/attn/internal/hosts"
	"github.com/attn-dev/attn/internal/source/tmux"
	"github.com/attn-dev/attn/internal/watch"
)

// target is one resolved agent's pane.
type target struct {
	host   string
	client *hosts.Client
	pane   tmux.Pane
}

func (t target) id() string { return t.host + "/" + t.pane.ID }

// paneID reports whether s looks like a tmux pane id ("%3").
func paneID(s string) bool {
	if len(s) < 2 || s[0] != '%' {
		return false
	}
	_, err := strconv.Atoi(s[1:])
	return err == nil
}

// target resolves "to" as seed 002 says: an exact id ("host/%3"), then a
// pane id ("%3"), then a case-insensitive name; a name that matches more
// than one pane is refused with the candidates. The search covers the
// host argument's host; without one, the caller's own host, or with
// everywhere set (close_agent) every host in reach, where a target found
// on several hosts is refused rather than guessed.
func (t *tools) target(ctx context.Context, sc scope, hostArg, to string, everywhere bool) (target, error) {
	to = strings.TrimSpace(to)
	if to == "" {
		return target{}, errors.New("no agent named: pass to (an id like host/%3, a pane id like %3, or a name)")
	}
	var search []string
	explicit := strings.TrimSpace(hostArg) != ""
	if explicit || !everywhere {
		h, err := t.host(sc, hostArg)
		if err != nil {
			return target{}, err
		}
		search = []string{h}
	} else {
		search = t.searchHosts(sc)
	}
	// An exact id names its host.
	if h, pane, ok := strings.Cut(to, "/"); ok && paneID(pane) {
		host, err := t.host(sc, h)
		if err != nil {
			return target{}, err
		}
		if explicit && host != search[0] {
			return target{}, fmt.Errorf("agent %s is on host %s, not %s: drop host or make them agree", to, host, search[0])
		}
		c, err := t.cfg.Hosts.Client(host)
		if err != nil {
			return target{}, err
		}
		p, err := c.Describe(ctx, pane)
		if err != nil {
			return target{}, fmt.Errorf("no pane %s on %s (list_agents lists them): %w", pane, host, err)
		}
		return target{host: host, client: c, pane: p}, nil
	}
	var found []target
	var problems []string
	for _, h := range search {
		c, err := t.cfg.Hosts.Client(h)
		if err != nil {
			if len(search) == 1 {
				return target{}, err
			}
			problems = append(problems, err.Error())
			continue
		}
		panes, err := c.ListPanes(ctx)
		if err != nil && !errors.Is(err, tmux.ErrNoServer) {
			if len(search) == 1 {
				return target{}, fmt.Errorf("list the panes of %s: %w", h, err)
			}
			problems = append(problems, fmt.Sprintf("%s: %v", h, err))
			continue
		}
		found = append(found, match(h, c, panes, to)...)
	}
	switch {
	case len(found) == 1:
		return found[0], nil
	case len(found) == 0:
		msg := fmt.Sprintf("no agent %q on %s: list_agents lists them", to, strings.Join(search, ", "))
		if len(problems) > 0 {
			msg += "; not searched: " + strings.Join(problems, "; ")
		}
		return target{}, errors.New(msg)
	}
	var cands []string
	for _, f := range found {
		cands = append(cands, fmt.Sprintf("%s (%s)", f.id(), watch.Name(f.pane, f.host)))
	}
	return target{}, fmt.Errorf("%q is ambiguous: it matches %d agents: %s; re-target by id or pane id", to, len(found), strings.Join(cands, ", "))
}

// match returns host's panes that to names: its pane id, else its name
// in any case.
func match(host string, c *hosts.Client, panes []tmux.Pane, to string) []target {
	var out []target
	if paneID(to) {
		for _, p := range panes {
			if p.ID == to && !p.Dead {
				out = append(out, target{host: host, client: c, pane: p})
			}
		}
		return out
	}
	for _, p := range panes {
		if !p.Dead && strings.EqualFold(watch.Name(p, host), to) {
			out = append(out, target{host: host, client: c, pane: p})
		}
	}
	return out
}
