package gen

import (
	"fmt"
	"slices"

	"github.com/hashicorp/hcl/v2"

	nl "github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/specs"
)

// pipeGen builds an elastic_pipeline unit. Stages and queue slots are
// registers; the queues are shifting latches that close up gaps (a slot
// moves on when the next one is empty or moving), so the oldest entry is
// always the deepest valid slot, as in Figure 6 where the multiplexers pick
// the oldest matured instruction.
type pipeGen struct {
	*dual
	p     *specs.ElasticPipeline
	clear sig // rst
	// EXE's offer.
	valid, isMem, isALU, tag, extra sig
	ew                              int // width of MEM0's extra-cycle count
}

// slot is one pipeline latch or queue entry.
type slot struct {
	v, tag, extra sig // extra: MEM0 occupancy beyond one cycle (MEM path only)
}

// ElasticPipeline builds the back end of Figure 4(a), 4(b) or 6.
func ElasticPipeline(p *specs.ElasticPipeline) (*nl.Design, hcl.Diagnostics) {
	if d := checkChoice(p, "variant", p.PipeVariant, p.PipeVariant.Valid()); d.HasErrors() {
		return nil, d
	}
	g := &pipeGen{dual: newDual(p.Name), p: p}
	g.b.Clock("clk", "clock; all state changes at its rising edge")
	g.clear = g.input("rst", 1, "synchronous reset, active high: empties the pipeline")
	g.valid = g.input("in_valid_i", 1, "EXE offers an instruction this cycle")
	kind := g.input("in_kind_i", 2, "its kind: 0 alu (non-memory), 1 shmem (shared memory), 2 mem (other memory), 3 as 2")
	var deg sig
	if a := p.BankArbiter(); a != nil {
		// The degree comes from the arbiter's instance, on the offer's
		// addresses: the top level that feeds one to the other.
		sub, diags := BankArbiter(a)
		if diags.HasErrors() {
			return nil, diags
		}
		addr := g.input("in_addr_i", a.Lanes*a.AddrBits, fmt.Sprintf("the shmem offer's %d lanes of %d-bit word addresses, lane 0 in the least significant bits", a.Lanes, a.AddrBits))
		active := g.input("in_active_i", a.Lanes, "its active lanes")
		deg = g.instance("arbiter", sub, map[string]sig{"addr_i": addr, "active_i": active},
			fmt.Sprintf("bank arbiter %s: the offer's bank-conflict degree", a.Name))["degree_o"]
	} else {
		deg = g.input("in_degree_i", p.DegreeBits(), "bank conflict degree of a shmem instruction (0 counts as 1)")
	}
	g.tag = g.input("in_tag_i", p.TagBits, "tag carried to writeback")

	g.isMem = g.wire("is_mem", g.or(g.bit(kind, 0), g.bit(kind, 1)), "a memory instruction: takes the MEM path")
	g.isALU = g.not(g.isMem)
	isShmem := g.wire("is_shmem", g.and(g.bit(kind, 0), g.not(g.bit(kind, 1))), "a shared-memory instruction")
	// MEM0 occupancy c = max(1, ceil(d/P)); MEM0 counts the extra cycles
	// c - 1 = (d - 1) >> log2(P) for d >= 1, else 0.
	lp := log2(p.ShmemPorts)
	g.ew = p.DegreeBits() - lp
	dm1 := g.slice(g.dec(deg), p.DegreeBits()-1, lp)
	g.extra = g.wire("in_extra", g.and(dm1, g.rep(g.and(isShmem, g.nonzero(deg)), g.ew)),
		fmt.Sprintf("extra MEM0 cycles of the offer: shmem ? ceil(degree/%d) - 1 : 0", p.ShmemPorts))

	// The MEM path: MEM0 with its extra-cycle count, then MEM1..MEM(M-1).
	m := p.MemStages
	mem := make([]slot, m)
	for k := range mem {
		mem[k] = g.slot(fmt.Sprintf("mem%d", k), k == 0, fmt.Sprintf("MEM%d", k))
	}
	busy := g.wire("mem0_busy", g.and(mem[0].v, g.nonzero(mem[0].extra)), "MEM0 holds its instruction for another cycle (bank conflict)")
	free := g.wire("mem0_free", g.not(busy), "MEM0 can take an instruction at the next edge")
	fin := g.wire("mem0_fin", g.and(mem[0].v, free), "MEM0's instruction finishes its access this cycle")
	outV, outTag := fin, mem[0].tag
	if m > 1 {
		outV, outTag = mem[m-1].v, mem[m-1].tag
	}
	outV = g.wire("memout_v", outV, fmt.Sprintf("the MEM path delivers an instruction to writeback (MEM%d)", m-1))
	for k := m - 1; k >= 2; k-- {
		g.next(mem[k].v, g.clear, mem[k-1].v)
		g.next(mem[k].tag, noClear, mem[k-1].tag)
	}
	if m > 1 {
		g.next(mem[1].v, g.clear, fin)
		g.next(mem[1].tag, noClear, mem[0].tag)
	}

	var stall, wbV, wbTag sig
	var in0 slot  // what MEM0 takes when free
	var take0 sig // MEM0 takes in0
	switch p.PipeVariant {
	case specs.PipeUnified:
		stall = g.and(g.valid, busy)
		take0 = g.and(g.valid, free)
		in0 = slot{v: g.valid, tag: g.tag, extra: g.extra}
		wbV, wbTag = outV, g.and(outTag, g.rep(outV, p.TagBits))
	case specs.PipeSplit:
		nm := make([]slot, m)
		for k := range nm {
			nm[k] = g.slot(fmt.Sprintf("nm%d", k), false, fmt.Sprintf("NONMEM stage %d", k))
		}
		hold := g.wire("nm_hold", g.and(outV, nm[m-1].v), "writeback conflict: the NONMEM pipeline waits for the MEM path")
		adv := g.not(hold)
		for k := m - 1; k >= 0; k-- {
			prevV, prevTag := g.and(g.valid, g.isALU), g.tag
			if k > 0 {
				prevV, prevTag = nm[k-1].v, nm[k-1].tag
			}
			g.next(nm[k].v, g.clear, g.mux(adv, prevV, nm[k].v))
			g.next(nm[k].tag, noClear, g.mux(adv, prevTag, nm[k].tag))
		}
		stall = g.and(g.valid, g.mux(g.isMem, busy, hold))
		take0 = g.and(g.valid, g.isMem, free)
		in0 = slot{v: g.valid, tag: g.tag, extra: g.extra}
		wbV = g.or(outV, nm[m-1].v)
		wbTag = g.mux(outV, outTag, g.and(nm[m-1].tag, g.rep(nm[m-1].v, p.TagBits)))
	case specs.PipeElastic:
		stall, wbV, wbTag, in0, take0 = g.elastic(outV, outTag, free)
	}

	// MEM0: a free MEM0 takes in0 (or empties); a busy one counts down.
	g.next(mem[0].v, g.clear, g.mux(free, take0, mem[0].v))
	g.next(mem[0].tag, noClear, g.mux(free, in0.tag, mem[0].tag))
	g.next(mem[0].extra, noClear, g.mux(free, g.and(in0.extra, g.rep(take0, g.ew)), g.dec(mem[0].extra)))

	g.b.Path("exe_to_mem0", "EXE's tag to MEM0's tag register: the MEM0 input multiplexer (path A)", g.tag.n, mem[0].tag.n)
	if p.PipeVariant == specs.PipeElastic {
		g.b.Path("exe_to_wb", "EXE's tag to wb_tag_o: the writeback multiplexer (path B)", g.tag.n, wbTag.n)
	}
	g.b.Path("offer_to_stall", "EXE's valid and kind to stall_o", append(slices.Clone(g.valid.n), kind.n...), stall.n)
	g.output("stall_o", g.wire("stall", stall, "EXE cannot hand over its instruction"), "EXE must hold its instruction this cycle (in_valid_i and not accepted)")
	g.output("wb_valid_o", wbV, "an instruction is written back this cycle")
	g.output("wb_tag_o", wbTag, "its tag (0 when wb_valid_o is 0)")
	g.b.Header(g.header()...)
	d, err := g.build()
	if err != nil {
		return nil, internalError(p, err)
	}
	return d, nil
}

