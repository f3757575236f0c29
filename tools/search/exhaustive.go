package search

import (
	"fmt"
	"math/bits"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// evaluator holds one worker's scratch space: a count per bank, zeroed
// again after every access by walking the access a second time.
type evaluator struct {
	p      *Prepared
	cnt    []uint32
	xs, ys []uint64 // bvxGroup's shifted windows of one access
}

func newEvaluator(p *Prepared) *evaluator {
	return &evaluator{p: p, cnt: make([]uint32, 1<<uint(p.M))}
}

// checkEvery is how many unique accesses pass between looks at the bound.
const checkEvery = 64

// bvxGroup counts, for one (k1, k2), the conflicts of every mask in
// masks at once: each access's two shifted windows are computed once and
// stay in L1 while all masks run over them. totals[j] receives mask j's
// count. The group stops early once every mask's running total exceeds
// bound() (see bvx); such totals are above the bound and never chosen.
func (e *evaluator) bvxGroup(k1, k2 uint, masks []bvCand, totals []int64, bound func() int64) {
	p := e.p
	bm := uint64(1)<<uint(p.M) - 1
	k1 &= 63
	k2 &= 63
	clear(totals)
	small := p.M <= 6
	for u, w := range p.weight {
		as := p.addrs[p.off[u]:p.off[u+1]]
		if cap(e.xs) < len(as) {
			e.xs = make([]uint64, len(as))
			e.ys = make([]uint64, len(as))
		}
		xs, ys := e.xs[:len(as)], e.ys[:len(as)]
		small := small && len(as) < 256 // uint8 counters cannot overflow
		for i, a := range as {
			xs[i] = (a >> k1) & bm
			ys[i] = (a >> k2) & bm
		}
		for j, c := range masks {
			mask := uint64(c.mask)
			var deg uint32
			if small {
				// One pass over a stack array of 64 counters, no bounds
				// checks (bank & 63), no reset pass.
				var cnt [64]uint8
				for i, x := range xs {
					b := (x ^ (ys[i] & mask)) & 63
					c := cnt[b] + 1
					cnt[b] = c
					deg = max(deg, uint32(c))
				}
			} else {
				for i, x := range xs {
					b := x ^ (ys[i] & mask)
					c := e.cnt[b] + 1
					e.cnt[b] = c
					deg = max(deg, c)
				}
				for i, x := range xs {
					e.cnt[x^(ys[i]&mask)] = 0
				}
			}
			totals[j] += w * int64(deg-1)
		}
		if u%checkEvery == checkEvery-1 {
			if b := bound(); b >= 0 && slices.Min(totals) > b {
				return
			}
		}
	}
}

// access is weight·(degree − 1) of unique access u under the columns.
func (e *evaluator) access(u int, cols []uint64) int64 {
	p := e.p
	as := p.addrs[p.off[u]:p.off[u+1]]
	var deg uint32
	for _, a := range as {
		b := BankOf(cols, a)
		c := e.cnt[b] + 1
		e.cnt[b] = c
		deg = max(deg, c)
	}
	for _, a := range as {
		e.cnt[BankOf(cols, a)] = 0
	}
	return p.weight[u] * int64(deg-1)
}

// columns counts the conflicts of the linear hash given by its columns
// (bank bit b = parity(a & cols[b])); bound as for bvx, negative for none.
func (e *evaluator) columns(cols []uint64, bound int64) int64 {
	p := e.p
	// A bit-vector permutation (bank bit b = address bit k+b; the mod 2^m
	// baseline is k = 0) takes its bank by a shift and a mask instead of m
	// parities: the conflicts-before count of every search is one.
	bank := func(a uint64) uint64 { return BankOf(cols, a) }
	if k, ok := contiguousBits(cols); ok {
		mask := uint64(1)<<uint(len(cols)) - 1
		bank = func(a uint64) uint64 { return a >> uint(k) & mask }
	}
	var total int64
	for u, w := range p.weight {
		as := p.addrs[p.off[u]:p.off[u+1]]
		var deg uint32
		for _, a := range as {
			b := bank(a)
			c := e.cnt[b] + 1
			e.cnt[b] = c
			deg = max(deg, c)
		}
		for _, a := range as {
			e.cnt[bank(a)] = 0
		}
		total += w * int64(deg-1)
		if bound >= 0 && total > bound {
			return total
		}
	}
	return total
}

// contiguousBits reports whether column b is the single address bit k+b
// for every b, and k.
func contiguousBits(cols []uint64) (int, bool) {
	if len(cols) == 0 || len(cols) > 63 || bits.OnesCount64(cols[0]) != 1 {
		return 0, false
	}
	k := bits.TrailingZeros64(cols[0])
	for b, c := range cols {
		if k+b > 63 || c != 1<<uint(k+b) {
			return 0, false
		}
	}
	return k, true
}

// Space is an enumerated candidate space of one function.
type Space struct {
	Function string
	N, M     int
	// bitvector_*: the candidates in enumeration order, packed (a space
	// may hold millions).
	vec []bvCand
	// bitwise_*: choose M of these columns (bit or bit pair indices into
	// cols), as combinations in lexicographic order.
	cols  []column
	count int64
}

// bvCand is a bit-vector candidate: k (perm) or k1, k2, mask (xor).
type bvCand struct {
	k1, k2 uint8
	mask   uint16
}

// column is one candidate bank bit of a bitwise function: a single
// address bit (i == j) or the XOR of two.
type column struct {
	i, j int
	vec  uint64
}

// Count is the number of candidates in the space.
func (s *Space) Count() int64 { return s.count }

// columnSet is the candidate bank bits of a bitwise function in the order
// of Table 3: single bits 0..n-1 for bitwise_perm; for bitwise_xor the
// n(n+1)/2 pairs (i, j), i <= j, row by row, (i, i) meaning bit i alone.
func columnSet(n int, function string) []column {
	var cols []column
	if function == BitwisePerm {
		for i := 0; i < n; i++ {
			cols = append(cols, column{i, i, bitAt(i)})
		}
		return cols
	}
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			cols = append(cols, column{i, j, bitAt(i) | bitAt(j)})
		}
	}
	return cols
}

