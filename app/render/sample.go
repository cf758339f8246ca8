package render

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/sampling"
)

// SamplePlan writes a sample's plan as text or JSON. It is long
// because the text lists each part of the plan (strata, allocation,
// reviewers, notes) in its own lines.
func SamplePlan(w io.Writer, p app.SamplePlan, asJSON bool) error {
	if asJSON {
		return IndentJSON(w, p)
	}
	if p.Sampled < p.Requested {
		fmt.Fprintf(w, "only %d items match (asked for %d): sampling all of them\n", p.Matching, p.Requested)
	}
	how := "uniform"
	switch p.By {
	case "":
	case sampling.ByDisagreement:
		how = "ranked by disagreement"
	default:
		how = "by " + p.By + ", " + p.Alloc
	}
	fmt.Fprintf(w, "sampled %d of %d matching items (%s; %d duplicate inputs skipped, %d already sampled)\n",
		p.Sampled, p.Matching, how, p.Duplicates, p.Excluded)
	if p.SeedChosen {
		fmt.Fprintf(w, "seed %d (taken from the clock: repeat with --seed %d)\n", p.Seed, p.Seed)
	} else {
		fmt.Fprintf(w, "seed %d\n", p.Seed)
	}
	if p.Note != "" {
		fmt.Fprintf(w, "note: %s\n", p.Note)
	}
	if p.By != "" && p.By != sampling.ByDisagreement {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "STRATUM\tAVAILABLE\tSAMPLED")
		for _, s := range p.Strata {
			fmt.Fprintf(tw, "%s\t%d\t%d\n", s.Name, s.Available, s.Sampled)
		}
		tw.Flush()
	}
	if len(p.Ranking) > 0 {
		var tool, args, none int
		for _, r := range p.Ranking {
			switch {
			case r.Tool > 0:
				tool++
			case r.Call > 0:
				args++
			default:
				none++
			}
		}
		fmt.Fprintf(w, "ranked by disagreement among %d runs: %d sampled items where they chose different tools, %d the same tools with different arguments, %d where they agree or fewer than two runs have a line\n",
			runsCount(p), tool, args, none)
		if p.Unranked > 0 {
			fmt.Fprintf(w, "note: %d ids in the runs are not stored items (ignored)\n", p.Unranked)
		}
		if j := p.Judge; j != nil {
			split := 0
			for _, r := range p.Ranking {
				if r.JudgeSplit() > 0 {
					split++
				}
			}
			fmt.Fprintf(w, "and by the %s judge's split vote (%s, %d samples): %d of %d ranked items judged (%d requests, %d cached); its votes split on %d sampled items\n",
				j.Kind, j.Model, j.Samples, j.Judged, j.Items, j.Stats.Requests, j.Stats.CacheHits, split)
		}
	}
	if p.Source != "" {
		verb := "imported"
		if p.DryRun {
			verb = "would be imported"
		}
		if si := p.SourceInfo; si != nil && si.BytesTotal == 0 { // a database: sampled inside it
			fmt.Fprintf(w, "ranked %d model calls inside %s (%s); fetched %d (%.1f MB); the %d holding sampled items %s\n",
				si.Calls, p.Source, si.Layout, si.Requests, float64(si.BytesRead)/1e6, p.Imported, verb)
		} else if si != nil {
			fmt.Fprintf(w, "scanned %d model calls in %d rows of %s (%s, %d files; read %.1f of %.1f MB); the %d holding sampled items %s\n",
				si.Calls, si.Rows, p.Source, si.Layout, len(si.Files), float64(si.BytesRead)/1e6, float64(si.BytesTotal)/1e6, p.Imported, verb)
		} else {
			fmt.Fprintf(w, "read %s from %s (%d invalid skipped); the %d holding sampled items %s\n",
				CountNoun(p.Read, "trace", "traces"), p.Source, p.Invalid, p.Imported, verb)
		}
	}
	verb := "created"
	if p.DryRun {
		verb = "would be created"
	}
	if len(p.Reviewers) == 0 {
		fmt.Fprintf(w, "batch %s %s with %s (no reviewers given)\n", p.Batch, verb, CountNoun(p.Sampled, "item", "items"))
	} else {
		fmt.Fprintf(w, "batch %s %s with %s, %s per item\n", p.Batch, verb, CountNoun(p.Sampled, "item", "items"), CountNoun(p.PerItem, "reviewer", "reviewers"))
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "REVIEWER\tITEMS")
		for _, r := range p.Reviewers {
			fmt.Fprintf(tw, "%s\t%d\n", r.Name, r.Items)
		}
		tw.Flush()
	}
	if p.DryRun {
		fmt.Fprintln(w, "dry run: nothing written")
	}
	return nil
}

// runsCount is how many runs the ranking used (the most any item had).
func runsCount(p app.SamplePlan) int {
	n := 0
	for _, r := range p.Ranking {
		n = max(n, r.Runs)
	}
	return n
}

// StalePlan writes what sample --stale put back (or would, with
// --dry-run), as text or JSON.
func StalePlan(w io.Writer, p app.StalePlan, asJSON bool) error {
	if asJSON {
		return IndentJSON(w, p)
	}
	fmt.Fprintf(w, "%d of %d items of %s are stale against %s\n", p.Stale, p.Items, p.Gold, p.Tools)
	if p.Stale == 0 {
		fmt.Fprintln(w, "nothing to review again")
		return nil
	}
	verb := "created"
	if p.DryRun {
		verb = "would be created"
	}
	if len(p.Reviewers) == 0 {
		fmt.Fprintf(w, "batch %s %s with %d items (no reviewers given)\n", p.Batch, verb, p.Stale)
		return nil
	}
	fmt.Fprintf(w, "batch %s %s with %d items, %d reviewers per item; each starts from the old answer\n", p.Batch, verb, p.Stale, p.PerItem)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "REVIEWER\tITEMS")
	for _, r := range p.Reviewers {
		fmt.Fprintf(tw, "%s\t%d\n", r.Name, r.Items)
	}
	return tw.Flush()
}
