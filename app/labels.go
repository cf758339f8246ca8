package app

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
// each checked exactly as the label screen checks a label, all in one
// transaction. Invalid lines are reported in the report's Invalid
// ("FILE:LINE: what"); unless SkipInvalid, any invalid line means nothing is
// imported (the report is returned with the error).
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
		file: o.File, seen: map[[2]string]bool{}, guides: map[string]bool{}}
	labels, lines, err := im.read(ctx, r)
	if err != nil {
		return rep, err
	}
	rep.Invalid = append(rep.Invalid, im.problems...)
	rep.Skipped = im.invalid
	if im.invalid > len(im.problems) {
		rep.Invalid = append(rep.Invalid, fmt.Sprintf("%s: … %s", o.File, countNoun(im.invalid-len(im.problems), "more invalid line", "more invalid lines")))
	}
	if im.invalid > 0 && !o.SkipInvalid {
		return rep, fmt.Errorf("%s in %s; nothing imported (fix them, or --skip-invalid to import the valid ones)",
			countNoun(im.invalid, "invalid label", "invalid labels"), o.File)
	}
	if im.invalid == 0 && len(labels) == 0 {
		return rep, fmt.Errorf("%s: no labels in it (an empty file): one label per line, as labels import --help shows", o.File)
	}
	object := fmt.Sprintf("%d labels from %s", len(labels), o.File)
	if im.others > 0 {
		object += fmt.Sprintf(" (%d in other reviewers' names)", im.others)
	}
	// The labels are written in several short transactions; the entry
	// commits with the last of them (an import that cannot be audited
	// is taken back).
	ctx = a.auditing(ctx, actor, act, object)
	sets, err := a.st.SubmitLabels(ctx, labels)
	var le *store.LabelError
	var kept *store.KeptLabelsError
	switch {
	case errors.As(err, &le) && errors.As(err, &kept):
		return rep, fmt.Errorf("%s:%d: %w; the labels already written were taken back except %d whose items a lead adjudicated or exported meanwhile (%s)",
			o.File, lines[le.Index], le.Err, len(kept.Items), strings.Join(kept.Items, ", "))
	case errors.As(err, &le):
		return rep, fmt.Errorf("%s:%d: %w; nothing imported", o.File, lines[le.Index], le.Err)
	case err != nil:
		return rep, fmt.Errorf("labels import: %w", err)
	}
	rep.Imported = len(labels)
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

// labelsImporter reads and checks labels line by line.
type labelsImporter struct {
	app       *App
	actor     Actor
	forOthers bool
	file      string
	seen      map[[2]string]bool
	problems  []string // the first MaxLabelProblems
	invalid   int      // invalid lines in all
	others    int      // labels in other reviewers' names

	rationaleOptional bool
	guides            map[string]bool // guide versions looked up: whether they exist
	current           *string         // the guide in force ("" when none), once looked up
}

// read returns the valid labels with their line numbers, recording a
// "FILE:LINE: what" problem for every invalid one.
func (im *labelsImporter) read(ctx context.Context, r io.Reader) ([]review.Label, []int, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	var labels []review.Label
	var lines []int
	for line := 1; ; line++ {
		raw, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(raw)) > 0 {
			if l, problem := im.check(ctx, raw); problem != "" {
				if im.invalid++; im.invalid <= MaxLabelProblems {
					im.problems = append(im.problems, fmt.Sprintf("%s:%d: %s", im.file, line, problem))
				}
			} else {
				labels, lines = append(labels, l), append(lines, line)
				if l.Reviewer != im.actor.Name {
					im.others++
				}
			}
		}
		if errors.Is(err, io.EOF) {
			return labels, lines, nil
		} else if err != nil {
			return nil, nil, fmt.Errorf("%s:%d: %w", im.file, line, err)
		}
	}
}

// check parses one line and checks it like the label screen would.
func (im *labelsImporter) check(ctx context.Context, raw []byte) (review.Label, string) {
	st := im.app.st
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
	// A reviewer learns nothing about items outside their assignments: an
	// unknown item and someone else's item read the same.
	lead := Authorize(im.actor, ActLabelsReadAll) == nil
	tools, err := st.ItemTools(ctx, l.Item)
	if isNotFound(err) {
		if !lead {
			return l, fmt.Sprintf("%s is not assigned item %s", l.Reviewer, l.Item)
		}
		return l, fmt.Sprintf("unknown item %s", l.Item)
	} else if err != nil {
		return l, err.Error()
	}
	as, err := st.Assignment(ctx, l.Item, l.Reviewer)
	if isNotFound(err) {
		return l, fmt.Sprintf("%s is not assigned item %s", l.Reviewer, l.Item)
	} else if err != nil {
		return l, err.Error()
	}
	if as.Status == store.AssignSubmitted {
		return l, fmt.Sprintf("%s already submitted a label for %s", l.Reviewer, l.Item)
	}
	for i, c := range l.Calls {
		if canon, err := trace.Canonical(c.Args); err == nil {
			l.Calls[i].Args = canon
		}
	}
	if problem := im.guideVersion(ctx, &l); problem != "" {
		return l, problem
	}
	if ps := review.ValidateLabel(l, tools); len(ps) > 0 {
		msg := ps[0].Message
		for _, p := range ps[1:] {
			msg += "; " + p.Message
		}
		return l, msg
	}
	return l, ""
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
