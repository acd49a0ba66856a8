package hosts

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// maxIncludeDepth bounds nested Include directives, as ssh does (16).
const maxIncludeDepth = 16

// SSHConfig is what attn reads of the user's SSH client configuration: the
// concrete host aliases, in the order the files name them.
type SSHConfig struct {
	// Aliases are the Host patterns that name exactly one host: no
	// wildcard (* ?), no negation (!), never "*". Each appears once.
	Aliases []string
	// Files are the files read, the main one first, then each Include in
	// the order met.
	Files []string
	// Problems are files or lines that could not be read (an unreadable
	// Include, an Include nested too deep): the rest is still used.
	Problems []string
}

// ReadSSHConfig reads the SSH client configuration at path (normally
// ~/.ssh/config) and every file it Includes, and returns its concrete
// aliases. Relative Include paths are taken from home/.ssh, as ssh does
// for a user's configuration; "~/" is home; glob patterns are expanded
// (in lexical order). Match blocks never name aliases; Host patterns with
// wildcards or negations are skipped. A missing main file is no aliases,
// not an error; an unreadable one is an error that says which file.
func ReadSSHConfig(path, home string) (SSHConfig, error) {
	var c SSHConfig
	seen := map[string]bool{}
	err := c.read(path, home, 0, seen)
	if errors.Is(err, fs.ErrNotExist) {
		return SSHConfig{}, nil
	}
	return c, err
}

func (c *SSHConfig) read(path, home string, depth int, seen map[string]bool) error {
	f, err := os.Open(path)
	if err != nil {
		if depth == 0 {
			if errors.Is(err, fs.ErrNotExist) {
				return err
			}
			return fmt.Errorf("read SSH config %s (check its permissions, or point ATTN_SSH_CONFIG elsewhere): %w", path, err)
		}
		c.Problems = append(c.Problems, fmt.Sprintf("Include %s: %v", path, err))
		return nil
	}
	defer f.Close()
	c.Files = append(c.Files, path)
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		key, args := splitDirective(sc.Text())
		switch strings.ToLower(key) {
		case "host":
			for _, a := range args {
				if concrete(a) && !seen[a] {
					seen[a] = true
					c.Aliases = append(c.Aliases, a)
				}
			}
		case "include":
			if depth+1 >= maxIncludeDepth {
				c.Problems = append(c.Problems, fmt.Sprintf("%s:%d: Include nested more than %d deep: skipped", path, n, maxIncludeDepth))
				continue
			}
			for _, pat := range args {
				pat = expandHome(pat, home)
				if !filepath.IsAbs(pat) {
					pat = filepath.Join(home, ".ssh", pat)
				}
				matches, err := filepath.Glob(pat)
				if err != nil {
					c.Problems = append(c.Problems, fmt.Sprintf("%s:%d: Include %s: %v", path, n, pat, err))
					continue
				}
				slices.Sort(matches)
				for _, m := range matches {
					if err := c.read(m, home, depth+1, seen); err != nil {
						return err
					}
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		c.Problems = append(c.Problems, fmt.Sprintf("%s: %v", path, err))
	}
	return nil
}

// splitDirective splits one config line into its keyword and arguments:
// "Host a b", "Host=a", `Include "dir with space/*.conf"`. Comments and
// blank lines give "".
func splitDirective(line string) (string, []string) {
	line = strings.TrimSpace(line)
	if line == "" || line[0] == '#' {
		return "", nil
	}
	end := strings.IndexAny(line, " \t=")
	if end < 0 {
		return line, nil
	}
	key := line[:end]
	rest := strings.TrimLeft(line[end:], " \t")
	rest = strings.TrimPrefix(rest, "=")
	var args []string
	for rest = strings.TrimSpace(rest); rest != ""; rest = strings.TrimSpace(rest) {
		if rest[0] == '"' {
			if i := strings.IndexByte(rest[1:], '"'); i >= 0 {
				args = append(args, rest[1:1+i])
				rest = rest[i+2:]
				continue
			}
			args = append(args, rest[1:])
			break
		}
		if rest[0] == '#' {
			break
		}
		i := strings.IndexAny(rest, " \t")
		if i < 0 {
			args = append(args, rest)
			break
		}
		args = append(args, rest[:i])
		rest = rest[i:]
	}
	return key, args
}

// concrete reports whether a Host pattern names one host: no wildcard,
// no negation, no blank (no host name holds one).
func concrete(p string) bool {
	return p != "" && !strings.ContainsAny(p, "*?![]") && !strings.ContainsFunc(p, func(r rune) bool { return r <= ' ' })
}

func expandHome(p, home string) string {
	if p == "~" {
		return home
	}
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		return filepath.Join(home, rest)
	}
	return p
}
