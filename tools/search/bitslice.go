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
//     δ = k2 − k1), each split by the remaining one. A window serves the
//     candidates of k1 = j (split by the bit after it) and of k1 = j − 1
//     (split by the bit before it), up to four; each candidate takes the
//     window that serves more, greedily (703 window masks for the 2,012
//     row spaces of n = 14, m = 5). A window's classes are ANDs of the
//     classes of its first half and of its second half ("parts"), and a
//     part's classes, for every mask of its positions, are built once per
//     access for all the windows that share it.
//   - Splitting a class of n lanes gives max(c, n−c) ≥ ⌈n/2⌉, so the
//     largest class bounds the degree from below, and a class of two
//     lanes (split: at most 2) never beats a class of three (at least
//     2): only classes of three or more lanes are split per candidate.

// maxSlicedBankBits bounds a window's classes (2^(m−1) per mask).
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
	// serves a candidate.
	needed uint64
	serve  []slicedServe // sorted by pattern
	// The window's classes are ANDs of a left part (its first h
	// positions) and a right part (the rest), each part's classes built
	// once per access for every window that shares it.
	left, right, h int
}

// slicedPart is positions start..start+length−1 on diagonal delta: its
// classes under every pattern of its positions.
type slicedPart struct {
	delta, start, length int
}

// slicedServe is one candidate served by a window: split the window's
// classes under pattern by the functional plane[p1] ^ plane[p2] (p2 is
// the always-empty plane MaxAddrBits for a pure one), and add to total
// slot.
type slicedServe struct {
	pattern uint32
	p1, p2  uint8
	slot    int32
}

// slicedPlan is the data-independent part of the evaluation of a space.
type slicedPlan struct {
	n, m    int
	windows []slicedWindow
	parts   []slicedPart
	slots   int // distinct row spaces
	rep     []int32
	// repCand[s] is a candidate of row space s.
	repCand []int32
	// The m = 5 path (four-position windows of two two-position parts):
	// the window masks in evaluation order, each serve's planes (p1 in
	// the low byte, p2 in the high one), and the row space of each serve,
	// whose totals are kept in serve order so they are added in sequence.
	masks5    []slicedMask5
	serves5   []uint16
	serveSlot []int32
}

