package hosts

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestReadSSHConfig(t *testing.T) {
	home := t.TempDir()
	write(t, filepath.Join(home, ".ssh", "config"), `# the person's config
Include conf.d/*.conf
Include ~/other/extra

Host devbox gpu-1
    HostName 10.0.0.2
    User me
Host *.internal !bastion  web?
    ProxyJump bastion
Host=build  "quoted alias"  # trailing comment
Match host devbox exec "true"
    Host ignored-in-match
    ForwardAgent yes
Match all
    IdentityFile ~/.ssh/id_ed25519
host   lower-keyword
HOST *
    ServerAliveInterval 30
Host devbox
`)
	write(t, filepath.Join(home, ".ssh", "conf.d", "b.conf"), "Host from-b\n")
	write(t, filepath.Join(home, ".ssh", "conf.d", "a.conf"), "Host from-a\nInclude nested\n")
	write(t, filepath.Join(home, ".ssh", "nested"), "Host deep\n")
	write(t, filepath.Join(home, ".ssh", "conf.d", "skip.txt"), "Host not-included\n")
	write(t, filepath.Join(home, "other", "extra"), "Host extra\n")
	c, err := ReadSSHConfig(filepath.Join(home, ".ssh", "config"), home)
	if err != nil {
		t.Fatal(err)
	}
	// "ignored-in-match" is read as a Host line: ssh ends a Match block at
	// the next Host line, so it is a real alias. "quoted alias" holds a
	// space: no host name does, so it is skipped.
	want := []string{"from-a", "deep", "from-b", "extra", "devbox", "gpu-1", "build", "ignored-in-match", "lower-keyword"}
	if !reflect.DeepEqual(c.Aliases, want) {
		t.Errorf("aliases = %q\nwant      %q", c.Aliases, want)
	}
	if len(c.Files) != 5 || len(c.Problems) != 0 {
		t.Errorf("files = %q, problems = %q", c.Files, c.Problems)
	}
}

func TestReadSSHConfigMatchBlockNamesNoAlias(t *testing.T) {
	home := t.TempDir()
	write(t, filepath.Join(home, ".ssh", "config"), "Match host devbox\n  HostName 10.0.0.9\n  User x\nMatch originalhost foo exec \"test -f /x\"\n  Port 2222\n")
	c, err := ReadSSHConfig(filepath.Join(home, ".ssh", "config"), home)
	if err != nil || len(c.Aliases) != 0 {
		t.Fatalf("aliases = %q, err %v; want none", c.Aliases, err)
	}
}

func TestReadSSHConfigMissingAndBroken(t *testing.T) {
	home := t.TempDir()
	c, err := ReadSSHConfig(filepath.Join(home, ".ssh", "config"), home)
	if err != nil || len(c.Aliases) != 0 {
		t.Fatalf("missing config: %+v, %v; want no aliases, no error", c, err)
	}
	// An Include that loops is cut at ssh's depth limit, and reported.
	write(t, filepath.Join(home, ".ssh", "config"), "Host a\nInclude config\n")
	c, err = ReadSSHConfig(filepath.Join(home, ".ssh", "config"), home)
	if err != nil || !reflect.DeepEqual(c.Aliases, []string{"a"}) || len(c.Problems) != 1 || !strings.Contains(c.Problems[0], "nested more than 16") {
		t.Fatalf("looping include: %+v, %v", c, err)
	}
	if os.Geteuid() != 0 {
		os.Chmod(filepath.Join(home, ".ssh", "config"), 0)
		if _, err := ReadSSHConfig(filepath.Join(home, ".ssh", "config"), home); err == nil || !strings.Contains(err.Error(), "ATTN_SSH_CONFIG") {
			t.Fatalf("unreadable config: err = %v", err)
		}
	}
}

func TestSplitDirective(t *testing.T) {
	for _, tc := range []struct {
		line string
		key  string
		args []string
	}{
		{"", "", nil},
		{"   # comment", "", nil},
		{"Host a b", "Host", []string{"a", "b"}},
		{"Host=a", "Host", []string{"a"}},
		{"Host = a", "Host", []string{"a"}},
		{"\tInclude \"dir with space/*.conf\" other", "Include", []string{"dir with space/*.conf", "other"}},
		{"Host a # comment", "Host", []string{"a"}},
		{"Host", "Host", nil},
	} {
		key, args := splitDirective(tc.line)
		if key != tc.key || !reflect.DeepEqual(args, tc.args) {
			t.Errorf("splitDirective(%q) = %q %q; want %q %q", tc.line, key, args, tc.key, tc.args)
		}
	}
}
