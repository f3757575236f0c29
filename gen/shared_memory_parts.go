package gen

import (
	"fmt"
	"math/bits"

	nl "github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/specs"
)

// The parts of the shared memory: slots, leaders, data routing, atomics.

// widthSelect decodes a width code into one bit per supported width.
func (g *shm) widthSelect(code sig) []sig {
	if out, ok := g.wsels[code.e.Name]; ok {
		return out
	}
	out := make([]sig, len(g.widths))
	defer func() { g.wsels[code.e.Name] = out }()
	for i, wd := range g.widths {
		out[i] = g.wire(fmt.Sprintf("%s_w%d", code.e.Name, wd.w), g.eqConst(code, wd.code), "")
	}
	return out
}

func (g *shm) eqConst(x sig, v int) sig { return g.eq(x, g.konst(uint64(v), x.w())) }

// lessThanConst is x < v, unsigned.
func (g *shm) lessThanConst(x sig, v int) sig {
	c := g.konst(uint64(v), x.w())
	return sig{nl.Bus{lessThan(g.b, specs.AdderPrefix, x.n, c.n)}, nl.LtE(x.e, c.e)}
}

// lt is x < y, unsigned.
func (g *shm) lt(x, y sig) sig {
	return sig{nl.Bus{lessThan(g.b, specs.AdderPrefix, x.n, y.n)}, nl.LtE(x.e, y.e)}
}

// orMux is the OR over i of (sels[i] ? vals[i] : 0): a one-hot select.
func (g *shm) orMux(sels, vals []sig) sig {
	var terms []sig
	zero := g.konst(0, vals[0].w())
	for i := range sels {
		terms = append(terms, g.mux(sels[i], vals[i], zero))
	}
	return g.or(terms...)
}

// encode is the index of the one set bit of onehot (0 when none).
func (g *shm) encode(onehot sig) sig {
	w := max(1, clog2(onehot.w()))
	out := make([]sig, w)
	for i := range out {
		var mask uint64
		for s := 0; s < onehot.w(); s++ {
			mask |= uint64(s>>i&1) << s
		}
		out[i] = g.nonzero(g.and(onehot, g.konst(mask, onehot.w())))
	}
	return g.concat(out...)
}

// highest is vals[i] for the highest set bit i of sel (0 when none): a
// binary tree of multiplexers, each taking its upper half when any of
// that half's bits is set, so its depth is log2(len(vals)), not
// len(vals). Each multiplexer's select is an OR tree of its own straight
// from sel (not the OR of its children's, which would pass every level's
// fanout of a whole word), and nodes spanning 4 or more values are wires
// of their own (name_LO_HI), so that the RTL reads short lines.
func (g *shm) highest(name string, sel sig, vals []sig) sig {
	var node func(lo, hi int) sig
	node = func(lo, hi int) sig {
		if hi-lo == 1 {
			return vals[lo]
		}
		mid := lo + (hi-lo+1)/2
		val := g.mux(g.nonzero(g.slice(sel, hi-1, mid)), node(mid, hi), node(lo, mid))
		if hi-lo >= 4 && hi-lo < len(vals) {
			val = g.wire(fmt.Sprintf("%s_%d_%d", name, lo, hi-1), val, "")
		}
		return val
	}
	return g.mux(g.nonzero(sel), node(0, len(vals)), g.konst(0, vals[0].w()))
}

// part is vec[idx*w +: w] (0 past the end).
func (g *shm) part(vec, idx sig, w int) sig {
	n := vec.w() / w
	out := make(nl.Bus, w)
	for t := range out {
		col := make(nl.Bus, n)
		for e := range col {
			col[e] = vec.n[e*w+t]
		}
		out[t] = g.b.Select(idx.n, col)
	}
	return sig{out, nl.PartAt(vec.e, idx.e, w)}
}

// lane fields of the request registers.
func (g *shm) laneAddr(addr sig, l int) sig { return g.slice(addr, l*g.A+g.A-1, l*g.A) }

