package gen

import (
	"fmt"
	"math/bits"

	nl "github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/specs"
)

// Request generation (requests = true): from the first lane of every
// request (req_first), a parallel-prefix popcount numbers the requests in
// lane order, a compaction network routes the r-th first lane's block to
// field r of req_addr_o, each lane finds its request's number, and a
// decoder gives req_mask_o.

// reqGen builds the request outputs of a coalescer.
type reqGen struct {
	a         *actWarp
	structure specs.Structure
	pne       [][]nl.Net // the all-to-all matrix (all_to_all, speculative)
	mono      nl.Net     // speculative: monotonic_o

	first  nl.Bus   // the first lane of each request
	firstE *nl.Expr // its word-level wire
}

// firstA2AE is the word-level all-to-all first-lane mask: lane j active and
// no earlier active lane on its block.
func (a *actWarp) firstA2AE() *nl.Expr {
	parts := make([]*nl.Expr, a.L)
	for j := range parts {
		terms := []*nl.Expr{a.actE[j]}
		for i := 0; i < j; i++ {
			terms = append(terms, a.differE(i, j))
		}
		parts[j] = andE(terms...)
	}
	return nl.Concat(parts...)
}

// firstNeighbor is the neighbor notion of a request's first lane: lane i
// is active and the first active lane, or its block differs from the
// previous active lane's. The previous active lane p of lane i has lane i
// as its next active lane, so "the blocks differ" is p's neighbor unique
// bit: the gates find it with a one-bit nearest-valid scan (Sklansky, over
// the active bits and unique bits of lanes 0..L-2) instead of a second
// network of block addresses, and the word-level view says the same with a
// chain prvu_i = {valid, unique} of the previous active lane. uniqueE is
// the word-level neighbor result.
func (a *actWarp) firstNeighbor(unique nl.Bus, uniqueE *nl.Expr) (nl.Bus, *nl.Expr) {
	L := a.L
	first := make(nl.Bus, L)
	first[0] = a.act[0]
	if !a.masked {
		copy(first[1:], unique[:L-1])
	} else {
		data := make([]nl.Bus, L-1)
		for k := range data {
			data[k] = nl.Bus{unique[k]}
		}
		pv, pu := a.nearestScan("prv_scan", a.act[:L-1], data)
		for k := range pv {
			a.b.Name(fmt.Sprintf("prv_valid_%d", k+1), nl.Bus{pv[k]})
			a.b.Name(fmt.Sprintf("prv_unique_%d", k+1), pu[k])
		}
		for i := 1; i < L; i++ {
			first[i] = a.b.And(a.act[i], a.b.Or(a.b.Not(pv[i-1]), pu[i-1][0]))
		}
	}
	a.b.Name("req_first_nbr", first)

	parts := make([]*nl.Expr, L)
	parts[0] = andE(a.actE[0])
	var prv *nl.Expr
	for i := 1; i < L; i++ {
		u := nl.Slice(uniqueE, i-1, i-1)
		if !a.masked {
			parts[i] = u
			continue
		}
		doc := ""
		var e *nl.Expr
		if i == 1 {
			e = nl.Concat(u, a.actE[0])
			doc = "prvu_i = {valid, unique bit} of the previous active lane below lane i"
		} else {
			e = nl.MuxE(a.actE[i-1], nl.Concat(u, nl.ConstExpr(1, 1)), prv)
		}
		prv = a.wire(fmt.Sprintf("prvu_%d", i), e, doc)
		parts[i] = andE(a.actE[i], orE(nl.NotE(nl.Slice(prv, 1, 1)), nl.Slice(prv, 0, 0)))
	}
	return first, nl.Concat(parts...)
}

// widen zero-extends (or truncates) x to w bits.
func widen(x nl.Bus, w int) nl.Bus {
	out := nl.Const(0, w)
	copy(out, x)
	return out
}

