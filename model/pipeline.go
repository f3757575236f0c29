package model

import (
	"errors"
	"fmt"

	"github.com/lsugen/lsugen/specs"
)

// # Elastic pipeline (001_* section 3)
//
// Pipeline models the back end of an in-order SIMD pipeline from EXE to
// writeback, one clock cycle per Cycle call. It is written as a
// behavioural, timestamped model rather than as latches:
//
//   - MEM0 holds at most one instruction together with the cycle in which
//     it finishes there (the cycle it entered + its occupancy - 1).
//   - The stages MEM1 .. MEM(M-1) never wait, so an instruction leaving
//     MEM0 at the end of cycle f is simply written back in cycle f + M - 1;
//     those instructions are kept in a FIFO with that cycle number.
//   - The PREMEM and NONMEM queues of the elastic variant are Go slices used
//     as FIFOs (append at the tail, remove at the head).
//   - The NONMEM pipeline of baseline_split is a slice of M slots, slot k
//     being NM(k), shifted as a whole or held as a whole.
//
// Every accepted instruction also records the cycle in which it would be
// written back without conflicts, for the writeback bubble statistic.

// PipeKind is the kind of an instruction offered by EXE (in_kind_i).
type PipeKind uint8

const (
	PipeALU   PipeKind = 0 // non-memory
	PipeShmem PipeKind = 1 // shared memory: occupies MEM0 for max(1, ceil(Degree/P)) cycles
	PipeMem   PipeKind = 2 // other memory (global, constant): one MEM0 cycle; 3 (and above) behaves as 2
)

func (k PipeKind) String() string {
	switch k {
	case PipeALU:
		return "alu"
	case PipeShmem:
		return "shmem"
	default:
		return fmt.Sprintf("mem(%d)", uint8(k))
	}
}

// PipeIn is what EXE offers in one cycle.
type PipeIn struct {
	Valid bool
	Kind  PipeKind
	// Degree is the bank conflict degree, read for PipeShmem only. A
	// degree below 1 is treated as 1; a degree above simd_width is not
	// refused.
	Degree int
	Tag    uint64 // carried to writeback unchanged (the struct API does not mask it)
}

// StallCause says why EXE stalled.
type StallCause uint8

const (
	NoStall                StallCause = iota
	BankConflictStall                 // a memory instruction found MEM0 busy (and PREMEM full)
	WritebackConflictStall            // an alu instruction found the NONMEM path held or full
)

func (c StallCause) String() string {
	switch c {
	case NoStall:
		return "none"
	case BankConflictStall:
		return "bank conflict"
	case WritebackConflictStall:
		return "writeback conflict"
	}
	return fmt.Sprintf("StallCause(%d)", uint8(c))
}

// PipeOut is one cycle's outputs plus model-only observations.
type PipeOut struct {
	Stall   bool
	Cause   StallCause // NoStall unless Stall
	WBValid bool
	WBTag   uint64 // 0 unless WBValid
	// Bubble: this cycle is a writeback bubble: no writeback, and some
	// instruction accepted in an earlier cycle is not yet written back
	// although its conflict-free writeback cycle (accept cycle + L) has
	// come: accept cycle + L <= this cycle. L = M, except L = 0 for alu
	// instructions of the elastic variant.
	Bubble bool
	// MEM0Done: an instruction finished its MEM0 occupancy in this cycle
	// (its shared-memory access resolved); MEM0Tag is its tag (0 unless
	// MEM0Done). The pipeline study uses it to update the history cache.
	MEM0Done bool
	MEM0Tag  uint64
}

// Accepted reports whether EXE's offer was taken in this cycle, given the
// offer in and the cycle's outputs.
func (o PipeOut) Accepted(in PipeIn) bool { return in.Valid && !o.Stall }

type pipeVariant uint8

const (
	varUnified pipeVariant = iota
	varSplit
	varElastic
)