// heldAddr is lane l's address in cur_addr: bits A-1..alo of it.
func (g *shm) heldAddr(cur sig, l int) sig {
	w := g.A - g.alo
	return g.slice(cur, l*w+w-1, l*w)
}

// laneHalf is which half of its 8-byte bank word lane l's 32-bit access
// takes, from the held addresses.
func (g *shm) laneHalf(addr sig, l int) sig {
	if g.front {
		return g.bit(addr, l)
	}
	return g.bit(g.heldAddr(addr, l), 2-g.alo)
}

func (g *shm) laneData(data sig, l int) sig { return g.slice(data, l*g.maxW+g.maxW-1, l*g.maxW) }

// laneWordAddr is word j of lane l (its address is aligned to its width,
// so the low log2(k) bits of its first word are zero and j goes there).
func (g *shm) laneWordAddr(addr sig, l int, wd shmWidth, j int) sig {
	kb := bits.TrailingZeros(uint(wd.k))
	hi := g.slice(g.heldAddr(addr, l), g.A-1-g.alo, g.lb+kb-g.alo)
	if kb == 0 {
		return hi
	}
	return g.concat(g.konst(uint64(j), kb), hi)
}

// phasesOf is, for the lane words pend of an instruction of the width
// wsel selects, one bit per (width, phase) in phase order (g.phaseAt):
// the phases with a lane word.
func (g *shm) phasesOf(wsel []sig, pend sig) sig {
	var out []sig
	for i, wd := range g.widths {
		for p := 0; p < wd.phases; p++ {
			var lw []sig
			for l := p * wd.G; l < min(g.L, (p+1)*wd.G); l++ {
				for j := 0; j < wd.k; j++ {
					lw = append(lw, g.bit(pend, l*g.kmax+j))
				}
			}
			out = append(out, g.and(wsel[i], g.nonzero(g.concat(lw...))))
		}
	}
	return g.concat(out...)
}

// numPhases is the number of (width, phase) pairs: the width of the
// phase registers.
func (g *shm) numPhases() int {
	n := 0
	for _, wd := range g.widths {
		n += wd.phases
	}
	return n
}

// laterPhases is phases without cur and the phases before it (all of
// them when cur is 0).
func (g *shm) laterPhases(phases, cur sig) sig {
	none := g.not(g.nonzero(cur))
	mask := make([]sig, phases.w()) // mask[c]: c is after cur
	for c := range mask {
		mask[c] = none
		if c > 0 {
			mask[c] = g.or(g.nonzero(g.slice(cur, c-1, 0)), none)
		}
	}
	return g.and(phases, g.concat(mask...))
}

// slots sets g.phase from the phase register curPhase (one bit per
// (width, phase), phasesOf's order) and returns whether each slot is
// pending.
func (g *shm) slots(curPhase, pend sig) (pending []sig) {
	g.phase = make([][]sig, len(g.widths))
	c := 0
	for i, wd := range g.widths {
		for p := 0; p < wd.phases; p++ {
			g.phase[i] = append(g.phase[i], g.bit(curPhase, c))
			c++
		}
	}
	for s := 0; s < g.NS; s++ {
		var sels, ps []sig
		g.eachSlot(s, func(sel sig, wd shmWidth, lane, j int) {
			sels = append(sels, sel)
			ps = append(ps, g.bit(pend, lane*g.kmax+j))
		})
		pending = append(pending, g.wire(fmt.Sprintf("slot_pend_%d", s), g.orMux(sels, ps), ""))
	}
	return pending
}

// slotWords is each slot's word address this pass (after slots).
func (g *shm) slotWords(addr sig) []sig {
	var words []sig
	for s := 0; s < g.NS; s++ {
		var sels, ws []sig
		g.eachSlot(s, func(sel sig, wd shmWidth, lane, j int) {
			sels = append(sels, sel)
			ws = append(ws, g.laneWordAddr(addr, lane, wd, j))
		})
		words = append(words, g.wire(fmt.Sprintf("slot_word_%d", s), g.orMux(sels, ws), ""))
	}
	return words
}