// build adds the request outputs and returns their header lines.
func (r *reqGen) build() []string {
	a, b, L := r.a, r.a.b, r.a.L
	B := a.a - a.bb
	C, R := clog2(L+1), clog2(L)

	// Prefix popcount: a Sklansky tree of adders (Sklansky adders), each
	// as wide as its largest sum; s[k] ends as the number of first lanes
	// among lanes 0..k.
	s, maxv := make([]nl.Bus, L), make([]int, L)
	for k := range s {
		s[k], maxv[k] = nl.Bus{r.first[k]}, 1
	}
	for span := 1; span < L; span *= 2 {
		ns, nm := append([]nl.Bus(nil), s...), append([]int(nil), maxv...)
		for k := span; k < L; k++ {
			if k&span == 0 {
				continue
			}
			m := k&^(span-1) - 1
			nm[k] = maxv[k] + maxv[m]
			w := max(bits.Len(uint(nm[k])), 1)
			ns[k] = prefixAdd(b, widen(s[k], w), widen(s[m], w), nl.Const0)
		}
		s, maxv = ns, nm
	}
	// pcnt[i]: first lanes below lane i, the number of lane i's request
	// when it is a first lane.
	pcnt := make([]nl.Bus, L)
	pcnt[0] = nl.Const(0, R)
	for i := 1; i < L; i++ {
		pcnt[i] = widen(s[i-1], R)
		b.Name(fmt.Sprintf("req_pcnt_%d", i), pcnt[i])
	}
	count := widen(s[L-1], C)

	// Word-level: pcnt_i = pcnt_(i-1) + req_first[i-1], a chain.
	pcntE := make([]*nl.Expr, L+1)
	pcntE[0] = nl.ConstExpr(0, C)
	for i := 1; i <= L; i++ {
		f := nl.Concat(nl.Slice(r.firstE, i-1, i-1), nl.ConstExpr(0, C-1))
		doc := ""
		if i == 1 {
			doc = "pcnt_i = the number of first lanes below lane i (the gates: a Sklansky prefix popcount)"
			pcntE[i] = f
		} else {
			pcntE[i] = nl.AddE(pcntE[i-1], f)
		}
		pcntE[i] = a.wire(fmt.Sprintf("pcnt_%d", i), pcntE[i], doc)
	}
	a.output("req_count_o", count, pcntE[L], "number of requests: distinct blocks among the active lanes")

	// req_addr_o: compaction. First lane i moves down by z_i = i - pcnt_i
	// places, in stages of 1, 2, 4, ... places (bit k of z_i at stage
	// k): moving by the low bits first, no two first lanes ever land on one
	// place, so each place takes its own element or the one 2^k above.
	v := append(nl.Bus(nil), r.first...)
	d := make([]nl.Bus, L)
	z := make([]nl.Bus, L)
	for i := range d {
		d[i], _ = a.blk(i)
		notP := make(nl.Bus, R)
		for k, n := range pcnt[i] {
			notP[k] = b.Not(n)
		}
		z[i] = rippleAdd(b, nl.Const(uint64(i), R), notP, nl.Const1)
		b.Name(fmt.Sprintf("req_shift_%d", i), z[i])
	}
	for k := 0; k < R; k++ {
		step := 1 << k
		move := make(nl.Bus, L)
		for p := range move {
			move[p] = b.And(v[p], z[p][k])
		}
		nv, nd, nz := make(nl.Bus, L), make([]nl.Bus, L), make([]nl.Bus, L)
		for p := 0; p < L; p++ {
			stay := b.And(v[p], b.Not(z[p][k]))
			if p+step >= L {
				nv[p], nd[p], nz[p] = stay, d[p], z[p]
				continue
			}
			in := move[p+step]
			nv[p] = b.Or(stay, in)
			nd[p] = b.MuxBus(in, d[p], d[p+step])
			nz[p] = b.MuxBus(in, z[p], z[p+step])
			b.Name(fmt.Sprintf("req_cmp_l%d_valid_%d", k, p), nl.Bus{nv[p]})
			b.Name(fmt.Sprintf("req_cmp_l%d_%d", k, p), nd[p])
		}
		v, d, z = nv, nd, nz
	}
	reqAddr := make(nl.Bus, 0, L*B)
	for p := 0; p < L; p++ {
		for _, n := range d[p] {
			reqAddr = append(reqAddr, b.And(v[p], n))
		}
	}
	fields := make([]*nl.Expr, L)
	for q := range fields {
		var terms []*nl.Expr
		for j := q; j < L; j++ {
			_, bj := a.blk(j)
			sel := nl.AndE(nl.Slice(r.firstE, j, j), nl.EqE(pcntE[j], nl.ConstExpr(uint64(q), C)))
			if j == 0 {
				sel = nl.Slice(r.firstE, 0, 0)
			}
			terms = append(terms, nl.MuxE(sel, bj, nl.ConstExpr(0, B)))
		}
		fields[q] = terms[0]
		if len(terms) > 1 {
			fields[q] = nl.OrE(terms...)
		}
	}
	a.output("req_addr_o", reqAddr, nl.Concat(fields...), fmt.Sprintf("field r (%d bits): block address of request r; 0 for r >= req_count_o", B))

	// lane_req_o.
	var laneReq []nl.Bus
	var laneReqE *nl.Expr
	switch r.structure {
	case specs.AllToAll:
		laneReq, laneReqE = r.laneReqA2A(pcnt, pcntE, R)
	case specs.Neighbor:
		laneReq, laneReqE = r.laneReqNbr(pcnt, pcntE, R)
	case specs.Speculative:
		all, allE := r.laneReqA2A(pcnt, pcntE, R)
		nbr, nbrE := r.laneReqNbr(pcnt, pcntE, R)
		allW := a.wire("lane_req_all", allE, "all-to-all: request of each lane")
		nbrW := a.wire("lane_req_nbr", nbrE, "neighbor: request of each lane")
		laneReq = make([]nl.Bus, L)
		for i := range laneReq {
			laneReq[i] = b.MuxBus(r.mono, all[i], nbr[i])
		}
		laneReqE = nl.MuxE(nl.Ref("monotonic_o", 1), nbrW, allW)
	}
	var lr nl.Bus
	for _, f := range laneReq {
		lr = append(lr, f...)
	}
	b.Name("lane_req", lr)

	// req_mask_o: lane i's request decoded, for active lanes. A lane's
	// request is at most its lane number.
	var mask nl.Bus
	maskFields := make([]*nl.Expr, L)
	lrE := nl.Ref("lane_req_o", L*R)
	for q := 0; q < L; q++ {
		parts := make([]*nl.Expr, L)
		for i := 0; i < L; i++ {
			if i < q {
				mask = append(mask, nl.Const0)
				parts[i] = nl.ConstExpr(0, 1)
				continue
			}
			lits := nl.Bus{a.act[i]}
			for k := 0; k < R; k++ {
				if q>>k&1 == 1 {
					lits = append(lits, laneReq[i][k])
				} else {
					lits = append(lits, b.Not(laneReq[i][k]))
				}
			}
			mask = append(mask, b.And(lits...))
			parts[i] = andE(a.actE[i], nl.EqE(fieldE(lrE, i, R), nl.ConstExpr(uint64(q), R)))
		}
		maskFields[q] = nl.Concat(parts...)
	}
	a.output("req_mask_o", mask, nl.Concat(maskFields...), fmt.Sprintf("field r (%d bits): bit i set when request r serves lane i", L))
	a.output("lane_req_o", lr, laneReqE, fmt.Sprintf("field i (%d bits): request of lane i; 0 for an inactive lane", R))

	lines := []string{
		"Requests: one per distinct block among the active lanes, numbered in the order of their lowest active lane:",
		fmt.Sprintf("req_count_o (%d bits) their number; req_addr_o field r (%d bits) request r's block address;", C, B),
		fmt.Sprintf("req_mask_o field r (%d bits) the lanes request r serves; lane_req_o field i (%d bits) lane i's request", L, R),
		"(0 for an inactive lane). Fields at or above req_count_o are 0.",
	}
	switch r.structure {
	case specs.AllToAll:
		lines = append(lines, "all-to-all: a request's first lane is an active lane with no earlier active lane on its block",
			"(from the comparator matrix); exact for any warp.")
	case specs.Neighbor:
		lines = append(lines, "neighbor: a request starts at each active lane whose block differs from the previous active lane's",
			"(or that is the first active lane) and takes the active lanes up to the next start; exact when the",
			"active lanes' addresses are monotonic.")
	case specs.Speculative:
		lines = append(lines, "speculative: the neighbor requests when monotonic_o is 1, the all-to-all ones otherwise.")
	}
	lines = append(lines,
		fmt.Sprintf("Gates: a Sklansky prefix popcount of the first lanes (%d levels of adders), a compaction network", scanLevels(L)),
		fmt.Sprintf("of %d MUX2 levels that moves first lane i down by i - (its request number), lane_req from", R))
	switch r.structure {
	case specs.AllToAll:
		lines = append(lines, "the comparator matrix (the request number of the lane's first lane), req_mask_o by decoding lane_req_o.")
	case specs.Neighbor:
		lines = append(lines, "a nearest-first-lane Sklansky scan, req_mask_o by decoding lane_req_o.")
	case specs.Speculative:
		lines = append(lines, "the comparator matrix or a nearest-first-lane scan, req_mask_o by decoding lane_req_o.")
	}
	return lines
}

