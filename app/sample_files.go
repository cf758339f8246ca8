package app

import (
	"fmt"
	"io"
	"strings"

	"github.com/goldtrace/goldtrace/internal/input"
	"github.com/goldtrace/goldtrace/trace"
)

// The files goldtrace sample reads: --runs (prediction files to rank items
// by disagreement) and --from (a trace file sampled without importing it).

// ReadRuns reads --runs: comma-separated prediction files ("-" once for
// stdin).
func ReadRuns(list string, stdin io.Reader) ([]Run, error) {
	var out []Run
	usedStdin := false
	for _, path := range strings.Split(list, ",") {
		path = strings.TrimSpace(path)
		if path == "" {
			continue
		}
		if path == "-" {
			if usedStdin {
				return nil, fmt.Errorf("--runs: - (stdin) given twice")
			}
			usedStdin = true
		}
		in, closeIn, err := OpenInput(path, stdin)
		if err != nil {
			return nil, fmt.Errorf("--runs %w", err)
		}
		run, err := ReadRun(in, path)
		closeIn()
		if err != nil {
			return nil, err
		}
		out = append(out, run)
	}
	return out, nil
}

// OpenTraces opens a trace file (- for stdin) in format for reading; its
// bytes read are counted on add, after size is told the file's size (0
// unknown: stdin, a pipe), so progress can show a percentage and an ETA.
func OpenTraces(path, format string, stdin io.Reader, size func(int64), add func(n int64)) (trace.Reader, io.Closer, error) {
	f, n, err := input.Open(path, stdin)
	if err != nil {
		return nil, nil, err
	}
	size(n)
	r, err := trace.NewReader(input.Counted(f, add), format)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return r, f, nil
}
