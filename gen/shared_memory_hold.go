package gen

import (
	"fmt"

	nl "github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/specs"
)

// The instructions the shared memory holds (docs/shared-memory.md): one
// register set (cur_*) that the bank stage serves and that the next
// instruction enters when the last pass frees it, or, with clock_fo4 (a
// pipelined front end), two register sets (buf0_*, buf1_*) that the bank
// stage serves in turn while the other takes the next instruction. With
// two, req_ready_o and the loading of the request registers come from
// registers alone, not from the pass that ends an instruction, and each
// lane word's bank and row are computed from the request as it is taken,
// so that the bank stage's loop holds no hash.

// shmInstr is an instruction's fields: as it is taken (request), as a
// set of registers holds it, or as the bank stage serves it. addr is what
// of its lanes' addresses is held (addrBits); pend its lane words not
// served yet (bit l*kmax+j: word j of lane l).
type shmInstr struct {
	valid, op, width, err, active, addr, data, cmp, pend sig
	phases                                               sig     // the (width, phase) pairs with a lane word (phasesOf)
	phase                                                sig     // the bank stage's view only: the phase it serves, one-hot
	sameBank, sameWord                                   [][]sig // front end, the bank stage's view: its slots' pairs on one bank, on one word
	lwBank, lwRow                                        []sig   // front end: bank and row of lane word l*kmax+j
}

// request decodes the offered instruction into what is held.
func (g *shm) request(valid, op, width, active, addr, data, cmp sig) shmInstr {
	L, A := g.L, g.A
	r := shmInstr{valid: valid, op: op, width: width, active: active, data: data, cmp: cmp}
	r.err = g.refusal(op, width, active, addr)
	var held []sig
	for l := 0; l < L; l++ {
		if g.front { // the half of an 8-byte bank word a 32-bit lane takes
			held = append(held, g.bit(g.laneAddr(addr, l), 2))
		} else {
			held = append(held, g.slice(g.laneAddr(addr, l), A-1, g.alo))
		}
	}
	if g.addrBits() > 0 {
		r.addr = g.concat(held...)
	}
	words := g.wire("req_lane_words", g.expandActive(g.widthSelect(width), active), "bit l*kmax+j: word j of active lane l")
	r.pend = g.wire("start_pend", g.mux(r.err, g.konst(0, L*g.kmax), words), "the lane words of the offered instruction")
	r.phases = g.wire("start_phases", g.phasesOf(g.widthSelect(width), r.pend), "its phases with a lane word: a bit per (width, phase)")
	// Its first phase, from its lane words before the refusal check (a
	// refused instruction has none pending, so its first pass serves
	// nothing and, with no later phase in r.phases, is its last).
	r.phase = g.wire("start_phase", g.firstSet(g.phasesOf(g.widthSelect(width), words)), "its first phase, one-hot (refusal apart)")
	if g.front {
		for l := 0; l < L; l++ {
			base := g.slice(g.laneAddr(addr, l), A-1, g.lb)
			for j := 0; j < g.kmax; j++ {
				b, row := g.wordHash(fmt.Sprintf("lw_hash_%d_%d", l, j), l == 0 && j == 0, g.orLow(base, j))
				r.lwBank = append(r.lwBank, g.wire(fmt.Sprintf("req_lw_bank_%d_%d", l, j), b, ""))
				r.lwRow = append(r.lwRow, g.wire(fmt.Sprintf("req_lw_row_%d_%d", l, j), row, ""))
			}
		}
	}
	return r
}

// addrBits is the width of the address register of an instruction: every
// lane's address without the bits below the narrowest width, or, with the
// front end (whose banks and rows are computed as it is taken), only each
// lane's half of an 8-byte bank word where 32-bit accesses use halves,
// else none.
func (g *shm) addrBits() int {
	switch {
	case !g.front:
		return g.L * (g.A - g.alo)
	case g.C > 1 && g.u.HasWidth(32):
		return g.L
	}
	return 0
}

// orLow is word with j ORed into its low bits: word j of a lane whose
// first word is word (aligned to its width, so those bits are 0 where
// the lane has a word j).
func (g *shm) orLow(word sig, j int) sig {
	if j == 0 {
		return word
	}
	parts := make([]sig, word.w())
	for b := range parts {
		parts[b] = g.bit(word, b)
		if j>>b&1 == 1 {
			parts[b] = g.konst(1, 1)
		}
	}
	return g.concat(parts...)
}

