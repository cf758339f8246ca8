package app

import (
	"fmt"

	"github.com/goldtrace/goldtrace/dataset"
	"github.com/goldtrace/goldtrace/review"
)

// exportManifest makes the manifest of a new version (info has the parent
// version's record hashes), with the agreement of the exported items' labels.
func exportManifest(info dataset.VersionInfo, content dataset.Content, labels *async[[][]review.Label]) (dataset.Manifest, []byte, error) {
	all, err := labels.wait()
	if err != nil {
		return dataset.Manifest{}, nil, fmt.Errorf("agreement: %w", err)
	}
	exported := make([][]review.Label, 0, min(len(all), len(content.Lines)))
	for _, ls := range all {
		if _, ok := content.Hashes[ls[0].Item]; ok {
			exported = append(exported, ls)
		}
	}
	info.Labels = labelAgreement(exported)
	m := dataset.NewManifest(info, content)
	b, err := dataset.EncodeManifest(m)
	return m, b, err
}

// labelAgreement is the manifest's agreement summary of the reviewers'
// labels on the exported items: the share of items whose labels agree
// completely, kappa on the first tool (Cohen's for one reviewer pair; Light's,
// the mean of the pairs' Cohen's kappas, for more) and Krippendorff's alpha.
func labelAgreement(items [][]review.Label) dataset.LabelAgreement {
	var out dataset.LabelAgreement
	agreed, compared := 0, 0
	for _, labels := range items {
		if len(labels) < 2 {
			continue
		}
		compared++
		if review.Compare(labels).Agreed {
			agreed++
		}
	}
	if compared > 0 {
		p := float64(agreed) / float64(compared)
		out.PercentAgreement = &p
	}
	a := review.Agree(items)
	var sum float64
	n := 0
	for _, pair := range a.Pairs {
		if pair.Kappa.Kappa != nil {
			sum += *pair.Kappa.Kappa
			n++
		}
	}
	if n > 0 {
		k := sum / float64(n)
		out.KappaTool = &k
	}
	out.AlphaTool = a.Alpha.Alpha
	out.Reliability = manifestReliability(a)
	return out
}

// manifestReliability is review's reliability in the manifest's types.
func manifestReliability(a review.Agreement) *dataset.Reliability {
	r := a.Reliability
	iv := func(e review.Estimate) dataset.Interval {
		return dataset.Interval{Value: e.Value, Low: e.Low, High: e.High}
	}
	out := &dataset.Reliability{Replicates: r.Replicates, Seed: r.Seed, Kappa: iv(r.Kappa), AC1: iv(r.AC1), Alpha: iv(r.Alpha),
		PerTool: make([]dataset.ToolInterval, len(r.PerTool)), ArgPaths: make([]dataset.ArgPathShare, len(a.ArgPaths))}
	for i, t := range r.PerTool {
		out.PerTool[i] = dataset.ToolInterval{Tool: t.Tool, Kappa: iv(t.Kappa), AC1: iv(t.AC1), Alpha: iv(t.Alpha)}
	}
	for i, p := range a.ArgPaths {
		out.ArgPaths[i] = dataset.ArgPathShare{Tool: p.Tool, Path: p.Path, Pairs: p.Pairs, Agreed: p.Agreed}
	}
	return out
}
