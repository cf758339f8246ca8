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
//
// Only the totals of the matrix matter: Σ_{c≠k} o_ck sums, per unit,
// (m_u² − Σ_c a_c²) / (m_u − 1) where a_c counts the unit's values of class
// c, and Σ_{c≠k} n_c·n_k = n² − Σ_c n_c². Summing in unit order (no map
// iteration) makes the result the same on every run.
func KrippendorffNominal(units [][]string) Alpha {
	nc := map[string]int{}
	var out Alpha
	var disagree float64
	var counts []int // per value of the unit: how often it occurs (0 after its first)
	for _, u := range units {
		m := len(u)
		if m < 2 {
			continue
		}
		out.Units++
		out.Values += m
		counts = counts[:0]
		for range m {
			counts = append(counts, 0)
		}
		same := 0 // Σ_c a_c²
		for i, v := range u {
			nc[v]++
			for j := 0; j <= i; j++ {
				if u[j] == v {
					counts[j]++
					break
				}
			}
		}
		for _, a := range counts {
			same += a * a
		}
		disagree += float64(m*m-same) / float64(m-1)
	}
	if out.Units == 0 {
		return out
	}
	n := out.Values
	expected := n * n
	for _, a := range nc {
		expected -= a * a
	}
	if expected == 0 {
		return out
	}
	v := 1 - float64(n-1)*disagree/float64(expected)
	out.Alpha = &v
	return out
}
