package server

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	gossh "golang.org/x/crypto/ssh"
)

// HostKeyPath is where the host key lives when --host-key is not given:
// beside the database, named after it ("goldtrace.db" → "goldtrace.db.host_key").
func HostKeyPath(dbPath string) string { return dbPath + ".host_key" }

// LoadHostKey reads the server's private host key from path, creating an
// ed25519 key there (mode 0600) when the file does not exist. created says
// whether it was made now. Errors say what and where in one line.
func LoadHostKey(path string) (signer gossh.Signer, created bool, err error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		signer, err := createHostKey(path)
		return signer, err == nil, err
	}
	if err != nil {
		return nil, false, fmt.Errorf("host key %s: cannot read it (%s)", path, reason(err))
	}
	signer, err = gossh.ParsePrivateKey(b)
	if err != nil {
		var missing *gossh.PassphraseMissingError
		if errors.As(err, &missing) {
			return nil, false, fmt.Errorf("host key %s is protected by a passphrase: give a key without one", path)
		}
		return nil, false, fmt.Errorf("host key %s: not an SSH private key", path)
	}
	return signer, false, nil
}

func createHostKey(path string) (gossh.Signer, error) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("host key: %w", err)
	}
	block, err := gossh.MarshalPrivateKey(priv, "goldtrace serve host key")
	if err != nil {
		return nil, fmt.Errorf("host key: %w", err)
	}
	if dir := filepath.Dir(path); dir != "" {
		if _, err := os.Stat(dir); err != nil {
			return nil, fmt.Errorf("host key %s: directory %s: %s", path, dir, reason(err))
		}
	}
	// O_EXCL: never overwrite a key another process created meanwhile.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("host key %s: cannot create it (%s)", path, reason(err))
	}
	if _, err := f.Write(pem.EncodeToMemory(block)); err != nil {
		f.Close()
		os.Remove(path)
		return nil, fmt.Errorf("host key %s: %s", path, reason(err))
	}
	if err := f.Close(); err != nil {
		os.Remove(path)
		return nil, fmt.Errorf("host key %s: %s", path, reason(err))
	}
	return gossh.NewSignerFromKey(priv)
}

// reason is the operating system's words for a file error, without the
// path the caller already names.
func reason(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