// flight is an accepted instruction that is not yet written back.
type flight struct {
	tag uint64
	occ int   // MEM0 cycles (memory path only)
	due int64 // conflict-free writeback cycle: accept cycle + L
	// at: in MEM0, the cycle it finishes there; after MEM0, the cycle it
	// is written back. Unused in the queues.
	at int64
}

// nmSlot is one stage of baseline_split's NONMEM pipeline.
type nmSlot struct {
	ok bool
	in flight
}

// Pipeline is the cycle-accurate model of an elastic_pipeline unit.
type Pipeline struct {
	variant pipeVariant
	m       int  // M, memory stages
	n       int  // N, PREMEM capacity (elastic only, else 0)
	portLog uint // log2(shmem_ports)

	now int64 // the current cycle number since the last reset

	mem0Busy bool
	mem0     flight
	after    []flight // left MEM0, in MEM1 .. MEM(M-1); oldest first
	prem     []flight // elastic: PREMEM FIFO, oldest first
	nonmem   []flight // elastic: NONMEM FIFO, oldest first
	nm       []nmSlot // split: nm[k] is NM(k)
}

// checkPipelineSpec returns why p cannot be modelled, or nil.
func checkPipelineSpec(p *specs.ElasticPipeline) error {
	if p == nil {
		return errors.New("nil elastic_pipeline unit")
	}
	if p.MemStages < 1 || p.MemStages > specs.MaxMemStages {
		return fmt.Errorf("mem_stages = %d, want 1..%d", p.MemStages, specs.MaxMemStages)
	}
	if _, ok := log2Exact(p.SIMDWidth); !ok {
		return fmt.Errorf("simd_width = %d, want a power of two", p.SIMDWidth)
	}
	if _, ok := log2Exact(p.WarpSize); !ok || p.WarpSize < p.SIMDWidth {
		return fmt.Errorf("warp_size = %d, want a power of two >= simd_width = %d", p.WarpSize, p.SIMDWidth)
	}
	if p.WarpSize/p.SIMDWidth-1 > specs.MaxQueueDepth {
		return fmt.Errorf("warp_size / simd_width = %d, want at most %d", p.WarpSize/p.SIMDWidth, specs.MaxQueueDepth+1)
	}
	if _, ok := log2Exact(p.ShmemPorts); !ok {
		return fmt.Errorf("shmem_ports = %d, want a power of two", p.ShmemPorts)
	}
	if p.TagBits < 1 || p.TagBits > 64 {
		return fmt.Errorf("tag_bits = %d, want 1..64", p.TagBits)
	}
	switch p.PipeVariant {
	case specs.PipeElastic, specs.PipeUnified, specs.PipeSplit:
	default:
		return fmt.Errorf("unknown variant %q", p.PipeVariant)
	}
	return nil
}

// NewPipeline returns the model of p in the reset state. It reads
// MemStages, WarpSize, SIMDWidth, ShmemPorts and PipeVariant, and panics
// on a configuration ForPipeline refuses (mem_stages outside 1..16,
// sizes that are not powers of two, warp_size < simd_width, more than 17
// subwarps, tag_bits outside 1..64, an unknown or empty variant).
func NewPipeline(p *specs.ElasticPipeline) *Pipeline {
	if err := checkPipelineSpec(p); err != nil {
		panic("model: NewPipeline: " + err.Error())
	}
	q := &Pipeline{m: p.MemStages}
	pl, _ := log2Exact(p.ShmemPorts)
	q.portLog = uint(pl)
	switch p.PipeVariant {
	case specs.PipeUnified:
		q.variant = varUnified
	case specs.PipeSplit:
		q.variant = varSplit
		q.nm = make([]nmSlot, q.m)
	case specs.PipeElastic:
		q.variant = varElastic
		q.n = p.WarpSize/p.SIMDWidth - 1
		q.prem = make([]flight, 0, q.n+1)
		q.nonmem = make([]flight, 0, q.m+1)
	}
	q.after = make([]flight, 0, q.m+1)
	return q
}