// slotPick is each slot's value this pass (after slots) among a value per
// lane word (index l*kmax+j), as wires name_S.
func (g *shm) slotPick(name string, lw []sig) []sig {
	return g.pickSlots(name, lw, g.eachSlot)
}

// slotPickAt is slotPick for the phase phase (one bit per (width,
// phase), phasesOf's order) instead of the current one.
func (g *shm) slotPickAt(phase sig, name string, lw []sig) []sig {
	return g.pickSlots(name, lw, func(s int, f func(sel sig, wd shmWidth, lane, j int)) {
		c := 0
		for _, wd := range g.widths {
			for p := 0; p < wd.phases; p++ {
				if lane, j, ok := wd.slotLane(s, p, g.L); ok {
					f(g.bit(phase, c), wd, lane, j)
				}
				c++
			}
		}
	})
}

func (g *shm) pickSlots(name string, lw []sig, each func(s int, f func(sel sig, wd shmWidth, lane, j int))) []sig {
	var out []sig
	for s := 0; s < g.NS; s++ {
		var sels, vs []sig
		each(s, func(sel sig, _ shmWidth, lane, j int) {
			sels = append(sels, sel)
			vs = append(vs, lw[lane*g.kmax+j])
		})
		out = append(out, g.wire(fmt.Sprintf("%s_%d", name, s), g.orMux(sels, vs), ""))
	}
	return out
}

// eachSlot calls f for every (width, phase) in which slot s holds a lane
// word, with the one-bit condition that it is the current one.
func (g *shm) eachSlot(s int, f func(sel sig, wd shmWidth, lane, j int)) {
	for i, wd := range g.widths {
		for p := 0; p < wd.phases; p++ {
			if lane, j, ok := wd.slotLane(s, p, g.L); ok {
				f(g.phase[i][p], wd, lane, j)
			}
		}
	}
}

// firstSet is the lowest set bit of x, one-hot.
func (g *shm) firstSet(x sig) sig {
	out := make([]sig, x.w())
	for i := range out {
		out[i] = g.bit(x, i)
		if i > 0 {
			out[i] = g.and(out[i], g.not(g.nonzero(g.slice(x, i-1, 0))))
		}
	}
	return g.concat(out...)
}

// laneWords maps the served slots back to lane words (bit l*kmax+j).
func (g *shm) laneWords(wsel []sig, served sig) sig {
	out := make([]sig, g.L*g.kmax)
	for i := range out {
		out[i] = g.konst(0, 1)
	}
	for s := 0; s < g.NS; s++ {
		g.eachSlot(s, func(sel sig, _ shmWidth, lane, j int) {
			out[lane*g.kmax+j] = g.or(out[lane*g.kmax+j], g.and(sel, g.bit(served, s)))
		})
	}
	for i := range out {
		out[i] = g.wire(fmt.Sprintf("served_lw_%d", i), out[i], "")
	}
	return g.wire("served_lanes", g.concat(out...), "lane words served this pass")
}

// expandActive is the lane words an instruction of the selected width
// has: word j of every active lane, j < k.
func (g *shm) expandActive(wsel []sig, active sig) sig {
	out := make([]sig, g.L*g.kmax)
	for l := 0; l < g.L; l++ {
		for j := 0; j < g.kmax; j++ {
			var has []sig
			for i, wd := range g.widths {
				if j < wd.k {
					has = append(has, wsel[i])
				}
			}
			out[l*g.kmax+j] = g.and(g.bit(active, l), g.or(has...))
		}
	}
	return g.concat(out...)
}

