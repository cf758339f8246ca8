package store

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
)

// importSpool holds what an import's reading pass computed (each valid
// record's column values, trace bodies already compressed) for its writing
// pass, so the input is read and parsed once. It is a temporary file beside
// the database (a store's disk, not a RAM-backed /tmp), removed as soon as
// it is created where the system allows (Unix), so that no spool outlives
// the process, even one killed with SIGKILL.
//
// A tool definition is spooled in full the first time it appears and by its
// hash afterwards (a log's traces usually offer the same tools); both ends
// remember the same first spoolToolLimit distinct tools.
type importSpool struct {
	f       *os.File
	w       *bufio.Writer
	r       *bufio.Reader
	tools   map[string]toolRow
	scratch []byte
	records int
}

const spoolToolLimit = 4096

// newImportSpool creates the spool in dir (the database's directory), or in
// the system's temporary directory when dir cannot hold it.
func newImportSpool(dir string) (*importSpool, error) {
	f, err := os.CreateTemp(dir, ".goldtrace-import-*.spool")
	if err != nil {
		var terr error
		if f, terr = os.CreateTemp("", "goldtrace-import-*.spool"); terr != nil {
			return nil, fmt.Errorf("create the import's spool file: %w", err)
		}
	}
	_ = os.Remove(f.Name()) // Unix: the open file lives on, unnamed
	return &importSpool{f: f, w: bufio.NewWriterSize(f, 1<<20), tools: map[string]toolRow{}}, nil
}

// close releases the spool and removes its file; closing again does
// nothing.
func (sp *importSpool) close() {
	if sp.f == nil {
		return
	}
	name := sp.f.Name()
	sp.f.Close()
	sp.f = nil
	_ = os.Remove(filepath.Clean(name)) // where the first removal was refused (Windows)
}

// put appends one record (its number and line in the input, and its rows).
func (sp *importSpool) put(n, line int, r *traceRows) error {
	b := sp.scratch[:0]
	b = binary.AppendUvarint(b, uint64(n))
	b = binary.AppendUvarint(b, uint64(line))
	b = appendStr(b, r.id)
	b = appendStr(b, r.hash)
	b = appendStr(b, r.ts)
	if ts, ok := r.tsUnix.(int64); ok {
		b = append(b, 1)
		b = binary.AppendVarint(b, ts)
	} else {
		b = append(b, 0)
	}
	b = appendStr(b, r.meta)
	b = appendStr(b, r.toolset)
	b = binary.AppendUvarint(b, uint64(len(r.tools)))
	for _, t := range r.tools {
		if _, known := sp.tools[t.hash]; known {
			b = append(b, 0)
			b = appendStr(b, t.hash)
			continue
		}
		if len(sp.tools) < spoolToolLimit {
			sp.tools[t.hash] = toolRow{}
		}
		b = append(b, 1)
		b = appendStr(b, t.hash)
		b = appendStr(b, t.name)
		b = appendStr(b, t.description)
		b = appendStr(b, t.parameters)
	}
	b = appendStr(b, r.body)
	b = binary.AppendUvarint(b, uint64(len(r.items)))
	for _, it := range r.items {
		b = appendStr(b, it.id)
		b = appendStr(b, it.inputHash)
		b = appendStr(b, it.firstTool)
		b = appendStr(b, it.observed)
		b = binary.AppendUvarint(b, uint64(it.turn))
		b = binary.AppendUvarint(b, uint64(it.nCalls))
	}
	sp.scratch = b
	var size [binary.MaxVarintLen64]byte
	if _, err := sp.w.Write(size[:binary.PutUvarint(size[:], uint64(len(b)))]); err != nil {
		return sp.writeError(err)
	}
	if _, err := sp.w.Write(b); err != nil {
		return sp.writeError(err)
	}
	sp.records++
	return nil
}

// rewind ends writing and starts reading from the first record.
func (sp *importSpool) rewind() error {
	if err := sp.w.Flush(); err != nil {
		return sp.writeError(err)
	}
	if _, err := sp.f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("read the import's spool file: %w", err)
	}
	sp.r = bufio.NewReaderSize(sp.f, 1<<20)
	clear(sp.tools)
	return nil
}