// Reset puts the pipeline in the reset state: every stage and queue empty.
func (p *Pipeline) Reset() {
	p.now = 0
	p.mem0Busy = false
	p.mem0 = flight{}
	p.after = p.after[:0]
	p.prem = p.prem[:0]
	p.nonmem = p.nonmem[:0]
	clear(p.nm)
}

// InFlight is the number of instructions accepted and not yet written back.
func (p *Pipeline) InFlight() int {
	k := len(p.after) + len(p.prem) + len(p.nonmem)
	if p.mem0Busy {
		k++
	}
	for _, s := range p.nm {
		if s.ok {
			k++
		}
	}
	return k
}

// occupancy is the number of MEM0 cycles of an offered instruction:
// max(1, ceil(degree / P)) for shared memory, 1 otherwise.
func (p *Pipeline) occupancy(in PipeIn) int {
	if in.Kind != PipeShmem || in.Degree <= 1 {
		return 1
	}
	// ceil(d / 2^k) for d >= 1, written so that it cannot overflow.
	return (in.Degree-1)>>p.portLog + 1
}

// popFront removes the oldest entry of a FIFO without reallocating it.
func popFront(q []flight) []flight {
	copy(q, q[1:])
	return q[:len(q)-1]
}

// late reports whether some instruction in flight at the start of cycle u
// has reached its conflict-free writeback cycle.
func (p *Pipeline) late(u int64) bool {
	if p.mem0Busy && p.mem0.due <= u {
		return true
	}
	for _, q := range [...][]flight{p.after, p.prem, p.nonmem} {
		for _, f := range q {
			if f.due <= u {
				return true
			}
		}
	}
	for _, s := range p.nm {
		if s.ok && s.in.due <= u {
			return true
		}
	}
	return false
}