// slotOperands are each slot's store data and chunk mask (per 32-bit
// chunk of the bank word), CAS compare value and half (8-byte banks, 32-bit
// accesses: which half of the word).
func (g *shm) slotOperands(data, cmp, addr sig) (wdata, wmask, cmps, halves []sig) {
	ones := g.konst(1<<uint(g.C)-1, g.C)
	for s := 0; s < g.NS; s++ {
		var sels, ds, ms, sels32, cs, hs []sig
		g.eachSlot(s, func(sel sig, wd shmWidth, lane, j int) {
			ld := g.laneData(data, lane)
			d32 := g.slice(ld, 31, 0)
			sels = append(sels, sel)
			if wd.w == 32 { // atomics are 32-bit: their compare value and half
				sels32 = append(sels32, sel)
				cs = append(cs, g.slice(cmp, lane*32+31, lane*32))
			}
			switch {
			case wd.w >= g.WB:
				ds = append(ds, g.slice(ld, j*g.WB+g.WB-1, j*g.WB))
				ms = append(ms, ones)
			default: // a 32-bit access to an 8-byte bank word
				half := g.laneHalf(addr, lane)
				ds = append(ds, g.concat(d32, d32))
				ms = append(ms, g.concat(g.not(half), half))
				hs = append(hs, half)
			}
		})
		wdata = append(wdata, g.wire(fmt.Sprintf("slot_wdata_%d", s), g.orMux(sels, ds), ""))
		wmask = append(wmask, g.wire(fmt.Sprintf("slot_wmask_%d", s), g.orMux(sels, ms), ""))
		if len(cs) > 0 {
			cmps = append(cmps, g.orMux(sels32, cs))
		} else {
			cmps = append(cmps, g.konst(0, 32))
		}
		if len(hs) > 0 {
			halves = append(halves, g.orMux(sels32, hs))
		} else {
			halves = append(halves, g.konst(0, 1))
		}
	}
	return
}

// leaders are the pending slots with no earlier pending slot on their
// bank: one per bank in use.
// Each slot's column of same-bank bits is a wire of its own, so that the
// RTL reads one short line per slot.
func (g *shm) leaders(pend sig, sameBank [][]sig) sig {
	out := make([]sig, pend.w())
	for s := range out {
		out[s] = g.bit(pend, s)
		if s == 0 {
			continue
		}
		col := make([]sig, s)
		for t := range col {
			col[t] = sameBank[t][s]
		}
		before := g.wire(fmt.Sprintf("bank_before_%d", s), g.concat(col...), "")
		out[s] = g.and(out[s], g.not(g.nonzero(g.and(g.slice(pend, s-1, 0), before))))
	}
	return g.wire("lead", g.concat(out...), "pending slots with no earlier pending slot on their bank: one per bank in use")
}

// served: loads and stores serve every pending slot on its bank leader's
// word (broadcast); atomics serve the leaders alone.
// bc is what loads and stores serve, for phaseDone.
func (g *shm) served(pend, lead sig, sameWord [][]sig, atomic sig) (served, bc sig) {
	out := make([]sig, pend.w())
	for s := range out {
		col := make([]sig, s+1)
		for t := range col {
			col[t] = g.same(sameWord, t, s)
		}
		as := g.wire(fmt.Sprintf("word_as_%d", s), g.concat(col...), "")
		out[s] = g.wire(fmt.Sprintf("served_bc_%d", s), g.and(g.bit(pend, s), g.nonzero(g.and(g.slice(lead, s, 0), as))), "")
	}
	bc = g.wire("served_broadcast", g.concat(out...), "pending slots on their bank leader's word")
	return g.wire("served", g.mux(atomic, lead, bc), "slots served this pass"), bc
}

// decodeBank is one bit per bank: bank == b.
func (g *shm) decodeBank(bank sig) []sig {
	out := make([]sig, g.N)
	for b := range out {
		out[b] = g.eqConst(bank, b)
	}
	return out
}

