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

	"github.com/goldtrace/goldtrace/judge"
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

// ranked is one stored input's disagreement and the item (of its copies)
// it was measured on.
type ranked struct {
	id string
	d  sampling.Disagreement
}

// disagreementRanking computes, per stored input hash, how much the runs
// disagree, and says how many run ids are not stored items.
func disagreementRanking(ctx context.Context, st *store.Store, runs []Run) (map[string]ranked, int, error) {
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
	out := map[string]ranked{}
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
		if old, ok := out[h]; !ok || d.Score() > old.d.Score() {
			out[h] = ranked{id, d}
		}
	}
	return out, unknown, nil
}

// SampleJudge is the LLM judge a --by disagreement sample also ranked with
// (--judge quality): which judge, and what its run did. The batch records
// it; each sampled item's votes are in the ranking.
type SampleJudge struct {
	Kind         string      `json:"kind"`
	Model        string      `json:"model"`
	Endpoint     string      `json:"endpoint"`
	PromptSHA256 string      `json:"prompt_sha256"`
	Samples      int         `json:"samples"`
	Items        int         `json:"items"`  // ranked items asked about
	Judged       int         `json:"judged"` // of them, with an answer for every run
	Stats        judge.Stats `json:"stats"`
}

// judgeRanking asks the quality judge about each ranked item's calls in
// every run that has a line for it (one request of Samples answers per
// distinct call list and item, through the judge's cache; runs that made
// the same calls share it, its votes counted once per run) and adds the
// yes votes to the item's disagreement. Items are asked in id order; an item the judge
// could not answer for some run (malformed answers, a spent budget, not in
// the cache offline) keeps no votes, and is counted.
func judgeRanking(ctx context.Context, st *store.Store, runs []Run, ranking map[string]ranked, run *JudgeRun) (*SampleJudge, error) {
	j := run.Judge
	if j.Kind != judge.KindQuality {
		return nil, fmt.Errorf("--judge %s: sampling ranks by the quality judge's split vote (--judge quality)", j.Kind)
	}
	sj := &SampleJudge{Kind: string(j.Kind), Model: run.Model, Endpoint: run.Endpoint, PromptSHA256: j.Template.SHA256, Samples: j.SamplesUsed()}
	hashes := make([]string, 0, len(ranking))
	for h := range ranking {
		hashes = append(hashes, h)
	}
	sort.Slice(hashes, func(a, b int) bool { return ranking[hashes[a]].id < ranking[hashes[b]].id })
	var inputs []*judge.Input
	var owner []string // owner[i]: the input hash inputs[i] is about
	var weight []int   // weight[i]: how many runs made inputs[i]'s calls
	for _, h := range hashes {
		r := ranking[h]
		it, err := st.Item(ctx, r.id)
		if err != nil {
			return nil, fmt.Errorf("judge item %s: %w", r.id, err)
		}
		// Runs that made the same calls are one question, its votes
		// counted once per run.
		asked := map[string]int{}
		for _, rn := range runs {
			calls, ok := rn.calls[r.id]
			if !ok {
				continue
			}
			key := sampling.CallKey(calls)
			if i, ok := asked[key]; ok {
				weight[i]++
				continue
			}
			asked[key] = len(inputs)
			inputs = append(inputs, &judge.Input{ID: r.id, Messages: it.Context, Tools: it.Tools, Calls: calls})
			owner, weight = append(owner, h), append(weight, 1)
		}
	}
	sj.Items = len(hashes)
	if err := run.start(ctx); err != nil {
		return nil, JudgeError(err)
	}
	res, stats, err := run.run(ctx, inputs, "judge quality")
	sj.Stats = stats
	if err != nil {
		return nil, JudgeError(err)
	}
	failed := map[string]bool{}
	votes := map[string][2]int{}
	for i, r := range res {
		if !r.Judged {
			failed[owner[i]] = true
			continue
		}
		v, w := votes[owner[i]], weight[i]
		votes[owner[i]] = [2]int{v[0] + w*r.Verdict.Yes, v[1] + w*r.Verdict.Samples}
	}
	for _, h := range hashes {
		if failed[h] {
			continue
		}
		r := ranking[h]
		r.d.JudgeYes, r.d.JudgeVotes = votes[h][0], votes[h][1]
		ranking[h] = r
		sj.Judged++
	}
	if n := sj.Items - sj.Judged; n > 0 {
		run.warn("warning: the judge gave no answer for %d of %d items (errors %d, missing %d, skipped %d): they rank by the runs alone", n, sj.Items, stats.Errors, stats.Missing, stats.Skipped)
	}
	return sj, nil
}
