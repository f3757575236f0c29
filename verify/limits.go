package verify

import (
	"fmt"
	"math"
	"strings"

	"github.com/lsugen/lsugen/netlist"
)

// The budget of a combinational unit's vectors in `lsugen verify` (issue
// 18: --vectors 1e12 ran out of memory). Every vector and its expected
// outputs are held in memory while the engines run, and each engine
// evaluates gates times vectors gates. A plan past either limit is refused
// before any work (exit status 2), naming the limit and the flags that set
// the count; the default plan stays far inside both (about 2^27
// gate-vectors a unit).
const (
	maxVectorBytes = 1 << 30 // estimated bytes of vectors and expected outputs per unit (measured: about 1.3 times this resident)
	maxGateVectors = 1 << 36 // gates times vectors per unit
	// maxGateCycles is gates times cycles per clocked unit: the
	// netlist simulator runs 64 segments of the stream at once (the largest
	// warp ready mask, 2^38.5, took 94 s and 2.8 GB; docs/limits.md).
	maxGateCycles = 1 << 39
)

// CheckSimulation is the one check of a simulation run's size before any
// work: every design's vectors (cycles for a clocked one) under the plans
// against the memory budget, and its size and vector count against the
// limits of each engine that is to run it. The errors name the flags of
// `lsugen verify` that lower the count.
func (l Limits) CheckSimulation(ds []*netlist.Design, engines []Engine, plan Plan, seq SeqPlan) error {
	for _, d := range ds {
		if err := checkVectorBudget(d, plan, seq); err != nil {
			return err
		}
		for _, e := range engines {
			if err := l.Check(d.Name, string(e), len(d.Gates), EngineCount(d, e, plan, seq), d.Clock != ""); err != nil {
				return err
			}
			if e == Verilator {
				if err := CheckVerilatorWidth(d); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// CheckProofs refuses, before any work, a design past the proof's limit.
func (l Limits) CheckProofs(ds []*netlist.Design) error {
	for _, d := range ds {
		if err := l.Check(d.Name, ProofEngine, len(d.Gates), 0, d.Clock != ""); err != nil {
			return err
		}
	}
	return nil
}

// checkVectorBudget refuses a plan that would hold more vectors (cycles)
// for design d than the budget allows: the vectors and expected outputs of
// a combinational unit, the stimulus and expected outputs of every cycle
// of a clocked one.
func checkVectorBudget(d *netlist.Design, plan Plan, seq SeqPlan) error {
	ins, outs := d.Inputs(), d.Outputs()
	if d.Clock != "" {
		// One flat stream: each cycle's input and output words
		// (verify/sequential.go's stream), the clock not among them.
		words := 0
		for _, p := range append(append([]*netlist.Port(nil), ins...), outs...) {
			if p.Name != d.Clock {
				words += (p.Width() + 63) / 64
			}
		}
		perCycle := 8 * float64(max(1, words))
		gates := float64(max(1, len(d.Gates)))
		limit := math.Floor(min(maxVectorBytes/perCycle, maxGateCycles/gates))
		if n := float64(seq.Cycles); n > limit {
			return fmt.Errorf("%s: %.4g cycles of %d gates and %.0f bytes each are over the verify budget of %d GiB of stimulus and 2^%d gates x cycles per unit: lower --cycles (at most %.0f cycles for this unit)",
				d.Name, n, len(d.Gates), perCycle, maxVectorBytes>>30, int(math.Log2(maxGateCycles)), limit)
		}
		return nil
	}
	n := plan.Count(ins, len(d.Gates))
	// A vector is a slice of ports, each a slice of 64-bit words; its
	// expected outputs likewise.
	perVector := 2 * 24.0
	for _, p := range append(append([]*netlist.Port(nil), ins...), outs...) {
		perVector += 24 + 8*float64((p.Width()+63)/64)
	}
	gates := float64(max(1, len(d.Gates)))
	limit := math.Floor(min(maxVectorBytes/perVector, maxGateVectors/gates))
	if n > limit {
		return fmt.Errorf("%s: %.4g vectors of %d gates and %.0f bytes each are over the verify budget of %d GiB of vectors and 2^%d gates x vectors per unit: lower --vectors, --configs or --max-vectors (at most %.0f vectors for this unit)",
			d.Name, n, len(d.Gates), perVector, maxVectorBytes>>30, int(math.Log2(maxGateVectors)), limit)
	}
	return nil
}

// EngineLimit is one engine's limits in `lsugen verify` (issue 18: a 128-lane x 64-bit
// speculative coalescer, accepted by the spec limits, ran past 5 minutes
// and 4.4 GB under Icarus and past 6 GB in --formal). Each engine has a
// largest design it takes, in gates (Icarus and Yosys elaborate the RTL
// and gate-level modules whole, whatever the vector count), and a most
// gates x vectors (x cycles for a clocked unit) it simulates. They are
// chosen from the measurements in docs/limits.md (a 2-core VM, 23 GiB)
// with a margin, so that every check that is accepted finishes there in
// minutes and a few GB; a plan past one is refused before any work (exit
// status 2), naming the unit, the engine, its size, the limit and what to
// do instead.
type EngineLimit struct {
	MaxGates int // gates of the unit's design
	// MaxClockedGates, when set, is MaxGates for a clocked unit, whose
	// cycles cost these engines less than a combinational unit's wide
	// vectors.
	MaxClockedGates int
	MaxGateCount    float64 // gates x vectors or cycles the engine runs
}

// Limits are the engine limits by engine name (Engine, and ProofEngine for
// a proof, which runs no vectors).
type Limits map[string]EngineLimit

// ProofEngine names the formal proof in Limits.
const ProofEngine = "formal"

// DefaultLimits are the limits measured in docs/limits.md.
func DefaultLimits() Limits {
	return Limits{
		// The netlist simulator's vectors and cycles are the verify budget's.
		string(Netlist): {MaxGates: 1 << 23},
		// Icarus took 78 s and 1.2 GB on a 217,125-gate arbiter, 1 min 44 s
		// and 0.93 GB for 1,000 cycles of the 256,551-gate shared memory
		// (specs/large), but more than 5 minutes on the 136,994-gate
		// neighbor coalescer (8,320 input bits), 4 minutes on 441,474 gates
		// and 5 minutes and 4.4 GB on 988,801 (issue 18); it evaluated 0.25
		// to 1 M gates x vectors (cycles) a second.
		string(Icarus): {MaxGates: 1 << 17, MaxClockedGates: 1 << 18, MaxGateCount: 1 << 28},
		// Verilator built and ran the 217,125-gate arbiter in 4 min 18 s and
		// 1.8 GB; 441,474 gates took more than 4 minutes, 988,801 more than
		// 6 GB. Its models evaluated about 5 G gates x vectors a second
		// (docs/performance.md).
		string(Verilator): {MaxGates: 1 << 18, MaxGateCount: 1 << 40},
		// Yosys and ABC proved the 217,125-gate arbiter in 4 min 53 s but
		// with 4.8 GB, the 256,551-gate shared memory in 8 min 4 s and 3.5
		// GB (at its equivalence points; 18 min 26 s by the whole design's
		// miter), but passed 6 GB on the 136,994-gate neighbor coalescer
		// and on 988,801 gates.
		ProofEngine: {MaxGates: 1 << 17, MaxClockedGates: 1 << 18},
	}
}

// Check refuses a check of unit name (gates gates) under engine that runs
// count vectors or cycles (0 for a proof) when it is past the engine's
// limits; clocked says whether count counts cycles.
func (l Limits) Check(name, engine string, gates int, count float64, clocked bool) error {
	lim, ok := l[engine]
	if !ok {
		return nil
	}
	if maxGates := lim.maxGates(clocked); gates > maxGates {
		if engine == ProofEngine {
			return fmt.Errorf("%s: %d gates are over the limit of verify --formal, %d gates (docs/limits.md): check it by simulation instead (verify --sim netlist,verilator) or prove a smaller unit",
				name, gates, maxGates)
		}
		return fmt.Errorf("%s: %d gates are over the limit of the %s engine, %d gates (docs/limits.md): leave %s out of --sim (e.g. --sim %s) or verify a smaller unit",
			name, gates, engine, maxGates, engine, l.otherEngines(engine, gates, clocked))
	}
	if lim.MaxGateCount > 0 && float64(gates)*count > lim.MaxGateCount {
		what, flags := "vectors", "--vectors, --configs or --max-vectors"
		if clocked {
			what, flags = "cycles", "--cycles"
		}
		if engine == string(Icarus) {
			flags += " or --icarus-gate-" + what
		}
		return fmt.Errorf("%s: %.4g %s of %d gates under %s are over its limit of 2^%d gates x %s (docs/limits.md): lower %s (at most %.0f %s for this unit), or leave %s out of --sim",
			name, count, what, gates, engine, int(math.Log2(lim.MaxGateCount)), what, flags, math.Floor(lim.MaxGateCount/float64(max(1, gates))), what, engine)
	}
	return nil
}

// maxGates is the largest design lim takes, clocked or not.
func (lim EngineLimit) maxGates(clocked bool) int {
	if clocked && lim.MaxClockedGates > 0 {
		return lim.MaxClockedGates
	}
	return lim.MaxGates
}

// otherEngines lists the simulation engines but e that take a design of
// gates gates, for a --sim value.
func (l Limits) otherEngines(e string, gates int, clocked bool) string {
	var other []string
	for _, o := range []Engine{Netlist, Icarus, Verilator} {
		if string(o) != e && gates <= l[string(o)].maxGates(clocked) {
			other = append(other, string(o))
		}
	}
	if len(other) == 0 {
		return "netlist"
	}
	return strings.Join(other, ",")
}

// MaxVerilatorVectorBits is the widest value Verilator reads or writes
// with $fscanf and $fwrite (its VL_VALUE_STRING_MAX_WIDTH): the
// testbench reads each vector's inputs, and each vector's expected
// outputs, as one number, so a unit whose inputs or outputs together are
// wider fails Verilator's build (a 128-lane x 64-bit coalescer with an
// active mask has 8,320 input bits).
const MaxVerilatorVectorBits = 8192

// CheckVerilatorWidth refuses design d under Verilator when its inputs
// (the clock aside) or its outputs are wider together than Verilator's
// testbench can read.
func CheckVerilatorWidth(d *netlist.Design) error {
	in, out := 0, 0
	for _, p := range d.Inputs() {
		if p.Name != d.Clock {
			in += p.Width()
		}
	}
	for _, p := range d.Outputs() {
		out += p.Width()
	}
	if w := max(in, out); w > MaxVerilatorVectorBits {
		what := "inputs"
		if out > in {
			what = "outputs"
		}
		return fmt.Errorf("%s: its %s are %d bits together, over Verilator's limit of %d bits for one value read or written by the testbench (docs/limits.md): leave verilator out of --sim (e.g. --sim netlist) or verify a narrower unit",
			d.Name, what, w, MaxVerilatorVectorBits)
	}
	return nil
}
