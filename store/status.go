package store

import (
	"context"
	"fmt"
	"sort"

	"github.com/goldtrace/goldtrace/review"
)

// Status views: what a user may see of the project's progress.
const (
	// ViewTotals (no user named): assignment totals per batch and item
	// totals (open / settled), no per-reviewer rows, no agreement.
	ViewTotals = "totals"
	// ViewReviewer: the totals plus the reviewer's own progress.
	ViewReviewer = "reviewer"
	// ViewLead: everything — every reviewer's progress, agreed / disputed /
	// adjudicated counts, agreement statistics per pair and per tool.
	ViewLead = "lead"
)

// StatusQuery selects what Status reports: one batch or all, seen as whom
// ("" for the totals view).
type StatusQuery struct {
	Batch string
	As    string
}

// Status is the project's progress as one user may see it.
//
// Privacy: a reviewer must not learn another reviewer's answer before
// adjudication (docs/review.md). Per-pair agreement reveals it directly, and so do
// the agreed / disputed counts: a reviewer who submits an item's last label
// and sees "disputed" go up by one knows the other answered differently, and
// could reopen their label to match. So only the lead view splits settled
// items by outcome or shows agreement.
type Status struct {
	View         string            `json:"view"`
	As           string            `json:"as,omitempty"`
	Batch        string            `json:"batch,omitempty"`
	ReviewAgreed bool              `json:"review_agreed"`
	Totals       Progress          `json:"totals"`
	Items        ItemCounts        `json:"items"`
	Batches      []BatchStatus     `json:"batches"`
	Disputes     map[string]int    `json:"disputes,omitempty"` // lead: open disputes per kind
	Agreement    *review.Agreement `json:"agreement,omitempty"`
}

// BatchStatus is one batch's progress.
type BatchStatus struct {
	Batch     string             `json:"batch"`
	Totals    Progress           `json:"totals"`
	Items     ItemCounts         `json:"items"`
	Reviewers []ReviewerProgress `json:"reviewers"`
}

// Progress counts assignments by status; MedianSeconds is the median time
// spent per submitted label (nil without labels).
type Progress struct {
	Assignments   int      `json:"assignments"`
	Pending       int      `json:"pending"`
	Draft         int      `json:"draft"`
	Submitted     int      `json:"submitted"`
	Skipped       int      `json:"skipped"`
	MedianSeconds *float64 `json:"median_seconds"`
}

// ReviewerProgress is one reviewer's progress in a batch.
type ReviewerProgress struct {
	Reviewer string `json:"reviewer"`
	Progress
}

// ItemCounts counts items: open (still being labeled) and settled (all
// labels in). The split of settled items is for leads only (nil otherwise).
type ItemCounts struct {
	Items       int  `json:"items"`
	Open        int  `json:"open"`
	Settled     int  `json:"settled"`
	Agreed      *int `json:"agreed,omitempty"`
	Disputed    *int `json:"disputed,omitempty"`
	Adjudicated *int `json:"adjudicated,omitempty"`
	Gold        *int `json:"gold,omitempty"`
}

