package gen

import (
	"fmt"
	"math/bits"

	"github.com/hashicorp/hcl/v2"

	nl "github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/specs"
)

// The shared memory (docs/shared-memory.md): banks of storage behind a
// hash, served one pass per cycle.
//
// One instruction at a time sits in the bank stage (cur_*). Its lanes are
// served in phases of G = N/k consecutive lanes (k bank words per lane),
// each lane word on a slot: slot s of phase p is word s%k of lane
// p*G + s/k. A pass hashes every pending slot's word, elects per bank the
// lowest pending slot (the leader) and serves every pending slot on the
// leader's word (broadcast; atomics serve the leader alone). The bank
// reads at the end of the pass; the next cycle (stage 2, s2_*) gets the
// words, forwards the write of the cycle before (the banks read first),
// applies the atomics, writes, and gathers the lanes' data into acc. The
// last pass's response enters a two-entry output queue.

// shm is the generator's state.
type shm struct {
	*dual
	u       *specs.SharedMemory
	L, A    int // lanes, byte-address bits
	WB, C   int // bank word bits, 32-bit chunks per bank word
	lb      int // log2(bank_bytes)
	alo     int // log2(narrowest width / 8): the address bits below it are 0
	WA      int // word-address bits
	N, m    int // banks, bank-index bits
	R       int // row bits (bank address)
	depth   int // words per bank
	maxW    int
	kmax    int
	NS      int // slots
	pb      int // pass-count bits
	widths  []shmWidth
	hash    *nl.Design
	hashCfg map[string]sig
	rowOf   func(word sig) sig // the row of a word (not for mod: index_o)
	phase   [][]sig            // per width, per phase: it is the current one (slots)
	wsels   map[string][]sig   // widthSelect's decodes, by the code's name
	front   bool               // clock_fo4: two instruction buffers, lane words hashed as taken (shared_memory_hold.go)
	// With the front end, for the parts' timing paths: the registered
	// slot pairs, and the compare a phase ahead (from, to).
	pairRegs, pairsFrom, pairsTo nl.Bus
}

// shmWidth is the slot plan of one access width.
type shmWidth struct {
	w, code int // bits; req_width_i code
	k, G    int // words per lane, lanes per phase
	phases  int
}

// slotLane is the lane and word of slot s in phase p, ok false when the
// slot is unused in this width (or the lane is past the last).
func (wd shmWidth) slotLane(s, p, lanes int) (lane, j int, ok bool) {
	if s >= wd.G*wd.k {
		return 0, 0, false
	}
	lane, j = p*wd.G+s/wd.k, s%wd.k
	return lane, j, lane < lanes
}

// SharedMemory builds a shared_memory unit.
func SharedMemory(u *specs.SharedMemory) (*nl.Design, hcl.Diagnostics) {
	g := &shm{dual: newDual(u.Name), u: u, L: u.Lanes, A: u.AddrBits(), WB: 8 * u.BankBytes,
		lb: bits.TrailingZeros(uint(u.BankBytes)), WA: u.WordBits(), N: u.NumBanks(), maxW: u.MaxWidth(), pb: u.PassBits(), front: u.Clock.ClockFO4 > 0}
	g.C = g.WB / 32
	g.alo = bits.TrailingZeros(uint(u.Widths[0] / 8))
	g.wsels = map[string][]sig{}
	if diags := g.bankMap(); diags.HasErrors() {
		return nil, diags
	}
	for _, w := range []int{32, 64, 128} {
		if !u.HasWidth(w) {
			continue
		}
		k := max(1, w/g.WB)
		G := max(1, g.N/k)
		wd := shmWidth{w: w, code: bits.TrailingZeros(uint(w / 32)), k: k, G: G, phases: (g.L + G - 1) / G}
		g.widths = append(g.widths, wd)
		g.NS = max(g.NS, min(G, g.L)*k)
		g.kmax = max(g.kmax, k)
	}
	g.build()
	d, err := g.dual.build()
	if err != nil {
		return nil, internalError(u, err)
	}
	for i := range d.Memories {
		d.Memories[i].AccessFO4, d.Memories[i].SetupFO4, d.Memories[i].AreaPerBit = u.BankAccessFO4, u.BankSetupFO4, u.BankAreaPerBit
	}
	d.Protocol = &nl.Protocol{Latency: specs.ShmemLatency, PeriodFO4: u.Clock.ClockFO4, Mode: u.Clock.TimingMode}
	return d, nil
}

