package render

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/goldtrace/goldtrace/app"
)

// LabelsImported writes what labels import did, as text or JSON: a
// reviewer's summary counts the labels only (whether the items agreed is
// for leads, and app leaves it out for them).
func LabelsImported(w io.Writer, rep app.LabelsImportReport, asJSON bool) error {
	if asJSON {
		return IndentJSON(w, rep)
	}
	fmt.Fprintf(w, "imported %s from %s", CountNoun(rep.Imported, "label", "labels"), rep.File)
	var notes []string
	if rep.Agreed != nil {
		notes = append(notes, fmt.Sprintf("%s agreed, %d disputed", CountNoun(*rep.Agreed, "item", "items"), *rep.Disputed))
	}
	if len(rep.Invalid) > 0 {
		notes = append(notes, fmt.Sprintf("%d invalid skipped", rep.Skipped))
	}
	if len(notes) > 0 {
		fmt.Fprintf(w, " (%s)", strings.Join(notes, "; "))
	}
	_, err := fmt.Fprintln(w)
	return err
}

// GuideLog writes the guide's versions, newest (the one in force) first,
// with how many labels were made under each, as a table or JSON.
func GuideLog(w io.Writer, log []app.GuideVersion, used map[string]int, asJSON bool) error {
	if asJSON {
		type entry struct {
			app.GuideVersion
			InForce bool `json:"in_force"`
			Labels  int  `json:"labels"`
		}
		out := make([]entry, len(log))
		for i, v := range log {
			out[i] = entry{v, i == 0, used[v.ID]}
		}
		return IndentJSON(w, out)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "VERSION\tID\tAUTHOR\tSET AT\tLABELS\t")
	for i, v := range log {
		mark := ""
		if i == 0 {
			mark = "in force"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\t%s\n", v.Seq, v.ID, v.Author, v.CreatedAt, used[v.ID], mark)
	}
	return tw.Flush()
}
