package dataset

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/goldtrace/goldtrace/gold"
	"github.com/goldtrace/goldtrace/internal/jsonlex"
)

// Manifest describes one exported version (docs/formats.md, "Manifest"). Field order
// is the key order of the file; maps are written with sorted keys.
type Manifest struct {
	Name          string `json:"name"`
	Version       int    `json:"version"`
	ParentVersion *int   `json:"parent_version"` // null for v1
	CreatedAt     string `json:"created_at"`     // RFC 3339, UTC
	CreatedBy     string `json:"created_by"`
	Message       string `json:"message"`
	File          string `json:"file"` // the canonical JSONL this manifest describes
	// RecordFormat is how the JSONL's lines are written (gold.RecordFormat2
	// and later); absent in versions of gold.RecordFormat1.
	RecordFormat  int            `json:"record_format,omitempty"`
	SHA256        string         `json:"sha256"` // of the JSONL file's bytes
	Count         int            `json:"count"`
	ToolCounts    map[string]int `json:"tool_counts"`    // per expected tool, "(none)" for no call
	GuideVersions []string       `json:"guide_versions"` // sorted, distinct, non-empty
	// Catalogue maps each tool the version's items offered to the versions
	// of it they offered (ShortToolHash, sorted): goldtrace drift and
	// score compare it with another catalogue.
	Catalogue map[string][]string `json:"catalogue"`
	Selection Selection           `json:"selection"`
	Agreement AgreementSummary    `json:"agreement"`
	Changes   Changes             `json:"changes"`
	// RecordHashes maps each item id to the first 16 hex digits of the
	// sha256 of its line (without the newline): verify names the line that
	// changed even when the line is still a valid record.
	RecordHashes map[string]string `json:"record_hashes"`
}

// Selection is which gold items the export took.
type Selection struct {
	Batches []string `json:"batches"` // empty: all batches
	Where   []string `json:"where"`   // KEY=VALUE filters as given
}

// AgreementSummary says how the version's gold was reached. The counts come
// from the gold statuses; the label statistics are computed by review and
// handed in (null when not computed).
type AgreementSummary struct {
	LabeledItems int     `json:"labeled_items"` // gold items in this version
	Agreed       int     `json:"agreed"`
	Adjudicated  int     `json:"adjudicated"`
	AgreedRate   float64 `json:"agreed_rate"` // agreed / labeled_items, 4 decimals
	LabelAgreement
}

// LabelAgreement is the reviewers' agreement on the labels of the version's
// items, as review computes it.
type LabelAgreement struct {
	PercentAgreement *float64 `json:"percent_agreement"` // share of items whose labels agree
	KappaTool        *float64 `json:"kappa_tool"`        // Cohen's kappa on the first tool, (none) included
	AlphaTool        *float64 `json:"alpha_tool"`        // Krippendorff's alpha (nominal) on the first tool
	// Reliability is the chance-corrected agreement on the first tool with
	// bootstrap 95% intervals, overall and per tool, and agreement per
	// argument path; nil when the export had no labels to compute it from.
	Reliability *Reliability `json:"reliability"`
}

// Reliability is review's reliability statistics as the manifest records
// them (4 decimals; null where undefined).
type Reliability struct {
	Replicates int            `json:"replicates"`
	Seed       uint64         `json:"seed"`
	Kappa      Interval       `json:"kappa"` // Conger's kappa (Cohen's for two reviewers)
	AC1        Interval       `json:"ac1"`   // Gwet's AC1
	Alpha      Interval       `json:"alpha"` // Krippendorff's alpha, nominal
	PerTool    []ToolInterval `json:"per_tool"`
	ArgPaths   []ArgPathShare `json:"arg_paths"`
}

// ToolInterval is one tool's reliability as a yes/no question.
type ToolInterval struct {
	Tool  string   `json:"tool"`
	Kappa Interval `json:"kappa"`
	AC1   Interval `json:"ac1"`
	Alpha Interval `json:"alpha"`
}

