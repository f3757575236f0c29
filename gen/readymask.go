package gen

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"

	nl "github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/specs"
)

// WarpReadyMask builds the bank-conflict-aware warp ready signal
// generation of Figure 7 (001_*): the bank conflict history cache, the
// accumulator of subwarp conflict degrees, the last_warp_bkconf_degree
// counter and the per-warp AND/NAND masking.
func WarpReadyMask(w *specs.WarpReadyMask) (*nl.Design, hcl.Diagnostics) {
	g := newDual(w.Name)
	ib, tb, hb := w.IndexBits(), w.TagBits(), w.HistoryBits()
	s := w.Subwarps()
	lp := log2(w.ShmemPorts)
	g.b.Clock("clk", "clock; all state changes at its rising edge")
	rst := g.input("rst", 1, "synchronous reset, active high")
	launch := g.input("launch_i", 1, "kernel launch: clears the history cache and the counter")
	ready := g.input("warp_ready_i", w.WarpContexts, "ready bits of the warp contexts from the default ready logic")
	isMem := g.input("warp_is_mem_i", w.WarpContexts, "warp w's next instruction accesses memory")
	schedV := g.input("sched_valid_i", 1, "a warp is scheduled this cycle")
	schedShmem := g.input("sched_shmem_i", 1, "the scheduled warp's instruction accesses shared memory")
	schedPC := g.input("sched_pc_i", w.PCBits, "its PC")
	resV := g.input("res_valid_i", 1, "a subwarp's shared-memory access resolved this cycle")
	resPC := g.input("res_pc_i", w.PCBits, "its PC")
	resDeg := g.input("res_degree_i", w.DegreeBits(), "its bank conflict degree (0 counts as 1)")
	clear := g.wire("clear", g.or(rst, launch), "reset or kernel launch")

	// The history cache: per way a valid vector (cleared) and a memory of
	// {tag, degree} entries (never cleared; read only where valid).
	ways := w.HistoryWays
	type way struct {
		valid sig
		entry *mem
	}
	cache := make([]way, ways)
	for i := range cache {
		cache[i] = way{
			valid: g.reg(fmt.Sprintf("hv%d", i), w.HistorySets, fmt.Sprintf("way %d: valid bit per set", i)),
			entry: g.mem(fmt.Sprintf("he%d", i), tb+hb, w.HistorySets, fmt.Sprintf("way %d: {tag[%d], degree[%d]} per set", i, tb, hb)),
		}
	}
	type probe struct {
		hit   []sig // per way
		deg   []sig
		valid []sig
		any   sig
	}
	lookup := func(pc sig, name string) probe {
		idx := g.wire(name+"_set", g.slice(pc, ib-1, 0), "cache set of "+name)
		var tag sig
		if tb > 0 {
			tag = g.wire(name+"_tag", g.slice(pc, w.PCBits-1, ib), "cache tag of "+name)
		}
		var pr probe
		var hits []sig
		for i, c := range cache {
			e := g.wire(fmt.Sprintf("%s_e%d", name, i), g.read(c.entry, idx), fmt.Sprintf("way %d's entry in that set", i))
			v := g.wire(fmt.Sprintf("%s_v%d", name, i), g.bitAt(c.valid, idx), fmt.Sprintf("way %d's valid bit", i))
			hit := v
			if tb > 0 {
				hit = g.and(v, g.eq(g.slice(e, tb+hb-1, hb), tag))
			}
			hit = g.wire(fmt.Sprintf("%s_hit%d", name, i), hit, fmt.Sprintf("%s hits in way %d", name, i))
			pr.hit = append(pr.hit, hit)
			pr.valid = append(pr.valid, v)
			pr.deg = append(pr.deg, g.slice(e, hb-1, 0))
			hits = append(hits, hit)
		}
		pr.any = g.or(hits...)
		return pr
	}

	// Prediction: the degree last seen for the scheduled PC, 0 on a miss.
	sp := lookup(schedPC, "sched")
	var terms []sig
	for i := range cache {
		terms = append(terms, g.and(sp.deg[i], rep(g, sp.hit[i], hb)))
	}
	pred := g.wire("pred", g.or(terms...), "predicted warp conflict degree (sum of subwarp degrees - subwarps)")
	// Counter load: warp_safe_mem_dist - 1 = ceil((pred + S) / P) - 1 = (pred + S - 1) >> log2(P).
	sumW := bitsFor((1<<uint(hb) - 1) + s - 1)
	cw := max(1, sumW-lp)
	var load sig
	if sumW-lp <= 0 {
		load = g.konst(0, 1)
	} else {
		sum := g.add(g.zext(pred, sumW), g.konst(uint64(s-1), sumW))
		load = g.slice(sum, sumW-1, lp)
	}
	load = g.wire("dist_m1", load, fmt.Sprintf("cycles to mask after this shared-memory warp: (pred + %d) >> %d", s-1, lp))
	cnt := g.reg("count", cw, "last_warp_bkconf_degree counter: cycles memory warps stay masked")
	mask := g.wire("mask", g.nonzero(cnt), "memory warps are masked this cycle")
	schedSh := g.and(schedV, schedShmem)
	g.next(cnt, clear, g.mux(schedSh, load, g.mux(mask, g.dec(cnt), cnt)))

	// Update: accumulate sum(degree_i - 1) over the S subwarps, then write.
	dm1 := g.and(g.dec(resDeg), rep(g, g.nonzero(resDeg), resDeg.w()))
	d := g.wire("res_excess", fitWidth(g, dm1, hb), "this subwarp's degree - 1 (0 for degree 0), mod 2^"+fmt.Sprint(hb))
	v, write := d, resV
	accBits := 0
	if s > 1 {
		acc := g.reg("acc", hb, "accumulator of the warp's subwarp excess degrees")
		sub := g.reg("sub", log2(s), "subwarps of the current warp resolved so far")
		accBits = acc.w() + sub.w()
		last := g.wire("last_sub", g.eq(sub, g.konst(uint64(s-1), sub.w())), "this is the warp's last subwarp")
		v = g.wire("acc_sum", g.add(acc, d), "accumulator plus this subwarp")
		write = g.and(resV, last)
		g.next(acc, clear, g.mux(resV, g.and(v, rep(g, g.not(last), hb)), acc))
		g.next(sub, clear, g.mux(resV, g.add(sub, g.konst(1, sub.w())), sub))
	}
	write = g.wire("hist_write", write, "the warp's conflict degree is written to the history cache")

	rp := lookup(resPC, "res")
	var inv, first []sig
	for i := range cache {
		inv = append(inv, g.not(rp.valid[i]))
		f := inv[i]
		if i > 0 {
			f = g.and(inv[i], g.not(g.or(inv[:i]...)))
		}
		first = append(first, f)
	}
	anyInv := g.wire("res_has_free", g.or(inv...), "the set has an invalid way")
	var ptr sig
	var ptrMem *mem
	pb := log2(ways)
	if ways > 1 {
		// The replacement pointer is written when a fill makes the set
		// full (to 0) and at each replacement (advanced), so it is always
		// written before it is read and needs no clear.
		ptrMem = g.mem("hptr", pb, w.HistorySets, "replacement pointer per set: the way the next replacement takes")
		ptr = g.wire("res_ptr", g.read(ptrMem, rp0(g, resPC, ib)), "the set's replacement pointer")
	}
	idx := rp0(g, resPC, ib)
	var entryTag sig
	if tb > 0 {
		entryTag = g.slice(resPC, w.PCBits-1, ib)
	}
	data := v
	if tb > 0 {
		data = g.concat(v, entryTag)
	}
	setBit := g.onehot(idx)
	for i, c := range cache {
		victim := first[i]
		if ways > 1 {
			victim = g.mux(anyInv, first[i], g.eq(ptr, g.konst(uint64(i), pb)))
		}
		sel := g.wire(fmt.Sprintf("wr_way%d", i), g.and(write, g.mux(rp.any, rp.hit[i], victim)), fmt.Sprintf("the update writes way %d", i))
		g.write(c.entry, sel, idx, data)
		g.next(c.valid, clear, g.or(c.valid, g.and(setBit, rep(g, sel, w.HistorySets))))
	}
	if ways > 1 {
		var others []sig
		for i := range cache {
			others = append(others, g.and(inv[i], g.not(first[i])))
		}
		fills := g.wire("res_fills_set", g.and(anyInv, g.not(g.or(others...))), "a miss fills the set's last invalid way")
		wrap := g.eq(ptr, g.konst(uint64(ways-1), pb))
		advanced := g.and(g.add(ptr, g.konst(1, pb)), rep(g, g.not(wrap), pb))
		ptrWrite := g.and(write, g.not(rp.any), g.or(fills, g.not(anyInv)))
		g.write(ptrMem, ptrWrite, idx, g.mux(anyInv, g.konst(0, pb), advanced))
	}

	readyOut := g.and(ready, g.not(g.and(isMem, rep(g, mask, w.WarpContexts))))
	g.b.Path("ready_path", "warp_ready_i to warp_ready_o: what the mask adds to the default ready signal", ready.n, readyOut.n)
	g.b.Path("is_mem_path", "warp_is_mem_i to warp_ready_o", isMem.n, readyOut.n)
	g.b.Path("counter_to_ready", "the counter register to warp_ready_o", cnt.n, readyOut.n)
	g.b.Path("lookup_to_counter", "sched_pc_i through the history cache lookup to the counter register", schedPC.n, cnt.n)
	g.output("warp_ready_o", readyOut,
		"warp_ready_i with memory warps masked while the safe distance is not met")
	g.output("mask_o", mask, "memory warps are masked this cycle")
	g.b.Header(readyMaskHeader(w, cw)...)
	// Storage, counted from the registers built above.
	bits := func(m *mem) int { return len(m.words) * m.w }
	st := nl.Storage{Name: "history tags and degrees",
		Doc: fmt.Sprintf("%d sets x %d ways x (%d tag + %d degree bits): the paper's count", w.HistorySets, ways, tb, hb)}
	valid := nl.Storage{Name: "history valid bits", Doc: "one per entry"}
	for _, c := range cache {
		st.Bits += bits(c.entry)
		valid.Bits += c.valid.w()
	}
	storage := []nl.Storage{st, valid}
	if ptrMem != nil {
		storage = append(storage, nl.Storage{Name: "replacement pointers", Bits: bits(ptrMem), Doc: "one per set"})
	}
	storage = append(storage, nl.Storage{Name: "counter", Bits: cnt.w(), Doc: "last_warp_bkconf_degree"})
	if accBits > 0 {
		storage = append(storage, nl.Storage{Name: "accumulator", Bits: accBits, Doc: "warp_bkconf_degree and the subwarp count"})
	}
	g.b.SetStorage(storage...)
	des, err := g.build()
	if err != nil {
		return nil, internalError(w, err)
	}
	return des, nil
}