// bankMap sets the bank of a word (a hash instance per slot) and its row.
func (g *shm) bankMap() hcl.Diagnostics {
	u := g.u
	h := &specs.Hash{Name: u.Name + "_bank_mod", Function: specs.Mod, Banks: u.Banks, AddrBits: g.WA, BankBits: clog2(u.Banks)}
	if u.Hash != nil {
		if h = u.Hash.Hash(); h == nil {
			return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Unresolved reference",
				Detail:  fmt.Sprintf("hash = hash.%s was not resolved to a hash unit; load the file that declares it.", u.Hash.Name),
				Subject: u.Hash.Range.Ptr()}}
		}
	}
	d, diags := Hash(h)
	if diags.HasErrors() {
		return diags
	}
	g.hash, g.m = d, d.Port("bank_o").Width()
	// The row: mod's quotient, or the word-address bits the bank does
	// not keep (chosen by the loader, specs.ShmemRow).
	g.depth = u.BankRows()
	switch u.Row.Kind {
	case specs.RowDivide:
		g.R = d.Port("index_o").Width()
	case specs.RowWindow:
		// bitvector_perm / bitvector_xor: bank bits come from k..k+m-1
		// (k1 for xor), chosen at run time; the row is the word without
		// them: row[r] = r < k ? word[r] : word[r+m].
		g.R = g.WA - g.m
		kName := "cfg_k_i"
		if h.Function == specs.BitvectorXor {
			kName = "cfg_k1_i"
		}
		g.rowOf = func(word sig) sig {
			k := g.hashCfg[kName]
			out := make([]sig, g.R)
			for r := range out {
				below := g.lt(g.konst(uint64(r), k.w()), k)
				hi := g.konst(0, 1)
				if r+g.m < g.WA {
					hi = g.bit(word, r+g.m)
				}
				out[r] = g.mux(below, g.bit(word, r), hi)
			}
			return g.concat(out...)
		}
	default:
		keep := u.Row.Keep
		g.R = len(keep)
		g.rowOf = func(word sig) sig {
			parts := make([]sig, len(keep))
			for i, b := range keep {
				parts[i] = g.bit(word, b)
			}
			if len(parts) == 0 {
				return g.konst(0, 1)
			}
			return g.concat(parts...)
		}
	}
	g.R = max(g.R, 1)
	return nil
}

// wordHash is the bank and row of word (WA bits) through the hash, an
// instance named name (doc: the first, which carries the comment).
func (g *shm) wordHash(name string, doc bool, word sig) (bank, row sig) {
	hw := g.hash.Port("addr_i").Width()
	in := map[string]sig{"addr_i": g.zext(g.slice(word, min(hw, g.WA)-1, 0), hw)}
	for name, c := range g.hashCfg {
		in[name] = c
	}
	comment := ""
	if doc {
		comment = "bank (and row) of each word from " + g.hash.Name
	}
	place := g.instance
	if g.u.Hash == nil {
		place = func(name string, sub *nl.Design, in map[string]sig, _ string) map[string]sig {
			return g.inline(name, sub, in)
		}
	}
	out := place(name, g.hash, in, comment)
	bank = out["bank_o"]
	if idx, ok := out["index_o"]; ok {
		row = g.zext(idx, g.R)
		if idx.w() > g.R {
			row = g.slice(idx, g.R-1, 0)
		}
	} else {
		row = g.rowOf(word)
	}
	return bank, g.zext(row, g.R)
}

