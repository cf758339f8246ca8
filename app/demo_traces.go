package app

import (
	"fmt"
	"io"

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
