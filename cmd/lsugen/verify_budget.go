package main

import (
	"math"
	"strings"

	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/verify"
)

// The budget of a combinational unit's vectors in `lsugen verify` (issue
// 18: --vectors 1e12 ran out of memory). Every vector and its expected
// outputs are held in memory while the engines run, and each engine
// evaluates gates times vectors gates. A plan past either limit is refused
// before any work (exit status 2), naming the limit and the flags that set
// the count; the default plan stays far inside both (about 2^27
// gate-vectors a unit).
const (
	maxVerifyVectorBytes = 1 << 30 // estimated bytes of vectors and expected outputs per unit (measured: about 1.3 times this resident)
	maxVerifyGateVectors = 1 << 36 // gates times vectors per unit
	// maxVerifyGateCycles is gates times cycles per clocked unit: the
	// netlist simulator runs 64 segments of the stream at once (the largest
	// warp ready mask, 2^38.5, took 94 s and 2.8 GB; docs/limits.md).
	maxVerifyGateCycles = 1 << 39
)

// checkVerifyBudget is the one check of a verify run's size before any
// work: every selected unit's vectors (cycles for a clocked unit) against
// the memory budget, and its design and vector count against the limits of
// each engine that is to run it (the proof's limit with --formal).
func checkVerifyBudget(units []unit, mode string, engines []verify.Engine, plan verify.Plan, seq verify.SeqPlan) error {
	for _, u := range units {
		d := u.design
		gates := len(d.Gates)
		if mode == modeFormal {
			if err := checkEngineLimit(d.Name, modeFormal, gates, 0, d.Clock != ""); err != nil {
				return err
			}
			continue
		}
		if mode != modeSimulation {
			continue
		}
		if err := checkVectorBudget(u, plan, seq); err != nil {
			return err
		}
		for _, e := range engines {
			if err := checkEngineLimit(d.Name, string(e), gates, engineCount(d, e, plan, seq), d.Clock != ""); err != nil {
				return err
			}
			if e == verify.Verilator {
				if err := checkVerilatorWidth(d); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// checkVectorBudget refuses a plan that would hold more vectors (cycles)
// for unit u than the budget allows: the vectors and expected outputs of a
// combinational unit, the stimulus and expected outputs of every cycle of
// a clocked one.
func checkVectorBudget(u unit, plan verify.Plan, seq verify.SeqPlan) error {
	d := u.design
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
		limit := math.Floor(min(maxVerifyVectorBytes/perCycle, maxVerifyGateCycles/gates))
		if n := float64(seq.Cycles); n > limit {
			return usagef("%s: %.4g cycles of %d gates and %.0f bytes each are over the verify budget of %d GiB of stimulus and 2^%d gates x cycles per unit: lower --cycles (at most %.0f cycles for this unit)",
				d.Name, n, len(d.Gates), perCycle, maxVerifyVectorBytes>>30, int(math.Log2(maxVerifyGateCycles)), limit)
		}
		return nil
	}
	n := plannedVectors(plan, ins, len(d.Gates))
	// A vector is a slice of ports, each a slice of 64-bit words; its
	// expected outputs likewise.
	perVector := 2 * 24.0
	for _, p := range append(append([]*netlist.Port(nil), ins...), outs...) {
		perVector += 24 + 8*float64((p.Width()+63)/64)
	}
	gates := float64(max(1, len(d.Gates)))
	limit := math.Floor(min(maxVerifyVectorBytes/perVector, maxVerifyGateVectors/gates))
	if n > limit {
		return usagef("%s: %.4g vectors of %d gates and %.0f bytes each are over the verify budget of %d GiB of vectors and 2^%d gates x vectors per unit: lower --vectors, --configs or --max-vectors (at most %.0f vectors for this unit)",
			d.Name, n, len(d.Gates), perVector, maxVerifyVectorBytes>>30, int(math.Log2(maxVerifyGateVectors)), limit)
	}
	return nil
}

// engineCount is the number of vectors (cycles for a clocked unit) that
// engine e runs on design d: Icarus only a sample (--icarus-gate-vectors)
// or a prefix (--icarus-gate-cycles), the others all of them.
func engineCount(d *netlist.Design, e verify.Engine, plan verify.Plan, seq verify.SeqPlan) float64 {
	gates := len(d.Gates)
	if d.Clock != "" {
		n := seq.Cycles
		if e == verify.Icarus && seq.IcarusGateCycles > 0 && gates > 0 {
			n = min(n, max(verify.IcarusMinCycles, seq.IcarusGateCycles/gates))
		}
		return float64(n)
	}
	n := plannedVectors(plan, d.Inputs(), gates)
	if e == verify.Icarus && plan.IcarusGateVectors > 0 && gates > 0 {
		n = min(n, float64(max(256, plan.IcarusGateVectors/gates)))
	}
	return n
}

// plannedVectors is the number of vectors verify.Plan.Vectors draws for
// the inputs ins of a unit of gates gates (verify/vectors.go's rules),
// without drawing them; a float, so that no count overflows.
func plannedVectors(p verify.Plan, ins []*netlist.Port, gates int) float64 {
	random := p.Random
	if p.GateVectors > 0 && gates > 0 {
		random = max(min(p.Random, 256), min(p.Random, p.GateVectors/gates))
	}
	total, dataBits, cfgPorts := 0, 0, 0
	for _, port := range ins {
		total += port.Width()
		if len(port.Name) > 4 && port.Name[:4] == "cfg_" {
			cfgPorts++
		} else {
			dataBits += port.Width()
		}
	}
	maxVectors := float64(p.MaxVectors)
	if total < 63 && math.Ldexp(1, total) <= maxVectors {
		return math.Ldexp(1, total) // exhaustive
	}
	if cfgPorts == 0 {
		return float64(random)
	}
	configs := float64(max(1, p.Configs))
	if dataBits < 63 && configs*math.Ldexp(1, dataBits) <= maxVectors {
		return configs * math.Ldexp(1, dataBits)
	}
	return configs * math.Max(1, math.Floor(min(float64(random), maxVectors)/configs))
}

// The per-engine limits of `lsugen verify` (issue 18: a 128-lane x 64-bit
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
type engineLimit struct {
	maxGates     int     // gates of the unit's design
	maxGateCount float64 // gates x vectors or cycles the engine runs
}

// engineLimits are the limits by engine name (verify.Engine, and
// modeFormal for --formal, which proves rather than runs vectors).
var engineLimits = map[string]engineLimit{
	// The netlist simulator's vectors and cycles are the verify budget's.
	string(verify.Netlist): {maxGates: 1 << 23},
	// Icarus took 78 s and 1.2 GB on a 217,125-gate arbiter, but more than
	// 5 minutes on the 136,994-gate neighbor coalescer (8,320 input bits),
	// 4 minutes on 441,474 gates and 5 minutes and 4.4 GB on 988,801
	// (issue 18); it evaluated 0.25 to 1 M gates x vectors (cycles) a
	// second.
	string(verify.Icarus): {maxGates: 1 << 17, maxGateCount: 1 << 28},
	// Verilator built and ran the 217,125-gate arbiter in 4 min 18 s and
	// 1.8 GB; 441,474 gates took more than 4 minutes, 988,801 more than
	// 6 GB. Its models evaluated about 5 G gates x vectors a second
	// (docs/performance.md).
	string(verify.Verilator): {maxGates: 1 << 18, maxGateCount: 1 << 40},
	// Yosys and ABC proved the 217,125-gate arbiter in 4 min 53 s but
	// with 4.8 GB, and passed 6 GB on 988,801 gates; the largest example
	// unit, 98,166 gates, stays within.
	modeFormal: {maxGates: 1 << 17},
}

// checkEngineLimit refuses a check of unit name (gates gates) under
// engine that runs count vectors or cycles (0 for a proof) when it is past
// the engine's limits; clocked says whether count counts cycles.
func checkEngineLimit(name, engine string, gates int, count float64, clocked bool) error {
	lim, ok := engineLimits[engine]
	if !ok {
		return nil
	}
	if gates > lim.maxGates {
		if engine == modeFormal {
			return usagef("%s: %d gates are over the limit of verify --formal, %d gates (docs/limits.md): check it by simulation instead (verify --sim netlist,verilator) or prove a smaller unit",
				name, gates, lim.maxGates)
		}
		return usagef("%s: %d gates are over the limit of the %s engine, %d gates (docs/limits.md): leave %s out of --sim (e.g. --sim %s) or verify a smaller unit",
			name, gates, engine, lim.maxGates, engine, otherEngines(engine, gates))
	}
	if lim.maxGateCount > 0 && float64(gates)*count > lim.maxGateCount {
		what, flags := "vectors", "--vectors, --configs or --max-vectors"
		if clocked {
			what, flags = "cycles", "--cycles"
		}
		if engine == string(verify.Icarus) {
			flags += " or --icarus-gate-" + what
		}
		return usagef("%s: %.4g %s of %d gates under %s are over its limit of 2^%d gates x %s (docs/limits.md): lower %s (at most %.0f %s for this unit), or leave %s out of --sim",
			name, count, what, gates, engine, int(math.Log2(lim.maxGateCount)), what, flags, math.Floor(lim.maxGateCount/float64(max(1, gates))), what, engine)
	}
	return nil
}

// otherEngines lists the simulation engines but e that take a design of
// gates gates, for a --sim value.
func otherEngines(e string, gates int) string {
	var other []string
	for _, o := range []verify.Engine{verify.Netlist, verify.Icarus, verify.Verilator} {
		if string(o) != e && gates <= engineLimits[string(o)].maxGates {
			other = append(other, string(o))
		}
	}
	if len(other) == 0 {
		return "netlist"
	}
	return strings.Join(other, ",")
}

// maxVerilatorVectorBits is the widest value Verilator reads or writes
// with $fscanf and $fwrite (its VL_VALUE_STRING_MAX_WIDTH): the
// testbench reads each vector's inputs, and each vector's expected
// outputs, as one number, so a unit whose inputs or outputs together are
// wider fails Verilator's build (a 128-lane x 64-bit coalescer with an
// active mask has 8,320 input bits).
const maxVerilatorVectorBits = 8192

// checkVerilatorWidth refuses design d under Verilator when its inputs
// (the clock aside) or its outputs are wider together than Verilator's
// testbench can read.
func checkVerilatorWidth(d *netlist.Design) error {
	in, out := 0, 0
	for _, p := range d.Inputs() {
		if p.Name != d.Clock {
			in += p.Width()
		}
	}
	for _, p := range d.Outputs() {
		out += p.Width()
	}
	if w := max(in, out); w > maxVerilatorVectorBits {
		what := "inputs"
		if out > in {
			what = "outputs"
		}
		return usagef("%s: its %s are %d bits together, over Verilator's limit of %d bits for one value read or written by the testbench (docs/limits.md): leave verilator out of --sim (e.g. --sim netlist) or verify a narrower unit",
			d.Name, what, w, maxVerilatorVectorBits)
	}
	return nil
}
