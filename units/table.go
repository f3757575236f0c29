package units

import (
	"fmt"
	"strings"

	"github.com/lsugen/lsugen/compose"
	"github.com/lsugen/lsugen/gen"
	"github.com/lsugen/lsugen/model"
	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/retime"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/verify"
)

// table is the list of unit families, one row each, in the order of
// specs.BlockKinds. TestTable_Complete checks every row for every part and
// the kinds against the loader's.
var table = []Family{
	row[*specs.Hash]{
		kind:     "hash",
		summary:  "bank-index hash: bit-vector and bitwise permutations and XORs, XOR matrices, add, the random address permute-shift, IPOLY by polynomial and any bank count by mod",
		source:   "000_*, 002_*, 004_*",
		generate: gen.Hash,
		size:     hashSize,
		model:    model.ForHash,
		// A hash's inputs are an address and its configuration: every
		// address is enumerated up to 2^20, and random addresses reach
		// every bank; only mod's arithmetic has corners to add (wide
		// units: multiples of banks, all-ones chunks).
		directed: hashDirected,
		// Configurable with config = "register": clocked, the design's
		// clock picks this model.
		sequential: model.ForHashRegister,
		stimulus:   hashRegisterStimulus,
		lanePlot:   notWarpWide[*specs.Hash],
	}.family(),
	row[*specs.Coalescer]{
		kind:     "coalescer",
		summary:  "coalescer: marks the lanes whose cache block no later lane repeats (all-to-all, neighbor or speculative)",
		source:   "003_*",
		generate: gen.Coalescer,
		// At a clock, the speculative coalescer is a variable-latency
		// unit composed from its two paths, each pipelined.
		compose: func(c *specs.Coalescer, opt retime.Options) (Built, bool, error) {
			if c.Structure != specs.Speculative {
				return Built{}, false, nil
			}
			d, t, err := compose.Speculative(c, opt)
			return Built{Design: d, Variable: t}, true, err
		},
		size:  coalescerSize,
		model: model.ForCoalescer,
		directed: func(c *specs.Coalescer) verify.DirectedFunc {
			return func(ins []*netlist.Port, seed uint64) []verify.Vector {
				return warpVectors(c.Lanes, c.AddrBits, c.BlockBits, ins, seed)
			}
		},
		lanePlot: func(c *specs.Coalescer) (LanePoint, bool) {
			var opts []string
			if c.Structure == specs.Speculative {
				opts = append(opts, string(c.Adder))
			}
			if c.ActiveMask {
				opts = append(opts, "active_mask")
			}
			if c.Requests {
				opts = append(opts, "requests")
			}
			sub := strings.Join(opts, ", ")
			rank := map[specs.Structure]int{specs.AllToAll: 0, specs.Neighbor: 1, specs.Speculative: 2}[c.Structure]
			return LanePoint{Series: string(c.Structure), Rank: rank, Lanes: c.Lanes,
				Attrs: [3]string{sub, fmt.Sprintf("%d-bit", c.AddrBits), fmt.Sprintf("block %d", c.BlockBits)}}, true
		},
	}.family(),
	row[*specs.MonotonicityDetector]{
		kind:     "monotonicity_detector",
		summary:  "address-monotonicity detector: are a warp's addresses non-decreasing or non-increasing",
		source:   "003_*",
		generate: gen.MonotonicityDetector,
		size:     detectorSize,
		model:    model.ForMonotonicityDetector,
		directed: func(m *specs.MonotonicityDetector) verify.DirectedFunc {
			return func(ins []*netlist.Port, seed uint64) []verify.Vector {
				return warpVectors(m.Lanes, m.AddrBits, 0, ins, seed)
			}
		},
		lanePlot: func(m *specs.MonotonicityDetector) (LanePoint, bool) {
			sub := string(m.Adder)
			if m.ActiveMask {
				sub += ", active_mask"
			}
			return LanePoint{Series: "detector", Rank: 3, Lanes: m.Lanes,
				Attrs: [3]string{sub, fmt.Sprintf("%d-bit", m.AddrBits), ""}}, true
		},
	}.family(),
	row[*specs.BankArbiter]{
		kind:     "bank_arbiter",
		summary:  "bank arbiter: the bank-conflict degree of a warp access and conflict-free grants, hashed banks and locks",
		source:   "001_*, 002_*",
		generate: gen.BankArbiter,
		size:     arbiterSize,
		// Combinational, or clocked with serialize = true: the design's
		// clock picks the model.
		model:      model.ForBankArbiter,
		directed:   arbiterVectors,
		sequential: model.ForSerialBankArbiter,
		stimulus:   arbiterStimulus,
		lanePlot: func(a *specs.BankArbiter) (LanePoint, bool) {
			mode := "broadcast"
			if !a.Broadcast {
				mode = "no broadcast"
			}
			if a.Serialize {
				mode += ", serializing"
			}
			return LanePoint{Series: "bank_arbiter", Rank: 4, Lanes: a.Lanes,
				Attrs: [3]string{mode, fmt.Sprintf("%d-bit", a.AddrBits), fmt.Sprintf("%d banks", 1<<a.BankBits)}}, true
		},
	}.family(),
	row[*specs.ElasticPipeline]{
		kind:       "elastic_pipeline",
		summary:    "pipeline back end from EXE to writeback: the elastic pipeline and its two baselines",
		source:     "001_*",
		generate:   gen.ElasticPipeline,
		size:       pipelineSize,
		sequential: model.ForPipeline,
		stimulus:   pipelineStimulus,
		lanePlot:   notWarpWide[*specs.ElasticPipeline],
	}.family(),
	row[*specs.WarpReadyMask]{
		kind:       "warp_ready_mask",
		summary:    "bank-conflict-aware warp ready mask with its conflict history cache",
		source:     "001_*",
		generate:   gen.WarpReadyMask,
		size:       readyMaskSize,
		sequential: model.ForReadyMask,
		stimulus:   readyMaskStimulus,
		lanePlot:   notWarpWide[*specs.WarpReadyMask],
	}.family(),
	row[*specs.SharedMemory]{
		kind:       "shared_memory",
		summary:    "shared memory: hashed banks of storage, crossbars, wide accesses, broadcast and atomics, one pass per cycle",
		source:     "000_*, 001_*, 002_*",
		generate:   gen.SharedMemory, // then sharedMemoryAtClock (BuildIn)
		size:       sharedMemorySize,
		sequential: model.ForSharedMemory,
		stimulus:   sharedMemoryStimulus,
		lanePlot:   notWarpWide[*specs.SharedMemory],
	}.family(),
}
