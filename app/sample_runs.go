package app

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/goldtrace/goldtrace/sampling"
	"github.com/goldtrace/goldtrace/score"
	"github.com/goldtrace/goldtrace/store"
	"github.com/goldtrace/goldtrace/trace"
)

// Run is one prediction run `sample --by disagreement --runs` ranks with:
// where it came from, the sha256 of its bytes and how many lines it had
// (recorded in the batch), and the calls it made per item id.
type Run struct {
	Name   string `json:"name"`
	SHA256 string `json:"sha256"`
	Lines  int    `json:"lines"`
	calls  map[string][]trace.Call
}

// maxRunLine bounds one line of a run.
const maxRunLine = 64 << 20

// ReadRun reads a prediction run: JSON Lines in the predictions format
// (goldtrace score --pred: {"id", "tool_calls"}), the ids being stored
// item ids. A line that does not parse is an error naming it; an id given
// twice is an error.
func ReadRun(r io.Reader, name string) (Run, error) {
	run := Run{Name: name, calls: map[string][]trace.Call{}}
	h := sha256.New()
	sc := bufio.NewScanner(io.TeeReader(r, h))
	sc.Buffer(make([]byte, 0, 1<<16), maxRunLine)
	for n := 1; sc.Scan(); n++ {
		line := sc.Bytes()
		if len(trimSpace(line)) == 0 {
			continue
		}
		p, err := score.ParsePrediction(line)
		if err != nil {
			return Run{}, fmt.Errorf("%s:%d: %v", name, n, err)
		}
		if _, dup := run.calls[p.ID]; dup {
			return Run{}, fmt.Errorf("%s:%d: a second line for %s", name, n, p.ID)
		}
		run.calls[p.ID] = p.Calls
		run.Lines++
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return Run{}, fmt.Errorf("%s: a line longer than %d MiB", name, maxRunLine>>20)
		}
		return Run{}, fmt.Errorf("%s: %w", name, err)
	}
	run.SHA256 = hex.EncodeToString(h.Sum(nil))
	return run, nil
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\r') {
		b = b[1:]
	}
	return b
}

// RankedItem is one sampled item's disagreement among the runs.
type RankedItem struct {
	ID string `json:"id"`
	sampling.Disagreement
}

// disagreementRanking computes, per stored input hash, how much the runs
// disagree, and says how many run ids are not stored items.
func disagreementRanking(ctx context.Context, st *store.Store, runs []Run) (map[string]sampling.Disagreement, int, error) {
	ids := map[string]bool{}
	for _, r := range runs {
		for id := range r.calls {
			ids[id] = true
		}
	}
	list := make([]string, 0, len(ids))
	for id := range ids {
		list = append(list, id)
	}
	sort.Strings(list)
	hashes, err := st.InputHashes(ctx, list)
	if err != nil {
		return nil, 0, err
	}
	out := map[string]sampling.Disagreement{}
	unknown := 0
	per := make([][]trace.Call, len(runs))
	for _, id := range list {
		h, ok := hashes[id]
		if !ok {
			unknown++
			continue
		}
		for i, r := range runs {
			per[i] = r.calls[id] // nil when the run has no line for it
		}
		d := sampling.Disagree(per)
		// Copies of one input count once: the most disagreement wins.
		if old, ok := out[h]; !ok || d.Score() > old.Score() {
			out[h] = d
		}
	}
	return out, unknown, nil
}
