package tui

import (
	"context"
	"time"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/review"
	"github.com/goldtrace/goldtrace/trace"
)

// Common is what every page and component shares, passed explicitly: the
// window size, styles, keys, the app API and the clock.
type Common struct {
	Width, Height int
	Styles        Styles
	Keys          KeyMap
	// API is the project as the session's user may act on it (an
	// *app.Session: every call is authorized for that user).
	API API
	Now func() time.Time
}

// API is everything the screens read and write.
type API interface {
	GuideAPI
	LabelAPI
	AdjudicateAPI
	DashboardAPI
}

// GuideAPI is what the guide page reads.
type GuideAPI interface {
	EnsureGuide(ctx context.Context, id, body, author string) (app.GuideVersion, error)
}

// LabelAPI is what the label screen reads and writes: the reviewer's own
// queue, items, drafts and labels.
type LabelAPI interface {
	// LabelWork loads an item to label with one authorization.
	LabelWork(ctx context.Context, reviewer, batch, itemID string, skipped []string) (app.LabelWork, error)
	Progress(ctx context.Context, reviewer, batch string) (map[string]int, error)
	SaveDraft(ctx context.Context, itemID, reviewer string, body []byte, seconds int) error
	// RestoreRecovery puts the reviewer's recovery file back into the drafts.
	RestoreRecovery(ctx context.Context, path string) (app.RecoveryRestore, error)
	SubmitLabel(ctx context.Context, l review.Label) error
	SkipItem(ctx context.Context, itemID, reviewer, reason string) error
	LastSubmitted(ctx context.Context, reviewer, batch string) (string, error)
	Reopen(ctx context.Context, itemID, reviewer string, toDraft func(review.Label) ([]byte, error)) (review.Label, error)
}

// AdjudicateAPI is what the adjudication screen reads and writes.
type AdjudicateAPI interface {
	DisputedQueue(ctx context.Context, f app.DisputeFilter) ([]app.Dispute, error)
	ItemStatusCounts(ctx context.Context, batch string) (map[string]int, error)
	Item(ctx context.Context, id string) (trace.Item, error)
	ItemLabels(ctx context.Context, itemID string) ([]review.Label, error)
	Notes(ctx context.Context, itemID string) ([]app.Note, error)
	Resolve(ctx context.Context, r app.Resolution) (review.Gold, error)
	SendBack(ctx context.Context, itemID, lead, note string, to []string, force bool) error
	ProposeGuideChange(ctx context.Context, itemID, lead, body string) error
}

// DashboardAPI is what the dashboard reads.
type DashboardAPI interface {
	// Dashboard computes the dashboard's numbers: the current gold's
	// observed calls scored under a profile, progress, the newest judge
	// calibration, accuracy per batch (app).
	Dashboard(ctx context.Context, batch, profile string, now time.Time, cache *app.GoldCache) (*app.Dashboard, error)
	GoldFingerprint(ctx context.Context) (string, error)
	Item(ctx context.Context, id string) (trace.Item, error)
	ReleaseAPI // dashboard_release.go
}

// NewCommon is a Common over api with the default keys, styles honouring
// NO_COLOR and the wall clock.
func NewCommon(api API) *Common {
	return &Common{Styles: NewStyles(), Keys: DefaultKeyMap(), API: api, Now: time.Now}
}

// SetSize records the window size.
func (c *Common) SetSize(w, h int) { c.Width, c.Height = w, h }
