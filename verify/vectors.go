package verify

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/lsugen/lsugen/netlist"
)

// Vector is one input vector: a value per input port, in port order, each
// a little-endian slice of 64-bit words.
type Vector [][]uint64

// Plan says how many vectors to draw and how.
type Plan struct {
	// MaxVectors bounds the total vector count of one unit. Inputs that
	// number no more than this are enumerated exhaustively.
	MaxVectors int
	// Configs is the number of random configurations of a configurable
	// unit (inputs named cfg_*); each is paired with every data input
	// value where that fits in MaxVectors, else with random data.
	Configs int
	// Random is the number of random vectors when exhaustive does not fit.
	Random int
	// GateVectors caps random vectors times gates, so that the HDL
	// simulators spend about the same time on a large unit as on a small
	// one (at least 256 random vectors remain); 0 means no cap.
	GateVectors int
	// IcarusGateVectors is GateVectors for Icarus alone, an event-driven
	// interpreter of the netlist about a hundred times slower per gate
	// than Verilator: where the plan's random vectors exceed it, Icarus
	// runs every directed vector and an evenly spread sample of the rest
	// (at least IcarusMinVectors); 0 means Icarus runs them all.
	IcarusGateVectors int
	Seed              uint64
}

// DefaultPlan is what `lsugen verify` uses without flags.
func DefaultPlan() Plan {
	return Plan{MaxVectors: 1 << 20, Configs: 16, Random: 1 << 16, GateVectors: 1 << 27, IcarusGateVectors: 1 << 22, Seed: 1}
}

func words(width int) int { return (width + 63) / 64 }

// value holds v in a port of the given width.
func value(v uint64, width int) []uint64 {
	w := make([]uint64, words(width))
	if width < 64 {
		v &= 1<<uint(width) - 1
	}
	w[0] = v
	return w
}

func randomValue(r *rand.Rand, width int) []uint64 {
	w := make([]uint64, words(width))
	for i := range w {
		w[i] = r.Uint64()
	}
	if rem := width % 64; rem != 0 {
		w[len(w)-1] &= 1<<uint(rem) - 1
	}
	return w
}

// isConfig reports whether an input port carries configuration.
func isConfig(p *netlist.Port) bool { return len(p.Name) > 4 && p.Name[:4] == "cfg_" }

// Vectors draws the vectors for a design's inputs by the plan and
// describes their coverage, e.g. "exhaustive" or "16 configs x all 16384
// data values".
func (p Plan) Vectors(ins []*netlist.Port, gates int) (vs []Vector, coverage string) {
	p = p.forGates(gates)
	r := rand.New(rand.NewPCG(p.Seed, 0x766563746f7273))
	total, dataBits := 0, 0
	var data, cfg []int
	for i, port := range ins {
		total += port.Width()
		if isConfig(port) {
			cfg = append(cfg, i)
		} else {
			data = append(data, i)
			dataBits += port.Width()
		}
	}
	if total < 63 && 1<<uint(total) <= p.MaxVectors {
		return enumerate(ins, nil, make(Vector, len(ins))), "exhaustive"
	}
	if len(cfg) == 0 {
		vs = make([]Vector, p.Random)
		for i := range vs {
			vs[i] = make(Vector, len(ins))
			for j, port := range ins {
				vs[i][j] = randomValue(r, port.Width())
			}
		}
		return vs, "random"
	}
	configs := max(1, p.Configs)
	coverage = fmt.Sprintf("%d configs x random data", configs)
	if dataBits < 63 && configs<<uint(dataBits) <= p.MaxVectors {
		coverage = fmt.Sprintf("%d configs x all %d data values", configs, 1<<uint(dataBits))
	}
	for c := 0; c < configs; c++ {
		base := make(Vector, len(ins))
		for _, j := range cfg {
			// The first configuration is all zeros, a corner every
			// configurable unit must handle.
			if c == 0 {
				base[j] = value(0, ins[j].Width())
			} else {
				base[j] = randomValue(r, ins[j].Width())
			}
		}
		if dataBits < 63 && configs<<uint(dataBits) <= p.MaxVectors {
			vs = append(vs, enumerate(ins, cfg, base)...)
			continue
		}
		per := p.perConfig(configs)
		for k := 0; k < per; k++ {
			v := make(Vector, len(ins))
			copy(v, base)
			for _, j := range data {
				v[j] = randomValue(r, ins[j].Width())
			}
			vs = append(vs, v)
		}
	}
	return vs, coverage
}

