package units

import (
	"math"
	"math/bits"

	"github.com/hashicorp/hcl/v2"

	"github.com/lsugen/lsugen/specs"
)

// Size is what generating a unit costs, estimated from its spec alone
// (without generating it), by one closed form per family: an upper bound
// on the gates of its netlist (the gates of the hash units it
// instantiates included) and on the bytes of its two Verilog files,
// NAME.v and NAME_gates.v. TestSize_ExampleSpecs and TestSize_RandomSpecs
// check both against real generation: never below the real count, at
// most SizeSlack times the real gates and 2 x SizeSlack times the real
// bytes, plus a constant for small units (their sizeFloor). Measured on
// the largest accepted unit of each family: 1.04 to 2.4 times the gates,
// 1.5 to 5.8 times the bytes.
type Size struct {
	Gates int64
	Bytes int64
}

// SizeSlack is how far above the real gate count an estimate may be.
const SizeSlack = 4

// Add is the sum of two sizes.
func (s Size) Add(t Size) Size { return Size{Gates: s.Gates + t.Gates, Bytes: s.Bytes + t.Bytes} }

// Estimate is the estimated size of unit u (see Size).
func Estimate(u specs.Unit) (Size, hcl.Diagnostics) {
	f, diags := For(u)
	if diags.HasErrors() {
		return Size{}, diags
	}
	return f.Size(u), nil
}

// Bytes per gate of the two Verilog files: measured 46 to 135 (an
// instance line with its net names, the net declarations, the readable
// RTL beside it; fewer where a hash is an instance), and a fixed part per
// unit (headers, ports, comments).
const (
	bytesPerGate = 140
	bytesPerUnit = 8 << 10
)

// sized turns a gate estimate g into a Size, with rtl the estimated
// bytes of the readable RTL beyond bytesPerGate's share.
func sized(g float64, rtl float64) Size {
	g = math.Ceil(g) + 16
	return Size{Gates: int64(g), Bytes: int64(g*bytesPerGate + rtl + bytesPerUnit)}
}

// The cost of the builder's building blocks, in gates, as upper bounds.

// lg is ceil(log2(n)), at least 1.
func lg(n int) float64 { return float64(max(1, bits.Len(uint(max(n, 1)-1)))) }

// eqCost: an equality of two w-bit words (XNORs and an AND tree).
func eqCost(w int) float64 { return 1.5*float64(w) + 2 }

// andCost: an AND (or OR) of n bits as a tree of 4-input gates.
func andCost(n int) float64 { return float64(n)/2 + 1 }

// addCost: a w-bit adder or comparator of any architecture (the prefix
// adder is the largest).
func addCost(w int) float64 { return float64(w) * (6 + 1.5*lg(w)) }

// selCost: an n-to-1 multiplexer of one bit (a tree of MUX2).
func selCost(n int) float64 { return float64(n) + lg(n) }

// hashSize estimates a hash unit.
func hashSize(h *specs.Hash) Size {
	a, m := h.AddrBits, h.BankBits
	s := lg(max(a, 2))
	var g, cfg float64
	switch h.Function {
	case specs.BitvectorPerm:
		if h.Configurable {
			// A barrel shifter of which only the m bank bits are kept.
			g, cfg = shifterCost(a, m), s
		}
	case specs.BitvectorXor:
		g = 3 * float64(m)
		if h.Configurable {
			g += 2 * shifterCost(a, m)
			cfg = 2*s + float64(m)
		}
	case specs.BitwisePerm:
		if h.Configurable {
			g, cfg = float64(m)*selCost(1<<int(s)), float64(m)*s
		}
	case specs.BitwiseXor, specs.XorMatrix, specs.IPoly:
		if h.Configurable {
			g = float64(m) * (2*selCost(1<<int(s)) + eqCost(int(s)) + 3)
			cfg = 2 * float64(m) * s
		} else {
			for _, row := range h.Bits {
				g += float64(len(row))
			}
			if h.Function == specs.IPoly && len(h.Bits) == 0 {
				g = float64(a * m)
			}
		}
	case specs.FixedXor:
		g = float64(m)
	case specs.Add:
		g = addCost(m)
	case specs.RAP:
		// The shift table r[row]: a multiplexer per shift bit over the w
		// rows (constant data when not configurable: about 2 gates per
		// row in all), and the m-bit adder.
		w := max(h.W, 2)
		g = 2*float64(w) + addCost(m)
		switch h.Scheme {
		case specs.RAPR1P, specs.RAP3P: // three tables, three adders
			g = 3 * (2*float64(w) + addCost(m))
		case specs.RAPRAS: // one table of len(Shifts) rows
			g = 2*float64(max(len(h.Shifts), 2)) + addCost(m)
		}
		if h.Configurable {
			g = float64(m)*selCost(w) + addCost(m)
			cfg = float64(w * m)
		}
	case specs.Mod:
		g = modCost(a, h.Banks)
	}
	if h.Registered() {
		// Per configuration bit a DFF and its load and clear.
		g += 4 * cfg
	}
	return sized(g, 0)
}

