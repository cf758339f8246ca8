package faults

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"
)

// figures adds up what the tests measured, for the summary TestMain prints
// after the suite (the closing note quotes it): kills survived,
// labels acknowledged against stored, the longest wait for the write lock
// seen by a probe writer (the longest anyone held it meanwhile), and busy
// or locked errors seen by users.
var figures = struct {
	sync.Mutex
	kills         map[string]int
	acked, stored int
	longestWait   time.Duration
	busy          int
	ran           bool
}{kills: map[string]int{}}

func addKills(what string, n int) {
	figures.Lock()
	defer figures.Unlock()
	figures.kills[what] += n
	figures.ran = true
}

func addLabels(acked, stored int) {
	figures.Lock()
	defer figures.Unlock()
	figures.acked += acked
	figures.stored += stored
	figures.ran = true
}

func addLockWait(longest time.Duration, busy int) {
	figures.Lock()
	defer figures.Unlock()
	figures.longestWait = max(figures.longestWait, longest)
	figures.busy += busy
	figures.ran = true
}

// printFigures writes the summary line, if any test reported.
func printFigures(w io.Writer) {
	figures.Lock()
	defer figures.Unlock()
	if !figures.ran {
		return
	}
	var kills []string
	total := 0
	for what, n := range figures.kills {
		kills = append(kills, fmt.Sprintf("%s %d", what, n))
		total += n
	}
	sort.Strings(kills)
	fmt.Fprintf(w, "FAULT SUITE: %d kills survived (%s); labels acknowledged %d, stored %d (an acknowledged one missing fails its test); longest write-lock wait seen by a probe %s; busy errors seen %d\n",
		total, strings.Join(kills, ", "), figures.acked, figures.stored, figures.longestWait.Round(time.Millisecond), figures.busy)
}