// computeStatus reports progress and, for leads, agreement, read from the
// database (Status serves it from the cache while the data is unchanged).
//
// It is long because the totals, per-reviewer rows and agreement come from
// concurrent scans whose results are joined here; the join is the
// function.
func (s *Store) computeStatus(ctx context.Context, q StatusQuery) (Status, error) {
	s.statuses.computed.Add(1)
	out := Status{View: ViewTotals, As: q.As, Batch: q.Batch, Batches: []BatchStatus{}}
	if q.As != "" {
		u, err := s.User(ctx, q.As)
		if err != nil {
			return out, err
		}
		out.View = ViewReviewer
		if u.Role == RoleLead {
			out.View = ViewLead
		}
	}
	if q.Batch != "" {
		var n int
		if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM batches WHERE name = ? AND state = 'ready'`, q.Batch).Scan(&n); err != nil {
			return out, err
		}
		if n == 0 {
			return out, fmt.Errorf("batch %q: %w", q.Batch, ErrNotFound)
		}
	}
	held, err := reviewAgreed(ctx, s.r)
	if err != nil {
		return out, err
	}
	out.ReviewAgreed = held
	lead := out.View == ViewLead
	// The open disputes are counted alongside the scans, not after them.
	var openDisputes map[string]int
	disputesErr := make(chan error, 1)
	if lead {
		go func() {
			var err error
			err = s.bulkScan(ctx, func() error {
				var err error
				openDisputes, err = s.openDisputeKinds(ctx, q.Batch)
				return err
			})
			disputesErr <- err
		}()
	}
	scan, err := s.scanStatus(ctx, q.Batch, lead)
	if lead {
		if derr := <-disputesErr; err == nil {
			err = derr // one failure, said once (as scanStatus's)
		}
		out.Disputes = openDisputes
	}
	if err != nil {
		return out, err
	}
	batches := map[string]*BatchStatus{}
	batch := func(name string) *BatchStatus {
		b := batches[name]
		if b == nil {
			b = &BatchStatus{Batch: name, Reviewers: []ReviewerProgress{}}
			batches[name] = b
		}
		return b
	}
	for k, n := range scan.assignments {
		b := batch(k.batch)
		b.Totals.add(k.status, n)
		out.Totals.add(k.status, n)
		if lead || k.reviewer == q.As {
			b.reviewer(k.reviewer).add(k.status, n)
		}
	}
	for name, c := range scan.items {
		if name == "" {
			out.Items = c.counts(lead)
			continue
		}
		batch(name).Items = c.counts(lead)
	}
	if out.Items.Items == 0 {
		out.Items = itemTally{}.counts(lead)
	}
	out.Totals.MedianSeconds = scan.seconds[statusKey{}].median()
	for _, b := range batches {
		b.Totals.MedianSeconds = scan.seconds[statusKey{batch: b.Batch}].median()
		for i := range b.Reviewers {
			r := &b.Reviewers[i]
			r.MedianSeconds = scan.seconds[statusKey{batch: b.Batch, reviewer: r.Reviewer}].median()
		}
		sort.Slice(b.Reviewers, func(i, j int) bool { return b.Reviewers[i].Reviewer < b.Reviewers[j].Reviewer })
		out.Batches = append(out.Batches, *b)
	}
	sort.Slice(out.Batches, func(i, j int) bool { return out.Batches[i].Batch < out.Batches[j].Batch })
	if lead {
		// Status is asked again after every label while a team labels:
		// its intervals are drawn within the live budget.
		a := review.AgreeWithin(scan.labels, review.LiveBootstrap)
		out.Agreement = &a
	}
	return out, nil
}

func (p *Progress) add(status string, n int) {
	p.Assignments += n
	switch status {
	case AssignPending:
		p.Pending += n
	case AssignDraft:
		p.Draft += n
	case AssignSubmitted:
		p.Submitted += n
	case AssignSkipped:
		p.Skipped += n
	}
}

func (b *BatchStatus) reviewer(name string) *Progress {
	for i := range b.Reviewers {
		if b.Reviewers[i].Reviewer == name {
			return &b.Reviewers[i].Progress
		}
	}
	b.Reviewers = append(b.Reviewers, ReviewerProgress{Reviewer: name})
	return &b.Reviewers[len(b.Reviewers)-1].Progress
}

// openDisputeKinds counts the open disputes by kind. The redundant
// status != 'new' lets SQLite search the partial index items_status (WHERE
// status != 'new') instead of scanning every item.
func (s *Store) openDisputeKinds(ctx context.Context, batch string) (map[string]int, error) {
	return queryCounts(ctx, s.r, `SELECT k.value, count(*) FROM disputes d JOIN items i ON i.id = d.item_id, json_each(d.kinds) k
		WHERE i.status = 'disputed' AND i.status != 'new' AND (?1 = '' OR EXISTS (SELECT 1 FROM assignments a WHERE a.item_id = d.item_id AND a.batch = ?1))
		GROUP BY k.value`, batch)
}