// shifterCost: a right shifter of an a-bit word by a run-time amount of
// which m bits are kept.
func shifterCost(a, m int) float64 {
	s := lg(max(a, 2))
	return 2*s*float64(m) + 2*s*s + float64(a)
}

// modCost bounds mod's circuits (gen/hash_mod.go) over the X = a - n
// bits above banks' 2^n factor, divided by its odd part q: none for q =
// 1; for q = 2^m - 1 folding (X/m chunks summed, the quotient's X/m
// terms of X bits); otherwise long division or the residue sum, both
// within a few gates per bit of an X x X array (measured: 0.8 to 2.5
// X^2 gates from 8 to 64 bits).
func modCost(a, banks int) float64 {
	n := bits.TrailingZeros(uint(max(banks, 1)))
	q, x := banks>>n, float64(max(a-n, 0))
	switch {
	case q <= 1:
		return 0
	case q&(q+1) == 0:
		return 5.5*x*x/float64(bits.Len(uint(q))) + 40
	}
	return 2.6*x*x + 40
}

// warpRTL is the readable RTL of a warp-wide unit whose word-level view
// has a term per lane pair (all-to-all structures).
func warpRTL(lanes int) float64 { return 60 * float64(lanes*lanes) }

// coalescerSize estimates a coalescer (gen/coalescer.go,
// gen/coalescer_masked.go, gen/requests.go).
func coalescerSize(c *specs.Coalescer) Size {
	L, A := c.Lanes, c.AddrBits
	b := max(A-c.BlockBits, 1)
	pairs := float64(L*(L-1)) / 2
	allToAll := pairs*(eqCost(b)+2) + float64(L)*andCost(L)
	neighbor := float64(L) * (eqCost(b) + 2)
	var g float64
	switch c.Structure {
	case specs.AllToAll:
		g = allToAll
	case specs.Neighbor:
		g = neighbor
	default:
		g = allToAll + neighbor + monotonicCost(L, A) + 2*float64(L)
	}
	if c.ActiveMask || c.Requests {
		// The masked comparisons; without all-to-all the nearest-active
		// scan (a MUX2 per block bit per lane per level).
		g += 4 * float64(L)
		if c.Structure != specs.Neighbor {
			g += 2 * pairs
		}
		if c.Structure != specs.AllToAll {
			g += 0.6 * float64(L) * lg(L) * float64(b+2)
		}
	}
	if c.Requests {
		// The first-lane flags, a prefix popcount and the compaction
		// network: per level a MUX2 per block bit and shift bit per lane.
		r := lg(L)
		g += 2*pairs + 2*float64(L)*r*(r+1) + 1.2*float64(L)*r*(float64(b)+r+2) + float64(L*b)
	}
	return sized(g, warpRTL(L))
}

// monotonicCost: a comparator and an equality per neighbour pair.
func monotonicCost(L, A int) float64 {
	return float64(L) * (addCost(A+1) + eqCost(A) + 4)
}

// detectorSize estimates a monotonicity detector.
func detectorSize(m *specs.MonotonicityDetector) Size {
	L, A := m.Lanes, m.AddrBits
	g := monotonicCost(L, A)
	if m.ActiveMask {
		g += float64(L)*lg(L)*float64(A+2) + 4*float64(L)
	}
	return sized(g, 0)
}

// arbiterSize estimates a bank arbiter (gen/arbiter.go): a hash instance
// per lane (and a lock hash), equalities of every lane pair's address and
// bank, per lane a popcount of its bank's lanes and a maximum tree.
func arbiterSize(a *specs.BankArbiter) Size {
	L, A, B := a.Lanes, a.AddrBits, a.BankBits
	var g float64
	for _, ref := range []*specs.UnitRef{a.Hash, a.LockHash} {
		if h := ref.Hash(); h != nil {
			g += float64(L) * float64(hashSize(h).Gates)
			B = max(B, h.BankBits)
		}
	}
	d := int(lg(L + 1))
	pairs := float64(L*(L-1)) / 2
	// Per lane pair the bank equality (the address equality with
	// broadcast), per lane the first-lane flags, grants and a count of
	// its bank's lanes; the same again on the lock indices.
	g += pairs * (2*eqCost(B) + 4)
	if a.Broadcast {
		g += pairs * eqCost(A)
	}
	g += float64(L*L)*(4+2*float64(d)) + float64(L)*(addCost(d)+2*float64(d))
	if lb := a.LockBits(); lb > 0 {
		g += pairs*(2*eqCost(lb)+4) + float64(L*L)*(4+2*float64(d)) + float64(L)*(addCost(d)+2*float64(d))
	}
	if a.Serialize {
		// Held addresses and banks, the remaining mask, their loads.
		g += 3 * float64(L*(A+B+2))
	}
	return sized(g, warpRTL(L))
}

