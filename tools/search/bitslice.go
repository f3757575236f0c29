package search

import (
	"cmp"
	"math/bits"
	"runtime"
	"slices"
	"sync"
)

// Bit-sliced evaluation of bit-vector candidates (bitvector_perm and
// bitvector_xor), the exhaustive search's engine for accesses of at most
// 64 distinct addresses and at most maxSlicedBankBits bank bits.
//
// An access is held as lane masks: plane[i] has bit l set when lane l's
// address has bit i. Bank bit b of candidate (k1, k2, mask) is the
// functional f_b = a[k1+b] ^ mask_b·a[k2+b]; its lanes are plane[k1+b] or
// plane[k1+b] ^ plane[k2+b]. The lanes of one bank are an AND of one
// functional or its complement per bank bit, and the conflict degree is
// the largest popcount among them.
//
// Work is shared three ways, none of which changes a count:
//   - Candidates with the same row space (the span of their columns) map
//     every pair of addresses to equal or different banks alike, so they
//     have the same conflicts: one representative per row space is
//     evaluated (4,480 → 2,012 for n = 14, m = 5).
//   - A candidate's classes are the classes of m−1 of its functionals
//     (a "window" of m−1 consecutive bit positions along the diagonal
//     δ = k2 − k1), each split by the remaining one. A window starting at
//     an even position j serves the candidates of k1 = j (split by the bit
//     after it) and of k1 = j − 1 (split by the bit before it), so each
//     window's classes are built once for up to four candidates; the
//     windows' classes for all 2^(m−1) masks are built as one tree whose
//     upper levels the masks share.
//   - Splitting a class of n lanes gives max(c, n−c) ≥ ⌈n/2⌉, so the
//     largest class bounds the degree from below and only classes larger
//     than that bound need splitting.

// maxSlicedBankBits bounds the windows' trees (4^(m−1) classes).
const maxSlicedBankBits = 6

// maxSlicedLanes is the most distinct addresses of an access the lane
// masks hold.
const maxSlicedLanes = 64

// slicedWindow is one window: the classes of positions j..j+m−2 on
// diagonal delta under every needed mask pattern, and the candidates they
// serve.
type slicedWindow struct {
	j, delta int
	// needed has bit p set when mask pattern p (bit r for position j+r)
	// serves a candidate; prefixNeeded[r] the same for the patterns' low r
	// bits, so the tree skips subtrees no candidate uses.
	needed       uint64
	prefixNeeded [maxSlicedBankBits]uint64
	serve        []slicedServe // sorted by pattern
}

// slicedServe is one candidate served by a window: split the window's
// classes under pattern by the functional at position pos (pure when xor is
// false, else XORed with position pos+delta), and add to total slot.
type slicedServe struct {
	pattern uint32
	pos     int32
	xor     bool
	slot    int32
}

// slicedPlan is the data-independent part of the evaluation of a space.
type slicedPlan struct {
	n, m    int
	windows []slicedWindow
	slots   int // distinct row spaces
	rep     []int32
	// repCand[s] is a candidate of row space s.
	repCand []int32
}

// canSlice reports whether the bit-sliced engine handles the space.
func canSlice(s *Space) bool {
	return s.vec != nil && s.M <= maxSlicedBankBits
}

// rowSpaceKey is the reduced row-echelon basis of the columns: equal keys,
// equal row spaces.
func rowSpaceKey(cols []uint64) [MaxBankBits]uint64 {
	var basis [MaxBankBits]uint64
	r := 0
	work := append([]uint64(nil), cols...)
	for bit := 63; bit >= 0 && r < len(work); bit-- {
		piv := -1
		for i := r; i < len(work); i++ {
			if work[i]>>uint(bit)&1 == 1 {
				piv = i
				break
			}
		}
		if piv < 0 {
			continue
		}
		work[r], work[piv] = work[piv], work[r]
		for i := range work {
			if i != r && work[i]>>uint(bit)&1 == 1 {
				work[i] ^= work[r]
			}
		}
		r++
	}
	copy(basis[:], work[:r])
	return basis
}

