package faults

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestConcurrentLabelersBulkSampleAndReaders runs 8 reviewers labeling at
// once while a lead samples a batch of 2500 items (5000 assignments) and readers ask for status,
// traces and batches over and over: no reviewer or reader is shown a busy
// or locked error, every acknowledged label is stored, and no one held the
// write lock long.
func TestConcurrentLabelersBulkSampleAndReaders(t *testing.T) {
	t.Parallel()
	reviewers := []string{"r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8"}
	const perReviewer = 8
	db, _ := project(t, t.TempDir(), 1500, 4*len(reviewers)*perReviewer/2, reviewers...)
	probe := startLockProbe(t, db)

	labelers := startLabelers(t, db, reviewers)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	// The bulk writer: a sample of thousands of items for everyone.
	var sampleRes result
	var sampleTook time.Duration
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		start := time.Now()
		sampleRes = run(t, db, "sample", "--n", "2500", "--seed", "2", "--reviewers", strings.Join(reviewers, ","))
		sampleTook = time.Since(start)
	}()
	// Readers.
	var rmu sync.Mutex
	var reads int
	var slowest time.Duration
	var readerErrs []string
	for _, args := range [][]string{{"status"}, {"traces"}, {"batches"}} {
		args := args
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				start := time.Now()
				r := run(t, db, args...)
				rmu.Lock()
				reads++
				slowest = max(slowest, time.Since(start))
				if r.code != 0 {
					readerErrs = append(readerErrs, fmt.Sprintf("%v: exit %d: %s", args, r.code, r.err))
				}
				rmu.Unlock()
				noRawSQLite(t, r.err)
			}
		}()
	}
	// The reviewers label, each waiting for every acknowledgement.
	labelInTurn(labelers, perReviewer)
	<-sampled
	close(stop)
	wg.Wait()
	longest, probeBusy := probe.finish()

	busyShown, acked, stored := finishLabelers(t, db, labelers, reviewers, perReviewer)
	if sampleRes.code != 0 {
		t.Errorf("bulk sample: exit %d: %s", sampleRes.code, sampleRes.err)
	}
	noRawSQLite(t, sampleRes.err)
	for _, e := range readerErrs {
		t.Error(e)
	}
	if busyShown > 0 {
		t.Errorf("reviewers were shown %d busy/locked messages", busyShown)
	}
	if probeBusy > 0 {
		t.Errorf("the lock probe gave up %d times (waited over 15 s)", probeBusy)
	}
	checkPasses(t, db)
	t.Logf("FIGURES concurrency: 8 labelers, %d labels acknowledged, %d stored; bulk sample of 2500 items took %s; %d reads, slowest %s; longest write-lock wait seen by a probe %s; busy errors seen %d",
		acked, stored, sampleTook.Round(time.Millisecond), reads, slowest.Round(time.Millisecond), longest.Round(time.Millisecond), busyShown+probeBusy+len(readerErrs))
	addLabels(acked, stored)
	addLockWait(longest, busyShown+probeBusy+len(readerErrs))
}