// refusal is 1 for an instruction the unit refuses whole.
func (g *shm) refusal(op, width, active, addr sig) sig {
	u := g.u
	var ok []sig
	ok = append(ok, g.eqConst(op, int(specs.ShmemLoad)), g.eqConst(op, int(specs.ShmemStore)))
	for _, a := range u.Atomics {
		ok = append(ok, g.eqConst(op, int(a)))
	}
	opOK := g.or(ok...)
	wsel := g.widthSelect(width)
	widthOK := g.or(wsel...)
	atomicWide := g.and(g.not(g.lessThanConst(op, int(specs.ShmemAdd))), g.not(g.eqConst(width, 0)))
	var lanes []sig
	for l := 0; l < g.L; l++ {
		a := g.laneAddr(addr, l)
		var bad []sig
		for i, wd := range g.widths {
			nb := wd.w / 8
			var why []sig
			if ab := bits.TrailingZeros(uint(nb)); ab > 0 {
				why = append(why, g.nonzero(g.slice(a, ab-1, 0)))
			}
			if u.Bytes < 1<<g.A { // a + nb > bytes
				why = append(why, g.lt(g.konst(uint64(u.Bytes-nb), g.A), a))
			}
			if len(why) > 0 {
				bad = append(bad, g.and(wsel[i], g.or(why...)))
			}
		}
		if len(bad) > 0 {
			lanes = append(lanes, g.wire(fmt.Sprintf("req_bad_%d", l), g.and(g.bit(active, l), g.or(bad...)), ""))
		}
	}
	terms := []sig{g.not(opOK), atomicWide, g.not(widthOK)}
	if len(lanes) > 0 {
		terms = append(terms, g.nonzero(g.wire("req_bad_lane", g.concat(lanes...), "active lanes misaligned or out of range")))
	}
	return g.wire("req_refused", g.or(terms...), "the offered instruction is refused")
}

// atomic is the value an atomic op writes over old.
func (g *shm) atomic(b int, op, old, operand, cmp sig) sig {
	u := g.u
	is := func(code specs.ShmemOp) sig {
		if !u.HasAtomic(code) {
			return g.konst(0, 1)
		}
		return g.eqConst(op, int(code))
	}
	// The result: the op's value, selected by the decoded op (one level
	// of AND-OR, not a chain of multiplexers through every op).
	var sels, vals []sig
	add := func(sel, v sig, name string) {
		sels = append(sels, sel)
		vals = append(vals, g.wire(fmt.Sprintf("atomic_%d_%s", b, name), v, ""))
	}
	// One comparator and one multiplexer for the four min/max ops: signed
	// ones flip the sign bits first, and the op and the comparison decide
	// whether the old value stays.
	isMin, isMax := g.or(is(specs.ShmemSMin), is(specs.ShmemUMin)), g.or(is(specs.ShmemSMax), is(specs.ShmemUMax))
	if u.HasAtomic(specs.ShmemSMin) || u.HasAtomic(specs.ShmemSMax) || u.HasAtomic(specs.ShmemUMin) || u.HasAtomic(specs.ShmemUMax) {
		signed := g.or(is(specs.ShmemSMin), is(specs.ShmemSMax))
		flip := g.mux(signed, g.konst(1<<31, 32), g.konst(0, 32))
		less := g.lt(g.xor(old, flip), g.xor(operand, flip))
		keepOld := g.mux(less, isMin, isMax)
		add(g.or(isMin, isMax), g.mux(keepOld, old, operand), "minmax")
	}
	for _, code := range u.Atomics {
		switch code {
		case specs.ShmemAdd:
			add(is(code), sig{prefixAdd(g.b, old.n, operand.n, nl.Const0), nl.AddE(old.e, operand.e)}, code.String())
		case specs.ShmemAnd:
			add(is(code), g.and(old, operand), code.String())
		case specs.ShmemOr:
			add(is(code), g.or(old, operand), code.String())
		case specs.ShmemXor:
			add(is(code), g.xor(old, operand), code.String())
		case specs.ShmemExch:
			add(is(code), operand, code.String())
		case specs.ShmemCAS:
			add(is(code), g.mux(g.eq(old, cmp), operand, old), code.String())
		}
	}
	return g.orMux(sels, vals)
}