// PrunedRange is the §5.1 pruning derived from the accesses: k1 ranges over
// the k of every access (its lowest varying address bit, the k of S = S0·2^k
// for a strided access), clamped to n−m so the window fits; k2 ranges from
// the smallest k to the largest MSB (the highest varying bit,
// ⌊log2((t−1)·S)⌋ for a strided access of t lanes from word 0), skipping
// k2 = k1; and mask only covers bits k2+b ≤ MSB.
type PrunedRange struct {
	K1     []int
	K2Min  int
	MSB    int
	Varied bool // false when no access has two distinct addresses
}

// Pruning returns the §5.1 pruning of the prepared accesses.
func (p *Prepared) Pruning() PrunedRange {
	if len(p.kSet) == 0 {
		return PrunedRange{}
	}
	r := PrunedRange{K2Min: p.kSet[0], MSB: min(p.highVar, p.N-1), Varied: true}
	for _, k := range p.kSet {
		k = min(k, p.N-p.M)
		if len(r.K1) == 0 || r.K1[len(r.K1)-1] != k {
			r.K1 = append(r.K1, k)
		}
	}
	return r
}

// NewSpace enumerates the candidates of function: for bitvector_xor the
// §5.1 pruned space of p (or, with full, all (n−m+1)·n·2^m); for
// bitvector_perm every k in 0..n−m; for the bitwise functions every choice
// of m distinct columns. p may be nil with full.
func NewSpace(p *Prepared, n, m int, function string, full bool) (*Space, error) {
	if err := CheckSizes(n, m); err != nil {
		return nil, err
	}
	s := &Space{Function: function, N: n, M: m}
	switch function {
	case BitvectorPerm:
		for k := 0; k <= n-m; k++ {
			s.vec = append(s.vec, bvCand{k1: uint8(k)})
		}
	case BitvectorXor:
		if full {
			if c := int64(n-m+1) * int64(n) << uint(m); c > MaxExhaustive {
				return nil, fmt.Errorf("bitvector_xor: the full space of %d candidates is too large (at most %d): drop --full", c, MaxExhaustive)
			}
			for k1 := 0; k1 <= n-m; k1++ {
				for k2 := 0; k2 < n; k2++ {
					for mask := uint64(0); mask < 1<<uint(m); mask++ {
						s.vec = append(s.vec, bvCand{uint8(k1), uint8(k2), uint16(mask)})
					}
				}
			}
			break
		}
		if p == nil {
			return nil, fmt.Errorf("the pruned space needs accesses")
		}
		r := p.Pruning()
		if !r.Varied {
			// Nothing can conflict: the plain mapping is as good as any.
			s.vec = []bvCand{{}}
			break
		}
		var c int64
		for _, k1 := range r.K1 {
			for k2 := r.K2Min; k2 <= r.MSB; k2++ {
				if k2 != k1 {
					c += 1 << uint(min(m, r.MSB-k2+1))
				}
			}
		}
		if c > MaxExhaustive {
			return nil, fmt.Errorf("bitvector_xor: the pruned space of %d candidates is too large (at most %d)", c, MaxExhaustive)
		}
		for _, k1 := range r.K1 {
			for k2 := r.K2Min; k2 <= r.MSB; k2++ {
				if k2 == k1 {
					continue
				}
				width := min(m, r.MSB-k2+1)
				for mask := 0; mask < 1<<uint(width); mask++ {
					s.vec = append(s.vec, bvCand{uint8(k1), uint8(k2), uint16(mask)})
				}
			}
		}
	case BitwisePerm, BitwiseXor:
		s.cols = columnSet(n, function)
		c := binomial(int64(len(s.cols)), int64(m))
		if c < 0 || c > MaxExhaustive {
			return nil, fmt.Errorf("%s: %s candidates are too many for an exhaustive search (at most %d): use --method givargis or mih",
				function, approx(binomialBig(int64(len(s.cols)), int64(m))), MaxExhaustive)
		}
		s.count = c
		return s, nil
	default:
		return nil, fmt.Errorf("unknown function %q: want bitvector_perm, bitvector_xor, bitwise_perm or bitwise_xor", function)
	}
	s.count = int64(len(s.vec))
	return s, nil
}

