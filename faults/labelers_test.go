package faults

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// startLabelers starts a label screen for each of reviewers and waits
// until every one shows its queue.
func startLabelers(t *testing.T, db string, reviewers []string) []*labeler {
	t.Helper()
	var labelers []*labeler
	for _, r := range reviewers {
		labelers = append(labelers, startLabeler(t, db, r))
	}
	for _, l := range labelers {
		l.waitFor(regexpMust(`\d+/\d+`), 30*time.Second)
	}
	return labelers
}

// labelInTurn has every labeler submit perReviewer labels, all at once,
// each waiting for its screen to acknowledge one before typing the next.
func labelInTurn(labelers []*labeler, perReviewer int) {
	var wg sync.WaitGroup
	for i, l := range labelers {
		i, l := i, l
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; k < perReviewer; k++ {
				l.keys(noToolLabel(fmt.Sprintf("reviewer %d label %d", i, k)))
				deadline := time.Now().Add(30 * time.Second)
				for len(l.acknowledged()) < k+1 && time.Now().Before(deadline) {
					time.Sleep(20 * time.Millisecond)
				}
			}
		}()
	}
	wg.Wait()
}

// finishLabelers quits every labeler (labelers[i] runs as reviewers[i])
// and checks what they showed: no raw SQLite text, perReviewer labels
// acknowledged each, every acknowledged label stored. It returns how many
// busy or locked messages they showed and the labels acknowledged and
// stored.
func finishLabelers(t *testing.T, db string, labelers []*labeler, reviewers []string, perReviewer int) (busyShown, acked, stored int) {
	t.Helper()
	for i, l := range labelers {
		text := l.text()
		busyShown += strings.Count(text, "busy") + strings.Count(text, "locked")
		noRawSQLite(t, text)
		l.keys("\x03")
		l.wait(20 * time.Second)
		for _, item := range l.acknowledged() {
			acked++
			if labelStored(t, db, item, reviewers[i]) {
				stored++
			} else {
				t.Errorf("acknowledged label of %s by %s is not stored", item, reviewers[i])
			}
		}
		if n := len(l.acknowledged()); n != perReviewer {
			t.Errorf("%s: %d labels acknowledged, want %d", reviewers[i], n, perReviewer)
		}
	}
	return busyShown, acked, stored
}

// writeAgreedLabels writes a labels file in which every reviewer gives
// each item the same no-call label, so the items become gold on import.
func writeAgreedLabels(t *testing.T, file string, items []string, reviewers ...string) {
	t.Helper()
	var b strings.Builder
	for _, item := range items {
		for _, r := range reviewers {
			line, _ := json.Marshal(map[string]any{"item": item, "reviewer": r, "decision": "no_call", "calls": []any{},
				"rationale": "nothing to look up", "seconds": 5})
			b.Write(append(line, '\n'))
		}
	}
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
