// Package jsonl reads JSON Lines input: one goroutine cuts it into blocks
// of whole lines, workers parse the blocks, and the results come back in
// input order. Memory stays bounded by the blocks in flight.
package jsonl

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"runtime"
	"sync"
)

// LineError is a problem with one line of an input file.
type LineError struct {
	Name string // the input's name, as the user gave it
	Line int    // 1-based
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("%s:%d: %v", e.Name, e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

// Workers is how many goroutines Parallel parses on.
func Workers() int { return max(1, runtime.GOMAXPROCS(0)) }

// blockSize is the size the reader aims for per block of lines.
const blockSize = 1 << 20

type block struct {
	seq   int
	first int    // line number of data's first line
	data  []byte // whole lines
	buf   *[]byte
}

var blockBufs = sync.Pool{New: func() any { b := make([]byte, 0, 2*blockSize); return &b }}

// Parallel calls parse(w, line, data) for every non-blank line of r on
// several goroutines; parse's results are handed to collect one block at a
// time, in input order (a pointer into the block: valid during the call,
// so a large T is not copied). The first error (from reading, parse or collect)
// stops everything and is returned; parse errors become *LineError.
// progress, when set, is called now and then with the lines read so far.
// w is the worker (0 ≤ w < Workers()) running parse, for per-worker state.
//
// It is long because the reader, the workers and the in-order collector
// share the cancellation and the error: one function keeps who stops whom
// visible.
func Parallel[T any](ctx context.Context, r io.Reader, name string, progress func(lines int),
	parse func(w int, line int, data []byte) (T, error), collect func(line int, v *T) error) error {
	workers := Workers()
	type result struct {
		seq   int
		lines []int
		vals  []T
		err   error
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	blocks := make(chan block, workers)
	results := make(chan result, workers)
	var readErr error
	go func() {
		defer close(blocks)
		readErr = cutBlocks(ctx, r, blocks)
	}()
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for b := range blocks {
				n := bytes.Count(b.data, []byte{'\n'}) + 1
				res := result{seq: b.seq, lines: make([]int, 0, n), vals: make([]T, 0, n)}
				line := b.first
				data := b.data
				for len(data) > 0 {
					i := bytes.IndexByte(data, '\n')
					var ln []byte
					if i < 0 {
						ln, data = data, nil
					} else {
						ln, data = data[:i], data[i+1:]
					}
					if len(bytes.TrimSpace(ln)) > 0 && res.err == nil {
						v, err := parse(w, line, ln)
						if err != nil {
							res.err = &LineError{Name: name, Line: line, Err: err}
						} else {
							res.lines = append(res.lines, line)
							res.vals = append(res.vals, v)
						}
					}
					line++
				}
				blockBufs.Put(b.buf)
				select {
				case results <- res:
				case <-ctx.Done():
					return
				}
			}
		}(w)
	}
	go func() { wg.Wait(); close(results) }()

	pending := map[int]result{}
	next, lines := 0, 0
	var firstErr error
	for res := range results {
		if firstErr != nil {
			continue
		}
		pending[res.seq] = res
		for {
			cur, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			next++
			for i := range cur.vals {
				if err := collect(cur.lines[i], &cur.vals[i]); err != nil {
					firstErr = &LineError{Name: name, Line: cur.lines[i], Err: err}
					break
				}
			}
			if firstErr == nil && cur.err != nil {
				firstErr = cur.err
			}
			if firstErr != nil {
				cancel()
				break
			}
			lines += len(cur.vals)
			if progress != nil {
				progress(lines)
			}
		}
	}
	if firstErr != nil {
		return firstErr
	}
	if readErr != nil {
		return readErr
	}
	return ctx.Err()
}

// cutBlocks reads r into blocks that end at a line end.
func cutBlocks(ctx context.Context, r io.Reader, out chan<- block) error {
	var carry []byte
	seq, line := 0, 1
	eof := false
	for !eof {
		bp := blockBufs.Get().(*[]byte)
		buf := append((*bp)[:0], carry...)
		for {
			if len(buf) == cap(buf) {
				buf = append(buf, 0)[:len(buf)] // grow: one line longer than the block
			}
			n, err := r.Read(buf[len(buf):cap(buf)])
			buf = buf[:len(buf)+n]
			if err == io.EOF {
				eof = true
				break
			}
			if err != nil {
				return fmt.Errorf("line %d: %w", line, err)
			}
			if len(buf) >= blockSize && bytes.IndexByte(buf[len(buf)-n:], '\n') >= 0 {
				break
			}
		}
		cut := len(buf)
		if !eof {
			cut = bytes.LastIndexByte(buf, '\n') + 1
		}
		carry = append(carry[:0], buf[cut:]...)
		*bp = buf
		b := block{seq: seq, first: line, data: buf[:cut], buf: bp}
		line += bytes.Count(b.data, []byte{'\n'})
		seq++
		select {
		case out <- b:
		case <-ctx.Done():
			return nil
		}
	}
	return nil
}