func rp0(g *dual, pc sig, ib int) sig { return g.slice(pc, ib-1, 0) }

// rep is the one-bit s repeated w times.
func rep(g *dual, s sig, w int) sig {
	parts := make([]sig, w)
	for i := range parts {
		parts[i] = s
	}
	return g.concat(parts...)
}

// fitWidth truncates or zero-extends a to w bits.
func fitWidth(g *dual, a sig, w int) sig {
	if a.w() > w {
		return g.slice(a, w-1, 0)
	}
	return g.zext(a, w)
}

// bitsFor is the number of bits that hold 0..n.
func bitsFor(n int) int {
	b := 1
	for 1<<uint(b) <= n {
		b++
	}
	return b
}

func readyMaskHeader(w *specs.WarpReadyMask, cw int) []string {
	s := w.Subwarps()
	return []string{
		"Bank-conflict-aware warp ready signal generation (Figure 7 of Gou and Gaydadjiev, CF'11).",
		fmt.Sprintf("%d warp contexts; history cache %d sets x %d ways, %d-bit PCs (%d index, %d tag bits), %d-bit degrees;",
			w.WarpContexts, w.HistorySets, w.HistoryWays, w.PCBits, w.IndexBits(), w.TagBits(), w.HistoryBits()),
		fmt.Sprintf("warp %d, SIMD width %d (S = %d subwarps), %d shared-memory port(s); %d-bit counter.", w.WarpSize, w.SIMDWidth, s, w.ShmemPorts, cw),
		"",
		"Protocol (synchronous, rising edge of clk; rst or launch_i clears the cache and the counter):",
		"- mask_o = (counter != 0); warp_ready_o = warp_ready_i & ~(warp_is_mem_i & mask_o): one NAND and",
		"  one AND per warp context, the only logic on the ready path.",
		"- A cycle with sched_valid_i & sched_shmem_i looks sched_pc_i up (set = pc[index bits], tag = the",
		"  rest) and loads the counter with (pred + S - 1) >> log2(P) = warp_safe_mem_dist - 1 (eq. 5),",
		"  pred = the hit entry's degree or 0 on a miss; otherwise a nonzero counter counts down.",
		"- res_valid_i gives one subwarp's conflict degree d: the warp's sum of (d - 1) over its S subwarps",
		"  (mod 2^degree bits) is written for res_pc_i with the last subwarp: to the hit way, else the",
		"  lowest invalid way, else the way the set's replacement pointer names (which then advances).",
		"  A lookup in the same cycle sees the cache before the write.",
	}
}