// slicedMask5 is one window mask of the m = 5 path: its classes are
// quads[left][a] & quads[right][b], and it serves serves5[..end] from the
// previous mask's end.
type slicedMask5 struct {
	left, right, end int32
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
	// representatives not yet served, until all are. Keys are numbered in
	// a fixed order, so the plan, and the evaluation, are deterministic.
	seen := map[wkey]bool{}
	var keys []wkey
	for _, o := range opts {
		for _, x := range o {
			if !seen[x.key] {
				seen[x.key] = true
				keys = append(keys, x.key)
			}
		}
	}
	slices.SortFunc(keys, func(a, b wkey) int {
		return cmp.Or(cmp.Compare(a.delta, b.delta), cmp.Compare(a.j, b.j), cmp.Compare(a.pattern, b.pattern))
	})
	id := make(map[wkey]int, len(keys))
	for i, k := range keys {
		id[k] = i
	}
	count := make([]int, len(keys))
	byKey := make([][]int, len(keys))
	optID := make([][2]int, len(opts))
	for r, o := range opts {
		for x := range o {
			optID[r][x] = id[o[x].key]
			count[optID[r][x]]++
			byKey[optID[r][x]] = append(byKey[optID[r][x]], r)
		}
	}
	done := make([]bool, len(opts))
	windows := map[[2]int]int{}
	for left := len(opts); left > 0; {
		bk := 0
		for ki, c := range count {
			if c > count[bk] {
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
		for _, r := range byKey[bk] {
			if done[r] {
				continue
			}
			done[r] = true
			left--
			count[optID[r][0]]--
			count[optID[r][1]]--
			o := opts[r][0]
			if optID[r][1] == bk {
				o = opts[r][1]
			}
			w.needed |= 1 << k.pattern
			p2 := MaxAddrBits
			if q := o.pos + k.delta; o.e && q >= 0 && q < n {
				p2 = q
			}
			w.serve = append(w.serve, slicedServe{pattern: k.pattern, p1: uint8(o.pos), p2: uint8(p2), slot: int32(r)})
		}
	}
	parts := map[slicedPart]int{}
	part := func(k slicedPart) int {
		id, ok := parts[k]
		if !ok {
			id = len(pl.parts)
			parts[k] = id
			pl.parts = append(pl.parts, k)
		}
		return id
	}
	for wi := range pl.windows {
		w := &pl.windows[wi]
		w.h = (m - 1) / 2
		w.left = part(slicedPart{w.delta, w.j, w.h})
		w.right = part(slicedPart{w.delta, w.j + w.h, m - 1 - w.h})
		// Serve in pattern order so each pattern's classes are split once.
		sortServe(w.serve)
	}
	if m == 5 {
		// Masks in runs of equal serve counts, so that the loop over a
		// mask's serves ends where the branch predictor expects.
		type group struct {
			mk     slicedMask5
			serves []slicedServe
		}
		var groups []group
		for _, w := range pl.windows {
			for i, sv := range w.serve {
				if i == 0 || sv.pattern != w.serve[i-1].pattern {
					pat := int32(sv.pattern)
					groups = append(groups, group{mk: slicedMask5{left: int32(w.left)*4 + pat&3, right: int32(w.right)*4 + pat>>2}})
				}
				g := &groups[len(groups)-1]
				g.serves = append(g.serves, sv)
			}
		}
		slices.SortStableFunc(groups, func(a, b group) int { return cmp.Compare(len(a.serves), len(b.serves)) })
		for _, g := range groups {
			for _, sv := range g.serves {
				pl.serves5 = append(pl.serves5, uint16(sv.p1)|uint16(sv.p2)<<8)
				pl.serveSlot = append(pl.serveSlot, sv.slot)
			}
			g.mk.end = int32(len(pl.serves5))
			pl.masks5 = append(pl.masks5, g.mk)
		}
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
	pl *slicedPlan
	// planes[i] for i ≥ n stays 0; 256 of them, so that a byte indexes
	// one without a bounds check.
	planes [256]uint64
	// quads[4·part + pattern] is a two-position part's four classes under
	// pattern (the m = 5 path).
	quads [][4]uint64
	// parts[i] holds part i's classes: pattern p's 2^length classes at
	// p·2^length; level is a part's tree under construction.
	parts [][]uint64
	level [2][1 << (2 * (maxSlicedBankBits / 2))]uint64
	// Per pattern p: the largest class, and the classes of three or more
	// lanes with their sizes at heavy[p·2^(m−1):][:nheavy[p]].
	big    [1 << (maxSlicedBankBits - 1)]uint32
	nheavy [1 << (maxSlicedBankBits - 1)]int32
	heavy  [1 << (2 * (maxSlicedBankBits - 1))]uint64
	hsize  [1 << (2 * (maxSlicedBankBits - 1))]uint32
}

func newSlicedEvaluator(pl *slicedPlan) *slicedEvaluator {
	e := &slicedEvaluator{pl: pl, parts: make([][]uint64, len(pl.parts))}
	for i, pt := range pl.parts {
		e.parts[i] = make([]uint64, 1<<uint(2*pt.length))
	}
	if pl.masks5 != nil {
		e.quads = make([][4]uint64, 4*len(pl.parts))
	}
	return e
}

// access5 is access for m = 5 (every part two positions long), adding to
// t in serve order: each window mask's sixteen classes are ANDs of two
// fixed-size quads, and its serves follow at once, while its heavy
// classes are on the stack.
func (e *slicedEvaluator) access5(all uint64, weight int64, t []int64) {
	pl := e.pl
	q := e.quads
	for i, pt := range pl.parts {
		x0, x1 := e.plane(pt.start), e.plane(pt.start+1)
		y0, y1 := x0^e.plane(pt.start+pt.delta), x1^e.plane(pt.start+1+pt.delta)
		qs := q[4*i : 4*i+4]
		qs[0] = [4]uint64{all &^ (x0 | x1), x0 &^ x1, x1 &^ x0, x0 & x1}
		qs[1] = [4]uint64{all &^ (y0 | x1), y0 &^ x1, x1 &^ y0, y0 & x1}
		qs[2] = [4]uint64{all &^ (x0 | y1), x0 &^ y1, y1 &^ x0, x0 & y1}
		qs[3] = [4]uint64{all &^ (y0 | y1), y0 &^ y1, y1 &^ y0, y0 & y1}
	}
	planes := &e.planes
	serves := pl.serves5
	t = t[:len(serves)]
	s := 0
	for _, mk := range pl.masks5 {
		lq, rq := &q[mk.left], &q[mk.right]
		// The classes of three or more lanes first in hc (a class of two
		// splits into at most 2, which a class of three reaches anyway);
		// the slots past k hold an empty class or a light one.
		var hc [16]uint64
		var hn [16]uint32
		k := 0
		a0, a1, a2, a3 := lq[0], lq[1], lq[2], lq[3]
		for _, b := range rq {
			// Three or more lanes: c with its lowest two bits cleared is
			// not empty. No popcounts here: with GOAMD64=v1 they carry a
			// call fallback, which spills what is live around them.
			c0, c1, c2, c3 := a0&b, a1&b, a2&b, a3&b
			hc[k&15] = c0
			k += heavy3(c0)
			hc[k&15] = c1
			k += heavy3(c1)
			hc[k&15] = c2
			k += heavy3(c2)
			hc[k&15] = c3
			k += heavy3(c3)
		}
		// The sizes of the slots the serves read (four, six, eight or
		// k). The largest class's split gives at least ⌈big/2⌉, so the
		// heavy classes' splits alone give the degree.
		hn[0] = uint32(bits.OnesCount64(hc[0]))
		hn[1] = uint32(bits.OnesCount64(hc[1]))
		hn[2] = uint32(bits.OnesCount64(hc[2]))
		hn[3] = uint32(bits.OnesCount64(hc[3]))
		if k > 4 {
			hn[4] = uint32(bits.OnesCount64(hc[4]))
			hn[5] = uint32(bits.OnesCount64(hc[5]))
		}
		if k > 6 {
			hn[6] = uint32(bits.OnesCount64(hc[6]))
			hn[7] = uint32(bits.OnesCount64(hc[7]))
		}
		if k > 8 {
			for h := 8; h < min(k, 16); h++ {
				hn[h] = uint32(bits.OnesCount64(hc[h]))
			}
		}
		end := min(int(mk.end), len(serves))
		// One loop per case, so the case is chosen once per mask.
		switch {
		case k > 0 && k <= 4:
			// Up to four: the slots past k hold an empty class or a
			// light one, which never beat a heavy one's split.
			for ; s < end; s++ {
				sv := serves[s]
				z := planes[uint8(sv)] ^ planes[uint8(sv>>8)]
				c0 := uint32(bits.OnesCount64(hc[0] & z))
				c1 := uint32(bits.OnesCount64(hc[1] & z))
				c2 := uint32(bits.OnesCount64(hc[2] & z))
				c3 := uint32(bits.OnesCount64(hc[3] & z))
				d01 := max(max(c0, hn[0]-c0), max(c1, hn[1]-c1))
				d23 := max(max(c2, hn[2]-c2), max(c3, hn[3]-c3))
				t[s] += weight * (int64(max(d01, d23)) - 1)
			}
		case k > 4 && k <= 6:
			for ; s < end; s++ {
				sv := serves[s]
				z := planes[uint8(sv)] ^ planes[uint8(sv>>8)]
				c0 := uint32(bits.OnesCount64(hc[0] & z))
				c1 := uint32(bits.OnesCount64(hc[1] & z))
				c2 := uint32(bits.OnesCount64(hc[2] & z))
				c3 := uint32(bits.OnesCount64(hc[3] & z))
				c4 := uint32(bits.OnesCount64(hc[4] & z))
				c5 := uint32(bits.OnesCount64(hc[5] & z))
				d01 := max(max(c0, hn[0]-c0), max(c1, hn[1]-c1))
				d23 := max(max(c2, hn[2]-c2), max(c3, hn[3]-c3))
				d45 := max(max(c4, hn[4]-c4), max(c5, hn[5]-c5))
				t[s] += weight * (int64(max(d01, max(d23, d45))) - 1)
			}
		case k > 6 && k <= 8:
			for ; s < end; s++ {
				sv := serves[s]
				z := planes[uint8(sv)] ^ planes[uint8(sv>>8)]
				c0 := uint32(bits.OnesCount64(hc[0] & z))
				c1 := uint32(bits.OnesCount64(hc[1] & z))
				c2 := uint32(bits.OnesCount64(hc[2] & z))
				c3 := uint32(bits.OnesCount64(hc[3] & z))
				c4 := uint32(bits.OnesCount64(hc[4] & z))
				c5 := uint32(bits.OnesCount64(hc[5] & z))
				c6 := uint32(bits.OnesCount64(hc[6] & z))
				c7 := uint32(bits.OnesCount64(hc[7] & z))
				// A tree of maxima, not a chain: the chain's latency
				// dominated.
				d01 := max(max(c0, hn[0]-c0), max(c1, hn[1]-c1))
				d23 := max(max(c2, hn[2]-c2), max(c3, hn[3]-c3))
				d45 := max(max(c4, hn[4]-c4), max(c5, hn[5]-c5))
				d67 := max(max(c6, hn[6]-c6), max(c7, hn[7]-c7))
				t[s] += weight * (int64(max(max(d01, d23), max(d45, d67))) - 1)
			}
		case k > 8:
			for ; s < end; s++ {
				sv := serves[s]
				z := planes[uint8(sv)] ^ planes[uint8(sv>>8)]
				d := uint32(1)
				for h := range min(k, 16) {
					cnt := uint32(bits.OnesCount64(hc[h] & z))
					d = max(d, cnt, hn[h]-cnt)
				}
				t[s] += weight * (int64(d) - 1)
			}
		default:
			// Every class has at most two lanes: split them all.
			for ; s < end; s++ {
				sv := serves[s]
				z := planes[uint8(sv)] ^ planes[uint8(sv>>8)]
				d := uint32(1)
				for _, b := range rq {
					for _, a := range lq {
						c := a & b
						cnt := uint32(bits.OnesCount64(c & z))
						d = max(d, cnt, uint32(bits.OnesCount64(c))-cnt)
					}
				}
				t[s] += weight * (int64(d) - 1)
			}
		}
	}
}

// heavy3 is 1 when c has three or more bits set, else 0.
func heavy3(c uint64) int {
	c &= c - 1
	c &= c - 1
	return int((c | -c) >> 63)
}

// buildPart computes part i's classes, level by level from all lanes.
func (e *slicedEvaluator) buildPart(i int, all uint64) {
	pt := e.pl.parts[i]
	cur := e.level[0][:1]
	cur[0] = all
	for r := 0; r < pt.length; r++ {
		x := e.plane(pt.start + r)
		z0, z1 := x, x^e.plane(pt.start+r+pt.delta)
		np := 1 << uint(r)
		nxt := e.level[(r+1)&1][:4*np*np]
		if r == pt.length-1 {
			nxt = e.parts[i]
		}
		for pat := 0; pat < np; pat++ {
			src := cur[pat*np : pat*np+np]
			d0 := nxt[pat*2*np : pat*2*np+2*np]
			d1 := nxt[(pat|np)*2*np : (pat|np)*2*np+2*np]
			for v, node := range src {
				a, b := node&z0, node&z1
				d0[v], d0[v|np] = node^a, a
				d1[v], d1[v|np] = node^b, b
			}
		}
		cur = nxt
	}
	if pt.length == 0 {
		e.parts[i][0] = all
	}
}

// plane returns the lanes whose address has bit i (none beyond n).
func (e *slicedEvaluator) plane(i int) uint64 {
	if i < 0 || i >= e.pl.n {
		return 0
	}
	return e.planes[i]
}

// load sets the lane masks of an access of at most 64 addresses.
func (e *slicedEvaluator) load(as []uint64) {
	clear(e.planes[:e.pl.n])
	for l, a := range as {
		for a != 0 {
			i := bits.TrailingZeros64(a)
			e.planes[i] |= 1 << uint(l)
			a &= a - 1
		}
	}
}

// access adds weight·(degree − 1) of one access (its distinct reduced
// addresses, at most 64) to totals[slot] for every row space.
func (e *slicedEvaluator) access(as []uint64, weight int64, totals []int64) {
	pl := e.pl
	m := pl.m
	e.load(as)
	all := ^uint64(0) >> uint(64-len(as))
	for i := range pl.parts {
		e.buildPart(i, all)
	}
	nc := 1 << uint(m-1)
	for wi := range pl.windows {
		w := &pl.windows[wi]
		hl, hr := 1<<uint(w.h), 1<<uint(m-1-w.h)
		lp, rp := e.parts[w.left], e.parts[w.right]
		// Each needed pattern's classes, ANDs of a left and a right class;
		// those of three or more lanes go to its heavy list (a class of
		// two splits into at most 2, which a class of three reaches
		// anyway), with its largest class.
		for need := w.needed; need != 0; need &= need - 1 {
			pat := bits.TrailingZeros64(need)
			lc := lp[(pat&(hl-1))*hl : (pat&(hl-1))*hl+hl]
			rc := rp[(pat>>uint(w.h))*hr : (pat>>uint(w.h))*hr+hr]
			hc := e.heavy[pat*nc : pat*nc+nc]
			hn := e.hsize[pat*nc : pat*nc+nc]
			if nc >= 8 {
				// The serves run eight splits whatever the count: the
				// slots past it hold an empty class or a light one,
				// which never beat the bound.
				clear(hc[:8])
				clear(hn[:8])
			}
			var big uint32
			k := 0
			for _, b := range rc {
				for _, a := range lc {
					c := a & b
					n := uint32(bits.OnesCount64(c))
					hc[k&(nc-1)], hn[k&(nc-1)] = c, n
					k += int((2 - n) >> 31)
					big = max(big, n)
				}
			}
			e.big[pat] = big
			e.nheavy[pat] = int32(k)
		}
		for _, sv := range w.serve {
			pat := int(sv.pattern)
			dmin := (e.big[pat] + 1) >> 1
			z := e.planes[sv.p1] ^ e.planes[sv.p2]
			d := dmin
			if k := int(e.nheavy[pat]); k > 0 && k <= 8 && nc >= 8 {
				hc, hn := e.heavy[pat*nc:pat*nc+8], e.hsize[pat*nc:pat*nc+8]
				c0 := uint32(bits.OnesCount64(hc[0] & z))
				c1 := uint32(bits.OnesCount64(hc[1] & z))
				c2 := uint32(bits.OnesCount64(hc[2] & z))
				c3 := uint32(bits.OnesCount64(hc[3] & z))
				c4 := uint32(bits.OnesCount64(hc[4] & z))
				c5 := uint32(bits.OnesCount64(hc[5] & z))
				c6 := uint32(bits.OnesCount64(hc[6] & z))
				c7 := uint32(bits.OnesCount64(hc[7] & z))
				d = max(d, c0, hn[0]-c0, c1, hn[1]-c1, c2, hn[2]-c2, c3, hn[3]-c3)
				d = max(d, c4, hn[4]-c4, c5, hn[5]-c5, c6, hn[6]-c6, c7, hn[7]-c7)
			} else if k > 0 {
				hc, hn := e.heavy[pat*nc:pat*nc+k], e.hsize[pat*nc:pat*nc+k]
				for h, c := range hc {
					cnt := uint32(bits.OnesCount64(c & z))
					d = max(d, cnt, hn[h]-cnt)
				}
			} else {
				// Every class has at most two lanes: split them all.
				hl, hr := 1<<uint(w.h), 1<<uint(m-1-w.h)
				lp, rp := e.parts[w.left], e.parts[w.right]
				for _, b := range rp[(pat>>uint(w.h))*hr : (pat>>uint(w.h))*hr+hr] {
					for _, a := range lp[(pat&(hl-1))*hl : (pat&(hl-1))*hl+hl] {
						c := a & b
						cnt := uint32(bits.OnesCount64(c & z))
						d = max(d, cnt, uint32(bits.OnesCount64(c))-cnt)
					}
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
			t := make([]int64, max(pl.slots, len(pl.serves5)))
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
					if pl.masks5 != nil {
						ev.load(as)
						ev.access5(^uint64(0)>>uint(64-len(as)), p.weight[u], t)
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
		if pl.masks5 != nil {
			for i, slot := range pl.serveSlot {
				totals[slot] += t[i]
			}
			continue
		}
		for i, v := range t {
			totals[i] += v
		}
	}
	return totals, wide
}