// Cycle computes the outputs of the current cycle for the state and the
// offer in, then advances the state by one clock edge.
func (p *Pipeline) Cycle(in PipeIn) PipeOut {
	u := p.now
	var out PipeOut

	// The memory path: MEM0's instruction finishes this cycle when its
	// last MEM0 cycle is u; the path writes back the instruction that
	// leaves MEM(M-1) this cycle (for M = 1, the one finishing MEM0).
	finishing := p.mem0Busy && p.mem0.at == u
	if finishing {
		out.MEM0Done, out.MEM0Tag = true, p.mem0.tag
	}
	mem0Free := !p.mem0Busy || finishing
	memWB := false
	var memTag uint64
	if p.m == 1 {
		if finishing {
			memWB, memTag = true, p.mem0.tag
		}
	} else if len(p.after) > 0 && p.after[0].at == u {
		memWB, memTag = true, p.after[0].tag
	}

	isALU := in.Kind == PipeALU
	offer := flight{tag: in.Tag, occ: p.occupancy(in)}
	m := int64(p.m)

	// What enters MEM0 at the edge, if anything.
	var enter flight
	entering := false

	switch p.variant {
	case varUnified:
		// Every instruction takes the memory path.
		out.WBValid, out.WBTag = memWB, memTag
		if in.Valid {
			if mem0Free {
				offer.due = u + m
				enter, entering = offer, true
			} else {
				out.Stall, out.Cause = true, BankConflictStall
			}
		}
		out.Bubble = !out.WBValid && p.late(u)

	case varSplit:
		last := &p.nm[p.m-1]
		hold := memWB && last.ok // writeback conflict: NONMEM holds
		switch {
		case memWB:
			out.WBValid, out.WBTag = true, memTag
		case last.ok:
			out.WBValid, out.WBTag = true, last.in.tag
		}
		var nm0 nmSlot
		if in.Valid {
			switch {
			case isALU && !hold:
				offer.due = u + m
				nm0 = nmSlot{ok: true, in: offer}
			case isALU:
				out.Stall, out.Cause = true, WritebackConflictStall
			case mem0Free:
				offer.due = u + m
				enter, entering = offer, true
			default:
				out.Stall, out.Cause = true, BankConflictStall
			}
		}
		out.Bubble = !out.WBValid && p.late(u)
		if !hold {
			// NM(k) <- NM(k-1); the last stage was written back (or empty).
			copy(p.nm[1:], p.nm[:p.m-1])
			p.nm[0] = nm0
		}

	case varElastic:
		fromNonmem := false
		switch {
		case memWB:
			out.WBValid, out.WBTag = true, memTag
		case len(p.nonmem) > 0:
			out.WBValid, out.WBTag = true, p.nonmem[0].tag
			fromNonmem = true
		}
		fromPrem := mem0Free && len(p.prem) > 0
		if fromPrem {
			enter, entering = p.prem[0], true
		}
		appendNonmem, appendPrem := false, false
		if in.Valid {
			if isALU {
				nonmemLeft := len(p.nonmem)
				if fromNonmem {
					nonmemLeft--
				}
				switch {
				case !out.WBValid:
					// Forwarded from EXE: accepted and written back now.
					out.WBValid, out.WBTag = true, in.Tag
				case nonmemLeft < p.m:
					offer.due = u
					appendNonmem = true
				default:
					out.Stall, out.Cause = true, WritebackConflictStall
				}
			} else {
				premLeft := len(p.prem)
				if fromPrem {
					premLeft--
				}
				offer.due = u + m
				switch {
				case mem0Free && len(p.prem) == 0:
					enter, entering = offer, true
				case premLeft < p.n:
					appendPrem = true
				default:
					out.Stall, out.Cause = true, BankConflictStall
				}
			}
		}
		out.Bubble = !out.WBValid && p.late(u)
		if fromPrem {
			p.prem = popFront(p.prem)
		}
		if appendPrem {
			p.prem = append(p.prem, offer)
		}
		if fromNonmem {
			p.nonmem = popFront(p.nonmem)
		}
		if appendNonmem {
			p.nonmem = append(p.nonmem, offer)
		}
	}

	// The clock edge of the memory path.
	if memWB && p.m > 1 {
		p.after = popFront(p.after)
	}
	if finishing && p.m > 1 {
		f := p.mem0
		f.at = u + m - 1
		p.after = append(p.after, f)
	}
	switch {
	case entering:
		// In MEM0 in cycles u+1 .. u+occ.
		enter.at = u + int64(enter.occ)
		p.mem0, p.mem0Busy = enter, true
	case finishing:
		p.mem0, p.mem0Busy = flight{}, false
	}
	p.now++
	return out
}

// ---------------------------------------------------------------------------
// Port-level wrappers.

// ForPipeline returns the port-level model of an elastic_pipeline (see the
// package documentation for the ports), or an error for nil and the
// configurations NewPipeline refuses.
func ForPipeline(u *specs.ElasticPipeline) (Sequential, error) {
	if u == nil {
		return nil, errors.New("model: nil elastic_pipeline unit")
	}
	if err := checkPipelineSpec(u); err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	if u.Arbiter != nil {
		return newArbitratedPipeline(u)
	}
	return newSeqPipeline(u), nil
}

// arbitratedPipeline is an elastic_pipeline whose offers carry addresses:
// the arbiter's model gives the degree the pipeline's model takes.
//
//	inputs  rst[1] in_valid_i[1] in_kind_i[2] in_addr_i[L*A] in_active_i[L] in_tag_i[T]
//	outputs stall_o[1] wb_valid_o[1] wb_tag_o[T]
type arbitratedPipeline struct {
	p     *seqPipeline
	arb   Model
	ports []Port
	aout  [][]uint64 // the arbiter's outputs, scratch
	deg   int        // degree_o's index among them
}