// gather is the response data a pass adds: each lane word the pass
// returns, from its slot's bank word, in the lane's field.
func (g *shm) gather(width, lanes sig, slotBank, slotHalf, bankWord []sig) sig {
	all := g.wire("bank_words", g.concat(bankWord...), "every bank's word this cycle, bank 0 lowest")
	read := make([]sig, g.NS)
	for s := range read {
		read[s] = g.wire(fmt.Sprintf("slot_read_%d", s), g.part(all, slotBank[s], g.WB), "")
	}
	wsel := g.widthSelect(width)
	fields := make([]sig, g.L)
	for l := 0; l < g.L; l++ {
		var sels, vals []sig
		for i, wd := range g.widths {
			base := (l % wd.G) * wd.k
			var parts []sig
			for j := 0; j < wd.k; j++ {
				v := read[base+j]
				if wd.w < g.WB {
					v = g.mux(slotHalf[base+j], g.slice(v, 63, 32), g.slice(v, 31, 0))
				}
				parts = append(parts, g.mux(g.bit(lanes, l*g.kmax+j), v, g.konst(0, v.w())))
			}
			sels = append(sels, wsel[i])
			vals = append(vals, g.zext(g.concat(parts...), g.maxW))
		}
		fields[l] = g.wire(fmt.Sprintf("pass_data_%d", l), g.orMux(sels, vals), "")
	}
	return g.concat(fields...)
}

// memory places bank b's macro and returns its read data.
func (g *shm) memory(name string, b int) sig {
	doc := fmt.Sprintf("bank %d: %d words of %d bits", b, g.depth, g.WB)
	rd := g.b.Memory(name, g.u.Name+"_bank", g.depth, g.WB, g.C, doc)
	return sig{rd, nl.Ref(name+"_rdata", g.WB)}
}

// memoryPorts connects bank name's inputs, in both views.
func (g *shm) memoryPorts(name string, re, raddr, we, waddr, wdata, wmask sig) {
	g.b.MemoryPorts(name, re.n[0], raddr.n, we.n[0], waddr.n, wdata.n, wmask.n)
	conn := func(port string, s sig) nl.PortConn { return nl.PortConn{Port: port, In: s.e, W: s.w()} }
	g.r.Assigns = append(g.r.Assigns, nl.Assign{Name: name, Inst: &nl.InstanceRTL{Module: g.u.Name + "_bank", Ports: []nl.PortConn{
		{Port: nl.BankClk, In: nl.Ref("clk", 1), W: 1},
		conn(nl.BankRE, re), conn(nl.BankRAddr, raddr),
		{Port: nl.BankRData, Wire: name + "_rdata", W: g.WB},
		conn(nl.BankWE, we), conn(nl.BankWAddr, waddr), conn(nl.BankWData, wdata), conn(nl.BankWMask, wmask),
	}}})
}

func (g *shm) header() []string {
	u := g.u
	bank := fmt.Sprintf("word address mod %d", g.N)
	if u.Hash != nil {
		bank = "module " + g.hash.Name + " on the word address (one instance per slot)"
		if g.front {
			bank = "module " + g.hash.Name + " on the word address (one instance per lane word, as the instruction is taken)"
		}
	}
	hold := []string{
		"storage). An instruction is accepted at the end of a cycle with req_valid_i & req_ready_o; the bank stage holds one",
		"instruction (req_ready_o = !rst & (none held | its last pass is made this cycle)) and makes one pass per cycle:",
	}
	if g.front {
		hold = []string{
			fmt.Sprintf("storage). Front end for clock_fo4 = %g (%s): two instruction buffers; req_ready_o = !rst & a buffer is", u.Clock.ClockFO4, u.Clock.TimingMode),
			"free. An instruction is accepted at the end of a cycle with req_valid_i & req_ready_o; the bank stage serves the",
			"buffers in turn, one pass per cycle:",
		}
	}
	h := []string{
		fmt.Sprintf("Shared memory: %d lanes, %d bytes in %d banks of %d-byte words (%d words each), widths %v, atomics %v.", g.L, u.Bytes, g.N, u.BankBytes, g.depth, u.Widths, u.Atomics),
		"Bank of a word: " + bank + ".",
		fmt.Sprintf("Latency L = %d: with req_valid_i and rsp_ready_i high, the response of instruction k is on rsp_* in cycle", specs.ShmemLatency),
		fmt.Sprintf("T0 + (P0 + ... + Pk) - 1 + %d, where T0 is the cycle instruction 0 is accepted and Pj its passes (rsp_passes_o).", specs.ShmemLatency),
		"Protocol: clocked at the rising edge of clk, synchronous active-high rst (drops every instruction in flight, keeps the",
	}
	h = append(h, hold...)
	return append(h,
		"lanes in phases of max(1, banks / k) lanes (k = bank words per lane); a phase takes as many passes as the most",
		"distinct words in one bank (broadcast), atomics as many as the most active lanes in one bank, applied in lane order.",
		"No pass is made while the two-entry response queue could overflow (Q - pop + S2 > 1). Writes reach the banks the",
		"cycle after their pass and are forwarded to the next pass's reads.",
		"Refused (rsp_error_o = 1, one pass, nothing changes): an unsupported op or width, an atomic wider than 32 bits, an",
		"active lane misaligned or past the capacity. Responses leave in order, held while rsp_ready_i is low.",
		"See docs/shared-memory.md.",
	)
}

