package hosts

import (
	"reflect"
	"testing"
)

func TestNaming(t *testing.T) {
	for _, tc := range []struct {
		name     string
		hostname string
		aliases  []string
		own      string
		names    []string
		shadowed []string
	}{
		{"hostname names the own host", "titan", []string{"devbox"}, "titan", []string{"titan", "devbox"}, nil},
		{"lower-cased", "Titan", nil, "titan", []string{"titan"}, nil},
		{"an alias answers to the hostname", "titan", []string{"devbox", "titan"}, "local", []string{"local", "devbox", "titan"}, nil},
		{"in any case", "titan", []string{"TITAN"}, "local", []string{"local", "TITAN"}, nil},
		{"to its first label", "titan.lan", []string{"titan"}, "local", []string{"local", "titan"}, nil},
		{"a longer alias does not", "titan", []string{"titan.lan", "titan2"}, "titan", []string{"titan", "titan.lan", "titan2"}, nil},
		{"an alias spelled local is shadowed", "titan", []string{"Local", "devbox"}, "titan", []string{"titan", "devbox"}, []string{"Local"}},
		{"no hostname", "", []string{"devbox"}, "local", []string{"local", "devbox"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := NewNaming(tc.hostname, tc.aliases)
			if n.Own != tc.own || !reflect.DeepEqual(n.Names(), tc.names) || !reflect.DeepEqual(n.Shadowed, tc.shadowed) {
				t.Errorf("own %q names %q shadowed %q; want %q %q %q", n.Own, n.Names(), n.Shadowed, tc.own, tc.names, tc.shadowed)
			}
		})
	}
}

func TestResolve(t *testing.T) {
	plain := NewNaming("titan", []string{"devbox", "GPU"})
	clash := NewNaming("titan.lan", []string{"titan", "devbox"})
	for _, tc := range []struct {
		n    Naming
		arg  string
		want string
		ok   bool
	}{
		{plain, "", "titan", true},
		{plain, "local", "titan", true},
		{plain, "LOCAL", "titan", true},
		{plain, "titan", "titan", true},
		{plain, "TiTaN", "titan", true},
		{plain, "devbox", "devbox", true},
		{plain, "DEVBOX", "devbox", true},
		{plain, "gpu", "GPU", true},
		{plain, "elsewhere", "", false},
		{plain, "*", "", false},
		{clash, "", "local", true},
		{clash, "local", "local", true},
		{clash, "titan", "titan", true}, // the alias keeps the name
		{clash, "Titan", "titan", true},
		{clash, "titan.lan", "local", true}, // the full hostname is no alias
		{clash, "devbox", "devbox", true},
	} {
		got, ok := tc.n.Resolve(tc.arg)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: Resolve(%q) = %q, %v; want %q, %v", tc.n.Hostname, tc.arg, got, ok, tc.want, tc.ok)
		}
	}
}
