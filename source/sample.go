package source

import (
	"container/heap"
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/goldtrace/goldtrace/sampling"
	"github.com/goldtrace/goldtrace/trace"
)

// Options are what to sample from a source.
type Options struct {
	Spec    string // a .parquet file, a directory, or a glob
	Format  string // "" (sniffed from the schema), Langfuse or LangSmith
	Seed    int64
	N       int
	By      string // "", "tool" or "meta.NAME"
	Filter  sampling.Filter
	Alloc   string
	MinPer  int
	Exclude []string // input hashes already sampled
	// S3Endpoint, for s3:// sources, is an S3-compatible service's URL.
	S3Endpoint string
}

// Info is where a sample came from, recorded with its batch.
type Info struct {
	URI        string     `json:"uri"`
	Layout     string     `json:"layout"`
	Files      []FileInfo `json:"files"`
	Rows       int64      `json:"rows"`       // rows scanned
	Calls      int64      `json:"calls"`      // of which model calls
	Candidates int64      `json:"candidates"` // of which passed the filter
	BytesRead  int64      `json:"bytes_read"`
	Requests   int64      `json:"requests"` // reads of local files; GETs and LISTs on S3
	BytesTotal int64      `json:"bytes_total"`
}

// FileInfo is one file of a source: its size, its version (ETag or
// modification time) and its rows.
type FileInfo struct {
	Name    string `json:"name"`
	Size    int64  `json:"size"`
	Version string `json:"version"`
	Rows    int64  `json:"rows"`
}

// Result is a sample drawn from a source: the items in key order and the
// traces (one per chosen model call, its conversation up to that call).
type Result struct {
	Sample     sampling.Sample
	Traces     []trace.Trace
	Info       Info
	Duplicates int  // candidates skipped as copies of a chosen input
	Excluded   int  // candidates skipped because their input is already sampled
	ByKeySeen  bool // some candidate had the meta key stratified by
}

// cand is a candidate held by the first pass.
type cand struct {
	key     uint64
	id      string
	ref     rowRef
	stratum string
	ts      time.Time
}

// pool keeps the k candidates of one stratum with the smallest keys (a
// max-heap: the root is evicted first).
type pool struct {
	available int
	items     []cand
}

func (p *pool) Len() int { return len(p.items) }
func (p *pool) Less(i, j int) bool {
	return keyLess(p.items[j].key, p.items[j].id, p.items[i].key, p.items[i].id)
}
func (p *pool) Swap(i, j int) { p.items[i], p.items[j] = p.items[j], p.items[i] }
func (p *pool) Push(x any)    { p.items = append(p.items, x.(cand)) }
func (p *pool) Pop() any {
	c := p.items[len(p.items)-1]
	p.items = p.items[:len(p.items)-1]
	return c
}

func (p *pool) offer(c cand, k int) {
	p.available++
	if len(p.items) < k {
		heap.Push(p, c)
		return
	}
	if top := p.items[0]; keyLess(c.key, c.id, top.key, top.id) {
		p.items[0] = c
		heap.Fix(p, 0)
	}
}

// Sample draws a seeded stratified sample from a Parquet source in two
// passes (see docs/sampling.md): the first reads only the cheap columns and
// keeps, per stratum, the candidates with the smallest keys; the second
// reads the chosen rows' messages and tools, drops copies of an input
// already chosen (and inputs already sampled), and draws replacements in
// key order. Nothing is written; a bad file or row is an error that names
// it.
func Sample(ctx context.Context, o Options) (Result, error) {
	if IsPostgres(o.Spec) {
		return samplePhoenix(ctx, o)
	}
	var stats readStats
	files, err := openSource(ctx, o.Spec, o.Format, o.S3Endpoint, &stats)
	if err != nil {
		return Result{}, err
	}
	defer closeAll(files)
	res := Result{Info: Info{URI: o.Spec, Layout: files[0].l.name}}
	for _, f := range files {
		res.Info.Files = append(res.Info.Files, FileInfo{Name: f.obj.name, Size: f.obj.size, Version: f.obj.version, Rows: f.f.NumRows()})
		res.Info.BytesTotal += f.obj.size
	}
	excluded := excludedSet(o.Exclude)
	// k is how many candidates a stratum holds: the sample size with room
	// for replacements; when copies use up the room, the scan is redone
	// with more.
	for k := holdFor(o.N); ; k *= 4 {
		pools, err := scan(ctx, files, o, k, &res)
		if err != nil {
			return Result{}, err
		}
		ok, err := choose(ctx, o, pools, excluded, &res, func(cands []cand, items map[rowRef]trace.Item, traces map[rowRef]trace.Trace) error {
			return readItems(files, cands, o.By, items, traces)
		})
		if err != nil {
			return Result{}, err
		}
		if ok {
			break
		}
	}
	res.Info.BytesRead, res.Info.Requests = stats.bytes.Load(), stats.requests.Load()
	return res, nil
}

