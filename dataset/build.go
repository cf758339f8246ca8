package dataset

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"math"
	"slices"
	"strconv"
	"sync"

	"github.com/goldtrace/goldtrace/gold"
	"github.com/goldtrace/goldtrace/internal/jsonlex"
	"github.com/goldtrace/goldtrace/trace"
)

// Decisions a gold answer may carry.
const (
	DecisionCall   = "call"
	DecisionNoCall = "no_call"
)

// Answer is the gold answer of one decision point, as review and
// adjudication settled it.
type Answer struct {
	ItemID       string
	Turn         int // index of the assistant message the item decides
	Status       string
	Decision     string
	Calls        []gold.ExpectedCall
	Acceptable   [][]gold.ExpectedCall
	Rationale    string
	Reviewers    []string
	Adjudicator  string // "" when agreed
	GuideVersion string
	// Tools, when not nil, are the tools the item is labeled against in
	// place of its trace's (it was put back against a newer catalogue);
	// ToolsKey identifies them as TraceGold.ToolsKey does a trace's.
	Tools    []trace.Tool
	ToolsKey string
}

// TraceGold is one trace with the gold answers of its decision points: the
// unit the store loads, so a trace's messages and tools are decoded and
// canonicalised once however many of its items are gold.
type TraceGold struct {
	Trace   trace.Trace
	Answers []Answer
	// MessagesJSON, when Trace.Messages is nil, is the JSON array the
	// messages decode from: a store hands rows over undecoded so that
	// decoding runs in the builders' goroutines (and, as the store keeps
	// them canonical, mostly need not run: see Builder.Lines).
	MessagesJSON []byte
	// MetadataJSON, when Trace.Metadata is nil, is the metadata as the
	// store keeps it: a JSON object of strings, as json.Marshal writes it.
	MetadataJSON []byte
	// ToolsKey, when not empty, identifies Trace.Tools: traces with equal
	// keys offer the same tools (a store uses their hashes), so a Builder
	// makes their canonical JSON once.
	ToolsKey string
}

// Line is one encoded gold record and what the manifest needs from it. Its
// bytes are kept in parts, some of them shared by the records of one trace
// (its conversation and tools are most of each record), so a version's
// records are never all copied out in full.
type Line struct {
	ID           string
	Parts        [][]byte // canonical JSON, without the newline, when joined
	Hash         string   // RecordHash of the joined parts
	Tool         string   // expected tool, trace.NoTool for no call
	Status       string
	GuideVersion string
	// Tools are the versions of the tools the item offered (shared by the
	// items of one trace): the manifest's catalogue.
	Tools []ToolVersion
	// catPart is the index in Parts of the record's "catalogue" member
	// (gold.RecordFormat2), 0 when it has none.
	catPart int
	// src, when not nil, holds the record's n bytes at off (Parts is
	// nil), without memTools and memCat (its tools and catalogue parts,
	// kept in memory, if any) that go at split; its "catalogue" member
	// is catLen bytes from catAt.
	src              *spillFile
	off              int64
	n, split         int
	memTools, memCat []byte
	catAt, catLen    int
}

// Len is the length of the record.
func (l *Line) Len() int {
	if l.src != nil {
		return l.n + len(l.memTools) + len(l.memCat)
	}
	n := 0
	for _, p := range l.Parts {
		n += len(p)
	}
	return n
}

// AppendTo appends the record to dst.
func (l *Line) AppendTo(dst []byte) []byte {
	if l.src != nil {
		return l.src.read(dst, l)
	}
	dst = slices.Grow(dst, l.Len())
	for _, p := range l.Parts {
		dst = append(dst, p...)
	}
	return dst
}

