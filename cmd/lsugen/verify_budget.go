package main

import (
	"math"

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
)

// checkVectorBudget refuses a plan that would draw more vectors for one of
// the combinational units than the budget allows.
func checkVectorBudget(units []unit, plan verify.Plan) error {
	for _, u := range units {
		d := u.design
		if d.Clock != "" {
			continue // clocked units run --cycles, not vectors
		}
		ins, outs := d.Inputs(), d.Outputs()
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
	}
	return nil
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
