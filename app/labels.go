package app

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/goldtrace/goldtrace/review"
	"github.com/goldtrace/goldtrace/store"
	"github.com/goldtrace/goldtrace/trace"
)

// ExportLabels streams submitted labels to fn. A lead reads every
// reviewer's labels; a reviewer only their own: asking for another
// reviewer's gives nothing, exactly as for a reviewer without labels. With
// no identity it is refused once the project has any user (before that
// there can be no labels).
func (a *App) ExportLabels(ctx context.Context, actor Actor, f store.LabelFilter, fn func(review.Label) error) error {
	actor, err := a.current(ctx, actor)
	if err != nil {
		return err
	}
	object := "labels"
	if f.Batch != "" {
		object += " batch " + f.Batch
	}
	if f.Reviewer != "" {
		object += " reviewer " + f.Reviewer
	}
	if actor.Anonymous() {
		counts, err := a.st.UserCounts(ctx)
		if err != nil {
			return err
		}
		if len(counts) == 0 {
			return nil
		}
		_, err = a.authorize(ctx, actor, ActLabelsReadOwn, object)
		return err
	}
	if Authorize(actor, ActLabelsReadAll) != nil {
		if _, err := a.authorize(ctx, actor, ActLabelsReadOwn, object); err != nil {
			return err
		}
		if f.Reviewer != "" && f.Reviewer != actor.Name {
			return nil // another reviewer's labels: as if there were none
		}
		f.Reviewer = actor.Name
		return a.st.Labels(ctx, f, fn)
	}
	if err := a.st.Labels(ctx, f, fn); err != nil {
		return err
	}
	return a.audit(ctx, actor, ActLabelsReadAll, object)
}

// LabelsImportOptions are labels import's choices.
type LabelsImportOptions struct {
	// File names the input in problems ("FILE:LINE: what").
	File string
	// SkipInvalid imports the valid labels when some lines are invalid.
	SkipInvalid bool
	// ForOthers lets a lead import labels in other reviewers' names
	// (recorded in the audit log). Without it every line's reviewer must be
	// the actor.
	ForOthers bool
	// RationaleOptional accepts labels without a rationale, as the label
	// screen's --rationale-optional does; by default one is required.
	RationaleOptional bool
}

// MaxLabelProblems is how many invalid lines a labels import lists; the
// rest are counted in one more line ("… 480 more invalid lines"), so a
// file of the wrong kind does not flood the terminal.
const MaxLabelProblems = 20

// LabelsImportReport is what a labels import did. Agreed and Disputed are
// for leads only (nil for a reviewer): the split would tell a reviewer how
// another reviewer answered.
type LabelsImportReport struct {
	File     string   `json:"file"`
	Imported int      `json:"imported"`
	Agreed   *int     `json:"agreed,omitempty"`
	Disputed *int     `json:"disputed,omitempty"`
	Invalid  []string `json:"invalid"` // the first MaxLabelProblems, then "… N more"
	Skipped  int      `json:"skipped"` // invalid lines (skipped with SkipInvalid)
}

// ImportLabels submits labels read as JSON Lines from what open opens (once
// the actor is authorized: a refusal says nothing about which files exist),
// each checked exactly as the label screen checks a label and written as
// soon as it is checked (store.SubmitCheckedLabelStream), all or nothing.
// Invalid lines are reported in the report's Invalid ("FILE:LINE: what");
// unless SkipInvalid, any invalid line means nothing is imported: what was
// written before it was found is taken back (the report is returned with
// the error).
func (a *App) ImportLabels(ctx context.Context, actor Actor, open func() (io.ReadCloser, error), o LabelsImportOptions) (LabelsImportReport, error) {
	rep := LabelsImportReport{File: o.File, Invalid: []string{}}
	act := ActLabelsImport
	if o.ForOthers {
		act = ActLabelsImportOthers
	}
	actor, err := a.authorize(ctx, actor, act, "labels from "+o.File)
	if err != nil {
		return rep, fmt.Errorf("labels import: %w", err)
	}
	r, err := open()
	if err != nil {
		return rep, err
	}
	defer r.Close()
	im := labelsImporter{app: a, actor: actor, forOthers: o.ForOthers, rationaleOptional: o.RationaleOptional,
		skipInvalid: o.SkipInvalid, file: o.File, seen: map[[2]string]bool{}, guides: map[string]bool{}, tools: store.ToolsetTools{}}
	// The labels are written while the file is read: each round of checks
	// hands the labels it passed to the writer, and one that fails (when
	// the import is all or nothing) has the writer take back what it
	// wrote. The labels are written in several short transactions; the
	// audit entry commits with the last of them (an import that cannot be
	// audited is taken back).
	wctx := a.auditing(ctx, actor, act, "labels from "+o.File)
	im.w = a.writeLabels(wctx)
	err = im.read(ctx, r)
	if err != nil {
		im.w.giveUp()
		_, werr := im.w.finish()
		return rep, fmt.Errorf("%w; %s", err, notImported(werr))
	}
	im.seen = nil
	invalid := len(im.problems)
	rep.Invalid = append(rep.Invalid, im.problemLines(MaxLabelProblems)...)
	rep.Skipped = invalid
	if invalid > MaxLabelProblems {
		rep.Invalid = append(rep.Invalid, fmt.Sprintf("%s: … %s", o.File, countNoun(invalid-MaxLabelProblems, "more invalid line", "more invalid lines")))
	}
	object := fmt.Sprintf("%d labels from %s", len(im.lines), o.File)
	if im.others > 0 {
		object += fmt.Sprintf(" (%d in other reviewers' names)", im.others)
	}
	store.SetAuditObject(wctx, object)
	sets, err := im.w.finish()
	lines := im.lines
	if invalid > 0 && !o.SkipInvalid {
		return rep, fmt.Errorf("%s in %s; %s (fix them, or --skip-invalid to import the valid ones)",
			countNoun(invalid, "invalid label", "invalid labels"), o.File, notImported(err))
	}
	if invalid == 0 && len(lines) == 0 {
		return rep, fmt.Errorf("%s: no labels in it (an empty file): one label per line, as labels import --help shows", o.File)
	}
	if im.refused != nil {
		return rep, fmt.Errorf("%s:%d: %w; %s", o.File, im.refusedAt, im.refused, notImported(err))
	}
	var le *store.LabelError
	switch {
	case errors.As(err, &le):
		return rep, fmt.Errorf("%s:%d: %w; %s", o.File, lines[le.Index], le.Err, notImported(err))
	case err != nil:
		return rep, fmt.Errorf("labels import: %w", err)
	}
	ctx = wctx
	rep.Imported = len(lines)
	if Authorize(actor, ActStatusDetails) == nil {
		var agreed, disputed int
		for _, s := range sets {
			switch {
			case s.Settled && s.Comparison.Agreed:
				agreed++
			case s.Settled:
				disputed++
			}
		}
		rep.Agreed, rep.Disputed = &agreed, &disputed
	}
	return rep, a.audited(ctx)
}