// ArgPathShare is agreement on one argument path (JSON Pointer) of a tool
// among reviewer pairs that chose it.
type ArgPathShare struct {
	Tool   string `json:"tool"`
	Path   string `json:"path"`
	Pairs  int    `json:"pairs"`
	Agreed int    `json:"agreed"`
}

// Interval is a statistic and its 95% confidence interval (bootstrap
// percentiles; see review.Bootstrap).
type Interval struct {
	Value *float64 `json:"value"`
	Low   *float64 `json:"low"`
	High  *float64 `json:"high"`
}

func (r *Reliability) rounded() *Reliability {
	if r == nil {
		return nil
	}
	out := *r
	out.Kappa, out.AC1, out.Alpha = r.Kappa.rounded(), r.AC1.rounded(), r.Alpha.rounded()
	out.PerTool = make([]ToolInterval, len(r.PerTool))
	for i, t := range r.PerTool {
		out.PerTool[i] = ToolInterval{Tool: t.Tool, Kappa: t.Kappa.rounded(), AC1: t.AC1.rounded(), Alpha: t.Alpha.rounded()}
	}
	if out.ArgPaths == nil {
		out.ArgPaths = []ArgPathShare{}
	}
	return &out
}

func (i Interval) rounded() Interval {
	return Interval{Value: round4p(i.Value), Low: round4p(i.Low), High: round4p(i.High)}
}

// Changes lists item ids against the parent version (for v1: all added).
// An item is changed when its record line differs in any byte.
type Changes struct {
	Added   []string `json:"added"`
	Removed []string `json:"removed"`
	Changed []string `json:"changed"`
}

// RecordHash is the hex sha256 of one record line (without the newline).
func RecordHash(line []byte) string {
	sum := sha256.Sum256(line)
	return hex.EncodeToString(sum[:])
}

// shortHash is the prefix of a record hash kept in the manifest.
func shortHash(h string) string {
	if len(h) > 16 {
		return h[:16]
	}
	return h
}

// VersionInfo is what a manifest records beyond the content itself.
type VersionInfo struct {
	Name          string
	Version       int
	ParentVersion int               // 0 when there is none
	ParentHashes  map[string]string // item id → record hash of the parent version
	// ParentFormat is the parent's record format (gold.RecordFormat1 or
	// 2; 0 when there is no parent): records are compared with the
	// parent's as its format writes them.
	ParentFormat int
	CreatedAt    time.Time
	CreatedBy    string
	Message      string
	Selection    Selection
	Labels       LabelAgreement
}

