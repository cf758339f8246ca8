package app

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"sort"
	"sync"

	"github.com/goldtrace/goldtrace/dataset"
	"github.com/goldtrace/goldtrace/gold"
	"github.com/goldtrace/goldtrace/score"
	"github.com/goldtrace/goldtrace/store"
	"github.com/goldtrace/goldtrace/trace"
)

// The current gold scored as an export of it would be (the lead's
// dashboard): the gold records built exactly as goldtrace export writes
// them, read back as goldtrace score reads a file, and the observed calls
// scored against them.

// GoldRecords builds the gold records of the items selected by f exactly as
// goldtrace export writes them (store.GoldTraces, then a dataset.Builder),
// and reads them back as goldtrace score reads an export: without the
// conversation, records with the same tools or metadata sharing one decoded
// copy. Sorted by id.
//
// Scoring never reads the conversation, so only its skeleton goes through
// the builder (roles and tool calls: the observed calls come from them); every
// scored field takes the export's own path.
func (s *Session) GoldRecords(ctx context.Context, f store.GoldFilter, cache *GoldCache) (_ []gold.Record, err error) {
	defer s.shown(&err)
	tgs, err := s.GoldTraces(ctx, f)
	if err != nil {
		return nil, err
	}
	return goldRecords(ctx, tgs, cache)
}

// GoldCache keeps the decoded lines of each trace with the gold answers
// they were built from: a refresh rebuilds only the traces whose answers
// changed (traces themselves never change once imported). The zero value
// is empty; a nil *GoldCache keeps nothing.
type GoldCache struct {
	mu      sync.Mutex
	byTrace map[string]cachedGold
}

type cachedGold struct {
	answers string // the answers, JSON-encoded
	lines   []gold.Record
}

func goldRecords(ctx context.Context, tgs []dataset.TraceGold, cache *GoldCache) ([]gold.Record, error) {
	parts := make([][]gold.Record, len(tgs))
	keys := make([]string, len(tgs))
	var todo []int
	if cache != nil {
		cache.mu.Lock()
		defer cache.mu.Unlock()
	}
	for i, tg := range tgs {
		if cache == nil {
			todo = append(todo, i)
			continue
		}
		b, err := json.Marshal(tg.Answers)
		if err != nil {
			return nil, err
		}
		keys[i] = string(b)
		if c, ok := cache.byTrace[tg.Trace.ID]; ok && c.answers == keys[i] {
			parts[i] = c.lines
		} else {
			todo = append(todo, i)
		}
	}
	if err := buildGoldLines(ctx, tgs, todo, parts); err != nil {
		return nil, err
	}
	if cache != nil {
		cache.byTrace = make(map[string]cachedGold, len(tgs))
		for i, tg := range tgs {
			cache.byTrace[tg.Trace.ID] = cachedGold{answers: keys[i], lines: parts[i]}
		}
	}
	var recs []gold.Record
	for _, part := range parts {
		recs = append(recs, part...)
	}
	sort.Slice(recs, func(i, j int) bool { return recs[i].ID < recs[j].ID })
	return recs, nil
}

// buildGoldLines fills parts[i] for each i in todo, spreading the traces
// over the CPUs (building canonicalises every trace's tools).
func buildGoldLines(ctx context.Context, tgs []dataset.TraceGold, todo []int, parts [][]gold.Record) error {
	errs := make([]error, len(todo))
	workers := min(runtime.GOMAXPROCS(0), max(len(todo)/64, 1))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, in := dataset.NewBuilder(), gold.NewInterner()
			for k := w; k < len(todo) && ctx.Err() == nil; k += workers {
				i := todo[k]
				tg, err := skeleton(tgs[i])
				if err == nil {
					parts[i], err = decodeGoldLines(b, in, tg)
				}
				errs[k] = err
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// skeleton is tg with its conversation cut to what the gold records score:
// messages up to the last gold turn, with their roles and tool calls.
func skeleton(tg dataset.TraceGold) (dataset.TraceGold, error) {
	msgs := tg.Trace.Messages
	if msgs == nil && tg.MessagesJSON != nil {
		if err := json.Unmarshal(tg.MessagesJSON, &msgs); err != nil {
			return tg, fmt.Errorf("trace %s: messages: %w", tg.Trace.ID, err)
		}
	}
	last := 0
	for _, a := range tg.Answers {
		last = max(last, a.Turn)
	}
	msgs = msgs[:min(last+1, len(msgs))]
	out := make([]trace.Message, len(msgs))
	for i, m := range msgs {
		out[i] = trace.Message{Role: m.Role, ToolCalls: m.ToolCalls}
	}
	tg.Trace.Messages, tg.MessagesJSON = out, nil
	return tg, nil
}

// decodeGoldLines builds the gold records of one trace and reads them back
// as a file of them would be read (records of one trace share their
// decoded tools through in).
func decodeGoldLines(b *dataset.Builder, in *gold.Interner, tg dataset.TraceGold) ([]gold.Record, error) {
	lines, err := b.Lines(tg)
	if err != nil {
		return nil, fmt.Errorf("build gold records: %w", err)
	}
	out := make([]gold.Record, len(lines))
	for i, l := range lines {
		if out[i], err = gold.ParseRecord(l.Bytes(), in, gold.FieldObserved|gold.FieldNotes); err != nil {
			return nil, fmt.Errorf("gold record %s: %w", l.ID, err)
		}
	}
	return out, nil
}

// ScoreObserved scores the observed calls of the current gold selected by
// f against it, under profile, as goldtrace score scores an export of that
// gold without --pred: the records (sorted by id) and the report. cache,
// when not nil, keeps the records between calls (the lead's dashboard
// polls).
func (s *Session) ScoreObserved(ctx context.Context, f store.GoldFilter, profile score.Profile, cache *GoldCache) (_ []gold.Record, _ *score.Report, err error) {
	defer s.shown(&err)
	recs, err := s.GoldRecords(ctx, f, cache)
	if err != nil {
		return nil, nil, err
	}
	return recs, scoreObserved(recs, profile), nil
}

// scoreObserved scores the records' observed calls against their gold.
func scoreObserved(recs []gold.Record, profile score.Profile) *score.Report {
	cases := make([]score.Case, len(recs))
	preds := make([]score.Prediction, len(recs))
	for i := range recs {
		cases[i] = score.CaseOf(&recs[i])
		preds[i] = score.ObservedOf(&recs[i])
	}
	return score.Score(cases, preds, score.Options{Profile: profile})
}
