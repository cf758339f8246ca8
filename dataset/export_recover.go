package dataset

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// What export does about the files an earlier export left behind: hidden
// temporary files of an export that was killed (kill -9, a power cut: no
// exit path of its own could remove them), and a version stored in the
// database whose files never reached --out (a crash between the commit and
// the rename).

// ClaimExportDir takes the export lock of dataset name in dir (an flock,
// released by the kernel when the process dies however it dies) and, when
// no other export of name into dir is running, removes the temporary files
// earlier exports of it (and records files of any export) left there.
// release drops the lock.
func ClaimExportDir(dir, name string) (release func()) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return func() {} // StageVersionFiles reports the directory
	}
	lock, ok := lockExclusive(filepath.Join(dir, "."+name+".export-lock"))
	if !ok {
		return func() {} // another export of name is writing here now
	}
	prefix := "." + name + "-v"
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		n := e.Name()
		// A records file still has a name only for an instant after it is
		// made (see spillFile), and whoever made it has it open: removing
		// the name is what its maker does next.
		spill := strings.HasPrefix(n, ".goldtrace-export-") && strings.HasSuffix(n, ".spill")
		if strings.HasPrefix(n, prefix) && strings.Contains(n, ".tmp-") || spill {
			os.Remove(filepath.Join(dir, n))
		}
	}
	return lock
}

// VersionFilesMissing reports whether version's JSONL or manifest is not in
// dir.
func VersionFilesMissing(dir, name string, version int) bool {
	for _, f := range []string{FileName(name, version), ManifestName(name, version)} {
		if _, err := os.Stat(filepath.Join(dir, f)); errors.Is(err, fs.ErrNotExist) {
			return true
		}
	}
	return false
}
