package flow

import (
	"fmt"
	"sort"
	"strings"

	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/units"
)

// The budget of one run (issue 18: three of the largest warp_ready_mask
// units in a 1 KB spec took 92.6 s and 4.87 GB in gen, each unit inside
// its own limits). Before any unit is generated, the sum of the units'
// estimated gates (units.Estimate: an upper bound from the spec alone,
// never generating) must be within Options.Gates, and for the commands
// that write Verilog the sum of its estimated bytes within
// Options.Bytes. A run past either is refused, naming the total, the
// limit, the largest units and the flag. The defaults hold one largest
// accepted unit of any family (the largest, a warp_ready_mask of 4,096
// sets x 8 ways, is estimated at 5.4 M gates and 0.8 GB of Verilog and
// generates 4.1 M gates, 340 MB, in 31.5 s and 2.7 GB of memory on the
// 2-core VM) and every example spec.
const (
	DefaultGateBudget   = 6_000_000
	DefaultOutputBudget = 1 << 30
)

// Options are one session's limits and overrides. Each field is a flag of
// the command (named in Check's messages); 0 is no limit.
type Options struct {
	// Gates limits the units' estimated gates in all (--gate-budget).
	Gates int64
	// Bytes limits the Verilog a run writes (--output-budget); only
	// checked when Writes is set, for the commands that write it.
	Bytes  int64
	Writes bool
	// Clock pipelines every combinational unit whose spec has no clock
	// at this clocking (--clock-fo4 or --clock, --timing-mode); the zero
	// value leaves units as the specs say.
	Clock specs.Clocking
	// Library is the run's cell library (--liberty), nil for none: it
	// converts clocks in time units and is the model of timing_mode
	// "liberty", the default mode with a library.
	Library *Library
	// LibraryPath, when Library is nil, is the liberty file Load reads
	// and characterizes into Library.
	LibraryPath string
	// Unit, when set, is the one unit to check and generate (the specs
	// are loaded whole); a name the specs do not declare is a
	// *NoUnitError.
	Unit string
	// Units, when not empty, are glob patterns (--unit): only the units
	// whose names match one are checked and generated; a pattern that
	// matches none is an error (specs.SelectUnits).
	Units []string
	// Pipelining, when set, is called once, after every unit is generated
	// and before the first of the run's pipelinings, with their estimate
	// (work.go; zero when the run pipelines none). An error refuses the run (Load
	// returns it, with no units); otherwise the function it returns, when
	// not nil, is called as each pipelining ends.
	Pipelining func(PipelineWork) (func(), error)
}

// DefaultOptions is the budget of a command that declares no flags for
// it; writes tells whether the command writes Verilog.
func DefaultOptions(writes bool) Options {
	return Options{Gates: DefaultGateBudget, Bytes: DefaultOutputBudget, Writes: writes}
}

// Check refuses, before any unit is generated, a run whose units us are
// estimated past the budget, or options out of range.
func (o Options) Check(us []specs.Unit) error {
	if err := o.checkRange(); err != nil {
		return err
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
			largest = append(largest, fmt.Sprintf("%s %s (%s, %s)", e.u.UnitName(), unit(size(e.s)), e.u.UnitKind(), Source(e.u)))
		}
		return fmt.Errorf("the %d units of this run are estimated at %s in all, over the budget of %s (%s; 0 for no limit); the largest: %s. Nothing was generated: give %s %d or more to run them",
			len(all), unit(total), unit(limit), flag, strings.Join(largest, ", "), flag, total)
	}
	if o.Gates > 0 && total.Gates > o.Gates {
		return over("--gate-budget", total.Gates, o.Gates, func(s units.Size) int64 { return s.Gates }, gatesString)
	}
	if o.Writes && o.Bytes > 0 && total.Bytes > o.Bytes {
		return over("--output-budget", total.Bytes, o.Bytes, func(s units.Size) int64 { return s.Bytes }, bytesString)
	}
	return nil
}

// checkRange refuses a clock override out of the specs' range, a timing
// mode without a clock, or a negative limit.
func (o Options) checkRange() error {
	c := o.Clock
	if c.ClockFO4 != 0 && c.PeriodPS != 0 {
		return fmt.Errorf("--clock-fo4 and --clock: give the period once")
	}
	if c.ClockFO4 != 0 && !(c.ClockFO4 >= specs.MinClockFO4 && c.ClockFO4 <= specs.MaxClockFO4) {
		return fmt.Errorf("--clock-fo4 %g: want a period from %d to %d FO4", c.ClockFO4, specs.MinClockFO4, specs.MaxClockFO4)
	}
	if c.PeriodPS != 0 {
		// In FO4 it is checked once the library is known (resolveClock).
		if err := specs.CheckPeriodPS(c.PeriodPS); err != nil {
			return fmt.Errorf("--clock: %v", err)
		}
	}
	switch m := c.TimingMode; {
	case m == "":
	case c.ClockFO4 == 0 && c.PeriodPS == 0:
		return fmt.Errorf("--timing-mode %q: it chooses how --clock-fo4 or --clock places registers; give one of them too", m)
	case m != "sized" && m != "unsized" && m != "liberty":
		return fmt.Errorf("--timing-mode %q: want sized, unsized or liberty", m)
	case m == "liberty" && o.Library == nil && o.LibraryPath == "":
		return fmt.Errorf("--timing-mode liberty places registers with a cell library's model: give --liberty FILE")
	}
	if o.Gates < 0 {
		return fmt.Errorf("--gate-budget %d: want 0 (no limit) or more", o.Gates)
	}
	if o.Writes && o.Bytes < 0 {
		return fmt.Errorf("--output-budget %d: want 0 (no limit) or more", o.Bytes)
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