func (g *shm) regSet(prefix string, what string) shmInstr {
	L, A, u := g.L, g.A, g.u
	var s shmInstr
	s.valid = g.reg(prefix+"_valid", 1, "an instruction is "+what)
	s.op = g.reg(prefix+"_op", 4, "its op")
	s.width = g.reg(prefix+"_width", 2, "its width code")
	s.err = g.reg(prefix+"_err", 1, "it is refused: one pass, no access")
	s.active = g.reg(prefix+"_active", L, "its active lanes")
	switch {
	case !g.front:
		s.addr = g.reg(prefix+"_addr", L*(A-g.alo), fmt.Sprintf("its lanes' byte addresses without bits %d:0 (aligned to the narrowest width: checked at acceptance)", g.alo-1))
	case g.addrBits() > 0:
		s.addr = g.reg(prefix+"_half", L, "bit l: the half of its 8-byte bank word that lane l's 32-bit access takes (address bit 2)")
	}
	s.data = g.reg(prefix+"_data", L*g.maxW, "its lanes' data")
	s.cmp = g.konst(0, L*32)
	s.pend = g.reg(prefix+"_pend", L*g.kmax, "lane words not served yet: bit l*kmax+j is word j of lane l")
	s.phases = g.reg(prefix+"_phases", g.numPhases(), "its phases with a lane word: a bit per (width, phase), widths ascending")
	if u.HasAtomic(specs.ShmemCAS) {
		s.cmp = g.reg(prefix+"_cmp", L*32, "its lanes' CAS compare values")
	}
	if g.front {
		for l := 0; l < L; l++ {
			for j := 0; j < g.kmax; j++ {
				doc := ""
				if l == 0 && j == 0 {
					doc = "bank and row of each lane word (lane l, word j), from the request"
				}
				s.lwBank = append(s.lwBank, g.reg(fmt.Sprintf("%s_lw_bank_%d_%d", prefix, l, j), g.m, doc))
				s.lwRow = append(s.lwRow, g.reg(fmt.Sprintf("%s_lw_row_%d_%d", prefix, l, j), g.R, ""))
			}
		}
	}
	return s
}

// load sets the registers of s: the request r when take is 1, else pend
// (pend's own next value) and the rest kept; valid is cleared by
// validClear (noClear: valid has the reset in it).
func (g *shm) load(s shmInstr, take sig, r shmInstr, rst, validClear, valid, pend sig) {
	g.next(s.valid, validClear, valid)
	g.next(s.op, noClear, g.mux(take, r.op, s.op))
	g.next(s.width, noClear, g.mux(take, r.width, s.width))
	g.next(s.err, noClear, g.mux(take, r.err, s.err))
	g.next(s.active, noClear, g.mux(take, r.active, s.active))
	if g.addrBits() > 0 {
		g.next(s.addr, noClear, g.mux(take, r.addr, s.addr))
	}
	g.next(s.data, noClear, g.mux(take, r.data, s.data))
	if g.u.HasAtomic(specs.ShmemCAS) {
		g.next(s.cmp, noClear, g.mux(take, r.cmp, s.cmp))
	}
	g.next(s.pend, rst, g.mux(take, r.pend, pend))
	g.next(s.phases, noClear, g.mux(take, r.phases, s.phases))
	for i := range s.lwBank {
		g.next(s.lwBank[i], noClear, g.mux(take, r.lwBank[i], s.lwBank[i]))
		g.next(s.lwRow[i], noClear, g.mux(take, r.lwRow[i], s.lwRow[i]))
	}
}

// shmPass is what the bank stage's pass decides this cycle.
type shmPass struct {
	made, last sig // a pass is made; it is its instruction's last
	left       sig // the lane words pending after it
	advance    sig // it ends its phase
	phaseNext  sig // the served instruction's next phase with a lane word, one-hot (0: none)
	noLater    sig // phaseNext is 0
}