// newSlicedPlan groups the space's candidates by row space and assigns each
// representative to a window: the classes of its first m−1 bits (split by
// the last) or of its last m−1 (split by the first), whichever window
// serves more representatives, chosen greedily.
func newSlicedPlan(s *Space) *slicedPlan {
	n, m := s.N, s.M
	pl := &slicedPlan{n: n, m: m, rep: make([]int32, len(s.vec))}
	index := map[[MaxBankBits]uint64]int32{}
	type wkey struct {
		j, delta int
		pattern  uint32
	}
	type option struct {
		key wkey
		pos int
		e   bool
	}
	var opts [][2]option
	for i := range s.vec {
		cfg := s.config(int64(i))
		key := rowSpaceKey(cfg.Columns(n, m))
		if slot, ok := index[key]; ok {
			pl.rep[i] = slot
			continue
		}
		slot := int32(pl.slots)
		pl.slots++
		index[key] = slot
		pl.rep[i] = slot
		pl.repCand = append(pl.repCand, int32(i))
		v := s.vec[i]
		k1, k2, mask := int(v.k1), int(v.k2), uint32(v.mask)
		if s.Function == BitvectorPerm {
			k2, mask = 0, 0
		}
		delta := k2 - k1
		opts = append(opts, [2]option{
			{wkey{k1, delta, mask & (1<<uint(m-1) - 1)}, k1 + m - 1, mask>>uint(m-1)&1 == 1},
			{wkey{k1 + 1, delta, mask >> 1}, k1, mask&1 == 1},
		})
	}
	// Greedy cover: take the window pattern that serves the most
	// representatives not yet served, until all are.
	count := map[wkey]int{}
	for _, o := range opts {
		count[o[0].key]++
		if o[1].key != o[0].key {
			count[o[1].key]++
		}
	}
	keys := make([]wkey, 0, len(count))
	for k := range count {
		keys = append(keys, k)
	}
	// A fixed order makes the plan, and so the evaluation, deterministic.
	slices.SortFunc(keys, func(a, b wkey) int {
		return cmp.Or(cmp.Compare(a.delta, b.delta), cmp.Compare(a.j, b.j), cmp.Compare(a.pattern, b.pattern))
	})
	byKey := map[wkey][]int{}
	for r, o := range opts {
		byKey[o[0].key] = append(byKey[o[0].key], r)
		if o[1].key != o[0].key {
			byKey[o[1].key] = append(byKey[o[1].key], r)
		}
	}
	done := make([]bool, len(opts))
	windows := map[[2]int]int{}
	for left := len(opts); left > 0; {
		bk := -1
		for ki, k := range keys {
			if bk < 0 || count[k] > count[keys[bk]] {
				bk = ki
			}
		}
		k := keys[bk]
		wk := [2]int{k.j, k.delta}
		wi, ok := windows[wk]
		if !ok {
			wi = len(pl.windows)
			windows[wk] = wi
			pl.windows = append(pl.windows, slicedWindow{j: k.j, delta: k.delta})
		}
		w := &pl.windows[wi]
		for _, r := range byKey[k] {
			if done[r] {
				continue
			}
			done[r] = true
			left--
			for _, o := range opts[r] {
				count[o.key]--
				if o.key == k {
					w.needed |= 1 << k.pattern
					w.serve = append(w.serve, slicedServe{pattern: k.pattern, pos: int32(o.pos), xor: o.e, slot: int32(r)})
				}
			}
			if opts[r][0].key == opts[r][1].key {
				count[k]++ // counted once above
			}
		}
	}
	for wi := range pl.windows {
		w := &pl.windows[wi]
		for r := 0; r < m; r++ {
			for p := uint32(0); p < 1<<uint(m-1); p++ {
				if w.needed>>p&1 == 1 {
					w.prefixNeeded[r] |= 1 << (p & (1<<uint(r) - 1))
				}
			}
		}
		// Serve in pattern order so each pattern's classes are split once.
		sortServe(w.serve)
	}
	return pl
}

func sortServe(s []slicedServe) {
	for i := 1; i < len(s); i++ {
		for k := i; k > 0 && s[k].pattern < s[k-1].pattern; k-- {
			s[k], s[k-1] = s[k-1], s[k]
		}
	}
}

// slicedEvaluator is one worker's scratch space.
type slicedEvaluator struct {
	pl     *slicedPlan
	planes [MaxAddrBits + 1]uint64 // planes[MaxAddrBits] stays 0
	// Tree levels: level r holds 2^r patterns × 2^r values.
	levels [maxSlicedBankBits][]uint64
	// Per pattern p: the largest class, and the classes of three or more
	// lanes with their sizes at heavy[p·2^(m−1):][:nheavy[p]].
	big    [1 << (maxSlicedBankBits - 1)]uint32
	nheavy [1 << (maxSlicedBankBits - 1)]int32
	heavy  [1 << (2 * (maxSlicedBankBits - 1))]uint64
	hsize  [1 << (2 * (maxSlicedBankBits - 1))]uint32
}

func newSlicedEvaluator(pl *slicedPlan) *slicedEvaluator {
	e := &slicedEvaluator{pl: pl}
	for r := 0; r < pl.m; r++ {
		e.levels[r] = make([]uint64, 1<<uint(2*r))
	}
	return e
}

// plane returns the lanes whose address has bit i (none beyond n).
func (e *slicedEvaluator) plane(i int) uint64 {
	if i < 0 || i >= e.pl.n {
		return 0
	}
	return e.planes[i]
}

