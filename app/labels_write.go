package app

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/goldtrace/goldtrace/review"
	"github.com/goldtrace/goldtrace/store"
)

// labelsWriter writes the labels a labels import has checked while the
// import checks the next ones (store.SubmitCheckedLabelStream), in the
// order handed over: the file's.
type labelsWriter struct {
	// stream checks the labels (Targets) and writes them.
	stream  *store.LabelStream
	checked chan store.CheckedLabels
	stop    context.CancelCauseFunc
	done    chan struct{} // closed once the store call has returned
	stopped bool          // nothing more is handed over
	sets    []store.Settlement
	err     error
}

// errLabelRefused stops a labels import's writer: a label failed its
// check, and the import is all or nothing.
var errLabelRefused = errors.New("a label failed its check")

// labelsAhead is how many rounds of checked labels (labelsCheckedAtOnce
// each: 64k labels, some 25 MB) wait for the writer at most. The check,
// four times faster than the writing, runs that far ahead and is done
// early, leaving the CPU to the writer: kept in step with it, it took CPU
// from the writer all along, whose transactions (long while no one waits,
// bounded in time) then committed more often and wrote more (measured:
// 20% more CPU time, a checkpoint more). Beyond it, a large file is not
// held whole.
const labelsAhead = 32

// writeLabels starts writing the labels handed to the returned writer,
// under ctx (and its audit entry); call it before the first check reads
// the store (store.LabelStream).
func (a *App) writeLabels(ctx context.Context) *labelsWriter {
	ctx, stop := context.WithCancelCause(ctx)
	w := &labelsWriter{stream: a.st.LabelStream(ctx), checked: make(chan store.CheckedLabels, labelsAhead), stop: stop, done: make(chan struct{})}
	go func() {
		defer close(w.done)
		w.sets, w.err = w.stream.Submit(ctx, w.checked)
	}()
	return w
}

// send hands labels over to be written, unless the writer has stopped
// (given up, or failed: finish says why).
func (w *labelsWriter) send(labels []review.Label) {
	if w.stopped || len(labels) == 0 {
		return
	}
	select {
	case w.checked <- store.CheckedLabels{Labels: labels}:
	case <-w.done:
		w.stopped = true
	}
}

// giveUp has the writer stop and take back what it wrote.
func (w *labelsWriter) giveUp() {
	if !w.stopped {
		w.stopped = true
		w.stop(errLabelRefused)
	}
}

// finish says every label has been handed over (unless the writer was
// given up) and waits for the writer: the Settlements of the labels, in
// order, or why they are not written (after a giveUp, with what of them
// could not be taken back).
func (w *labelsWriter) finish() ([]store.Settlement, error) {
	if !w.stopped {
		w.stopped = true
		close(w.checked)
	}
	<-w.done
	w.stop(nil)
	return w.sets, w.err
}

// notImported says what is left of the labels a failed import wrote, given
// the writer's error: nothing, or the labels that could not be taken back.
func notImported(err error) string {
	var kept *store.KeptLabelsError
	var undo *store.LabelsUndoError
	switch {
	case errors.As(err, &undo):
		return fmt.Sprintf("taking back the %d labels already written failed (%v): some of them stay submitted", undo.Written, undo.Undo)
	case errors.As(err, &kept):
		return fmt.Sprintf("the labels already written were taken back except %d whose items a lead adjudicated or exported meanwhile (%s)",
			len(kept.Items), strings.Join(kept.Items, ", "))
	}
	return "nothing imported"
}