// laneReqA2A: lane i's request is the number of the first lane j <= i on
// its block: an AND-OR over the comparator matrix.
func (r *reqGen) laneReqA2A(pcnt []nl.Bus, pcntE []*nl.Expr, R int) ([]nl.Bus, *nl.Expr) {
	a, b, L := r.a, r.a.b, r.a.L
	out := make([]nl.Bus, L)
	parts := make([]*nl.Expr, L)
	for i := 0; i < L; i++ {
		sel := make(nl.Bus, i+1)
		sel[i] = r.first[i]
		for j := 0; j < i; j++ {
			// first[j] & !pne[j][i], written to read pne itself (its
			// complement would be rebuilt from the pair's inputs, around
			// the pair_differ point the proof cuts at).
			sel[j] = b.Nor(b.Not(r.first[j]), r.pne[j][i])
		}
		out[i] = make(nl.Bus, R)
		for k := 0; k < R; k++ {
			var terms nl.Bus
			for j := 1; j <= i; j++ { // pcnt_0 is 0
				terms = append(terms, b.And(sel[j], pcnt[j][k]))
			}
			out[i][k] = b.Or(terms...)
		}
		var terms []*nl.Expr
		for j := 1; j <= i; j++ {
			s := nl.Slice(r.firstE, j, j)
			if j < i {
				s = andE(s, nl.NotE(a.differE(j, i)))
			}
			terms = append(terms, nl.MuxE(s, nl.Slice(pcntE[j], R-1, 0), nl.ConstExpr(0, R)))
		}
		switch len(terms) {
		case 0:
			parts[i] = nl.ConstExpr(0, R)
		case 1:
			parts[i] = terms[0]
		default:
			parts[i] = nl.OrE(terms...)
		}
	}
	return out, nl.Concat(parts...)
}