// holdFor is how many candidates a stratum holds at first for a sample of
// n: room for replacements of copies.
func holdFor(n int) int { return n + n/2 + 16 }

func excludedSet(hashes []string) map[string]bool {
	out := make(map[string]bool, len(hashes))
	for _, h := range hashes {
		out[h] = true
	}
	return out
}

// scan is the first pass: every model-call row that passes the filter is
// offered to its stratum's pool.
func scan(ctx context.Context, files []*openFile, o Options, k int, res *Result) (map[string]*pool, error) {
	nd := needsOf(o.By, o.Filter)
	metaKey, byMeta := strings.CutPrefix(o.By, "meta.")
	res.ByKeySeen = !byMeta
	res.Info.Rows, res.Info.Calls, res.Info.Candidates = 0, 0, 0
	pools := map[string]*pool{}
	for fi, of := range files {
		for rg := range of.f.RowGroups() {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			d, err := loadRowGroup(of, rg, nd)
			if err != nil {
				return nil, err
			}
			res.Info.Rows += d.n
			for r := int64(0); r < d.n; r++ {
				if !d.call[r] {
					continue
				}
				res.Info.Calls++
				var tools []string
				var meta map[string]string
				if d.tools != nil {
					tools = d.tools[r]
				}
				if d.meta != nil {
					meta = d.meta[r]
				}
				if !matches(o.Filter, tools, meta, d.ts[r]) {
					continue
				}
				res.Info.Candidates++
				stratum := ""
				switch {
				case o.By == "tool":
					stratum = firstTool(tools)
				case byMeta:
					v, ok := meta[metaKey]
					if !ok {
						v = sampling.NoMetaValue
					}
					res.ByKeySeen = res.ByKeySeen || ok
					stratum = v
				}
				p := pools[stratum]
				if p == nil {
					p = &pool{}
					pools[stratum] = p
				}
				id := d.ids[r]
				p.offer(cand{key: Key(o.Seed, id), id: id, ref: rowRef{fi, rg, r}, stratum: stratum, ts: d.ts[r]}, k)
			}
		}
	}
	return pools, nil
}

func firstTool(tools []string) string {
	if len(tools) == 0 {
		return trace.NoTool
	}
	return tools[0]
}

// matches is sampling.Filter for a row known by its cheap columns.
func matches(f sampling.Filter, tools []string, meta map[string]string, ts time.Time) bool {
	for _, c := range f.Where {
		if c.Key == "tool" {
			if firstTool(tools) != c.Value {
				return false
			}
			continue
		}
		if v, ok := meta[strings.TrimPrefix(c.Key, "meta.")]; !ok || v != c.Value {
			return false
		}
	}
	if !f.Since.IsZero() && (ts.IsZero() || ts.Unix() < f.Since.Unix()) {
		return false
	}
	if !f.Until.IsZero() && (ts.IsZero() || ts.Unix() >= f.Until.Unix()) {
		return false
	}
	switch f.Turns {
	case sampling.TurnsCalls:
		return len(tools) > 0
	case sampling.TurnsNoCalls:
		return len(tools) == 0
	}
	return true
}

