package synth

import (
	"bufio"
	"io"
	"runtime"
)

// writeChunk is how many traces one worker encodes at a time.
const writeChunk = 128

// Write streams the N traces of opts to w as canonical trace JSON Lines (the
// bytes of json.Marshal of each trace.Trace, one per line) and returns the
// number of bytes written. The same options always give the same bytes.
//
// Traces are generated and encoded in chunks on every available CPU and
// written in order; memory stays bounded by a few chunks whatever N is.
func Write(w io.Writer, opts Options) (int64, error) {
	opts = opts.withDefaults()
	workers := runtime.GOMAXPROCS(0)
	if workers < 2 || opts.N <= writeChunk {
		return writeSequential(w, opts)
	}
	type job struct {
		start, end int
		out        chan []byte
	}
	done := make(chan struct{})
	jobs := make(chan job, workers)
	ordered := make(chan chan []byte, 2*workers)
	free := make(chan []byte, 3*workers)

	go func() { // hand out chunks, remembering their order
		defer close(jobs)
		defer close(ordered)
		for start := 0; start < opts.N; start += writeChunk {
			j := job{start: start, end: min(start+writeChunk, opts.N), out: make(chan []byte, 1)}
			select {
			case jobs <- j:
			case <-done:
				return
			}
			select {
			case ordered <- j.out:
			case <-done:
				return
			}
		}
	}()
	for range workers {
		go func() {
			for j := range jobs {
				var buf []byte
				select {
				case buf = <-free:
				default:
					buf = make([]byte, 0, writeChunk*8<<10)
				}
				buf = buf[:0]
				for k := j.start; k < j.end; k++ {
					c := generateCase(opts, opts.Offset+k, false)
					buf = appendTrace(buf, c.Trace, shopTools().encoded)
				}
				j.out <- buf
			}
		}()
	}

	var n int64
	var err error
	for out := range ordered {
		buf := <-out
		if err == nil {
			var m int
			m, err = w.Write(buf)
			n += int64(m)
			if err != nil {
				close(done)
			}
		}
		select {
		case free <- buf:
		default:
		}
	}
	return n, err
}

func writeSequential(w io.Writer, opts Options) (int64, error) {
	cw := &countingWriter{w: w}
	bw := bufio.NewWriterSize(cw, 1<<20)
	s := NewStream(opts)
	buf := make([]byte, 0, 16<<10)
	for t, ok := s.Next(); ok; t, ok = s.Next() {
		buf = appendTrace(buf[:0], t, shopTools().encoded)
		if _, err := bw.Write(buf); err != nil {
			return cw.n, err
		}
	}
	err := bw.Flush()
	return cw.n, err
}

// countingWriter counts the bytes its writer accepted.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	m, err := c.w.Write(p)
	c.n += int64(m)
	return m, err
}
