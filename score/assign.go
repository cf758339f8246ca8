package score

// assigner solves the square assignment problem (Hungarian algorithm with
// potentials, O(k³)) and keeps its buffers between calls.
type assigner struct {
	u, v   []int64
	p, way []int
	minv   []int64
	used   []bool
	colOf  []int // result: row i (0-based) is assigned column colOf[i]
}

const costInf = int64(1) << 50

// solve finds the permutation minimising the sum of cost[i*k+j] and fills
// colOf. cost is row-major k×k.
func (a *assigner) solve(cost []int64, k int) {
	a.u = grow(a.u, k+1)
	a.v = grow(a.v, k+1)
	a.minv = grow(a.minv, k+1)
	a.p = growInt(a.p, k+1)
	a.way = growInt(a.way, k+1)
	a.colOf = growInt(a.colOf, k)
	if cap(a.used) < k+1 {
		a.used = make([]bool, k+1)
	}
	a.used = a.used[:k+1]
	for i := range a.u {
		a.u[i], a.v[i], a.p[i], a.way[i] = 0, 0, 0, 0
	}
	for i := 1; i <= k; i++ {
		a.p[0] = i
		j0 := 0
		for j := range a.minv {
			a.minv[j] = costInf * 4
			a.used[j] = false
		}
		for {
			a.used[j0] = true
			i0 := a.p[j0]
			delta := costInf * 4
			j1 := 0
			for j := 1; j <= k; j++ {
				if a.used[j] {
					continue
				}
				cur := cost[(i0-1)*k+(j-1)] - a.u[i0] - a.v[j]
				if cur < a.minv[j] {
					a.minv[j] = cur
					a.way[j] = j0
				}
				if a.minv[j] < delta {
					delta = a.minv[j]
					j1 = j
				}
			}
			for j := 0; j <= k; j++ {
				if a.used[j] {
					a.u[a.p[j]] += delta
					a.v[j] -= delta
				} else {
					a.minv[j] -= delta
				}
			}
			j0 = j1
			if a.p[j0] == 0 {
				break
			}
		}
		for j0 != 0 {
			j1 := a.way[j0]
			a.p[j0] = a.p[j1]
			j0 = j1
		}
	}
	for j := 1; j <= k; j++ {
		a.colOf[a.p[j]-1] = j - 1
	}
}

func grow(s []int64, n int) []int64 {
	if cap(s) < n {
		return make([]int64, n)
	}
	return s[:n]
}

func growInt(s []int, n int) []int {
	if cap(s) < n {
		return make([]int, n)
	}
	return s[:n]
}