// combination returns the idx-th m-subset of 0..len(cols)-1 in
// lexicographic order.
func (s *Space) combination(idx int64) []int {
	n := int64(len(s.cols))
	m := int64(s.M)
	out := make([]int, 0, m)
	next := int64(0)
	for r := m; r > 0; r-- {
		for {
			c := binomial(n-next-1, r-1)
			if idx < c {
				break
			}
			idx -= c
			next++
		}
		out = append(out, int(next))
		next++
	}
	return out
}

// config is candidate idx as a Config.
func (s *Space) config(idx int64) Config {
	if s.vec != nil {
		v := s.vec[idx]
		if s.Function == BitvectorPerm {
			return Config{Function: BitvectorPerm, K: int(v.k1)}
		}
		return Config{Function: BitvectorXor, K1: int(v.k1), K2: int(v.k2), Mask: uint64(v.mask)}
	}
	cfg := Config{Function: s.Function}
	for _, ci := range s.combination(idx) {
		c := s.cols[ci]
		if s.Function == BitwisePerm {
			cfg.Bits = append(cfg.Bits, []int{c.i})
		} else {
			cfg.Bits = append(cfg.Bits, []int{c.i, c.j})
		}
	}
	return cfg
}

// less is the tie-break among candidates of equal conflicts: the cheaper
// hardware first (fewer XORed bank bits: a mask with fewer ones, fewer bit
// pairs), then the earlier candidate in enumeration order (smaller k1, k2,
// mask; lexicographically smaller bit choice).
func (s *Space) less(a, b int64) bool {
	ca, cb := s.xors(a), s.xors(b)
	if ca != cb {
		return ca < cb
	}
	return a < b
}

