package render

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/goldtrace/goldtrace/app"
)

// DemoProject writes what goldtrace demo made (as JSON, or as text ending
// in the commands to continue, gt being how to run goldtrace).
func DemoProject(w io.Writer, p app.DemoProject, asJSON bool, gt string) error {
	if asJSON {
		return IndentJSON(w, p)
	}
	work := p.Work
	fmt.Fprintf(w, "demo project in %s\n", p.Dir)
	fmt.Fprintf(w, "  database: %s\n", p.DB)
	fmt.Fprintf(w, "  traces:   %d synthetic support-agent conversations (seed %d)\n", p.Traces, p.Seed)
	fmt.Fprintf(w, "  items:    %d decision points: %d with tool calls, %d without\n", p.Items, p.ItemsWithCalls, p.ItemsNoCalls)
	fmt.Fprintf(w, "            (%d deliberately wrong)\n", p.DeliberateWrong)
	fmt.Fprintf(w, "  users:    %s (reviewers), %s (lead)\n", strings.Join(p.Reviewers, ", "), strings.Join(p.Leads, ", "))
	fmt.Fprintf(w, "  batch:    %s, %d items for alice and bob; bob labeled %d, alice %d\n",
		work.Batch, work.Items, work.BobLabeled, work.AliceLabeled)
	fmt.Fprintf(w, "            %d left for alice; %d agreed, %d disputed, %d adjudicated\n",
		work.AliceLeft, work.Agreed, work.Disputed, work.Adjudicated)
	fmt.Fprintf(w, "  guide:    %s\n", work.Guide)
	fmt.Fprintf(w, "\nnext (as printed, in a POSIX shell):\n")
	for _, l := range demoNextLines(gt, p) {
		fmt.Fprintln(w, l)
	}
	return nil
}

// demoNextLines are the commands printed to continue the demo, each
// runnable as printed (a test runs them) and short: the project directory
// is named once, in D, so no command is split mid-path by a terminal's
// wrapping. A comment that does not fit beside its command goes above it.
func demoNextLines(gt string, p app.DemoProject) []string {
	work := p.Work
	dataset := app.DemoDataset
	exportCmd := fmt.Sprintf("export %s --as carol --out \"$D\"", dataset)
	exportWhy := "the first version of the gold"
	if work.Open > 0 {
		exportCmd += " --allow-partial"
		exportWhy = fmt.Sprintf("a partial version: %d of %d items are not gold yet", work.Open, work.Items)
	}
	steps := []struct{ cmd, why string }{
		{"label --as alice", "label the rest, blind"},
		{"label --as bob", "bob's queue (he is done)"},
		{"status --as carol", "progress and agreement"},
		{"items --as carol --state disputed", "the disputed items, by id"},
		{"adjudicate --as carol", "the lead resolves disputes"},
		{"dashboard --as carol", "production model vs gold so far"},
		{exportCmd, exportWhy},
		{fmt.Sprintf("score --gold %s@v%d", dataset, work.NextVersion), "grade the production model"},
	}
	lines := []string{
		"  D=" + app.ShellQuote(p.Dir),
		`  export GOLDTRACE_DB="$D/goldtrace.db"`,
	}
	// Every command reads "goldtrace …", as in the README: when that is not
	// what the shell finds, a function names this goldtrace (its path in a
	// variable of its own, so no line is long because of it).
	switch {
	case gt == "goldtrace":
	case strings.HasPrefix(gt, "go run"):
		checkout, err := os.Getwd()
		if err != nil {
			checkout = "."
		}
		lines = append(lines, "  # this checkout (go install ./cmd/goldtrace makes goldtrace a command)",
			"  C="+app.ShellQuote(checkout),
			`  goldtrace() { (cd "$C" && go run ./cmd/goldtrace "$@"); }`)
	default:
		lines = append(lines, "  # this goldtrace (not the one on PATH)", "  B="+gt, `  goldtrace() { "$B" "$@"; }`)
	}
	gt = "goldtrace"
	const width, maxCol = 80, 48
	col := 0
	for _, s := range steps {
		if n := len([]rune("  " + gt + " " + s.cmd)); n <= maxCol {
			col = max(col, n)
		}
	}
	for _, s := range steps {
		cmd := "  " + gt + " " + s.cmd
		if line := fmt.Sprintf("%-*s  # %s", col, cmd, s.why); len([]rune(line)) <= width {
			lines = append(lines, line)
			continue
		}
		lines = append(lines, "  # "+s.why, cmd)
	}
	return lines
}