// forGates is the plan for a unit of gates gates: GateVectors caps its
// random vectors, to no fewer than 256.
func (p Plan) forGates(gates int) Plan {
	if p.GateVectors > 0 && gates > 0 {
		p.Random = max(min(p.Random, 256), min(p.Random, p.GateVectors/gates))
	}
	return p
}

// perConfig is the number of random data vectors drawn for each of
// configs configurations.
func (p Plan) perConfig(configs int) int { return max(1, min(p.Random, p.MaxVectors)/configs) }

// Count is the number of vectors Vectors draws for the inputs ins of a
// unit of gates gates, without drawing them (the directed vectors of
// JobVectors not included): a float, so that no count overflows. `lsugen
// verify` checks its budget with it before any work.
func (p Plan) Count(ins []*netlist.Port, gates int) float64 {
	p = p.forGates(gates)
	total, dataBits, cfgPorts := 0, 0, 0
	for _, port := range ins {
		total += port.Width()
		if isConfig(port) {
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
		return float64(p.Random)
	}
	configs := max(1, p.Configs)
	if dataBits < 63 && float64(configs)*math.Ldexp(1, dataBits) <= maxVectors {
		return float64(configs) * math.Ldexp(1, dataBits)
	}
	return float64(configs) * float64(p.perConfig(configs))
}

// enumerate lists every value of the ports not in fixed (each < 63 bits
// together), copying base for the fixed ones.
func enumerate(ins []*netlist.Port, fixed []int, base Vector) []Vector {
	isFixed := map[int]bool{}
	for _, j := range fixed {
		isFixed[j] = true
	}
	bitsFree := 0
	for j, port := range ins {
		if !isFixed[j] {
			bitsFree += port.Width()
		}
	}
	n := uint64(1) << uint(bitsFree)
	vs := make([]Vector, 0, n)
	for x := uint64(0); x < n; x++ {
		v := make(Vector, len(ins))
		rest := x
		for j, port := range ins {
			if isFixed[j] {
				v[j] = base[j]
				continue
			}
			v[j] = value(rest, port.Width())
			rest >>= uint(port.Width())
		}
		vs = append(vs, v)
	}
	return vs
}

// IcarusMinVectors is the fewest random vectors of Icarus's sample. Icarus
// interprets a large unit's gate-level module at about 80 ms a vector
// (87,000 gates), so its sample is small: the netlist simulator and
// Verilator run every vector, the proof covers every input, and the gate
// writer whose text Icarus reads is checked in full on the smaller units.
const IcarusMinVectors = 64

// sample picks the vectors an engine with the given gate-vector budget
// runs: all of the first directed ones, then an evenly spread sample of
// the rest of at least IcarusMinVectors and at most budget/gates (all when
// those fit, or with no budget). It returns indices into a list of n
// vectors.
func sample(n, directed, gates, budget int) []int {
	rest := n - directed
	keep := sampleSize(rest, gates, budget)
	idx := make([]int, 0, directed+keep)
	for i := range directed {
		idx = append(idx, i)
	}
	for k := range keep {
		idx = append(idx, directed+int(int64(k)*int64(rest)/int64(keep)))
	}
	return idx
}

// sampleSize is how many of n planned vectors an engine with the given
// gate-vector budget runs: at least IcarusMinVectors and at most
// budget/gates, all when those fit or with no budget.
func sampleSize(n, gates, budget int) int {
	if budget > 0 && gates > 0 {
		return min(n, max(IcarusMinVectors, budget/gates))
	}
	return n
}

// EngineCount is the number of vectors (cycles, for a clocked design)
// that engine e runs on design d under the plans, without drawing them:
// Icarus only a sample (Plan.IcarusGateVectors) or a prefix
// (SeqPlan.IcarusGateCycles), the other engines all of them; the
// directed vectors of a job are not counted. `lsugen verify` checks its
// limits with it before any work.
func EngineCount(d *netlist.Design, e Engine, p Plan, seq SeqPlan) float64 {
	gates := len(d.Gates)
	if d.Clock != "" {
		if e == Icarus {
			return float64(seq.icarusCycles(gates))
		}
		return float64(seq.Cycles)
	}
	n := p.Count(d.Inputs(), gates)
	if e == Icarus && n < math.MaxInt {
		return float64(sampleSize(int(n), gates, p.IcarusGateVectors))
	}
	if e == Icarus && p.IcarusGateVectors > 0 && gates > 0 {
		return float64(max(IcarusMinVectors, p.IcarusGateVectors/gates)) // n is past any budget
	}
	return n
}