// hold declares the instruction registers and returns the bank stage's
// view of them, and done, which sets their next values from this cycle's
// pass and returns req_ready_o.
func (g *shm) hold(r shmInstr, rst sig) (cur shmInstr, done func(p shmPass) sig) {
	notRst := g.not(rst)
	phase := g.reg("cur_phase", g.numPhases(), "the phase the bank stage serves, one-hot (0: none)")
	if !g.front {
		s := g.regSet("cur", "in the bank stage")
		cur = s
		cur.phase = phase
		return cur, func(p shmPass) sig {
			ready := g.wire("ready", g.and(notRst, g.or(g.not(s.valid), p.last)), "req_ready_o")
			accept := g.wire("accept", g.and(r.valid, ready), "an instruction is taken this cycle")
			g.load(s, accept, r, rst, rst, g.or(accept, g.and(s.valid, g.not(p.last))), g.mux(p.made, p.left, s.pend))
			g.next(phase, rst, g.mux(accept, r.phase, g.mux(p.advance, p.phaseNext, phase)))
			return ready
		}
	}
	b0 := g.regSet("buf0", "in buffer 0")
	b1 := g.regSet("buf1", "in buffer 1")
	ptr := g.reg("serve", 1, "the buffer the bank stage serves (the older instruction)")
	pick := func(name string, x1, x0 sig) sig { return g.wire("cur_"+name, g.mux(ptr, x1, x0), "") }
	cur = shmInstr{
		valid: pick("valid", b1.valid, b0.valid), op: pick("op", b1.op, b0.op), width: pick("width", b1.width, b0.width),
		err: pick("err", b1.err, b0.err), active: pick("active", b1.active, b0.active),
		data: pick("data", b1.data, b0.data), pend: pick("pend", b1.pend, b0.pend), phases: pick("phases", b1.phases, b0.phases),
		phase: phase,
	}
	cur.cmp = g.konst(0, g.L*32)
	if g.u.HasAtomic(specs.ShmemCAS) {
		cur.cmp = pick("cmp", b1.cmp, b0.cmp)
	}
	if g.addrBits() > 0 {
		cur.addr = pick("half", b1.addr, b0.addr)
	}
	for i := range b0.lwBank {
		cur.lwBank = append(cur.lwBank, g.mux(ptr, b1.lwBank[i], b0.lwBank[i]))
		cur.lwRow = append(cur.lwRow, g.mux(ptr, b1.lwRow[i], b0.lwRow[i]))
	}
	var pairBank, pairWord sig
	if g.NS > 1 {
		pairBank = g.reg("pair_bank", g.NS*(g.NS-1)/2, "the served phase's slot pairs (i, j), i < j, in order (0,1), (0,2), ...: on one bank")
		pairWord = g.reg("pair_word", g.NS*(g.NS-1)/2, "the same pairs: on one word")
		cur.sameBank, cur.sameWord = g.pairTable(pairBank), g.pairTable(pairWord)
		g.pairRegs = append(append(nl.Bus{}, pairBank.n...), pairWord.n...)
	}
	return cur, func(p shmPass) sig {
		pass, last, left, advance := p.made, p.last, p.left, p.advance
		// A request enters the served buffer when both are empty, else the
		// other; none while both are full.
		ready := g.wire("ready", g.and(notRst, g.not(g.and(b0.valid, b1.valid))), "req_ready_o: a buffer is free")
		accept := g.wire("accept", g.and(r.valid, ready), "an instruction is taken this cycle")
		into1 := g.wire("accept_into_1", g.xor(ptr, cur.valid), "it enters buffer 1 (else buffer 0)")
		take1 := g.and(accept, into1)
		take0 := g.and(accept, g.not(into1))
		served1, served0 := ptr, g.not(ptr)
		// A buffer stays full unless the bank stage serves it and makes its
		// last pass; last, late in the cycle, passes one gate.
		// (The reset is folded in ahead of it.)
		full := func(take, valid, served sig) sig {
			early := g.and(g.or(take, g.and(valid, g.not(served))), notRst)
			notEnding := g.b.Nor(g.b.Nand(valid.n[0], served.n[0], notRst.n[0]), last.n[0])
			e := nl.NotE(nl.OrE(nl.NotE(nl.AndE(valid.e, served.e, notRst.e)), last.e))
			return g.or(early, sig{nl.Bus{notEnding}, e})
		}
		g.load(b0, take0, r, rst, noClear, full(take0, b0.valid, served0), g.mux(g.and(pass, served0), left, b0.pend))
		g.load(b1, take1, r, rst, noClear, full(take1, b1.valid, served1), g.mux(g.and(pass, served1), left, b1.pend))
		g.next(ptr, rst, g.xor(ptr, last))
		// The phase served next cycle: after a last pass, the other
		// buffer's first (taken now, held, or none); when the unit is
		// empty, the first of the instruction taken into the served
		// buffer; after a pass that ends its phase, the next.
		other := g.mux(ptr, b0.phases, b1.phases)
		otherValid := g.mux(ptr, b0.valid, b1.valid)
		takeOther := g.and(accept, g.xor(into1, ptr))
		nextFirst := g.wire("next_first_phase", g.mux(takeOther, r.phase, g.mux(otherValid, g.firstSet(other), g.konst(0, other.w()))), "the first phase of the instruction served after this one")
		takeServed := g.and(accept, g.not(cur.valid))
		g.next(phase, rst, g.mux(last, nextFirst, g.mux(takeServed, r.phase, g.mux(advance, p.phaseNext, phase))))
		if g.NS < 2 {
			return ready
		}

		// The slot pairs of the phase served after this one, compared a
		// cycle ahead from registers (and the request), so that the pass
		// loop starts at registers: the served instruction's next phase
		// while it has one, else the next instruction's first (the other
		// buffer's, else the one taken now). They are taken when the pass
		// ends its phase, and every cycle while nothing is served.
		fromCur := g.and(cur.valid, g.not(p.noLater))
		fromOther := g.and(cur.valid, p.noLater, otherValid)
		fromReq := g.not(g.or(fromCur, fromOther))
		nextPh := g.wire("ahead_phase", g.or(g.and(rep(g.dual, fromCur, p.phaseNext.w()), p.phaseNext),
			g.and(rep(g.dual, fromOther, p.phaseNext.w()), g.firstSet(other)), g.and(rep(g.dual, fromReq, p.phaseNext.w()), r.phase)), "the phase served after this one, one-hot")
		var aheadBank, aheadRow []sig
		for i := range cur.lwBank {
			ob := g.mux(ptr, b0.lwBank[i], b1.lwBank[i])
			or := g.mux(ptr, b0.lwRow[i], b1.lwRow[i])
			aheadBank = append(aheadBank, g.orMux([]sig{fromCur, fromOther, fromReq}, []sig{cur.lwBank[i], ob, r.lwBank[i]}))
			aheadRow = append(aheadRow, g.orMux([]sig{fromCur, fromOther, fromReq}, []sig{cur.lwRow[i], or, r.lwRow[i]}))
		}
		banks := g.slotPickAt(nextPh, "ahead_bank", aheadBank)
		rows := g.slotPickAt(nextPh, "ahead_row", aheadRow)
		eqBank := g.pairs("ahead_same_bank", banks)
		eqRow := g.pairs("ahead_same_row", rows)
		var wb, ww []sig
		for i := 0; i < g.NS; i++ {
			for j := i + 1; j < g.NS; j++ {
				wb = append(wb, eqBank[i][j])
				ww = append(ww, g.and(eqBank[i][j], eqRow[i][j])) // (bank, row) is a bijection of the words
			}
		}
		load := g.or(advance, g.not(cur.valid))
		g.pairsFrom = nl.Bus{}
		for i := range aheadBank {
			g.pairsFrom = append(append(g.pairsFrom, aheadBank[i].n...), aheadRow[i].n...)
		}
		g.pairsTo = append(append(nl.Bus{}, g.concat(wb...).n...), g.concat(ww...).n...)
		g.next(pairBank, noClear, g.mux(load, g.concat(wb...), pairBank))
		g.next(pairWord, noClear, g.mux(load, g.concat(ww...), pairWord))
		return ready
	}
}

// pairTable reads a register of pair bits (pairWise's order) as a
// matrix.
func (g *shm) pairTable(bits sig) [][]sig {
	eq := make([][]sig, g.NS)
	for i := range eq {
		eq[i] = make([]sig, g.NS)
	}
	k := 0
	for i := 0; i < g.NS; i++ {
		for j := i + 1; j < g.NS; j++ {
			eq[i][j] = g.bit(bits, k)
			eq[j][i] = eq[i][j]
			k++
		}
	}
	return eq
}
