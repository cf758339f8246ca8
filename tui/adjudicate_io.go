package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/review"
	"github.com/goldtrace/goldtrace/trace"
)

// adjRequest is what the adjudication screen's commands need: a copy made
// when the screen is built, so no closure reads the model.
type adjRequest struct {
	st   AdjudicateAPI
	lead string
}

// adjDetail is everything shown about one disputed item.
type adjDetail struct {
	item   trace.Item
	labels []review.Label
	notes  []app.Note // earlier send-backs and guide proposals
}

// adjQueueMsg answers queueCmd: the queue under the filter, the position to
// show and that item's detail.
type adjQueueMsg struct {
	seq    int
	queue  []app.Dispute
	counts map[string]int
	pos    int
	detail adjDetail
	err    error
}

// adjDetailMsg answers detailCmd for one item.
type adjDetailMsg struct {
	seq    int
	itemID string
	detail adjDetail
	err    error
}

// adjDoneMsg answers a write (resolve, send back, guide proposal) on itemID.
// resolved is true when the item left the queue.
type adjDoneMsg struct {
	itemID   string
	text     string
	resolved bool
	sentBack bool // resolved by sending it back to its reviewers
	err      error
}

// queueCmd loads the disputed queue and the detail of the item to show:
// wantID if it is still queued, else the one now at wantPos (clamped).
func (r adjRequest) queueCmd(seq int, f app.DisputeFilter, wantID string, wantPos int) tea.Cmd {
	return func() tea.Msg {
		ctx := context.Background()
		msg := adjQueueMsg{seq: seq}
		var err error
		if msg.queue, err = r.st.DisputedQueue(ctx, f); err != nil {
			msg.err = err
			return msg
		}
		if msg.counts, err = r.st.ItemStatusCounts(ctx, f.Batch); err != nil {
			msg.err = err
			return msg
		}
		if len(msg.queue) == 0 {
			return msg
		}
		msg.pos = min(max(wantPos, 0), len(msg.queue)-1)
		for i, d := range msg.queue {
			if d.Item == wantID {
				msg.pos = i
			}
		}
		msg.detail, msg.err = r.detail(ctx, msg.queue[msg.pos].Item)
		return msg
	}
}

// detailCmd loads one queued item's context and labels.
func (r adjRequest) detailCmd(seq int, itemID string) tea.Cmd {
	return func() tea.Msg {
		d, err := r.detail(context.Background(), itemID)
		return adjDetailMsg{seq: seq, itemID: itemID, detail: d, err: err}
	}
}

func (r adjRequest) detail(ctx context.Context, itemID string) (adjDetail, error) {
	var d adjDetail
	var err error
	if d.item, err = r.st.Item(ctx, itemID); err != nil {
		return d, err
	}
	if d.labels, err = r.st.ItemLabels(ctx, itemID); err != nil {
		return d, err
	}
	if len(d.labels) == 0 {
		return d, errors.New("item " + itemID + " is disputed but has no labels")
	}
	d.notes, err = r.st.Notes(ctx, itemID)
	return d, err
}

// resolveCmd commits a decision; text is the confirmation shown on success.
func (r adjRequest) resolveCmd(res app.Resolution, text string) tea.Cmd {
	return func() tea.Msg {
		_, err := r.st.Resolve(context.Background(), res)
		return adjDoneMsg{itemID: res.Item, text: text, resolved: err == nil, err: err}
	}
}

// sendBackCmd returns the item to every reviewer who labeled it.
func (r adjRequest) sendBackCmd(itemID, note string) tea.Cmd {
	return func() tea.Msg {
		err := r.st.SendBack(context.Background(), itemID, r.lead, note, nil, false)
		return adjDoneMsg{itemID: itemID, text: "sent " + itemID + " back to its reviewers", resolved: err == nil, sentBack: true, err: err}
	}
}

// guideNoteCmd stores a proposal to change the guide; the item stays queued.
func (r adjRequest) guideNoteCmd(itemID, body string) tea.Cmd {
	return func() tea.Msg {
		err := r.st.ProposeGuideChange(context.Background(), itemID, r.lead, body)
		return adjDoneMsg{itemID: itemID, text: "guide proposal saved for " + itemID, err: err}
	}
}

// quitSummary is what a lead is told once the screen is gone: what this
// session decided and what is still disputed (in batch, or everywhere).
func (r adjRequest) quitSummary(batch string, decided, sentBack int) string {
	parts := []string{fmt.Sprintf("%d adjudicated", decided)}
	if sentBack > 0 {
		parts = append(parts, fmt.Sprintf("%d sent back", sentBack))
	}
	left, err := r.st.DisputedQueue(context.Background(), app.DisputeFilter{Batch: batch})
	if err != nil {
		return strings.Join(parts, ", ")
	}
	where := ""
	if batch != "" {
		where = " in " + batch
	}
	return strings.Join(append(parts, plural(len(left), "dispute")+" left"+where), ", ")
}