// slot declares the registers of one latch.
func (g *pipeGen) slot(name string, withExtra bool, what string) slot {
	s := slot{
		v:   g.reg(name+"_v", 1, what+" holds an instruction"),
		tag: g.reg(name+"_tag", g.p.TagBits, what+": tag"),
	}
	if withExtra {
		s.extra = g.reg(name+"_extra", g.ew, what+": extra cycles the instruction still needs in MEM0")
	}
	return s
}

func (g *pipeGen) rep(s sig, w int) sig { return rep(g.dual, s, w) }

// queue is a shifting queue of slots, slot len-1 the deepest (oldest).
type queue struct {
	name  string
	slots []slot
	any   sig   // some slot is valid
	older []sig // older[k]: some slot deeper than k is valid
}

func (g *pipeGen) newQueue(name string, depth int, withExtra bool, what string) *queue {
	q := &queue{name: name}
	for k := range depth {
		q.slots = append(q.slots, g.slot(fmt.Sprintf("%s%d", name, k), withExtra, fmt.Sprintf("%s entry %d", what, k)))
	}
	// Each is a balanced OR tree of the valid bits, not a chain: these
	// signals start the queue's longest paths.
	valid := make([]sig, depth)
	for k, sl := range q.slots {
		valid[k] = sl.v
	}
	q.older = make([]sig, depth)
	q.older[depth-1] = g.konst(0, 1)
	for k := depth - 2; k >= 0; k-- {
		q.older[k] = g.or(valid[k+1:]...)
	}
	q.any = g.wire(name+"_any", g.or(valid...), what+" holds an entry")
	return q
}

