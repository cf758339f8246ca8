package review

// Alpha is Krippendorff's alpha for nominal data.
type Alpha struct {
	// Units is the number of pairable units (two or more values);
	// Values is the number of values in them (n).
	Units  int `json:"units"`
	Values int `json:"values"`
	// Alpha is nil when undefined: no pairable unit, or every pairable value
	// is the same class (expected disagreement De = 0).
	Alpha *float64 `json:"alpha"`
}

// KrippendorffNominal computes Krippendorff's alpha (nominal metric) from
// units[u] = the values the coders gave unit u, missing values left out, so
// any number of coders and missing data are handled. Units with fewer than
// two values are not pairable and are ignored.
//
// With the coincidence matrix o_ck = Σ_u (number of c–k value pairs in u) /
// (m_u − 1), n_c = Σ_k o_ck and n = Σ_c n_c:
//
//	α = 1 − (n − 1) · Σ_{c≠k} o_ck / Σ_{c≠k} n_c·n_k
func KrippendorffNominal(units [][]string) Alpha {
	type pair struct{ c, k string }
	o := map[pair]float64{}
	nc := map[string]float64{}
	var out Alpha
	for _, u := range units {
		m := len(u)
		if m < 2 {
			continue
		}
		out.Units++
		out.Values += m
		counts := map[string]int{}
		for _, v := range u {
			counts[v]++
		}
		for c, a := range counts {
			nc[c] += float64(a)
			for k, b := range counts {
				if c == k {
					continue
				}
				o[pair{c, k}] += float64(a*b) / float64(m-1)
			}
		}
	}
	if out.Units == 0 {
		return out
	}
	n := float64(out.Values)
	var disagree float64
	for _, v := range o {
		disagree += v
	}
	var expected float64
	for c, a := range nc {
		for k, b := range nc {
			if c != k {
				expected += a * b
			}
		}
	}
	if expected == 0 {
		return out
	}
	v := 1 - (n-1)*disagree/expected
	out.Alpha = &v
	return out
}