func newArbitratedPipeline(u *specs.ElasticPipeline) (Sequential, error) {
	a := u.BankArbiter()
	if a == nil {
		return nil, fmt.Errorf("model: %s: arbiter %q not resolved", u.Name, u.Arbiter.Name)
	}
	if a.Lanes != u.SIMDWidth || a.Serialize {
		return nil, fmt.Errorf("model: %s: arbiter %s must be combinational with simd_width = %d lanes", u.Name, a.Name, u.SIMDWidth)
	}
	arb, err := ForBankArbiter(a)
	if err != nil {
		return nil, err
	}
	if ins := arb.Ports(); len(ins) < 3 || ins[0].Name != "addr_i" || ins[1].Name != "active_i" || !ins[2].Output {
		return nil, fmt.Errorf("model: %s: arbiter %s has configuration inputs, which a pipeline does not wire through", u.Name, a.Name)
	}
	p := newSeqPipeline(u)
	ports := append([]Port(nil), p.ports[:3]...)
	ports = append(ports, Port{Name: "in_addr_i", Width: a.Lanes * a.AddrBits}, Port{Name: "in_active_i", Width: a.Lanes})
	ports = append(ports, p.ports[4:]...)
	s := &arbitratedPipeline{p: p, arb: arb, ports: ports, deg: -1}
	for _, port := range arb.Ports() {
		if port.Output {
			if port.Name == "degree_o" {
				s.deg = len(s.aout)
			}
			s.aout = append(s.aout, make([]uint64, (port.Width+63)/64))
		}
	}
	if s.deg < 0 {
		return nil, fmt.Errorf("model: %s: arbiter %s has no degree_o", u.Name, a.Name)
	}
	return s, nil
}

func (s *arbitratedPipeline) Ports() []Port { return s.ports }
func (s *arbitratedPipeline) Reset()        { s.p.Reset() }

func (s *arbitratedPipeline) Cycle(in, out [][]uint64) {
	s.arb.Eval([][]uint64{in[3], in[4]}, s.aout)
	s.p.Cycle([][]uint64{in[0], in[1], in[2], s.aout[s.deg], in[5]}, out)
}

// ForReadyMask returns the port-level model of a warp_ready_mask, or an
// error for nil and the configurations NewReadyMask refuses.
func ForReadyMask(u *specs.WarpReadyMask) (Sequential, error) {
	if u == nil {
		return nil, errors.New("model: nil warp_ready_mask unit")
	}
	if err := checkReadyMaskSpec(u); err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	return newSeqReadyMask(u), nil
}

// seqPipeline is the port-level elastic_pipeline:
//
//	inputs  rst[1] in_valid_i[1] in_kind_i[2] in_degree_i[DB] in_tag_i[T]
//	outputs stall_o[1] wb_valid_o[1] wb_tag_o[T]
type seqPipeline struct {
	p       *Pipeline
	ports   []Port
	degMask uint64
	tagMask uint64
}

func newSeqPipeline(u *specs.ElasticPipeline) *seqPipeline {
	db := u.DegreeBits()
	return &seqPipeline{
		p: NewPipeline(u),
		ports: []Port{
			{Name: "rst", Width: 1},
			{Name: "in_valid_i", Width: 1},
			{Name: "in_kind_i", Width: 2},
			{Name: "in_degree_i", Width: db},
			{Name: "in_tag_i", Width: u.TagBits},
			{Name: "stall_o", Width: 1, Output: true},
			{Name: "wb_valid_o", Width: 1, Output: true},
			{Name: "wb_tag_o", Width: u.TagBits, Output: true},
		},
		degMask: lowMask(db),
		tagMask: lowMask(u.TagBits),
	}
}

func (s *seqPipeline) Ports() []Port { return s.ports }
func (s *seqPipeline) Reset()        { s.p.Reset() }

func (s *seqPipeline) Cycle(in, out [][]uint64) {
	checkLens(s.ports, in, out)
	o := s.p.Cycle(PipeIn{
		Valid:  in[1][0]&1 != 0,
		Kind:   PipeKind(in[2][0] & 3),
		Degree: int(in[3][0] & s.degMask),
		Tag:    in[4][0] & s.tagMask,
	})
	if in[0][0]&1 != 0 {
		s.p.Reset() // rst: the outputs stand, the next state is the reset state
	}
	out[0][0] = b2u(o.Stall)
	out[1][0] = b2u(o.WBValid)
	out[2][0] = o.WBTag & s.tagMask
}
