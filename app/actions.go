package app

import (
	"context"
	"fmt"
	"strings"

	"github.com/goldtrace/goldtrace/review"
	"github.com/goldtrace/goldtrace/store"
)

// Permit decides whether actor may perform action on object, for a command
// whose work is not (yet) an App method of its own: the actor with its
// current role, or a *DeniedError (recorded in the audit log). Call Audit
// once the action is done.
func (a *App) Permit(ctx context.Context, actor Actor, action Action, object string) (Actor, error) {
	return a.authorize(ctx, actor, action, object)
}

// Audit records that actor performed action on object.
func (a *App) Audit(ctx context.Context, actor Actor, action Action, object string) error {
	return a.audit(ctx, actor, action, object)
}

// Status reports progress as the actor may see it: no identity, the totals;
// a reviewer, the totals and their own progress; a lead, everything
// (agreement and the agreed/disputed split; audited as a lead read).
func (a *App) Status(ctx context.Context, actor Actor, q store.StatusQuery) (store.Status, error) {
	actor, err := a.authorize(ctx, actor, ActStatusTotals, "status")
	if err != nil {
		return store.Status{}, err
	}
	q.As = actor.Name
	s, err := a.st.Status(ctx, q)
	if err != nil {
		return s, err
	}
	if s.View == store.ViewLead {
		if Authorize(actor, ActStatusDetails) != nil {
			return store.Status{}, &DeniedError{Actor: actor, Action: ActStatusDetails}
		}
		object := "status"
		if q.Batch != "" {
			object += " batch " + q.Batch
		}
		return s, a.audit(ctx, actor, ActStatusDetails, object)
	}
	return s, nil
}

// Resolve records a lead's decision on an item (the resolution's Lead is
// the actor).
func (a *App) Resolve(ctx context.Context, actor Actor, r store.Resolution) (review.Gold, error) {
	actor, err := a.authorize(ctx, actor, ActAdjudicate, "resolve "+r.Item)
	if err != nil {
		return review.Gold{}, err
	}
	r.Lead = actor.Name
	if r.Label != nil {
		// A lead's own label fits the item's tools as a reviewer's must
		// (the adjudication screen checks the same before it sends one).
		if err := a.fitsItem(ctx, *r.Label, r.Item); err != nil {
			return review.Gold{}, err
		}
	}
	how := "pick " + r.Pick
	switch {
	case r.Label != nil:
		how = "label"
	case len(r.Both) > 0:
		how = "both " + strings.Join(r.Both, ",")
	case r.Accept:
		how = "accept"
	case r.Pick == "":
		how = "rules"
	}
	return act(a, ctx, actor, ActAdjudicate, fmt.Sprintf("resolve %s (%s)", r.Item, how), func(ctx context.Context) (review.Gold, error) {
		return a.st.Resolve(ctx, r)
	})
}

// SendBack returns an item to its reviewers (or to), with note (leads only).
func (a *App) SendBack(ctx context.Context, actor Actor, item, note string, to []string, force bool) error {
	actor, err := a.authorize(ctx, actor, ActAdjudicate, "send back "+item)
	if err != nil {
		return err
	}
	object := "send back " + item
	if len(to) > 0 {
		object += " to " + strings.Join(to, ",")
	}
	return a.actErr(ctx, actor, ActAdjudicate, object, func(ctx context.Context) error {
		return a.st.SendBack(ctx, item, actor.Name, note, to, force)
	})
}

// ProposeGuideChange notes a proposed guide change on an item (leads only).
func (a *App) ProposeGuideChange(ctx context.Context, actor Actor, item, body string) error {
	actor, err := a.authorize(ctx, actor, ActAdjudicate, "propose guide change on "+item)
	if err != nil {
		return err
	}
	return a.actErr(ctx, actor, ActAdjudicate, "propose guide change on "+item, func(ctx context.Context) error {
		return a.st.ProposeGuideChange(ctx, item, actor.Name, body)
	})
}

// SetGuide makes body (whose id is id) the guide in force (leads only);
// changed is false when it already was.
func (a *App) SetGuide(ctx context.Context, actor Actor, id, body string) (v store.GuideVersion, changed bool, err error) {
	actor, err = a.authorize(ctx, actor, ActGuideSet, "guide "+id)
	if err != nil {
		return v, false, err
	}
	// The store rolls back (entry included) when the text is in force
	// already: nothing changed, nothing is recorded.
	ctx = a.auditing(ctx, actor, ActGuideSet, "guide "+id)
	if v, changed, err = a.st.SetGuide(ctx, id, body, actor.Name); err != nil {
		return v, false, err
	}
	if changed {
		err = a.audited(ctx)
	}
	return v, changed, err
}