func (s *Space) xors(idx int64) int {
	if s.vec != nil {
		return bits.OnesCount16(s.vec[idx].mask)
	}
	n := 0
	for _, ci := range s.combination(idx) {
		if s.cols[ci].i != s.cols[ci].j {
			n++
		}
	}
	return n
}

// exhaustive evaluates every candidate of the space in parallel and keeps
// the one with the fewest conflicts (ties: Space.less). Workers share the
// best total found so far and abandon a candidate as soon as it is
// strictly worse, which never changes the answer.
func exhaustive(p *Prepared, function string, full bool) (*Result, error) {
	s, err := NewSpace(p, p.N, p.M, function, full)
	if err != nil {
		return nil, err
	}
	total := s.count
	if canSlice(s) {
		return slicedSearch(p, s), nil
	}
	results := make([]int64, total)
	var best atomic.Int64
	best.Store(-1)
	bound := func() int64 { return best.Load() }
	offer := func(c int64) {
		for {
			b := best.Load()
			if (b >= 0 && b <= c) || best.CompareAndSwap(b, c) {
				return
			}
		}
	}
	// Work items: runs of bit-vector candidates sharing (k1, k2), or
	// single bitwise candidates.
	var groups []int64 // start indices, then total
	if s.vec != nil {
		for i := range s.vec {
			if i == 0 || s.vec[i].k1 != s.vec[i-1].k1 || s.vec[i].k2 != s.vec[i-1].k2 {
				groups = append(groups, int64(i))
			}
		}
	}
	groups = append(groups, total)
	items := int64(len(groups) - 1)
	if s.vec == nil {
		items = total
	}
	var next atomic.Int64
	workers := min(int64(runtime.GOMAXPROCS(0)), items)
	var wg sync.WaitGroup
	for w := int64(0); w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ev := newEvaluator(p)
			for {
				g := next.Add(1) - 1
				if g >= items {
					return
				}
				if s.vec != nil {
					lo, hi := groups[g], groups[g+1]
					v := s.vec[lo]
					ev.bvxGroup(uint(v.k1), uint(v.k2), s.vec[lo:hi], results[lo:hi], bound)
					offer(slices.Min(results[lo:hi]))
					continue
				}
				c := ev.columns(s.config(g).Columns(p.N, p.M), bound())
				results[g] = c
				offer(c)
			}
		}()
	}
	wg.Wait()
	min := best.Load()
	bi := int64(-1)
	for i, c := range results {
		if c != min {
			continue
		}
		if bi < 0 || s.less(int64(i), bi) {
			bi = int64(i)
		}
	}
	return &Result{Config: s.config(bi), CandidatesEvaluated: total, ConflictsAfter: min}, nil
}

// slicedSearch is exhaustive over a bit-vector space with the bit-sliced
// engine: every row space's total, accesses wider than 64 distinct
// addresses counted directly, then the fewest conflicts (ties:
// Space.less).
func slicedSearch(p *Prepared, s *Space) *Result {
	pl := newSlicedPlan(s)
	totals, wide := slicedTotals(p, pl)
	if len(wide) > 0 {
		ev := newEvaluator(p)
		for slot, ci := range pl.repCand {
			cols := s.config(int64(ci)).Columns(p.N, p.M)
			for _, u := range wide {
				totals[slot] += ev.access(u, cols)
			}
		}
	}
	bi := int64(-1)
	var best int64
	for i := range s.vec {
		c := totals[pl.rep[i]]
		if bi < 0 || c < best || (c == best && s.less(int64(i), bi)) {
			bi, best = int64(i), c
		}
	}
	return &Result{Config: s.config(bi), CandidatesEvaluated: s.count, ConflictsAfter: best}
}