// choose is the second pass. The strata's shares come from
// sampling.Allocate over the candidate counts; then candidates are taken in
// ascending key order over all strata, each while its stratum's share is
// not yet filled, skipping a candidate whose input was already taken or
// sampled. Only the rows this walk reaches are read: first each stratum's
// share, then, where copies left a stratum short, the next ones. It reports
// false when a stratum ran out of held candidates while it had more (the
// caller scans again holding more). It is long because the walk, the
// dedup and the top-up of short strata share one cursor state.
func choose(ctx context.Context, o Options, pools map[string]*pool, excluded map[string]bool, res *Result, fetch fetchFunc) (bool, error) {
	counts := make([]sampling.Stratum, 0, len(pools))
	for name, p := range pools {
		counts = append(counts, sampling.Stratum{Name: name, Available: p.available})
		sort.Slice(p.items, func(i, j int) bool { return keyLess(p.items[i].key, p.items[i].id, p.items[j].key, p.items[j].id) })
	}
	sort.Slice(counts, func(i, j int) bool { return counts[i].Name < counts[j].Name })
	alloc, note, err := sampling.Allocate(counts, o.N, o.Alloc, o.MinPer)
	if err != nil {
		return false, err
	}
	share := map[string]int{}
	for _, s := range alloc {
		share[s.Name] = s.Sampled
	}
	target := map[string]int{}  // per stratum: how much of its pool the walk needs read
	fetched := map[string]int{} // per stratum: how much of its pool has been read
	for name, p := range pools {
		target[name] = min(share[name], len(p.items))
	}
	items := map[rowRef]trace.Item{}
	traces := map[rowRef]trace.Trace{}
	for {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		var want []cand
		for name, p := range pools {
			want = append(want, p.items[fetched[name]:target[name]]...)
			fetched[name] = target[name]
		}
		if err := fetch(want, items, traces); err != nil {
			return false, err
		}
		var walk []cand
		for name, p := range pools {
			walk = append(walk, p.items[:fetched[name]]...)
		}
		sort.Slice(walk, func(i, j int) bool {
			a, b := walk[i], walk[j]
			if a.key == b.key && a.id == b.id { // one row exported twice: the later file's copy first
				return a.ref.file > b.ref.file
			}
			return keyLess(a.key, a.id, b.key, b.id)
		})
		taken := map[string]bool{}
		takenID := map[string]bool{}
		got := map[string]int{}
		var chosen []cand
		dups, excl := 0, 0
		for _, c := range walk {
			if got[c.stratum] >= share[c.stratum] {
				continue
			}
			h := items[c.ref].InputHash
			switch {
			case takenID[c.id]:
				dups++
				continue
			case excluded[h]:
				excl++
				continue
			case taken[h]:
				dups++
				continue
			}
			taken[h], takenID[c.id] = true, true
			got[c.stratum]++
			chosen = append(chosen, c)
		}
		short, rescan := false, false
		for name, p := range pools {
			missing := share[name] - got[name]
			switch {
			case missing <= 0:
			case target[name] < len(p.items):
				target[name] = min(len(p.items), target[name]+missing)
				short = true
			case p.available > len(p.items):
				rescan = true
			}
		}
		if rescan {
			return false, nil
		}
		if !short {
			res.Sample = sampling.Sample{Strata: alloc, Note: note}
			for i := range res.Sample.Strata {
				s := &res.Sample.Strata[i]
				s.Sampled = got[s.Name]
			}
			for _, c := range chosen {
				it := items[c.ref]
				res.Sample.Items = append(res.Sample.Items, sampling.Candidate{ItemID: it.ID, TraceID: it.TraceID,
					Turn: it.Turn, Stratum: c.stratum, InputHash: it.InputHash, TS: c.ts.Unix(), HasTS: !c.ts.IsZero()})
				res.Traces = append(res.Traces, traces[c.ref])
			}
			sort.Slice(res.Traces, func(i, j int) bool { return res.Traces[i].ID < res.Traces[j].ID })
			res.Duplicates, res.Excluded = dups, excl
			return true, nil
		}
	}
}

// fetchFunc reads the conversations of cands and keeps each one's decision
// point and trace (see keepItem).
type fetchFunc func(cands []cand, items map[rowRef]trace.Item, traces map[rowRef]trace.Trace) error

// readItems is the fetchFunc of Parquet files.
func readItems(files []*openFile, cands []cand, by string, items map[rowRef]trace.Item, traces map[rowRef]trace.Trace) error {
	if len(cands) == 0 {
		return nil
	}
	rows, err := loadRows(files, cands)
	if err != nil {
		return err
	}
	for _, c := range cands {
		of := files[c.ref.file]
		what := fmt.Sprintf("%s: row %d (%s)", where(of, c.ref.rg), c.ref.row, c.id)
		t, err := decodeCall(of.l, rows[c.ref])
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		if err := keepItem(c, t, by, of.l.names, what, items, traces); err != nil {
			return err
		}
	}
	return nil
}

// keepItem keeps the decision point of t (its last message) for candidate
// c. A candidate whose stratum the first pass saw differently (the column
// or expression the first pass read, named by cheap, against the
// conversation) is an error.
func keepItem(c cand, t trace.Trace, by, cheap, what string, items map[rowRef]trace.Item, traces map[rowRef]trace.Trace) error {
	its := trace.Items(t)
	it := its[len(its)-1]
	if by == "tool" && it.FirstTool() != c.stratum {
		return fmt.Errorf("%s: %s names tool %q first but the output calls %q", what, cheap, c.stratum, it.FirstTool())
	}
	items[c.ref] = it
	traces[c.ref] = t
	return nil
}