// labelsImporter reads and checks labels line by line; the checks against
// the store run for many lines at once (labelsCheckedAtOnce), and the
// labels that pass them go to the writer (w) as they are checked.
type labelsImporter struct {
	app         *App
	actor       Actor
	forOthers   bool
	skipInvalid bool
	file        string
	seen        map[[2]string]bool
	problems    []lineProblem
	others      int // labels in other reviewers' names

	pending []review.Label // parsed, waiting for the store's checks
	pendAt  []int          // their line numbers
	rounds  int            // rounds of checks so far
	w       *labelsWriter
	lines   []int // the line of every label handed to w, in order
	valid   review.LabelValidator

	// refused is why the store would refuse the first valid label it
	// would refuse (store.CheckSubmittable: its item is adjudicated), on
	// line refusedAt: the import then writes nothing.
	refused   error
	refusedAt int

	rationaleOptional bool
	tools             store.ToolsetTools // the tool sets read so far
	guides            map[string]bool    // guide versions looked up: whether they exist
	current           *string            // the guide in force ("" when none), once looked up
}

// lineProblem is an invalid line: what is wrong with it.
type lineProblem struct {
	line int
	what string
}

// labelsCheckedAtOnce is how many parsed labels one round of the store's
// checks takes; the first takes labelsFirstChecked, and each round after
// twice as many as the one before, up to labelsCheckedAtOnce, so that the
// writer starts soon (after 2,000 labels parsed and checked, it started
// 70-90 ms into a 2.3 s import).
const (
	labelsCheckedAtOnce = 2000
	labelsFirstChecked  = 250
)

// read hands the valid labels to the writer, recording a "FILE:LINE: what"
// problem for every invalid one.
func (im *labelsImporter) read(ctx context.Context, r io.Reader) error {
	br := bufio.NewReaderSize(r, 1<<16)
	for line := 1; ; line++ {
		raw, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(raw)) > 0 {
			if l, problem := im.parse(raw); problem != "" {
				im.problem(line, problem)
			} else {
				im.pending, im.pendAt = append(im.pending, l), append(im.pendAt, line)
				if len(im.pending) >= min(labelsFirstChecked<<im.rounds, labelsCheckedAtOnce) {
					if err := im.checkPending(ctx); err != nil {
						return err
					}
				}
			}
		}
		if errors.Is(err, io.EOF) {
			if err := im.checkPending(ctx); err != nil {
				return err
			}
			slices.SortStableFunc(im.problems, func(a, b lineProblem) int { return a.line - b.line })
			return nil
		} else if err != nil {
			return fmt.Errorf("%s:%d: %w", im.file, line, err)
		}
	}
}

// problemLines are the first max problems as "FILE:LINE: what", in line
// order.
func (im *labelsImporter) problemLines(max int) []string {
	ps := im.problems[:min(max, len(im.problems))]
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = fmt.Sprintf("%s:%d: %s", im.file, p.line, p.what)
	}
	return out
}

