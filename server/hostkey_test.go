package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadHostKeyCreatesOnceWithMode0600(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gt.db.host_key")
	s1, created, err := LoadHostKey(path)
	if err != nil || !created {
		t.Fatalf("first start: created=%v err=%v", created, err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("host key mode %v, want 0600", fi.Mode().Perm())
	}
	s2, created, err := LoadHostKey(path)
	if err != nil || created {
		t.Fatalf("second start: created=%v err=%v", created, err)
	}
	if string(s1.PublicKey().Marshal()) != string(s2.PublicKey().Marshal()) {
		t.Fatal("the second start has a different host key")
	}
}

func TestLoadHostKeyBadFiles(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage")
	os.WriteFile(garbage, []byte("not a key\n"), 0o600)
	unreadable := filepath.Join(dir, "unreadable")
	os.WriteFile(unreadable, []byte("x"), 0o000)
	for _, tc := range []struct{ name, path, want string }{
		{"garbage", garbage, "not an SSH private key"},
		{"directory", dir, "cannot read it"},
		{"missing directory", filepath.Join(dir, "nope", "key"), "directory"},
	} {
		_, _, err := LoadHostKey(tc.path)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.path) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line naming the file with %q", tc.name, err, tc.want)
		}
	}
	if os.Geteuid() != 0 { // root reads mode-000 files
		if _, _, err := LoadHostKey(unreadable); err == nil || !strings.Contains(err.Error(), "permission denied") {
			t.Errorf("unreadable: %v", err)
		}
	}
}

func TestListenPortInUse(t *testing.T) {
	l, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, err = Listen(l.Addr().String())
	if err == nil || !strings.Contains(err.Error(), "address already in use") || !strings.HasPrefix(err.Error(), "--listen ") {
		t.Fatalf("second listen: %v", err)
	}
}
