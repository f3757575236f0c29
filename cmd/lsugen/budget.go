package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/pflag"

	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/units"
)

// The budget of one run (issue 18: three of the largest warp_ready_mask
// units in a 1 KB spec took 92.6 s and 4.87 GB in gen, each unit inside
// its own limits). Before any unit is generated, the sum of the units'
// estimated gates (units.Estimate: an upper bound from the spec alone,
// never generating) must be within --gate-budget, and for the commands
// that write Verilog the sum of its estimated bytes within
// --output-budget. A run past either is refused with exit status 2,
// naming the total, the limit, the largest units and the flag. The
// defaults hold one largest accepted unit of any family (the largest,
// a warp_ready_mask of 4,096 sets x 8 ways, is estimated at 5.4 M gates
// and 0.8 GB of Verilog and generates 4.1 M gates, 340 MB, in 31.5 s and
// 2.7 GB of memory on the 2-core VM) and every example spec.
const (
	defaultGateBudget   = 6_000_000
	defaultOutputBudget = 1 << 30
)

// budget is one run's limits; 0 is no limit.
type budget struct {
	gates int64
	// bytes limits the Verilog a run writes; only commands that write it
	// (writes) check it.
	bytes  int64
	writes bool
	// clock pipelines every combinational unit whose spec has no
	// clock_fo4 at this clocking (--clock-fo4, --timing-mode); the zero
	// value leaves units as the specs say.
	clock specs.Clocking
}

// defaultBudget is the budget of a command that declares no flags for it.
func defaultBudget(writes bool) budget {
	return budget{gates: defaultGateBudget, bytes: defaultOutputBudget, writes: writes}
}

// addBudgetFlags declares --gate-budget, and with writes --output-budget,
// on b (which they set; defaultBudget first).
func addBudgetFlags(fs *pflag.FlagSet, b *budget, writes bool) {
	*b = defaultBudget(writes)
	fs.Int64Var(&b.gates, "gate-budget", defaultGateBudget,
		"refuse a run whose units are estimated at more gates than this in all, before generating any (0: no limit)")
	if writes {
		fs.Int64Var(&b.bytes, "output-budget", defaultOutputBudget,
			"refuse a run whose Verilog is estimated at more bytes than this in all, before generating any (0: no limit)")
	}
	fs.Float64Var(&b.clock.ClockFO4, "clock-fo4", 0,
		fmt.Sprintf("pipeline every combinational unit whose spec has no clock_fo4 at this clock period, %d to %d FO4 (as clock_fo4 does)", specs.MinClockFO4, specs.MaxClockFO4))
	fs.StringVar(&b.clock.TimingMode, "timing-mode", "", "with --clock-fo4: the model that places the registers, sized (default) or unsized")
}

// check refuses, before any unit is generated, a run whose units are
// estimated past the budget (exit status 2), or a negative limit.
func (b budget) check(us []specs.Unit) error {
	if c := b.clock; c.ClockFO4 != 0 && !(c.ClockFO4 >= specs.MinClockFO4 && c.ClockFO4 <= specs.MaxClockFO4) {
		return usagef("--clock-fo4 %g: want a period from %d to %d FO4", c.ClockFO4, specs.MinClockFO4, specs.MaxClockFO4)
	}
	switch m := b.clock.TimingMode; {
	case m == "":
	case b.clock.ClockFO4 == 0:
		return usagef("--timing-mode %q: it chooses how --clock-fo4 places registers; give --clock-fo4 too", m)
	case m != "sized" && m != "unsized":
		return usagef("--timing-mode %q: want sized or unsized", m)
	}
	if b.gates < 0 {
		return usagef("--gate-budget %d: want 0 (no limit) or more", b.gates)
	}
	if b.writes && b.bytes < 0 {
		return usagef("--output-budget %d: want 0 (no limit) or more", b.bytes)
	}
	type est struct {
		u specs.Unit
		s units.Size
	}
	var all []est
	var total units.Size
	for _, u := range us {
		s, diags := units.Estimate(u)
		if diags.HasErrors() {
			continue // the generator reports the unit
		}
		all = append(all, est{u, s})
		total = total.Add(s)
	}
	over := func(flag string, total, limit int64, size func(units.Size) int64, unit func(int64) string) error {
		sort.SliceStable(all, func(i, j int) bool { return size(all[i].s) > size(all[j].s) })
		var largest []string
		for _, e := range all[:min(3, len(all))] {
			largest = append(largest, fmt.Sprintf("%s %s (%s, %s)", e.u.UnitName(), unit(size(e.s)), e.u.UnitKind(), source(e.u)))
		}
		return usagef("the %d units of this run are estimated at %s in all, over the budget of %s (%s; 0 for no limit); the largest: %s. Nothing was generated: give %s %d or more to run them",
			len(all), unit(total), unit(limit), flag, strings.Join(largest, ", "), flag, total)
	}
	if b.gates > 0 && total.Gates > b.gates {
		return over("--gate-budget", total.Gates, b.gates, func(s units.Size) int64 { return s.Gates }, gatesString)
	}
	if b.writes && b.bytes > 0 && total.Bytes > b.bytes {
		return over("--output-budget", total.Bytes, b.bytes, func(s units.Size) int64 { return s.Bytes }, bytesString)
	}
	return nil
}

// gatesString is n gates, in millions or thousands when large.
func gatesString(n int64) string {
	switch {
	case n >= 1e6:
		return fmt.Sprintf("%.1f M gates", float64(n)/1e6)
	case n >= 1e4:
		return fmt.Sprintf("%.0f k gates", float64(n)/1e3)
	}
	return fmt.Sprintf("%d gates", n)
}

// bytesString is n bytes of Verilog, in MB or GB when large.
func bytesString(n int64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.2f GB of Verilog", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.1f MB of Verilog", float64(n)/1e6)
	}
	return fmt.Sprintf("%d bytes of Verilog", n)
}
