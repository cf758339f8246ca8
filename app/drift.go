package app

import (
	"context"

	"github.com/goldtrace/goldtrace/catalogue"
	"github.com/goldtrace/goldtrace/trace"
)

// Drift checks the gold named by ref (NAME@vN from the store, as the
// actor of src may read it, or a gold file) against a current tool
// catalogue (catalogue.Drift); toolsName is where the catalogue came from.
func Drift(ctx context.Context, src GoldSource, ref string, current []trace.Tool, toolsName string) (catalogue.Report, error) {
	recs, err := ReadGold(ctx, src, ref, 0)
	if err != nil {
		return catalogue.Report{}, err
	}
	r := catalogue.Drift(recs, current)
	r.Gold, r.Tools = ref, toolsName
	return r, nil
}