// oldest is the deepest valid slot's content (a priority chain; only
// meaningful when q.any).
func (g *pipeGen) oldest(q *queue) slot {
	o := q.slots[0]
	for k := 1; k < len(q.slots); k++ {
		s := q.slots[k]
		o.tag = g.mux(s.v, s.tag, o.tag)
		if s.extra.n != nil {
			o.extra = g.mux(s.v, s.extra, o.extra)
		}
	}
	return o
}

// advance gives q's next state: the oldest entry leaves when deq is 1,
// the others close up, and in enters slot 0 when enq is 1. It returns
// room: slot 0 is free at the next edge.
func (g *pipeGen) advance(q *queue, deq sig, in slot, enqWanted sig) (room, enq sig) {
	n := len(q.slots)
	leave := make([]sig, n)
	move := make([]sig, n)
	vacant := make([]sig, n) // slot k is empty at the next edge unless something moves in
	// Slot k is vacant when it is empty, its entry leaves, or its entry
	// moves on because slot k+1 is vacant: vacant[k] = gone[k] |
	// vacant[k+1], the OR of gone[k..n-1], built as a tree for each k
	// rather than as a chain through the slots.
	gone := make([]sig, n)
	for k, s := range q.slots {
		leave[k] = g.and(deq, s.v, g.not(q.older[k]))
		gone[k] = g.or(g.not(s.v), leave[k])
	}
	for k := n - 1; k >= 0; k-- {
		vacant[k] = g.wire(fmt.Sprintf("%s%d_vacant", q.name, k), g.or(gone[k:]...),
			fmt.Sprintf("slot %d's entry leaves or moves on (or it is empty)", k))
	}
	for k, s := range q.slots {
		move[k] = g.konst(0, 1)
		if k < n-1 {
			move[k] = g.and(s.v, g.not(leave[k]), vacant[k+1])
		}
	}
	room = vacant[0]
	enq = g.wire(q.name+"_enq", g.and(enqWanted, room), "an instruction enters slot 0")
	for k := n - 1; k >= 0; k-- {
		s := q.slots[k]
		stay := g.not(vacant[k])
		from, fromV := in, enq
		if k > 0 {
			from, fromV = q.slots[k-1], move[k-1]
		}
		g.next(s.v, g.clear, g.or(g.and(s.v, stay), fromV))
		g.next(s.tag, noClear, g.mux(stay, s.tag, from.tag))
		if s.extra.n != nil {
			g.next(s.extra, noClear, g.mux(stay, s.extra, from.extra))
		}
	}
	return room, enq
}

// elastic builds Figure 6: the NONMEM queue with forwarding to writeback
// and the PREMEM queue before MEM0. Late-arriving EXE signals enter the
// two multiplexers last, so each adds one 2-to-1 multiplexer to EXE.
func (g *pipeGen) elastic(outV, outTag, free sig) (stall, wbV, wbTag sig, in0 slot, take0 sig) {
	p := g.p
	exe := slot{v: g.valid, tag: g.tag, extra: g.extra}
	aluOffer := g.wire("alu_offer", g.and(g.valid, g.isALU), "EXE offers a non-memory instruction")
	memOffer := g.wire("mem_offer", g.and(g.valid, g.isMem), "EXE offers a memory instruction")

	// Writeback: the MEM path, else the oldest NONMEM entry, else EXE.
	nq := g.newQueue("nq", p.MemStages, false, "NONMEM queue")
	deq := g.wire("nq_deq", g.and(g.not(outV), nq.any), "the oldest NONMEM entry is written back")
	exeSlot := g.wire("wb_from_exe", g.not(g.or(outV, nq.any)), "writeback is free for EXE's instruction")
	fwd := g.wire("fwd", g.and(exeSlot, aluOffer), "EXE's non-memory instruction goes straight to writeback")
	early := g.mux(outV, outTag, g.oldest(nq).tag)
	wbV = g.or(outV, nq.any, fwd)
	wbTag = g.mux(fwd, g.tag, g.and(early, g.rep(g.not(exeSlot), p.TagBits)))
	roomN, _ := g.advance(nq, deq, exe, g.and(aluOffer, g.not(fwd)))
	stallALU := g.and(aluOffer, g.not(fwd), g.not(roomN))

	// MEM0's input: the oldest PREMEM entry, else EXE.
	if p.PremDepth() == 0 {
		return g.or(stallALU, g.and(memOffer, g.not(free))), wbV, wbTag, exe, g.and(memOffer, free)
	}
	pq := g.newQueue("pq", p.PremDepth(), true, "PREMEM queue")
	direct := g.wire("mem0_from_exe", g.and(free, g.not(pq.any), memOffer), "EXE's memory instruction goes straight into MEM0")
	old := g.oldest(pq)
	in0 = slot{tag: g.mux(pq.any, old.tag, g.tag), extra: g.mux(pq.any, old.extra, g.extra)}
	take0 = g.or(g.and(free, pq.any), direct)
	roomP, _ := g.advance(pq, free, exe, g.and(memOffer, g.not(direct)))
	stallMem := g.and(memOffer, g.not(direct), g.not(roomP))
	return g.or(stallALU, stallMem), wbV, wbTag, in0, take0
}

