package sampling

import (
	"bytes"
	"compress/flate"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/goldtrace/goldtrace/trace"
)

// StreamOptions configure SampleReader.
type StreamOptions struct {
	Seed        int64
	N           int
	By          string // "", "tool" or "meta.NAME"
	Filter      Filter
	Alloc       string
	MinPer      int
	Exclude     []string // input hashes already sampled
	SkipInvalid bool     // count invalid records instead of stopping
	OnInvalid   func(*trace.RecordError)
	OnProgress  func(read int) // called every 10,000 traces
}

// StreamSample is a sample drawn from a trace stream with the traces that
// hold its items (sorted by id), the only ones that need importing.
type StreamSample struct {
	Sample
	Traces     []trace.Trace
	Read       int  // traces read
	Invalid    int  // invalid records skipped (SkipInvalid)
	Duplicates int  // items dropped as copies of another input
	Excluded   int  // items dropped because their input is already sampled
	ByKeySeen  bool // some trace had the meta key stratified by (always true otherwise)
}

// SampleReader draws a sample from r in one pass. Memory is bounded by the
// reservoirs (N candidates per stratum) and the traces holding them, not by
// the input: a trace is kept, as deflated JSON (a few KB become about one),
// only while one of its items is held, and dropped as soon as none is.
// Deduplication is the Sampler's streaming mode (see Sampler).
func SampleReader(r trace.Reader, o StreamOptions) (StreamSample, error) {
	s := NewSampler(o.Seed, o.N, false)
	s.Exclude(o.Exclude)
	var out StreamSample
	out.ByKeySeen = !strings.HasPrefix(o.By, "meta.")
	metaKey := strings.TrimPrefix(o.By, "meta.")
	traces := map[string][]byte{} // trace id -> deflated JSON
	limit := 64
	var packer tracePacker
	for {
		t, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		var rec *trace.RecordError
		if errors.As(err, &rec) && o.SkipInvalid {
			out.Invalid++
			if o.OnInvalid != nil {
				o.OnInvalid(rec)
			}
			continue
		}
		if err != nil {
			return StreamSample{}, err
		}
		out.Read++
		if o.OnProgress != nil && out.Read%10_000 == 0 {
			o.OnProgress(out.Read)
		}
		if !out.ByKeySeen {
			_, out.ByKeySeen = t.Metadata[metaKey]
		}
		held := false
		for _, it := range trace.Items(t) {
			if !o.Filter.Match(it) {
				continue
			}
			s.Offer(Candidate{ItemID: it.ID, TraceID: t.ID, Turn: it.Turn, Stratum: StratumOf(o.By, it),
				InputHash: it.InputHash, TS: it.Timestamp.Unix(), HasTS: !it.Timestamp.IsZero()})
			if e, ok := s.held[it.InputHash]; ok && e.c.ItemID == it.ID {
				held = true
			}
		}
		if held {
			packed, err := packer.pack(t)
			if err != nil {
				return StreamSample{}, err
			}
			if prev, dup := traces[t.ID]; dup && !bytes.Equal(prev, packed) {
				return StreamSample{}, fmt.Errorf("trace %q appears twice with different content", t.ID)
			}
			traces[t.ID] = packed
		}
		if len(traces) > limit {
			s.dropUnheld(traces)
			limit = max(64, len(traces)+len(traces)/4) // prune again after 25% growth
		}
	}
	sample, err := s.Result(o.Alloc, o.MinPer)
	if err != nil {
		return StreamSample{}, err
	}
	out.Sample = sample
	out.Duplicates = s.Duplicates()
	out.Excluded = s.Excluded()
	need := map[string]bool{}
	for _, c := range sample.Items {
		need[c.TraceID] = true
	}
	for id := range need {
		t, err := packer.unpack(traces[id])
		if err != nil {
			return StreamSample{}, fmt.Errorf("trace %q: %w", id, err)
		}
		out.Traces = append(out.Traces, t)
	}
	sort.Slice(out.Traces, func(i, j int) bool { return out.Traces[i].ID < out.Traces[j].ID })
	return out, nil
}

// tracePacker deflates traces for holding, reusing its buffers. The first
// trace it packs becomes the preset dictionary: traces of one file share
// tool definitions and system prompts, so later ones shrink to what differs.
type tracePacker struct {
	buf  bytes.Buffer
	w    *flate.Writer
	dict []byte
}

func (p *tracePacker) pack(t trace.Trace) ([]byte, error) {
	b, err := json.Marshal(t)
	if err != nil {
		return nil, fmt.Errorf("trace %q: %w", t.ID, err)
	}
	p.buf.Reset()
	if p.w == nil {
		p.dict = b[max(0, len(b)-32<<10):]
		p.w, _ = flate.NewWriterDict(&p.buf, 2, p.dict) // level 1 ignores dictionaries
	} else {
		p.w.Reset(&p.buf)
	}
	if _, err := p.w.Write(b); err != nil {
		return nil, err
	}
	if err := p.w.Close(); err != nil {
		return nil, err
	}
	return bytes.Clone(p.buf.Bytes()), nil
}

func (p *tracePacker) unpack(packed []byte) (trace.Trace, error) {
	var t trace.Trace
	err := json.NewDecoder(flate.NewReaderDict(bytes.NewReader(packed), p.dict)).Decode(&t)
	return t, err
}

// dropUnheld deletes the traces none of whose items is held.
func (s *Sampler) dropUnheld(traces map[string][]byte) {
	keep := make(map[string]bool, len(s.held))
	for _, e := range s.held {
		keep[e.c.TraceID] = true
	}
	for id := range traces {
		if !keep[id] {
			delete(traces, id)
		}
	}
}