// Guide reads one guide version by id.
func (a *App) Guide(ctx context.Context, actor Actor, id string) (store.GuideVersion, error) {
	if _, err := a.authorize(ctx, actor, ActGuideRead, ""); err != nil {
		return store.GuideVersion{}, err
	}
	return a.st.Guide(ctx, id)
}

// GuideLog lists the guide versions and how many labels used each.
func (a *App) GuideLog(ctx context.Context, actor Actor) ([]store.GuideVersion, map[string]int, error) {
	if _, err := a.authorize(ctx, actor, ActGuideRead, ""); err != nil {
		return nil, nil, err
	}
	return a.st.GuideLog(ctx)
}

// EnsureGuide is the guide in force, storing the shipped default (id, body,
// by author) when the project has none yet. Anyone who may read the guide
// may cause that: it writes nothing a user chose.
func (a *App) EnsureGuide(ctx context.Context, actor Actor, id, body, author string) (store.GuideVersion, error) {
	if _, err := a.authorize(ctx, actor, ActGuideRead, ""); err != nil {
		return store.GuideVersion{}, err
	}
	return a.st.EnsureGuide(ctx, id, body, author)
}

// TraceSummary summarises the stored traces (the top n values per key).
func (a *App) TraceSummary(ctx context.Context, actor Actor, n int) (store.TraceSummary, error) {
	if _, err := a.authorize(ctx, actor, ActTracesRead, ""); err != nil {
		return store.TraceSummary{}, err
	}
	return a.st.TraceSummary(ctx, n)
}

// TraceMetaKeys lists the trace metadata keys in the store.
func (a *App) TraceMetaKeys(ctx context.Context, actor Actor) ([]string, error) {
	if _, err := a.authorize(ctx, actor, ActTracesRead, ""); err != nil {
		return nil, err
	}
	return a.st.MetaKeys(ctx)
}

// Batches lists the batches.
func (a *App) Batches(ctx context.Context, actor Actor) ([]store.BatchSummary, error) {
	if _, err := a.authorize(ctx, actor, ActBatchesRead, ""); err != nil {
		return nil, err
	}
	return a.st.Batches(ctx)
}

// DatasetVersions lists the versions of dataset name ("" for every dataset).
func (a *App) DatasetVersions(ctx context.Context, actor Actor, name string) ([]store.DatasetVersion, error) {
	if _, err := a.authorize(ctx, actor, ActDatasetRead, name); err != nil {
		return nil, err
	}
	return a.st.DatasetVersions(ctx, name)
}

// DatasetFiles reads one stored version: its row, JSONL content and
// manifest. A version that does not exist is a *NoVersionError.
func (a *App) DatasetFiles(ctx context.Context, actor Actor, name string, version int) (store.DatasetVersion, []byte, []byte, error) {
	if _, err := a.authorize(ctx, actor, ActDatasetRead, fmt.Sprintf("%s@v%d", name, version)); err != nil {
		return store.DatasetVersion{}, nil, nil, err
	}
	v, content, manifest, err := a.st.DatasetFiles(ctx, name, version)
	return v, content, manifest, noVersion(err, name, version)
}

// ReleaseAssignments moves a reviewer's skipped (and stalled) items to
// another reviewer: a lead's decision about who labels what, like sampling.
func (a *App) ReleaseAssignments(ctx context.Context, actor Actor, req store.ReleaseRequest) (released, kept []store.Release, err error) {
	object := "release " + req.From + " to " + req.To
	actor, err = a.authorize(ctx, actor, ActAssign, object)
	if err != nil {
		return nil, nil, err
	}
	req.Lead = actor.Name
	// The store completes the entry with how many items moved.
	ctx = a.auditing(ctx, actor, ActAssign, fmt.Sprintf("release from %s to %s", req.From, req.To))
	if released, kept, err = a.st.ReleaseAssignments(ctx, req); err != nil {
		return nil, nil, err
	}
	return released, kept, a.audited(ctx)
}

// fitsItem checks a lead's label against the tools item offers (its
// current catalogue when it was put back as stale): one error listing the
// problems, nil when it fits or the item is not found (the store's
// transaction then says so).
func (a *App) fitsItem(ctx context.Context, l review.Label, item string) error {
	ts, err := a.st.LabelTargets(ctx, []string{item})
	if err != nil {
		return err
	}
	t, ok := ts[item]
	if !ok || !t.Found {
		return nil
	}
	ps := review.ValidateLabel(l, t.Tools)
	if len(ps) == 0 {
		return nil
	}
	msgs := make([]string, len(ps))
	for i, p := range ps {
		msgs[i] = p.Message
	}
	return fmt.Errorf("the label does not fit %s's tools: %s", item, strings.Join(msgs, "; "))
}
