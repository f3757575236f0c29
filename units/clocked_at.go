package units

import (
	"github.com/hashicorp/hcl/v2"

	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/timing"
)

// ClockedAt returns what builds a unit's combinational design d at
// clocking c as clock_fo4 does (Pipeline), in library tech (nil: none):
// the clocked design, whose Pipeline.Latency is its (slow answers')
// latency, and the composer's measure of a variable-latency unit as plain
// data (its fast answers' latency; nil for a fixed-latency unit). Package
// tools/profile/coalescers takes it to count the cycles of the units
// lsugen generates at each clock, without importing the generators.
func ClockedAt(tech *timing.Tech) func(specs.Unit, *netlist.Design, specs.Clocking) (*netlist.Design, *timing.Variable, hcl.Diagnostics) {
	return func(u specs.Unit, d *netlist.Design, c specs.Clocking) (*netlist.Design, *timing.Variable, hcl.Diagnostics) {
		b, diags := Pipeline(u, d, c, tech, nil)
		return b.Design, b.Variable.Report(), diags
	}
}