// inline places a copy of the combinational design sub in both views as
// the design's own logic, not a module instance: a `banks = N` memory's
// mod unit is no unit of the spec files, so no file of its own is written
// for it. Its local names take the prefix; its outputs become wires
// prefix_PORT.
func (g *dual) inline(prefix string, sub *nl.Design, in map[string]sig) map[string]sig {
	bits := map[string]nl.Bus{}
	for port, s := range in {
		bits[port] = s.n
	}
	outs := g.b.Instance(prefix, sub, bits)
	g.b.Uninstance(prefix)
	rename := map[string]*nl.Expr{}
	for port, s := range in {
		rename[port] = s.e
	}
	var ren func(e *nl.Expr) *nl.Expr
	ren = func(e *nl.Expr) *nl.Expr {
		if e.Op == nl.OpRef {
			if r, ok := rename[e.Name]; ok {
				return r
			}
			return nl.Ref(prefix+"_"+e.Name, e.W)
		}
		c := *e
		c.Args = make([]*nl.Expr, len(e.Args))
		for i, a := range e.Args {
			c.Args[i] = ren(a)
		}
		return &c
	}
	for _, p := range sub.RTL.Params {
		p.Name = prefix + "_" + p.Name
		g.r.Params = append(g.r.Params, p)
	}
	for _, a := range sub.RTL.Assigns {
		g.r.Assigns = append(g.r.Assigns, nl.Assign{Name: prefix + "_" + a.Name, Wire: true, Expr: ren(a.Expr), Doc: a.Doc})
	}
	res := map[string]sig{}
	for _, p := range sub.Outputs() {
		res[p.Name] = sig{outs[p.Name], nl.Ref(prefix+"_"+p.Name, p.Width())}
	}
	return res
}

// storeData is bank b's store data and chunk mask in stage 2: per 32-bit
// chunk, the data of the highest slot that the pass served there and
// that writes the chunk (sel, registered here from the bank stage).
func (g *shm) storeData(b int, sel, slotData []sig) (data, mask sig) {
	var wd, wm []sig
	for c, sc := range sel {
		r := g.reg(fmt.Sprintf("s2_store_sel_%d_%d", b, c), g.NS, "")
		g.next(r, noClear, sc)
		vals := make([]sig, g.NS)
		for s := range vals {
			vals[s] = g.slice(slotData[s], 32*c+31, 32*c)
		}
		wd = append(wd, g.highest(fmt.Sprintf("store_data_%d_%d", b, c), r, vals))
		wm = append(wm, g.nonzero(r))
	}
	return g.wire(fmt.Sprintf("store_wdata_%d", b), g.concat(wd...), ""), g.wire(fmt.Sprintf("store_wmask_%d", b), g.concat(wm...), "")
}