// NewManifest describes content as version info.Version of info.Name.
func NewManifest(info VersionInfo, c Content) Manifest {
	m := Manifest{
		Name:          info.Name,
		Version:       info.Version,
		CreatedAt:     info.CreatedAt.UTC().Format(time.RFC3339),
		CreatedBy:     info.CreatedBy,
		Message:       info.Message,
		File:          FileName(info.Name, info.Version),
		SHA256:        c.SHA256(),
		Count:         len(c.Lines),
		ToolCounts:    map[string]int{},
		GuideVersions: []string{},
		Selection:     info.Selection,
		RecordHashes:  make(map[string]string, len(c.Lines)),
	}
	if c.Format >= gold.RecordFormat2 {
		m.RecordFormat = c.Format // absent in the first format's manifests, as they were written
	}
	if info.ParentVersion > 0 {
		p := info.ParentVersion
		m.ParentVersion = &p
	}
	if m.Selection.Batches == nil {
		m.Selection.Batches = []string{}
	}
	if m.Selection.Where == nil {
		m.Selection.Where = []string{}
	}
	guides := map[string]bool{}
	catalogue := map[string]map[string]bool{}
	for _, l := range c.Lines {
		for _, t := range l.Tools {
			if catalogue[t.Name] == nil {
				catalogue[t.Name] = map[string]bool{}
			}
			catalogue[t.Name][t.Hash] = true
		}
		m.ToolCounts[l.Tool]++
		if l.GuideVersion != "" {
			guides[l.GuideVersion] = true
		}
		switch l.Status {
		case gold.StatusAgreed:
			m.Agreement.Agreed++
		case gold.StatusAdjudicated:
			m.Agreement.Adjudicated++
		}
		m.RecordHashes[l.ID] = shortHash(c.Hashes[l.ID])
	}
	m.GuideVersions = append(m.GuideVersions, sortedKeys(guides)...)
	m.Catalogue = make(map[string][]string, len(catalogue))
	for name, hashes := range catalogue {
		m.Catalogue[name] = sortedKeys(hashes)
	}
	m.Agreement.LabeledItems = len(c.Lines)
	if n := len(c.Lines); n > 0 {
		m.Agreement.AgreedRate = Round4(float64(m.Agreement.Agreed) / float64(n))
	}
	m.Agreement.LabelAgreement = LabelAgreement{PercentAgreement: round4p(info.Labels.PercentAgreement), KappaTool: round4p(info.Labels.KappaTool),
		AlphaTool: round4p(info.Labels.AlphaTool), Reliability: info.Labels.Reliability.rounded()}
	m.Changes = changes(info.ParentHashes, c.HashesAs(info.ParentFormat))
	return m
}

// changes compares record hashes of a parent and a child version.
func changes(parent, child map[string]string) Changes {
	ch := Changes{Added: []string{}, Removed: []string{}, Changed: []string{}}
	for id, h := range child {
		ph, ok := parent[id]
		switch {
		case !ok:
			ch.Added = append(ch.Added, id)
		case ph != h:
			ch.Changed = append(ch.Changed, id)
		}
	}
	for id := range parent {
		if _, ok := child[id]; !ok {
			ch.Removed = append(ch.Removed, id)
		}
	}
	sort.Strings(ch.Added)
	sort.Strings(ch.Removed)
	sort.Strings(ch.Changed)
	return ch
}

// Round4 rounds to 4 decimals, so statistics print the same everywhere.
func Round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }

func round4p(x *float64) *float64 {
	if x == nil || math.IsNaN(*x) || math.IsInf(*x, 0) {
		return nil
	}
	v := Round4(*x)
	return &v
}

// EncodeManifest writes m indented, keys in fixed order, with a final newline.
// The record hashes (one per item: most of the file) are written by hand,
// exactly as encoding/json would write them.
func EncodeManifest(m Manifest) ([]byte, error) {
	hashes := m.RecordHashes
	m.RecordHashes = nil
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(m); err != nil {
		return nil, fmt.Errorf("encode manifest: %w", err)
	}
	const last = "null\n}\n" // RecordHashes is the last field
	out, ok := bytes.CutSuffix(buf.Bytes(), []byte(last))
	if !ok {
		return nil, fmt.Errorf("encode manifest: record_hashes is not last")
	}
	if len(hashes) == 0 {
		return append(out, "{}\n}\n"...), nil
	}
	ids := make([]string, 0, len(hashes))
	for id := range hashes {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	out = slices.Grow(out, len(ids)*(len(ids[0])+40)+8)
	out = append(out, '{')
	for i, id := range ids {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, "\n    "...)
		out = jsonlex.AppendString(out, id, false)
		out = append(out, ": "...)
		out = jsonlex.AppendString(out, hashes[id], false)
	}
	return append(out, "\n  }\n}\n"...), nil
}

// ParseManifest reads a manifest file's bytes.
func ParseManifest(b []byte) (Manifest, error) {
	var m Manifest
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return m, fmt.Errorf("not a goldtrace manifest: %w", err)
	}
	if m.Name == "" || m.Version < 1 || len(m.SHA256) != 64 {
		return m, fmt.Errorf("not a goldtrace manifest: name, version or sha256 missing")
	}
	return m, nil
}