// writeError words a failed spool write; nothing has been imported yet.
func (sp *importSpool) writeError(err error) error {
	if errors.Is(err, syscall.ENOSPC) {
		return fmt.Errorf("%w: no room in %s for the import's spool file (about half the input's size): nothing imported; free space and try again",
			ErrDiskFull, filepath.Dir(sp.f.Name()))
	}
	return fmt.Errorf("write the import's spool file %s: %w", sp.f.Name(), err)
}

// errSpoolDamaged is a spool that does not read back as written.
var errSpoolDamaged = errors.New("the import's spool file reads back damaged")

// next reads the next record; io.EOF after the last.
func (sp *importSpool) next() (n, line int, r traceRows, err error) {
	size, err := binary.ReadUvarint(sp.r)
	if err == io.EOF {
		return 0, 0, r, io.EOF
	}
	if err != nil {
		return 0, 0, r, fmt.Errorf("%w: %v", errSpoolDamaged, err)
	}
	if size > uint64(cap(sp.scratch)) {
		sp.scratch = make([]byte, size)
	}
	buf := sp.scratch[:size] // reused: every field is copied out of it
	if _, err := io.ReadFull(sp.r, buf); err != nil {
		return 0, 0, r, fmt.Errorf("%w: %v", errSpoolDamaged, err)
	}
	d := spoolDecoder{b: buf}
	n, line = int(d.uvarint()), int(d.uvarint())
	r.id, r.hash, r.ts = d.str(), d.str(), d.str()
	if d.byte() == 1 {
		r.tsUnix = d.varint()
	}
	r.meta = d.str()
	r.toolset = d.str()
	r.tools = make([]toolRow, d.count())
	for i := range r.tools {
		full, hash := d.byte() == 1, d.str()
		if !full {
			t, ok := sp.tools[hash]
			if !ok {
				d.err = fmt.Errorf("tool %s is missing", hash)
			}
			r.tools[i] = t
			continue
		}
		t := toolRow{hash: hash, name: d.str(), description: d.str(), parameters: d.str()}
		if _, known := sp.tools[hash]; !known && len(sp.tools) < spoolToolLimit {
			sp.tools[hash] = t
		}
		r.tools[i] = t
	}
	r.body = d.bytes()
	r.items = make([]itemRow, d.count())
	for i := range r.items {
		it := &r.items[i]
		it.id, it.inputHash, it.firstTool, it.observed = d.str(), d.str(), d.str(), d.str()
		it.turn, it.nCalls = int(d.uvarint()), int(d.uvarint())
	}
	if d.err == nil && len(d.b) != 0 {
		d.err = errors.New("trailing bytes")
	}
	if d.err != nil {
		return 0, 0, traceRows{}, fmt.Errorf("%w: %v", errSpoolDamaged, d.err)
	}
	return n, line, r, nil
}

// appendStr appends s with its length first (a body as []byte: no copy into
// a string first).
func appendStr[S ~string | ~[]byte](b []byte, s S) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// spoolDecoder reads one spooled record; the first error sticks.
type spoolDecoder struct {
	b   []byte
	err error
}

func (d *spoolDecoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, k := binary.Uvarint(d.b)
	if k <= 0 {
		d.err = errors.New("bad number")
		return 0
	}
	d.b = d.b[k:]
	return v
}

// varint reads binary.AppendVarint's zig-zag encoding.
func (d *spoolDecoder) varint() int64 {
	u := d.uvarint()
	return int64(u>>1) ^ -int64(u&1)
}

// count is a length that must fit in what is left of the record.
func (d *spoolDecoder) count() int {
	v := d.uvarint()
	if v > uint64(len(d.b)) {
		d.err = errors.New("bad count")
		return 0
	}
	return int(v)
}

func (d *spoolDecoder) byte() byte {
	if d.err != nil {
		return 0
	}
	if len(d.b) == 0 {
		d.err = errors.New("record too short")
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

// field returns the next length-prefixed field, still inside the record's
// buffer (which is reused: copy it out).
func (d *spoolDecoder) field() []byte {
	n := d.count()
	if d.err != nil {
		return nil
	}
	f := d.b[:n]
	d.b = d.b[n:]
	return f
}

func (d *spoolDecoder) str() string { return string(d.field()) }

// bytes is a field copied once into a slice of its own (never nil on
// success: a nil body means another column holds the messages).
func (d *spoolDecoder) bytes() []byte {
	f := d.field()
	if d.err != nil {
		return nil
	}
	out := make([]byte, len(f))
	copy(out, f)
	return out
}