func (g *shm) build() {
	u, L, A := g.u, g.L, g.A
	g.b.Clock("clk", "clock; state changes at its rising edge")
	rst := g.input("rst", 1, "synchronous reset, active high: drops every instruction in flight; the storage keeps its words")
	reqValid := g.input("req_valid_i", 1, "an instruction is offered on req_*")
	reqOp := g.input("req_op_i", 4, "0 load, 1 store, 2 add, 3 smin, 4 smax, 5 umin, 6 umax, 7 and, 8 or, 9 xor, 10 exch, 11 cas")
	reqWidth := g.input("req_width_i", 2, "0: 32-bit, 1: 64-bit, 2: 128-bit accesses")
	reqActive := g.input("req_active_i", L, "bit i: lane i takes part")
	reqAddr := g.input("req_addr_i", L*A, fmt.Sprintf("%d lanes of %d-bit byte addresses, lane 0 in the least significant bits", L, A))
	reqData := g.input("req_data_i", L*g.maxW, fmt.Sprintf("%d bits per lane: store data, atomic operand, CAS new value", g.maxW))
	reqCmp := g.input("req_cmp_i", L*32, "32 bits per lane: the CAS compare value")
	rspReady := g.input("rsp_ready_i", 1, "the response on rsp_* is taken at the end of this cycle")
	g.hashCfg = map[string]sig{}
	for _, p := range g.hash.Inputs() {
		if p.Name != "addr_i" {
			g.hashCfg[p.Name] = g.input("hash_"+p.Name, p.Width(), "bank hash configuration, shared by every lane (hold it while the memory holds data): "+p.Doc)
		}
	}

	// The instruction the bank stage serves, and the offered one.
	req := g.request(reqValid, reqOp, reqWidth, reqActive, reqAddr, reqData, reqCmp)
	cur, done := g.hold(req, rst)
	curValid, curOp, curWidth, curErr, curActive, curAddr, curData, curCmp, curPend := cur.valid, cur.op, cur.width, cur.err, cur.active, cur.addr, cur.data, cur.cmp, cur.pend
	curPasses := g.reg("cur_passes", g.pb, "passes made so far")

	// Stage 2 and the output queue (declared here: the stall rule reads them).
	s2Valid := g.reg("s2_valid", 1, "the previous cycle made a pass")
	s2Last := g.reg("s2_last", 1, "it was its instruction's last")
	q := g.reg("q_count", 2, "responses in the output queue")

	// This cycle's pass: each slot's bank and row, from the hash of its
	// word or (front end) from the lane word's, computed when the
	// instruction was taken.
	wsel := g.widthSelect(curWidth)
	isAtomic := g.wire("cur_atomic", g.not(g.lessThanConst(curOp, int(specs.ShmemAdd))), "its op is an atomic")
	slotPend := g.slots(cur.phase, curPend)
	banks := make([]sig, g.NS)
	rows := make([]sig, g.NS)
	var slotWord []sig // without the front end: each slot's word address
	if g.front {
		banks = g.slotPick("slot_bank", cur.lwBank)
		rows = g.slotPick("slot_row", cur.lwRow)
	} else {
		slotWord = g.slotWords(curAddr)
		for s := range banks {
			b, r := g.wordHash(fmt.Sprintf("slot_hash_%d", s), s == 0, slotWord[s])
			banks[s], rows[s] = g.wire(fmt.Sprintf("slot_bank_%d", s), b, ""), g.wire(fmt.Sprintf("slot_row_%d", s), r, "")
		}
	}
	pend := g.wire("slot_pend", g.concat(slotPend...), "slots with a pending lane word this pass")
	sameBank, sameWord := cur.sameBank, cur.sameWord // front end: from registers
	if !g.front {
		sameBank = g.pairs("same_bank", banks)
		sameWord = g.pairs("same_word", slotWord)
	}
	lead := g.leaders(pend, sameBank)
	served, servedBC := g.served(pend, lead, sameWord, isAtomic)

	// Lane words served this pass, and what stays pending. No pass is made
	// while the queue could not take a response two cycles from now, so
	// whether a pass is made depends on registers and rsp_ready_i alone.
	servedLW := g.laneWords(wsel, served)
	left := g.wire("pend_left", g.and(curPend, g.not(servedLW)), "lane words pending after this pass")
	// The pass ends its phase when it serves every pending slot, and its
	// instruction when no later phase has a lane word (from registers).
	// Both ways of serving are checked and the op picks one, so that the
	// choice is not on the way.
	allServed := func(sv sig) sig { return g.not(g.nonzero(g.and(pend, g.not(sv)))) }
	phaseDone := g.wire("phase_done", g.mux(isAtomic, allServed(lead), allServed(servedBC)), "the pass serves every pending slot: it ends its phase")
	later := g.wire("phases_later", g.laterPhases(cur.phases, cur.phase), "the phases after this one with a lane word")
	phaseNext := g.wire("phase_next", g.firstSet(later), "the next of them, one-hot (0: none)")
	noLater := g.wire("no_later_phase", g.not(g.nonzero(later)), "no later phase has a lane word")
	wouldBeLast := g.wire("would_be_last", g.and(phaseDone, noLater), "this pass is the instruction's last")
	qNZ := g.nonzero(q)
	pop := g.wire("pop", g.and(qNZ, rspReady), "the queue's head leaves at the end of this cycle")
	// room: Q - pop + S2 <= 1 (S2: a last pass in stage 2).
	q2 := g.bit(q, 1)
	qAfter0 := g.or(g.not(qNZ), g.and(pop, g.not(q2)))                 // Q - pop == 0
	qAfter1 := g.or(g.and(g.not(q2), qNZ, g.not(pop)), g.and(q2, pop)) // Q - pop == 1
	s2LastValid := g.and(s2Valid, s2Last)
	room := g.wire("room", g.or(qAfter0, g.and(qAfter1, g.not(s2LastValid))), "the queue can take a response two cycles from now")
	notRst := g.not(rst)
	passMade := g.wire("pass", g.and(curValid, notRst, room), "the bank stage makes a pass this cycle")
	last := g.wire("last", g.and(passMade, wouldBeLast), "the pass is the instruction's last")
	reqReady := done(shmPass{made: passMade, last: last, left: left, advance: g.and(passMade, phaseDone), phaseNext: phaseNext, noLater: noLater})

	// Bank requests of this pass: leader per bank.
	bankSel := make([][]sig, g.NS) // bankSel[s][b]: slot s is on bank b
	for s := range bankSel {
		bankSel[s] = g.decodeBank(banks[s])
	}
	isLoad := g.eqConst(curOp, int(specs.ShmemLoad))
	isStore := g.eqConst(curOp, int(specs.ShmemStore))
	doRead := g.and(passMade, g.not(curErr), g.not(isStore))
	doWrite := g.and(passMade, g.not(curErr), g.not(isLoad))
	slotData, slotMask, slotCmp, slotHalf := g.slotOperands(curData, curCmp, curAddr)

	allRows := g.wire("slot_rows", g.concat(rows...), "every slot's row, slot 0 lowest")
	var allCmps, allHalves sig
	if u.HasAtomic(specs.ShmemCAS) {
		allCmps = g.wire("slot_cmps", g.concat(slotCmp...), "every slot's CAS compare value")
	}
	if g.C > 1 {
		allHalves = g.wire("slot_halves", g.concat(slotHalf...), "every slot's half of the bank word (32-bit accesses)")
	}
	type bankReq struct {
		re, we, row, cmp, half sig
		storeSel               []sig // per 32-bit chunk: the served slots that write it
	}
	breq := make([]bankReq, g.N)
	var raddrs, cmps, rdatas, atomics, storeIn nl.Bus // for the parts' timing paths
	for b := 0; b < g.N; b++ {
		var leadHere, servedHere []sig
		for s := 0; s < g.NS; s++ {
			leadHere = append(leadHere, g.and(g.bit(lead, s), bankSel[s][b]))
			servedHere = append(servedHere, g.and(g.bit(served, s), bankSel[s][b]))
		}
		lh := g.wire(fmt.Sprintf("lead_on_%d", b), g.concat(leadHere...), "")
		sh := g.wire(fmt.Sprintf("served_on_%d", b), g.concat(servedHere...), "")
		used := g.nonzero(lh)
		// The leader's slot number picks its row (and compare value)
		// through a tree of multiplexers.
		leader := g.wire(fmt.Sprintf("leader_%d", b), g.encode(lh), "")
		r := bankReq{
			re:  g.and(doRead, used),
			we:  g.and(doWrite, used),
			row: g.part(allRows, leader, g.R),
		}
		// Stores: per 32-bit chunk, the served slots that write it; stage
		// 2 takes the highest one's data (storeData).
		for c := 0; c < g.C; c++ {
			var sel []sig
			for s := 0; s < g.NS; s++ {
				sel = append(sel, g.and(g.bit(sh, s), g.bit(slotMask[s], c)))
			}
			r.storeSel = append(r.storeSel, g.wire(fmt.Sprintf("store_sel_%d_%d", b, c), g.concat(sel...), ""))
		}
		if u.HasAtomic(specs.ShmemCAS) {
			// CAS: the leader's compare value (its operand is the store
			// data the leader alone puts on the bank).
			r.cmp = g.part(allCmps, leader, 32)
			cmps = append(cmps, r.cmp.n...)
		}
		if len(u.Atomics) > 0 && g.C > 1 {
			r.half = g.part(allHalves, leader, 1)
		}
		breq[b] = r
		raddrs = append(raddrs, r.row.n...)
	}

	// Stage 2 registers.
	var s2Op, s2Atomic sig // stage 2's op: the atomic units' only
	if len(u.Atomics) > 0 {
		s2Op = g.reg("s2_op", 4, "stage 2: the op")
		g.next(s2Op, noClear, curOp)
		s2Atomic = g.not(g.lessThanConst(s2Op, int(specs.ShmemAdd)))
	}
	s2Width := g.reg("s2_width", 2, "stage 2: the width code")
	s2Active := g.reg("s2_active", L, "stage 2: the instruction's active lanes (for the response)")
	s2Err := g.reg("s2_err", 1, "stage 2: refused")
	s2Passes := g.reg("s2_passes", g.pb, "stage 2: passes of the instruction (its last pass)")
	s2Lanes := g.reg("s2_lanes", L*g.kmax, "stage 2: the lane words whose data the pass returns (loads and atomics)")
	var s2SlotBank []sig
	for s := 0; s < g.NS; s++ {
		s2SlotBank = append(s2SlotBank, g.reg(fmt.Sprintf("s2_slot_bank_%d", s), g.m, ""))
	}
	// The half of the bank word of the slots that hold 32-bit lanes (8-byte
	// banks): slots below min(banks, lanes).
	var s2SlotHalf []sig
	halfSlots := 0
	if g.C > 1 && u.HasWidth(32) {
		halfSlots = min(g.N, L)
	}
	for s := 0; s < g.NS; s++ {
		h := g.konst(0, 1)
		if s < halfSlots {
			h = g.reg(fmt.Sprintf("s2_slot_half_%d", s), 1, "")
			g.next(h, noClear, slotHalf[s])
		}
		s2SlotHalf = append(s2SlotHalf, h)
	}
	// The slots' store data, for stage 2's store crossbar.
	var s2SlotData []sig
	var storeFrom nl.Bus
	for s := 0; s < g.NS; s++ {
		d := g.reg(fmt.Sprintf("s2_slot_wdata_%d", s), g.WB, "")
		g.next(d, noClear, slotData[s])
		s2SlotData = append(s2SlotData, d)
		storeFrom = append(storeFrom, d.n...)
	}
	g.next(s2Valid, rst, passMade)
	g.next(s2Last, rst, last)
	g.next(s2Width, noClear, curWidth)
	g.next(s2Active, noClear, curActive)
	g.next(s2Err, noClear, curErr)
	g.next(s2Passes, noClear, g.add(curPasses, g.konst(1, g.pb)))
	g.next(s2Lanes, rst, g.mux(doRead, servedLW, g.konst(0, L*g.kmax)))
	for s := 0; s < g.NS; s++ {
		g.next(s2SlotBank[s], noClear, banks[s])
	}

	// The banks, and stage 2 per bank.
	bankWord := make([]sig, g.N)
	for b := 0; b < g.N; b++ {
		r := breq[b]
		name := fmt.Sprintf("bank%d", b)
		sWE := g.reg(fmt.Sprintf("s2_we_%d", b), 1, "")
		sRow := g.reg(fmt.Sprintf("s2_row_%d", b), g.R, "")
		g.next(sWE, rst, r.we)
		g.next(sRow, noClear, r.row)
		sWD, sWM := g.storeData(b, r.storeSel, s2SlotData)
		storeIn = append(storeIn, sWD.n...)
		rdata := g.memory(name, b)
		rdatas = append(rdatas, rdata.n...)
		// Forwarding: the write made at the edge that read this word.
		bpV := g.reg(fmt.Sprintf("fwd_valid_%d", b), 1, "")
		bpRow := g.reg(fmt.Sprintf("fwd_row_%d", b), g.R, "")
		bpData := g.reg(fmt.Sprintf("fwd_data_%d", b), g.WB, "")
		bpMask := g.reg(fmt.Sprintf("fwd_mask_%d", b), g.C, "")
		hit := g.and(bpV, g.eq(bpRow, sRow))
		var eff []sig
		for c := 0; c < g.C; c++ {
			eff = append(eff, g.mux(g.and(hit, g.bit(bpMask, c)), g.slice(bpData, 32*c+31, 32*c), g.slice(rdata, 32*c+31, 32*c)))
		}
		word := g.wire(fmt.Sprintf("bank_word_%d", b), g.concat(eff...), "")
		bankWord[b] = word
		wdata, wmask := sWD, sWM
		if len(u.Atomics) > 0 {
			// The leader's data is on its chunk of s2_wdata, the other
			// chunk is 0: their OR is the operand.
			operand := g.slice(sWD, 31, 0)
			if g.C > 1 {
				operand = g.or(operand, g.slice(sWD, 63, 32))
			}
			sCmp := g.konst(0, 32)
			if u.HasAtomic(specs.ShmemCAS) {
				sCmp = g.reg(fmt.Sprintf("s2_cmp_%d", b), 32, "")
				g.next(sCmp, noClear, r.cmp)
			}
			old := g.slice(word, 31, 0)
			var sHalf sig
			if g.C > 1 {
				sHalf = g.reg(fmt.Sprintf("s2_half_%d", b), 1, "")
				g.next(sHalf, noClear, r.half)
				old = g.mux(sHalf, g.slice(word, 63, 32), g.slice(word, 31, 0))
			}
			nv := g.wire(fmt.Sprintf("atomic_new_%d", b), g.atomic(b, s2Op, old, operand, sCmp), "")
			atomics = append(atomics, nv.n...)
			aData, aMask := nv, g.konst(1, 1)
			if g.C > 1 {
				aData = g.concat(nv, nv)
				aMask = g.concat(g.not(sHalf), sHalf)
			}
			wdata = g.mux(s2Atomic, aData, sWD)
			wmask = g.mux(s2Atomic, aMask, sWM)
		}
		we := g.and(sWE, notRst)
		addrBits := nl.MemoryAddrBits(g.depth)
		waddr := fitWidth(g.dual, sRow, addrBits)
		g.memoryPorts(name, r.re, fitWidth(g.dual, r.row, addrBits), we, waddr, wdata, wmask)
		g.next(bpV, rst, we)
		g.next(bpRow, noClear, sRow)
		g.next(bpData, noClear, wdata)
		g.next(bpMask, noClear, wmask)
	}

	// Stage 2: the lanes' data from the banks, into acc.
	acc := g.reg("acc", L*g.maxW, "the response being gathered")
	passData := g.gather(s2Width, s2Lanes, s2SlotBank, s2SlotHalf, bankWord)
	merged := g.wire("acc_merged", g.or(acc, passData), "acc with this pass's words")

	// The parts, timed on their own (timing reports each path).
	var slotBanks, slotKeys nl.Bus // the arbitration's inputs: each slot's bank and word (or row)
	for s := range banks {
		slotBanks = append(slotBanks, banks[s].n...)
		if g.front {
			slotKeys = append(slotKeys, rows[s].n...)
		} else {
			slotKeys = append(slotKeys, slotWord[s].n...)
		}
	}
	g.b.Path("request_check", "req_addr_i, req_op_i and req_width_i to the refusal of the offered instruction", append(append(nl.Bus{}, reqAddr.n...), reqOp.n...), req.err.n)
	if g.front {
		var lwBanks nl.Bus
		for _, b := range req.lwBank {
			lwBanks = append(lwBanks, b.n...)
		}
		g.b.Path("bank_hash", "the offered addresses to each lane word's bank (the hash, as the instruction is taken)", reqAddr.n, lwBanks)
		g.b.Path("slot_pairs", "the lane words' banks and rows of the phase served next to its slot pairs on one bank or word, a cycle ahead (slot selection by phase and width, pairwise compares)", g.pairsFrom, g.pairsTo)
		g.b.Path("arbitration", "the pending lane words and the registered slot pairs to the slots served (bank leaders, broadcast)", append(append(nl.Bus{}, curPend.n...), g.pairRegs...), served.n)
		g.b.Path("address_crossbar", "each slot's row to the banks' read addresses (leader's row by a multiplexer tree)", slotKeys, raddrs)
	} else {
		g.b.Path("bank_hash", "the held addresses to each slot's bank (slot selection by phase and width, then the hash)", curAddr.n, slotBanks)
		g.b.Path("arbitration", "each slot's word and bank to the slots served (pairwise compares, bank leaders, broadcast)", append(slotKeys, slotBanks...), served.n)
		g.b.Path("address_crossbar", "each slot's word to the banks' read addresses (leader's row by a multiplexer tree)", slotKeys, raddrs)
	}
	g.b.Path("store_crossbar", "stage 2's slot data to the banks' store data (highest served slot per 32-bit chunk)", storeFrom, storeIn)
	g.b.Path("data_return", "the banks' read data to the response being gathered (forwarding, bank to slot, slot to lane)", rdatas, merged.n)
	if len(cmps) > 0 {
		g.b.Path("compare_crossbar", "the held CAS compare values to each bank's (the leader's, by phase and width, then a multiplexer tree)", curCmp.n, cmps)
	}
	if len(atomics) > 0 {
		g.b.Path("atomic_unit", "the banks' read data through forwarding and the atomic units to the new values", rdatas, atomics)
	}
	finish := g.wire("finish", g.and(s2Valid, s2Last, notRst), "stage 2 completes an instruction: its response enters the queue")
	g.next(acc, rst, g.mux(finish, g.konst(0, acc.w()), g.mux(s2Valid, merged, acc)))

	// The output queue: two entries, head first.
	entryW := L*g.maxW + L + 1 + g.pb
	in := g.concat(merged, s2Active, s2Err, s2Passes)
	e0 := g.reg("q_head", entryW, "the response on rsp_*")
	e1 := g.reg("q_next", entryW, "the response behind it")
	push := finish
	qIs0, qIs1 := g.not(qNZ), g.and(qNZ, g.not(q2))
	// head: on pop, the next (or the pushed one if none); on push into an empty queue, the pushed one.
	headFromIn := g.or(g.and(push, qIs0), g.and(push, pop, qIs1))
	headFromNext := g.and(pop, q2)
	g.next(e0, noClear, g.mux(headFromIn, in, g.mux(headFromNext, e1, e0)))
	nextFromIn := g.or(g.and(push, qIs1, g.not(pop)), g.and(push, q2, pop))
	g.next(e1, noClear, g.mux(nextFromIn, in, e1))
	qNext := g.add(q, g.concat(push, g.konst(0, 1)))
	qNext = g.mux(pop, g.dec(qNext), qNext)
	g.next(q, rst, qNext)

	g.next(curPasses, rst, g.mux(last, g.konst(0, g.pb), g.mux(passMade, g.add(curPasses, g.konst(1, g.pb)), curPasses)))

	// Outputs.
	head := g.mux(qNZ, e0, g.konst(0, entryW))
	readyDoc := "the instruction on req_* is taken at the end of this cycle (combinational in rst and rsp_ready_i)"
	if g.front {
		readyDoc = "the instruction on req_* is taken at the end of this cycle (from rst and registers: a buffer is free)"
	}
	g.output("req_ready_o", reqReady, readyDoc)
	g.output("rsp_valid_o", qNZ, "a response is on rsp_*, held until rsp_ready_i")
	o := 0
	g.output("rsp_data_o", g.slice(head, o+L*g.maxW-1, o), fmt.Sprintf("%d bits per lane: load data, or an atomic's old value; 0 for stores, inactive lanes and refused instructions", g.maxW))
	o += L * g.maxW
	g.output("rsp_active_o", g.slice(head, o+L-1, o), "the instruction's active lanes")
	o += L
	g.output("rsp_error_o", g.slice(head, o, o), "the instruction was refused (unsupported op or width, misaligned or out-of-range address); nothing changed")
	o++
	g.output("rsp_passes_o", g.slice(head, o+g.pb-1, o), "bank cycles the instruction took")
	g.b.Header(g.header()...)
}