func (g *pipeGen) header() []string {
	p := g.p
	m, n := p.MemStages, p.PremDepth()
	title := map[specs.PipelineVariant]string{
		specs.PipeUnified: "baseline with unified memory stages (Figure 4a of Gou and Gaydadjiev, CF'11)",
		specs.PipeSplit:   "baseline with split memory stages (Figure 4b of Gou and Gaydadjiev, CF'11)",
		specs.PipeElastic: "elastic pipeline (Figure 6 of Gou and Gaydadjiev, CF'11)",
	}[p.PipeVariant]
	var fed []string
	if a := p.BankArbiter(); a != nil {
		fed = []string{"", "In place of in_degree_i, the offer carries its addresses in_addr_i and lanes in_active_i;",
			fmt.Sprintf("in_degree_i below is the degree_o of the instance of bank arbiter %s on them.", a.Name)}
	}
	lines := []string{
		fmt.Sprintf("Pipeline back end from EXE to writeback: %s.", title),
		fmt.Sprintf("%d memory stages (M), warp %d, SIMD width %d, %d shared-memory port(s), %d-bit tags.", m, p.WarpSize, p.SIMDWidth, p.ShmemPorts, p.TagBits),
		"",
		"Protocol (synchronous, rising edge of clk; rst clears all state at the edge):",
		"- Each cycle EXE may offer one instruction (in_valid_i, in_kind_i, in_degree_i, in_tag_i).",
		"  It is accepted when in_valid_i & !stall_o; on stall_o EXE holds it and offers it again.",
		"  stall_o depends combinationally on the offer (and on the state).",
		"- wb_valid_o / wb_tag_o: the instruction the writeback multiplexer selects this cycle;",
		"  at most one per cycle; wb_tag_o is 0 when wb_valid_o is 0.",
		fmt.Sprintf("- A shmem instruction occupies MEM0 for max(1, ceil(in_degree_i / %d)) cycles, others for 1;", p.ShmemPorts),
		"  then MEM1 .. MEM(M-1), one cycle each. The MEM path has writeback priority and never waits.",
	}
	switch p.PipeVariant {
	case specs.PipeUnified:
		lines = append(lines,
			"- Every instruction goes through MEM0 .. MEM(M-1); an offer is accepted when MEM0 is free",
			"  (empty, or its instruction finishes this cycle): a bank conflict stalls EXE.")
	case specs.PipeSplit:
		lines = append(lines,
			"- Memory instructions take MEM0 .. MEM(M-1), accepted when MEM0 is free; non-memory ones take",
			"  an M-stage NONMEM pipeline. When both paths deliver in one cycle (writeback conflict) the",
			"  NONMEM pipeline holds for that cycle and a non-memory offer stalls.")
	case specs.PipeElastic:
		lines = append(lines,
			fmt.Sprintf("- NONMEM queue of %d entries: writeback takes the MEM path, else the oldest NONMEM entry,", m),
			"  else EXE's non-memory instruction directly (forwarding); a non-memory offer that is not",
			"  forwarded enters the queue, or stalls when it is full.",
			fmt.Sprintf("- PREMEM queue of %d entries (N = warp_size/simd_width - 1): a free MEM0 takes the oldest", n),
			"  PREMEM entry, else EXE's memory instruction; a memory offer that cannot go to MEM0 enters",
			"  the queue, or stalls when it is full.",
			fmt.Sprintf("- Multiplexers: writeback (M+2)-to-1 = %d-to-1 (MEM path, %d NONMEM entries, EXE); MEM0 input", m+2, m),
			fmt.Sprintf("  (N+1)-to-1 = %d-to-1. EXE's inputs enter each last, through one 2-to-1 stage.", n+1),
			"  Table 1's (M+3)-to-1 writeback multiplexer also takes the interconnect, which this unit does not model.")
	}
	return append(lines, fed...)
}

func log2(n int) int {
	k := 0
	for 1<<uint(k) < n {
		k++
	}
	return k
}
