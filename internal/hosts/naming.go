package hosts

import (
	"strings"
)

// Local is the alias of attn's own host, and its name when an SSH alias
// answers to the hostname.
const Local = "local"

// Naming says how attn names its own host among the SSH aliases (seed
// 002, "How host and scope work"): by its hostname, lower-cased, so that
// an MCP client does not read "local" as its own machine; but when an SSH
// alias also answers to the hostname, that alias keeps the name and the
// own host is called "local" everywhere, the one name that cannot be
// mistaken for it. "local" always names the own host: an SSH alias
// spelled "local" is not addressable.
type Naming struct {
	// Own is the own host's name in every result: the hostname, or
	// "local".
	Own string
	// Hostname is the machine's hostname, lower-cased ("" when unknown).
	Hostname string
	// Aliases are the addressable SSH aliases (concrete, not "local"),
	// in the SSH config's order.
	Aliases []string
	// Shadowed are SSH aliases that cannot be addressed because "local"
	// names the own host.
	Shadowed []string
}

// NewNaming names the own host given the machine's hostname and the SSH
// config's concrete aliases. An alias answers to the hostname when it is
// the hostname, or its first label ("titan" on "titan.lan"), in any case.
// An empty hostname names the own host "local".
func NewNaming(hostname string, aliases []string) Naming {
	n := Naming{Hostname: strings.ToLower(strings.TrimSpace(hostname))}
	short, _, _ := strings.Cut(n.Hostname, ".")
	n.Own = n.Hostname
	if n.Own == "" {
		n.Own = Local
	}
	for _, a := range aliases {
		if strings.EqualFold(a, Local) {
			n.Shadowed = append(n.Shadowed, a)
			continue
		}
		n.Aliases = append(n.Aliases, a)
		if n.Hostname != "" && (strings.EqualFold(a, n.Hostname) || strings.EqualFold(a, short)) {
			n.Own = Local
		}
	}
	return n
}

// Resolve maps a host argument to the name attn uses for that host, or
// ok false when it names no addressable host. "" and "local" (any case)
// are the own host; an SSH alias matches exactly, else in any case; the
// hostname in any case is the own host unless an alias took it.
func (n Naming) Resolve(arg string) (string, bool) {
	arg = strings.TrimSpace(arg)
	if arg == "" || strings.EqualFold(arg, Local) || strings.EqualFold(arg, n.Own) {
		return n.Own, true
	}
	for _, a := range n.Aliases {
		if a == arg {
			return a, true
		}
	}
	for _, a := range n.Aliases {
		if strings.EqualFold(a, arg) {
			return a, true
		}
	}
	if n.Hostname != "" && strings.EqualFold(arg, n.Hostname) {
		return n.Own, true
	}
	return "", false
}

// Names returns every addressable host's name: the own host first, then
// the aliases.
func (n Naming) Names() []string {
	return append([]string{n.Own}, n.Aliases...)
}