// laneReqNbr: lane i's request is the number of the nearest first lane at
// or below it (a nearest-valid Sklansky scan over the first lanes and
// their numbers), for an active lane.
func (r *reqGen) laneReqNbr(pcnt []nl.Bus, pcntE []*nl.Expr, R int) ([]nl.Bus, *nl.Expr) {
	a, b, L := r.a, r.a.b, r.a.L
	_, num := a.nearestScan("lrq_scan", r.first, pcnt)
	for i, n := range num {
		b.Name(fmt.Sprintf("lrq_%d", i), n)
	}
	out := make([]nl.Bus, L)
	for i := range out {
		out[i] = make(nl.Bus, R)
		for k := range out[i] {
			out[i][k] = b.And(a.act[i], num[i][k])
		}
	}
	// Word-level: lrq_i = req_first[i] ? pcnt_i : lrq_(i-1), lrq_0 = 0.
	parts := make([]*nl.Expr, L)
	parts[0] = nl.ConstExpr(0, R)
	var prev *nl.Expr = nl.ConstExpr(0, R)
	for i := 1; i < L; i++ {
		doc := ""
		if i == 1 {
			doc = "lrq_i = the number of the nearest first lane at or below lane i"
		}
		prev = a.wire(fmt.Sprintf("lrq_%d", i), nl.MuxE(nl.Slice(r.firstE, i, i), nl.Slice(pcntE[i], R-1, 0), prev), doc)
		parts[i] = prev
		if a.masked {
			parts[i] = nl.MuxE(a.actE[i], prev, nl.ConstExpr(0, R))
		}
	}
	return out, nl.Concat(parts...)
}
