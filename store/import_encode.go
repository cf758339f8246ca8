package store

import (
	"context"
	"slices"

	"github.com/goldtrace/goldtrace/internal/jsonlex"
	"github.com/goldtrace/goldtrace/trace"
)

// An import's records are encoded (canonical JSON, hashes, items, the
// compressed body) by encodeWorkers goroutines at once, between the parser
// and the goroutine that queues them for the writer, which takes them
// back in the input's order. The encoding was as much work as the writing
// (and all of it on one goroutine): on two cores the writer waited for it.

// encodeWorkers is how many goroutines encode an import's records.
const encodeWorkers = 2

// encodedTrace is one parsed record and, when it parsed, its rows.
type encodedTrace struct {
	rec  parsedRecord
	rows traceRows
	err  error // encoding's
}

// encodeLanes hands the parser's records to the workers in turn (the n-th
// to lane n mod len), and takes their results back in the same turn.
type encodeLanes struct {
	in   []chan parsedRecord
	out  []chan encodedTrace
	next int
}

// startEncoding starts the workers; the parser closes lanes.in when it
// ends. Before packer has chosen its dictionary, the workers leave the
// bodies to the caller of next (see bodyPacker.packReady).
func startEncoding(ctx context.Context, packer *bodyPacker) *encodeLanes {
	l := &encodeLanes{}
	for range encodeWorkers {
		// As many parsed records wait as before there were lanes; an
		// encoded one is taken at once (the taker only queues it).
		in := make(chan parsedRecord, parseAhead/encodeWorkers)
		out := make(chan encodedTrace, 2)
		l.in, l.out = append(l.in, in), append(l.out, out)
		go encodeLane(ctx, packer, in, out)
	}
	return l
}

func encodeLane(ctx context.Context, packer *bodyPacker, in <-chan parsedRecord, out chan<- encodedTrace) {
	defer close(out)
	re := newRowEncoder()
	for {
		var rec parsedRecord
		var more bool
		select {
		case rec, more = <-in:
		case <-ctx.Done():
			return
		}
		if !more {
			return
		}
		e := encodedTrace{rec: rec}
		if rec.err == nil {
			e.rows, e.err = re.encode(rec.t)
			if e.err == nil {
				e.rows.packWith(packer.packReady)
			}
			e.rec.t = trace.Trace{} // encoded: not held in the queue
		}
		select {
		case out <- e:
		case <-ctx.Done():
			return
		}
	}
}

// send hands rec to its lane.
func (l *encodeLanes) send(ctx context.Context, rec parsedRecord) bool {
	select {
	case l.in[(rec.n-1)%len(l.in)] <- rec:
		return true
	case <-ctx.Done():
		return false
	}
}

// close ends the lanes' input (the parser's end).
func (l *encodeLanes) close() {
	for _, in := range l.in {
		close(in)
	}
}

// receive returns the next record in the input's order; false when the
// input has ended (or ctx is done).
func (l *encodeLanes) receive(ctx context.Context) (encodedTrace, bool) {
	select {
	case e, ok := <-l.out[l.next]:
		l.next = (l.next + 1) % len(l.out)
		return e, ok
	case <-ctx.Done():
		return encodedTrace{}, false
	}
}

// rowEncoder computes the rows of traces, one after another: it
// remembers the last trace's tool list, which the traces of one log
// usually share.
type rowEncoder struct {
	e *trace.Encoder
	// lastTools and lastSet are the tool hashes of the last trace with
	// tools, and their JSON array (traceRows.toolset).
	lastTools []string
	lastSet   string
	// tools are the tool rows made so far, by hash (sharedRowsLimit at
	// most): a log's traces offer the same tools, whose schemas are most
	// of a record's bytes.
	tools   map[string]toolRow
	scratch []byte
}

func newRowEncoder() *rowEncoder {
	return &rowEncoder{e: trace.NewEncoder(), tools: map[string]toolRow{}}
}

// toolRow is the row of tool, whose hash is hash.
func (re *rowEncoder) toolRow(hash string, tool trace.Tool) toolRow {
	if row, ok := re.tools[hash]; ok {
		return row
	}
	row := toolRow{hash: hash, name: tool.Name, description: tool.Description, parameters: string(tool.Parameters)}
	if len(re.tools) >= sharedRowsLimit {
		clear(re.tools)
	}
	re.tools[hash] = row
	return row
}

// encode computes the rows of t, its messages not compressed yet (see
// traceRows.packWith).
func (re *rowEncoder) encode(t trace.Trace) (traceRows, error) {
	e := re.e
	enc, err := e.Encode(t)
	if err != nil {
		return traceRows{}, err
	}
	msgs := enc.Messages
	if t.Messages == nil {
		msgs = []byte("[]")
	}
	r := traceRows{id: t.ID, hash: enc.ContentHash, messages: msgs}
	if len(enc.ToolHashes) > 0 {
		r.toolset = re.toolset(enc.ToolHashes)
	}
	r.tools = make([]toolRow, len(t.Tools))
	for i, tool := range t.Tools {
		r.tools[i] = re.toolRow(enc.ToolHashes[i], tool)
	}
	if len(t.Metadata) > 0 {
		// As json.Marshal writes it (the stored metasets are), keys
		// sorted: the same metadata is the same string, and so the same
		// metaset.
		re.scratch = trace.AppendMetadataJSON(re.scratch[:0], t.Metadata)
		r.meta = string(re.scratch)
	}
	r.ts, r.tsUnix = timestampColumns(t.Timestamp)
	r.items = make([]itemRow, len(enc.Items))
	for i, it := range enc.Items {
		obs, err := e.Calls(it.Observed)
		if err != nil {
			return traceRows{}, err
		}
		r.items[i] = itemRow{id: it.ID, inputHash: it.InputHash, firstTool: it.FirstTool(), observed: string(obs),
			turn: it.Turn, nCalls: len(it.Observed)}
	}
	return r, nil
}

// toolset is the JSON array of hashes as json.Marshal writes it, the
// last one's again when they are the same.
func (re *rowEncoder) toolset(hashes []string) string {
	if slices.Equal(hashes, re.lastTools) {
		return re.lastSet
	}
	b := append(re.scratch[:0], '[')
	for i, h := range hashes {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonlex.AppendString(b, h, true)
	}
	re.scratch = append(b, ']')
	re.lastTools, re.lastSet = hashes, string(re.scratch)
	return re.lastSet
}
