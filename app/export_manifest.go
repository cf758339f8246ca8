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
	return out
}
