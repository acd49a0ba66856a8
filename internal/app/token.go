package app

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

var syscallEADDRINUSE = syscall.EADDRINUSE

// TokenFile is the API token's file name in the state directory.
const TokenFile = "api-token"

// LoadOrCreateToken returns the API token kept in dir/api-token (mode
// 0600), making a random 256-bit one on first start.
func LoadOrCreateToken(dir string) (string, error) {
	path := filepath.Join(dir, TokenFile)
	b, err := os.ReadFile(path)
	if err == nil {
		tok := strings.TrimSpace(string(b))
		if len(tok) < 32 {
			return "", fmt.Errorf("API token in %s is too short; delete the file to make a new one", path)
		}
		return tok, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("read API token %s: %w", path, err)
	}
	raw := make([]byte, 32)
	rand.Read(raw)
	tok := base64.RawURLEncoding.EncodeToString(raw)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", fmt.Errorf("create API token %s: %w", path, err)
	}
	defer f.Close()
	if _, err := f.WriteString(tok + "\n"); err != nil {
		return "", fmt.Errorf("write API token %s: %w", path, err)
	}
	return tok, nil
}