// parse reads one line and checks what needs no store.
func (im *labelsImporter) parse(raw []byte) (review.Label, string) {
	var l review.Label
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		return l, "not a label: " + err.Error()
	}
	switch {
	case l.Item == "":
		return l, `"item" is missing`
	case l.Reviewer == "":
		return l, `"reviewer" is missing`
	case l.Seconds < 0:
		return l, `"seconds" cannot be negative`
	case strings.TrimSpace(l.Rationale) == "" && !im.rationaleOptional: // the screen trims it too
		return l, `"rationale" is missing: say why this is the right next step, as the label screen requires (--rationale-optional accepts labels without one)`
	case l.Reviewer != im.actor.Name && !im.forOthers:
		if Authorize(im.actor, ActLabelsImportOthers) == nil {
			return l, fmt.Sprintf("reviewer %s is not you (%s): a lead imports labels in others' names only with --for-others", l.Reviewer, im.actor.Name)
		}
		return l, fmt.Sprintf("reviewer %s is not you (%s): you can import only your own labels", l.Reviewer, im.actor.Name)
	}
	l.Rationale = strings.TrimSpace(l.Rationale)
	key := [2]string{l.Item, l.Reviewer}
	if im.seen[key] {
		return l, fmt.Sprintf("a second label by %s for %s in this file", l.Reviewer, l.Item)
	}
	im.seen[key] = true
	return l, ""
}

// problem records that line is invalid: an import that is all or nothing
// then writes nothing more and takes back what it wrote.
func (im *labelsImporter) problem(line int, what string) {
	im.problems = append(im.problems, lineProblem{line, what})
	if !im.skipInvalid {
		im.w.giveUp()
	}
}

// checkPending checks the parsed labels against the store, like the label
// screen would, with one lookup for all of them, and hands those that pass
// to the writer.
func (im *labelsImporter) checkPending(ctx context.Context) error {
	if len(im.pending) == 0 {
		return nil
	}
	ids := make([]string, len(im.pending))
	for i, l := range im.pending {
		ids[i] = l.Item
	}
	targets, err := im.w.stream.Targets(ctx, ids, im.tools)
	if err != nil {
		return err
	}
	lead := Authorize(im.actor, ActLabelsReadAll) == nil
	checked := make([]review.Label, 0, len(im.pending))
	for i := range im.pending {
		l := &im.pending[i]
		if problem := im.check(ctx, l, targets[l.Item], lead); problem != "" {
			im.problem(im.pendAt[i], problem)
			continue
		}
		if err := store.CheckSubmittable(targets[l.Item], *l); err != nil && im.refused == nil {
			im.refused, im.refusedAt = err, im.pendAt[i]
			im.w.giveUp()
		}
		checked, im.lines = append(checked, *l), append(im.lines, im.pendAt[i])
		if l.Reviewer != im.actor.Name {
			im.others++
		}
	}
	im.w.send(checked)
	im.rounds++
	clear(im.pending)
	im.pending, im.pendAt = im.pending[:0], im.pendAt[:0]
	return nil
}

// check checks one parsed label against what the store holds of its item.
func (im *labelsImporter) check(ctx context.Context, l *review.Label, t store.LabelTarget, lead bool) string {
	// A reviewer learns nothing about items outside their assignments: an
	// unknown item and someone else's item read the same.
	if !t.Found {
		if !lead {
			return fmt.Sprintf("%s is not assigned item %s", l.Reviewer, l.Item)
		}
		return fmt.Sprintf("unknown item %s", l.Item)
	}
	status, ok := t.Assignments[l.Reviewer]
	if !ok {
		return fmt.Sprintf("%s is not assigned item %s", l.Reviewer, l.Item)
	}
	if status == store.AssignSubmitted {
		return fmt.Sprintf("%s already submitted a label for %s", l.Reviewer, l.Item)
	}
	for i, c := range l.Calls {
		if canon, err := trace.Canonical(c.Args); err == nil {
			l.Calls[i].Args = canon
		}
	}
	if problem := im.guideVersion(ctx, l); problem != "" {
		return problem
	}
	if ps := im.valid.ValidateLabel(*l, t.Tools); len(ps) > 0 {
		msg := ps[0].Message
		for _, p := range ps[1:] {
			msg += "; " + p.Message
		}
		return msg
	}
	return ""
}

// guideVersion checks l's guide version as the label screen sets it: a
// version the project has, or, when the line gives none, the guide in force
// (what a reviewer labeling now would have read).
func (im *labelsImporter) guideVersion(ctx context.Context, l *review.Label) string {
	st := im.app.st
	if l.GuideVersion == "" {
		if im.current == nil {
			cur, err := st.CurrentGuide(ctx)
			if err != nil && !isNotFound(err) {
				return err.Error()
			}
			im.current = &cur.ID
		}
		l.GuideVersion = *im.current
		return ""
	}
	known, looked := im.guides[l.GuideVersion]
	if !looked {
		_, err := st.Guide(ctx, l.GuideVersion)
		if err != nil && !isNotFound(err) {
			return err.Error()
		}
		known = err == nil
		im.guides[l.GuideVersion] = known
	}
	if !known {
		return fmt.Sprintf("guide_version %s is not a guide of this project (goldtrace guide log lists them; leave it out for the guide in force)", l.GuideVersion)
	}
	return ""
}

// countNoun is "1 invalid line", "3 invalid lines".
func countNoun(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