// access adds weight·(degree − 1) of one access (its distinct reduced
// addresses, at most 64) to totals[slot] for every row space.
func (e *slicedEvaluator) access(as []uint64, weight int64, totals []int64) {
	pl := e.pl
	m := pl.m
	clear(e.planes[:pl.n])
	for l, a := range as {
		for a != 0 {
			i := bits.TrailingZeros64(a)
			e.planes[i] |= 1 << uint(l)
			a &= a - 1
		}
	}
	all := ^uint64(0) >> uint(64-len(as))
	e.levels[0][0] = all
	nc := 1 << uint(m-1)
	for wi := range pl.windows {
		w := &pl.windows[wi]
		classes := e.levels[m-1]
		// Build the classes of positions j..j+m−2, level by level; the
		// last level also counts them and keeps each pattern's largest.
		for r := 0; r < m-1; r++ {
			q := w.j + r
			x := e.plane(q)
			z := [2]uint64{x, x ^ e.plane(q+w.delta)}
			cur, nxt := e.levels[r], e.levels[r+1]
			np := 1 << uint(r)
			want := w.prefixNeeded[r+1]
			last := r == m-2
			for pat := 0; pat < np; pat++ {
				for mu := 0; mu < 2; mu++ {
					npat := pat | mu<<uint(r)
					if want>>uint(npat)&1 == 0 {
						continue
					}
					zz := z[mu]
					src := cur[pat*np : pat*np+np]
					dst := nxt[npat*2*np : npat*2*np+2*np]
					if !last {
						for v, node := range src {
							c1 := node & zz
							dst[v] = node ^ c1
							dst[v|np] = c1
						}
						continue
					}
					// Classes of three or more lanes go to the pattern's
					// heavy list: a class of two splits into at most 2,
					// which a class of three reaches anyway.
					hc := e.heavy[npat*2*np : npat*2*np+2*np]
					hn := e.hsize[npat*2*np : npat*2*np+2*np]
					var big uint32
					k := 0
					for v, node := range src {
						c1 := node & zz
						c0 := node ^ c1
						n0, n1 := uint32(bits.OnesCount64(c0)), uint32(bits.OnesCount64(c1))
						dst[v], dst[v|np] = c0, c1
						hc[k&(len(hc)-1)], hn[k&(len(hc)-1)] = c0, n0
						k += int((2 - n0) >> 31)
						hc[k&(len(hc)-1)], hn[k&(len(hc)-1)] = c1, n1
						k += int((2 - n1) >> 31)
						big = max(big, n0, n1)
					}
					e.big[npat] = big
					e.nheavy[npat] = int32(k)
				}
			}
		}
		if m == 1 {
			e.heavy[0], e.hsize[0], e.big[0] = all, uint32(len(as)), uint32(len(as))
			e.nheavy[0] = 1
		}
		for _, sv := range w.serve {
			pat := int(sv.pattern)
			dmin := (e.big[pat] + 1) >> 1
			z := e.plane(int(sv.pos))
			if sv.xor {
				z ^= e.plane(int(sv.pos) + w.delta)
			}
			d := dmin
			if k := int(e.nheavy[pat]); k > 0 {
				hc, hn := e.heavy[pat*nc:pat*nc+k], e.hsize[pat*nc:pat*nc+k]
				for h, c := range hc {
					cnt := uint32(bits.OnesCount64(c & z))
					d = max(d, cnt, hn[h]-cnt)
				}
			} else {
				// Every class has at most two lanes: split them all.
				for _, c := range classes[pat*nc : pat*nc+nc] {
					cnt := uint32(bits.OnesCount64(c & z))
					d = max(d, cnt, uint32(bits.OnesCount64(c))-cnt)
				}
			}
			totals[sv.slot] += weight * (int64(d) - 1)
		}
	}
}

// slicedTotals evaluates every row space of the plan over the accesses of
// at most 64 distinct addresses, in parallel; wider accesses are left to
// the caller (wide lists them).
func slicedTotals(p *Prepared, pl *slicedPlan) (totals []int64, wide []int) {
	U := p.Unique()
	for u := 0; u < U; u++ {
		if p.off[u+1]-p.off[u] > maxSlicedLanes {
			wide = append(wide, u)
		}
	}
	workers := max(1, min(runtime.GOMAXPROCS(0), U/64+1))
	parts := make([][]int64, workers)
	const chunk = 256
	var mu sync.Mutex
	next := 0
	var wg sync.WaitGroup
	for wk := 0; wk < workers; wk++ {
		wg.Add(1)
		go func(wk int) {
			defer wg.Done()
			ev := newSlicedEvaluator(pl)
			t := make([]int64, pl.slots)
			for {
				mu.Lock()
				lo := next
				next += chunk
				mu.Unlock()
				if lo >= U {
					break
				}
				for u := lo; u < min(lo+chunk, U); u++ {
					as := p.addrs[p.off[u]:p.off[u+1]]
					if len(as) > maxSlicedLanes {
						continue
					}
					ev.access(as, p.weight[u], t)
				}
			}
			parts[wk] = t
		}(wk)
	}
	wg.Wait()
	totals = make([]int64, pl.slots)
	for _, t := range parts {
		for i, v := range t {
			totals[i] += v
		}
	}
	return totals, wide
}