// pipelineSize estimates an elastic pipeline (gen/pipeline.go): stages
// of {valid, tag, extra} registers with their muxes (twice for the split
// baseline), the elastic variant's queues of warp_size/simd_width - 1
// slots, and the bank arbiter it instantiates.
func pipelineSize(p *specs.ElasticPipeline) Size {
	t := float64(p.TagBits)
	slot := t + float64(p.DegreeBits()) + 2
	stages := map[specs.PipelineVariant]float64{specs.PipeUnified: 1.5, specs.PipeSplit: 3, specs.PipeElastic: 2}[p.PipeVariant]
	g := 120 + 3*t + slot*stages*float64(p.MemStages)
	if p.PipeVariant == specs.PipeElastic {
		g += slot * (5*float64(p.WarpSize/max(p.SIMDWidth, 1)-1) + 4)
	}
	if a := p.BankArbiter(); a != nil {
		g += float64(arbiterSize(a).Gates)
	}
	return sized(g, 0)
}

// readyMaskSize estimates a warp ready mask (gen/readymask.go): the
// history cache's ways of sets x {tag, degree} registers with their
// write muxes and clears, two lookups (a multiplexer per entry bit per
// way) and the per-set valid bits and replacement pointers.
func readyMaskSize(w *specs.WarpReadyMask) Size {
	S, W := float64(w.HistorySets), float64(w.HistoryWays)
	e := float64(w.TagBits() + w.HistoryBits())
	pb := lg(w.HistoryWays)
	ib := float64(w.IndexBits())
	entries := W * S * (e*2 + 2)       // DFF and write MUX2 per bit, write enable
	lookups := 2 * W * (e + 1) * S     // two reads of every way: entry and valid
	valid := W * S * 4                 // valid bits, set and clear
	ptr := S * (pb*3 + 2)              // replacement pointers and their read
	decode := (W + 2) * S * (ib/2 + 2) // one-hot decodes of the set index
	g := entries + lookups + valid + ptr + decode
	// The counter loads (pred + S - 1) >> log2(shmem_ports): when that
	// is always 0 the cache is never read, and the builder drops it.
	if bitsFor((1<<w.HistoryBits())-1+w.Subwarps()-1) <= int(lg(w.ShmemPorts)) && w.ShmemPorts > 1 {
		g = 0
	}
	g += 8*float64(w.WarpContexts) + 40*float64(w.PCBits)
	return sized(g, 0)
}

// bitsFor is the number of bits that hold 0..n.
func bitsFor(n int) int { return max(1, bits.Len(uint(n))) }

// sharedMemorySize estimates a shared memory (gen/shared_memory.go): per
// slot its hash and row, the slot-pair equalities, per bank the row and
// store-data selects over the slots, the forwarding and atomic units, the
// read return per slot and lane, and the registers of the bank stage,
// stage 2, acc and the queue. The banks are macros, not gates.
func sharedMemorySize(u *specs.SharedMemory) Size {
	L, A, N := float64(u.Lanes), float64(u.AddrBits()), float64(max(2, u.NumBanks()))
	W := float64(u.MaxWidth())
	WB := float64(8 * u.BankBytes)
	kmax := float64(u.LaneWords(u.MaxWidth()))
	NS := min(N, L*kmax)
	wa := float64(u.WordBits())
	var g float64
	if h := u.Hash.Hash(); h != nil {
		g += NS * float64(hashSize(h).Gates)
	} else {
		g += NS * 40 * wa
	}
	pairs := NS * (NS - 1) / 2
	g += pairs * (eqCost(int(wa)) + eqCost(int(lg(int(N)))) + 4)
	g += NS * N * (wa + 2*WB + 70)             // bank decode, row, store data and operand selects
	g += N * (WB*6 + 1200)                     // forwarding, atomic unit, write muxes
	g += NS * WB * 2 * N                       // read return per slot
	g += L * kmax * WB * 6 * 3                 // gather per lane and width
	g += L*(A+2*W+32)*3 + L*kmax*8 + 3*L*(W+2) // cur, acc, queue registers and muxes
	g += L * 3 * (A + 8) * 3                   // refusal per lane and width
	return sized(g, warpRTL(u.Lanes)*4*kmax)
}
