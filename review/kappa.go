package review

import "sort"

// Kappa is Cohen's kappa for two raters over the same N units:
// κ = (po − pe) / (1 − pe), with po the observed agreement and pe the
// agreement expected by chance from each rater's own class frequencies.
type Kappa struct {
	N        int     `json:"n"`
	Observed float64 `json:"observed"` // po
	Expected float64 `json:"expected"` // pe
	// Kappa is nil when undefined: with no units, or when pe = 1 (both
	// raters gave every unit the same single class, so chance explains all
	// agreement and κ is 0/0). Percent agreement (Observed) is then 1.
	Kappa *float64 `json:"kappa"`
}

// CohenKappa computes Cohen's kappa from paired classes: a[i] and b[i] are
// the two raters' classes for unit i. Extra entries of the longer slice are
// ignored.
func CohenKappa(a, b []string) Kappa {
	n := min(len(a), len(b))
	if n == 0 {
		return Kappa{}
	}
	countA := map[string]int{}
	countB := map[string]int{}
	agree := 0
	for i := 0; i < n; i++ {
		countA[a[i]]++
		countB[b[i]]++
		if a[i] == b[i] {
			agree++
		}
	}
	po := float64(agree) / float64(n)
	// Sum in class order: map order would change the last digits per run.
	classes := make([]string, 0, len(countA))
	for c := range countA {
		classes = append(classes, c)
	}
	sort.Strings(classes)
	var pe float64
	for _, c := range classes {
		pe += float64(countA[c]) / float64(n) * float64(countB[c]) / float64(n)
	}
	k := Kappa{N: n, Observed: po, Expected: pe}
	if pe < 1 {
		v := (po - pe) / (1 - pe)
		k.Kappa = &v
	}
	return k
}

// BinaryKappa is Cohen's kappa of a yes/no question from its 2×2 table:
// both yes, only the first rater yes, only the second yes, both no.
func BinaryKappa(yesYes, yesNo, noYes, noNo int) Kappa {
	n := yesYes + yesNo + noYes + noNo
	if n == 0 {
		return Kappa{}
	}
	f := float64(n)
	po := float64(yesYes+noNo) / f
	pe := float64(yesYes+yesNo)/f*float64(yesYes+noYes)/f + float64(noYes+noNo)/f*float64(yesNo+noNo)/f
	k := Kappa{N: n, Observed: po, Expected: pe}
	if pe < 1 {
		v := (po - pe) / (1 - pe)
		k.Kappa = &v
	}
	return k
}
