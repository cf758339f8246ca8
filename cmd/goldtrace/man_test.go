package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestManPages: goldtrace man writes one page per command with the
// sections man readers expect; where groff is installed each page renders
// without warnings.
func TestManPages(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "man1")
	out, errOut, code := expRun(t, filepath.Join(t.TempDir(), "unused.db"), "man", dir)
	if code != 0 {
		t.Fatalf("man: exit %d: %s", code, errOut)
	}
	for _, page := range []string{"goldtrace.1", "goldtrace-export.1", "goldtrace-users-key-add.1", "goldtrace-score.1", "goldtrace-completion-bash.1"} {
		b, err := os.ReadFile(filepath.Join(dir, page))
		if err != nil {
			t.Errorf("%s: %v (%s)", page, err, out)
			continue
		}
		s := string(b)
		for _, section := range []string{".TH ", ".SH NAME", ".SH SYNOPSIS", ".SH DESCRIPTION", ".SH EXAMPLES", ".SH EXIT STATUS"} {
			if !strings.Contains(s, section) {
				t.Errorf("%s lacks %s", page, section)
			}
		}
	}
	if !strings.Contains(string(must(os.ReadFile(filepath.Join(dir, "goldtrace-export.1")))), `\fB\-\-format\fR \fISTRINGSLICE\fR`) {
		t.Error("goldtrace-export.1 does not list --format")
	}
	groff, err := exec.LookPath("groff")
	if err != nil {
		t.Log("groff not installed: pages not rendered")
		return
	}
	pages, _ := filepath.Glob(filepath.Join(dir, "*.1"))
	for _, p := range pages {
		out, err := exec.Command(groff, "-man", "-Tutf8", "-ww", "-Wbreak", "-z", p).CombinedOutput()
		if err != nil || len(out) > 0 {
			t.Errorf("%s: groff: %v %s", filepath.Base(p), err, out)
		}
	}
	if _, errOut, code := expRun(t, filepath.Join(t.TempDir(), "unused.db"), "man", filepath.Join(dir, "goldtrace.1")); code != 2 || !strings.Contains(errOut, "is a file") {
		t.Errorf("man into a file: exit %d, %s", code, errOut)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
