// Package shareddata locates the public conformance data the tests read
// (../shared/data beside the module root, or $GOLDTRACE_SHARED_DATA). Only
// tests import it; it depends on the standard library alone, so every
// package's tests may use it.
package shareddata

import (
	"os"
	"path/filepath"
	"testing"
)

// EnvVar names a directory that overrides the default location.
const EnvVar = "GOLDTRACE_SHARED_DATA"

// Dir returns the shared data directory and whether it exists: $EnvVar
// when set, else ../shared/data or ../../shared/data from the module root
// (the first that exists), found by walking up from the working directory
// to go.mod.
func Dir() (string, bool) {
	if dir := os.Getenv(EnvVar); dir != "" {
		_, err := os.Stat(dir)
		return dir, err == nil
	}
	root, ok := moduleRoot()
	if !ok {
		return "", false
	}
	for _, up := range []string{"..", filepath.Join("..", "..")} {
		p := filepath.Join(root, up, "shared", "data")
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return p, true
		}
	}
	return filepath.Join(root, "..", "shared", "data"), false
}

// Path returns the file or directory rel inside the shared data, skipping
// the test when it is absent.
func Path(t testing.TB, rel ...string) string {
	t.Helper()
	dir, ok := Dir()
	if !ok {
		t.Skipf("shared data absent (%s; set %s): skipping", dir, EnvVar)
	}
	p := filepath.Join(append([]string{dir}, rel...)...)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("shared data %s absent: skipping", p)
	}
	return p
}

// moduleRoot walks up from the working directory to the directory holding
// go.mod.
func moduleRoot() (string, bool) {
	dir, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}