// HashAs is RecordHash of the record as format writes it: a
// gold.RecordFormat2 line without its "catalogue" member hashes as the
// same record of gold.RecordFormat1 (what a version exported before the
// catalogue member holds, so an export can tell which items changed).
func (l *Line) HashAs(format int) string {
	if format >= gold.RecordFormat2 || l.catPart == 0 {
		return l.Hash
	}
	h := sha256.New()
	if l.src != nil {
		b := l.Bytes()
		h.Write(b[:l.catAt])
		h.Write(b[l.catAt+l.catLen:])
		return hex.EncodeToString(h.Sum(nil))
	}
	for i, p := range l.Parts {
		if i != l.catPart {
			h.Write(p)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Bytes returns the record in one new slice.
func (l *Line) Bytes() []byte { return l.AppendTo(nil) }

// BuildLines turns the gold answers of one trace into canonical record lines.
func BuildLines(tg TraceGold) ([]Line, error) {
	return NewBuilder().Lines(tg)
}

// BuildStream starts workers goroutines (at least one) building the lines,
// in record format (gold.RecordFormat1 or 2), of the traces handed to add,
// so building overlaps reading them. After the
// last add, wait returns every line (in no particular order: Assemble sorts
// them) or the error of the earliest trace added that failed.
// streamBlock is how many lines one block of BuildStream holds.
const streamBlock = 4096

func BuildStream(workers, format int) (add func(TraceGold), wait func() ([]Line, error)) {
	add, wait, _ = buildStream(workers, format, false, "")
	return add, wait
}

// BuildSpilled is BuildStream keeping only a few facts of each line in
// memory (id, hashes, what the manifest counts): each line's bytes are
// written, as it is built, to a temporary file in dir (os.TempDir when
// ""), removed at once so that even a kill leaves nothing behind. The
// lines read their bytes back from it (a Content made of them reports a
// failed read with Err) until release, which closes it: call it when the
// lines are no longer used, on every path.
func BuildSpilled(workers, format int, dir string) (add func(TraceGold), wait func() ([]Line, error), release func()) {
	return buildStream(workers, format, true, dir)
}

// buildStream is BuildStream and BuildSpilled (spill: lines to a file in
// dir). It is long because its three closures share the workers' state
// (blocks, errors, spill files) and splitting them would pass it around.
func buildStream(workers, format int, spill bool, dir string) (add func(TraceGold), wait func() ([]Line, error), release func()) {
	type job struct {
		n  int
		tg TraceGold
	}
	jobs := make(chan job, 256)
	workers = max(1, workers)
	// Each worker appends its lines to blocks of streamBlock lines, so a
	// growing slice is never copied; wait copies them together once.
	parts := make([][][]Line, workers)
	errAt := make([]int, workers)
	errs := make([]error, workers)
	spills := make([]*spillFile, workers)
	kept := make([]keptSets, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b := NewBuilderFormat(format)
			var block []Line
			for j := range jobs {
				if errs[w] != nil {
					continue // keep draining: add never blocks for good
				}
				if cap(block)-len(block) < len(j.tg.Answers) {
					if len(block) > 0 {
						parts[w] = append(parts[w], block)
					}
					block = make([]Line, 0, max(streamBlock, len(j.tg.Answers)))
				}
				var err error
				from := len(block)
				if block, err = b.AppendLines(block, j.tg); err == nil && spill {
					err = spillLines(&spills[w], dir, block[from:], j.tg, &kept[w])
				}
				if err != nil {
					errs[w], errAt[w] = err, j.n
				}
			}
			if len(block) > 0 {
				parts[w] = append(parts[w], block)
			}
			if spills[w] != nil && errs[w] == nil {
				if err := spills[w].flush(); err != nil {
					errs[w], errAt[w] = err, math.MaxInt // after every trace added
				}
			}
		}()
	}
	n := 0
	add = func(tg TraceGold) {
		jobs <- job{n, tg}
		n++
	}
	wait = func() ([]Line, error) {
		close(jobs)
		wg.Wait()
		var first error
		firstAt, total := 0, 0
		for w := range parts {
			if errs[w] != nil && (first == nil || errAt[w] < firstAt) {
				first, firstAt = errs[w], errAt[w]
			}
			for _, block := range parts[w] {
				total += len(block)
			}
		}
		if first != nil {
			return nil, first
		}
		out := make([]Line, 0, total)
		for _, blocks := range parts {
			for _, block := range blocks {
				out = append(out, block...)
			}
		}
		return out, nil
	}
	release = func() {
		for _, s := range spills {
			if s != nil {
				s.close()
			}
		}
	}
	return add, wait, release
}

// spillKeepLimit bounds the bytes of the tool sets one stream worker
// keeps in memory for its spilled lines; lines of other sets are written
// whole.
const spillKeepLimit = 8 << 20

// keptSets are the tool sets (by TraceGold.ToolsKey) whose tools and
// catalogue parts a worker's spilled lines keep in memory, and their bytes.
type keptSets struct {
	keys  map[string]bool
	bytes int
}

// keep reports whether the lines of tool set key, of n bytes, keep them
// in memory.
func (k *keptSets) keep(key string, n int) bool {
	if key == "" {
		return false
	}
	if k.keys[key] {
		return true
	}
	if k.bytes+n > spillKeepLimit {
		return false
	}
	if k.keys == nil {
		k.keys = map[string]bool{}
	}
	k.keys[key], k.bytes = true, k.bytes+n
	return true
}

// spillLines writes lines, the lines of tg's answers, to *s, made in dir
// first if nil.
func spillLines(s **spillFile, dir string, lines []Line, tg TraceGold, kept *keptSets) error {
	if *s == nil {
		f, err := newSpillFile(dir)
		if err != nil {
			return err
		}
		*s = f
	}
	for i := range lines {
		key := tg.ToolsKey
		if a := tg.Answers[i]; a.Tools != nil {
			key = a.ToolsKey
		}
		l := &lines[i]
		shared := kept.keep(key, len(l.Parts[lineToolsPart])+len(l.Parts[lineCatPart]))
		if err := (*s).spill(l, shared); err != nil {
			return err
		}
	}
	return nil
}

// Builder turns gold answers into record lines, fast: each trace's messages,
// tools and metadata are canonicalised and encoded once for all its items,
// and tool schemas shared between traces are canonicalised once. Its output
// is byte for byte EncodeRecord's.
type Builder struct {
	format   int                        // gold.RecordFormat1 or 2
	params   map[string]json.RawMessage // raw tool parameters → canonical
	toolSets map[string][]byte          // TraceGold.ToolsKey → available_tools JSON
	versions map[string][]ToolVersion   // TraceGold.ToolsKey → the tools' hashes
	cats     map[string][]byte          // TraceGold.ToolsKey → the "catalogue" member
	rec      *gold.Encoder
	answer   []byte    // reused for each record's own part
	arena    []byte    // unused room for the records' own bytes
	parts    [][]byte  // unused room for the next lines' parts
	hash     hash.Hash // for the record hashes
	scratch  []byte    // reused while a line is built
}

// NewBuilder returns an empty Builder writing gold.CurrentRecordFormat.
func NewBuilder() *Builder { return NewBuilderFormat(gold.CurrentRecordFormat) }

// NewBuilderFormat returns an empty Builder writing records in format
// (gold.RecordFormat1 or gold.RecordFormat2).
func NewBuilderFormat(format int) *Builder {
	return &Builder{format: format, params: map[string]json.RawMessage{}, toolSets: map[string][]byte{},
		versions: map[string][]ToolVersion{}, cats: map[string][]byte{}, rec: gold.NewEncoder()}
}

// builderArenaSize is the size of the blocks the records' own bytes are
// carved from: one allocation per 1 MiB instead of several per record.
const builderArenaSize = 1 << 20

// builderPartsBlock is how many line parts one block of part slices holds.
const builderPartsBlock = 5 * 1024

// keep copies the given pieces, joined, into the arena and returns them.
func (b *Builder) keep(pieces ...[]byte) []byte {
	n := 0
	for _, p := range pieces {
		n += len(p)
	}
	if cap(b.arena)-len(b.arena) < n {
		b.arena = make([]byte, 0, max(builderArenaSize, n))
	}
	start := len(b.arena)
	for _, p := range pieces {
		b.arena = append(b.arena, p...)
	}
	return b.arena[start:len(b.arena):len(b.arena)]
}

// lineParts returns room for the parts of one line.
func (b *Builder) lineParts() [][]byte {
	if len(b.parts) < lineNParts {
		b.parts = make([][]byte, builderPartsBlock)
	}
	p := b.parts[:lineNParts:lineNParts]
	b.parts = b.parts[lineNParts:]
	return p
}

// encode returns the JSON of v as the record's encoder writes it.
func (b *Builder) encode(v any) ([]byte, error) {
	return b.rec.AppendValue(nil, v)
}

// tools canonicalises tool schemas through the cache.
func (b *Builder) tools(tools []trace.Tool) ([]trace.Tool, error) {
	out := make([]trace.Tool, len(tools))
	for i, t := range tools {
		if len(bytes.TrimSpace(t.Parameters)) == 0 {
			t.Parameters = nil
		} else if canon, ok := b.params[string(t.Parameters)]; ok {
			t.Parameters = canon
		} else {
			canon, err := canonical(t.Parameters)
			if err != nil {
				return nil, fmt.Errorf("tool %q parameters: %w", t.Name, err)
			}
			b.params[string(t.Parameters)] = canon
			t.Parameters = canon
		}
		out[i] = t
	}
	return out, nil
}

// lineNParts is the number of parts of a built line: the head, the
// conversation (shared), the context, the tools (shared), the catalogue
// (shared; empty in gold.RecordFormat1) and the answer.
const lineNParts = 6

// The indexes of a built line's tools and catalogue parts.
const (
	lineToolsPart = 3
	lineCatPart   = 4
)

// Lines turns the gold answers of one trace into canonical record lines.
func (b *Builder) Lines(tg TraceGold) ([]Line, error) {
	return b.AppendLines(make([]Line, 0, len(tg.Answers)), tg)
}

// AppendLines appends the record lines of one trace's gold answers to dst;
// on error dst is returned as it was.
func (b *Builder) AppendLines(dst []Line, tg TraceGold) ([]Line, error) {
	start := len(dst)
	t := tg.Trace
	conv, err := b.messages(tg)
	if err != nil {
		return dst[:start], fmt.Errorf("trace %s: %w", t.ID, err)
	}
	toolsJSON, err := b.toolsJSON(tg)
	if err != nil {
		return dst[:start], fmt.Errorf("trace %s: %w", t.ID, err)
	}
	metaJSON, err := b.metadataJSON(tg)
	if err != nil {
		return dst[:start], fmt.Errorf("trace %s: metadata: %w", t.ID, err)
	}
	traceIDJSON := jsonlex.AppendString(nil, t.ID, false)
	versions, err := b.toolVersions(tg)
	if err != nil {
		return dst[:start], fmt.Errorf("trace %s: %w", t.ID, err)
	}
	catJSON := b.catalogueJSON(tg.ToolsKey, versions)
	for _, a := range tg.Answers {
		toolsJSON, versions, catJSON := toolsJSON, versions, catJSON
		if a.Tools != nil {
			own := TraceGold{Trace: trace.Trace{Tools: a.Tools}, ToolsKey: a.ToolsKey}
			if toolsJSON, err = b.toolsJSON(own); err != nil {
				return dst[:start], fmt.Errorf("item %s: %w", a.ItemID, err)
			}
			if versions, err = b.toolVersions(own); err != nil {
				return dst[:start], fmt.Errorf("item %s: %w", a.ItemID, err)
			}
			catJSON = b.catalogueJSON(a.ToolsKey, versions)
		}
		rec, err := newRecord(t.ID, conv.msgs, a)
		if err != nil {
			return dst[:start], err
		}
		answer, err := b.rec.AppendAnswer(b.answer[:0], &rec)
		if err != nil {
			return dst[:start], err
		}
		b.answer = answer
		mid := append(append(b.scratch[:0], `],"context":{"trace_id":`...), traceIDJSON...)
		mid = strconv.AppendInt(append(mid, `,"turn":`...), int64(a.Turn), 10)
		b.scratch = mid
		parts := b.lineParts()
		// {"id":"…","input":{"messages":[ is the head; an item id needs
		// no escaping.
		parts[0] = b.keep([]byte(`{"id":"`), []byte(rec.ID), []byte(`","input":{"messages":[`))
		parts[1] = conv.upTo(a.Turn)
		parts[2] = b.keep(mid, []byte(`,"metadata":`), metaJSON, []byte(`}},"available_tools":`))
		parts[3] = toolsJSON
		parts[4] = catJSON
		parts[5] = b.keep([]byte{','}, answer, []byte{'}'})
		line := Line{ID: rec.ID, Parts: parts, Tool: rec.FirstTool(), Status: a.Status, GuideVersion: a.GuideVersion, Tools: versions}
		if len(catJSON) > 0 {
			line.catPart = 4
		}
		line.Hash = b.recordHash(&line)
		dst = append(dst, line)
	}
	return dst, nil
}

// recordHash is RecordHash of the line's joined parts.
func (b *Builder) recordHash(l *Line) string {
	if b.hash == nil {
		b.hash = sha256.New()
	}
	b.hash.Reset()
	for _, p := range l.Parts {
		b.hash.Write(p)
	}
	var sum [sha256.Size]byte
	return hex.EncodeToString(b.hash.Sum(sum[:0]))
}

// newRecord assembles and normalises the part of the record of one answer
// that comes after available_tools; msgs[a.Turn] is normalised (the other
// messages need not even be decoded).
func newRecord(traceID string, msgs []trace.Message, a Answer) (gold.Record, error) {
	id := trace.ItemID(traceID, a.Turn)
	if a.ItemID != "" && a.ItemID != id {
		return gold.Record{}, fmt.Errorf("item %s: id does not match trace %s turn %d (%s)", a.ItemID, traceID, a.Turn, id)
	}
	if a.Turn < 0 || a.Turn >= len(msgs) || msgs[a.Turn].Role != trace.RoleAssistant {
		return gold.Record{}, fmt.Errorf("item %s: trace %s has no assistant message at turn %d", id, traceID, a.Turn)
	}
	switch {
	case a.Decision == DecisionNoCall && len(a.Calls) > 0:
		return gold.Record{}, fmt.Errorf("item %s: decision no_call but %d expected calls", id, len(a.Calls))
	case a.Decision == DecisionCall && len(a.Calls) == 0:
		return gold.Record{}, fmt.Errorf("item %s: decision call but no expected calls", id)
	case a.Decision != DecisionCall && a.Decision != DecisionNoCall:
		return gold.Record{}, fmt.Errorf("item %s: decision %q is not call or no_call", id, a.Decision)
	}
	observed := make([]gold.ObservedCall, len(msgs[a.Turn].ToolCalls))
	for i, c := range msgs[a.Turn].ToolCalls {
		observed[i] = gold.ObservedCall{Tool: c.Name, Args: c.Arguments, Unparseable: c.Unparseable}
	}
	rec := gold.Record{
		ID:            id,
		ExpectedCalls: a.Calls,
		Acceptable:    a.Acceptable,
		Rationale:     a.Rationale,
		ObservedCalls: observed,
		Provenance: gold.Provenance{
			Status:       a.Status,
			Reviewers:    a.Reviewers,
			GuideVersion: a.GuideVersion,
		},
	}
	if a.Adjudicator != "" {
		adj := a.Adjudicator
		rec.Provenance.Adjudicator = &adj
	}
	if err := normalizeAnswer(&rec, true); err != nil {
		return gold.Record{}, fmt.Errorf("item %s: %w", id, err)
	}
	if err := ValidateRecord(rec); err != nil {
		return gold.Record{}, fmt.Errorf("item %s: %w", id, err)
	}
	return rec, nil
}
