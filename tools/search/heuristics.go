package search

import (
	"math"
	"math/bits"
)

// tieTol is the relative tolerance under which two heuristic scores count
// as equal, so that sums of the same ratios taken in a different order
// still tie and the lower column index wins.
const tieTol = 1e-9

func nearlyEqual(a, b float64) bool {
	return math.Abs(a-b) <= tieTol*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

func parity(x uint64) uint64 { return uint64(bits.OnesCount64(x) & 1) }

// ratio is min(x, y) / max(x, y), Eq. 11 and 12.
func ratio(x, y int) float64 {
	if x > y {
		x, y = y, x
	}
	if y == 0 {
		return 0
	}
	return float64(x) / float64(y)
}

// gatesBefore is the tie-break of Givargis and MIH among columns of equal
// score: the one needing fewer XOR gates first, so a single bit (i, i)
// before any pair (i, j), i < j; among singles the lower bit, among
// pairs the earlier in Table 3's order ((0,1), (0,2), …, (1,2), …).
func gatesBefore(cols []column, a, b int) bool {
	sa, sb := cols[a].i == cols[a].j, cols[b].i == cols[b].j
	if sa != sb {
		return sa
	}
	return a < b
}

// configOf turns selected column indices (bank bit 0 first) into a Config.
func configOf(function string, cols []column, sel []int) Config {
	cfg := Config{Function: function}
	for _, ci := range sel {
		c := cols[ci]
		if function == BitwisePerm {
			cfg.Bits = append(cfg.Bits, []int{c.i})
		} else {
			cfg.Bits = append(cfg.Bits, []int{c.i, c.j})
		}
	}
	return cfg
}

// givargis is the Givargis heuristic extended to many reference sets
// (§5.2.1): every access is one set R with its own quality Q_i^R (Eq. 11)
// per candidate column; each step takes the column of the highest ΣR Q_i^R
// and multiplies every set's remaining
// qualities by that set's correlation C_bi^R with it (Eq. 12); equal sums
// are broken by gatesBefore (a single bit before a pair). Columns are
// single bits (bitwise_perm) or the n(n+1)/2 bit pairs of Table 3
// (bitwise_xor); the bank bits are taken in selection order.
func givargis(p *Prepared, function string) Config {
	cols := columnSet(p.N, function)
	nc := len(cols)
	U := p.Unique()
	q := make([]float64, U*nc)
	for u := 0; u < U; u++ {
		as := p.addrs[p.off[u]:p.off[u+1]]
		for i, c := range cols {
			z := 0
			for _, a := range as {
				z += int(1 - parity(a&c.vec))
			}
			q[u*nc+i] = ratio(z, len(as)-z)
		}
	}
	used := make([]bool, nc)
	var sel []int
	for len(sel) < p.M {
		best, bestQ := -1, 0.0
		for i := 0; i < nc; i++ {
			if used[i] {
				continue
			}
			var sum float64
			for u := 0; u < U; u++ {
				sum += float64(p.weight[u]) * q[u*nc+i]
			}
			if best < 0 || (sum > bestQ && !nearlyEqual(sum, bestQ)) ||
				(nearlyEqual(sum, bestQ) && gatesBefore(cols, i, best)) {
				best, bestQ = i, sum
			}
		}
		used[best] = true
		sel = append(sel, best)
		bv := cols[best].vec
		for u := 0; u < U; u++ {
			as := p.addrs[p.off[u]:p.off[u+1]]
			for i, c := range cols {
				if used[i] {
					continue
				}
				d := bv ^ c.vec
				e := 0
				for _, a := range as {
					e += int(1 - parity(a&d))
				}
				q[u*nc+i] *= ratio(e, len(as)-e)
			}
		}
	}
	return configOf(function, cols, sel)
}

// mih is the Minimum Imbalance Heuristic extended to many reference sets
// (§5.2.2, Eq. 14 and 15): step s adds the column whose bit, on top of the
// s bits already chosen, gives the lowest Σ_R imbalance over the 2^(s+1)
// bins (ties: gatesBefore, a single bit before a pair, then the lower
// index). Bank bit 0 is the first choice.
func mih(p *Prepared, function string) Config {
	cols := columnSet(p.N, function)
	nc := len(cols)
	U := p.Unique()
	prefix := make([]uint32, len(p.addrs)) // bins of the bits chosen so far
	cnt := make([]int32, 1<<uint(p.M))
	used := make([]bool, nc)
	var sel []int
	for s := 0; s < p.M; s++ {
		B := int64(1) << uint(s+1)
		best, bestI := -1, 0.0
		for i, c := range cols {
			if used[i] {
				continue
			}
			var sum float64
			for u := 0; u < U; u++ {
				lo, hi := p.off[u], p.off[u+1]
				r := int64(hi - lo)
				// Σ_j |h_j − r/B| · B over all B bins: occupied bins from
				// the counts, each empty bin contributes r.
				var num int64
				occupied := int64(0)
				for k := lo; k < hi; k++ {
					bin := prefix[k] | uint32(parity(p.addrs[k]&c.vec))<<uint(s)
					cnt[bin]++
				}
				for k := lo; k < hi; k++ {
					bin := prefix[k] | uint32(parity(p.addrs[k]&c.vec))<<uint(s)
					if h := int64(cnt[bin]); h > 0 {
						num += abs64(h*B - r)
						occupied++
						cnt[bin] = 0
					}
				}
				num += (B - occupied) * r
				sum += float64(p.weight[u]) * float64(num) / float64(r*B)
			}
			if best < 0 || (sum < bestI && !nearlyEqual(sum, bestI)) ||
				(nearlyEqual(sum, bestI) && gatesBefore(cols, i, best)) {
				best, bestI = i, sum
			}
		}
		used[best] = true
		sel = append(sel, best)
		for k, a := range p.addrs {
			prefix[k] |= uint32(parity(a&cols[best].vec)) << uint(s)
		}
	}
	return configOf(function, cols, sel)
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}
