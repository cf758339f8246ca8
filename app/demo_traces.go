package app

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/goldtrace/goldtrace/internal/outfile"
	"github.com/goldtrace/goldtrace/source"
	"github.com/goldtrace/goldtrace/trace/synth"
)

// WriteDemoTraces writes the synthetic traces of opts to path ("-":
// stdout) as JSON Lines, or as a Parquet export in layout (source.Layouts)
// when layout is set; a file is written all or nothing. It returns the
// bytes written.
func WriteDemoTraces(path string, stdout io.Writer, layout string, opts synth.Options) (int64, error) {
	write := synth.Write
	if layout != "" {
		write = func(w io.Writer, opts synth.Options) (int64, error) { return source.WriteSynth(w, layout, opts) }
	}
	var n int64
	err := outfile.Write(path, stdout, func(w io.Writer) (err error) {
		n, err = write(w, opts)
		return err
	})
	if err != nil {
		where := path
		if path == "-" {
			where = "stdout"
		}
		return n, fmt.Errorf("write traces to %s: %w", where, err)
	}
	return n, nil
}

// StartDemo makes the demo project in dir (a new temporary directory for
// ""): traces of opts, the users, and a batch of batchItems items with
// bob's labels and aliceDone of alice's in. closeStore closes its database.
func StartDemo(ctx context.Context, dir string, opts synth.Options, batchItems, aliceDone int) (a *App, p DemoProject, closeStore func(), err error) {
	if opts.N < 1 {
		return nil, p, nil, fmt.Errorf("--traces must be at least 1, not %d", opts.N)
	}
	if dir == "" {
		if dir, err = os.MkdirTemp("", "goldtrace-demo-"); err != nil {
			return nil, p, nil, fmt.Errorf("create demo directory: %w", err)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, p, nil, fmt.Errorf("create demo directory: %w", err)
	}
	a, p, closeStore, err = NewDemo(ctx, dir, opts)
	if err != nil {
		return nil, p, nil, err
	}
	if err := a.SeedDemoWork(ctx, &p, opts.Seed, batchItems, aliceDone); err != nil {
		closeStore()
		return nil, p, nil, err
	}
	return a, p, closeStore, nil
}
