package flow

import (
	"fmt"
	"math"

	"github.com/hashicorp/hcl/v2"

	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/timing"
	"github.com/lsugen/lsugen/timing/liberty"
)

// Library is the cell library a run is given (--liberty): its model,
// characterized as `lsugen characterize` does, converts clocks given in
// time units to FO4 and, under timing_mode "liberty" (the default with a
// library), places the pipeline registers.
type Library struct {
	Path string
	Name string
	Tech *timing.Tech
	// FO4PS is the library's FO4 delay in ps, the one figure lsugen
	// quotes for it (timing.Options.FO4PS of its characterized model).
	FO4PS float64
}

// LoadLibrary reads and characterizes a liberty file, plain or gzipped.
func LoadLibrary(path string) (*Library, error) {
	l, err := liberty.Load(path)
	if err != nil {
		return nil, err
	}
	ch, err := liberty.Characterize(l, liberty.Options{})
	if err != nil {
		return nil, fmt.Errorf("liberty %s: %w", path, err)
	}
	return &Library{Path: path, Name: l.Name, Tech: ch.Tech, FO4PS: timing.OptionsFor(ch.Tech).FO4PS()}, nil
}

// The default library (timing.DefaultLibraryName), whose FO4 converts a
// clock given in time units in a run without --liberty.
const (
	DefaultLibraryName  = timing.DefaultLibraryName
	DefaultLibraryFO4PS = timing.DefaultLibraryFO4PS
)

// fo4PS is the FO4 delay, in ps, that converts clocks in time units: the
// library's, or the default library's.
func (l *Library) fo4PS() float64 {
	if l == nil {
		return DefaultLibraryFO4PS
	}
	return l.FO4PS
}

// libraryName names the library clocks are converted with.
func (l *Library) libraryName() string {
	if l == nil {
		return DefaultLibraryName + " (the default library)"
	}
	return l.Name
}

// tech is the library's characterized model for the pipeliner; nil for
// no library (the textbook model).
func (l *Library) tech() *timing.Tech {
	if l == nil {
		return nil
	}
	return l.Tech
}

// resolveClock completes clocking c for a run with library lib (nil:
// none): a period in time units becomes FO4 in the library's FO4, a
// defaulted timing mode becomes the library's model, and timing_mode
// "liberty" without a library is refused. what names the clock's origin
// in messages ("clock" for a spec, "--clock" for the command line).
func resolveClock(c *specs.Clocking, lib *Library, what string) *hcl.Diagnostic {
	bad := func(summary, detail string, a ...any) *hcl.Diagnostic {
		d := &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: fmt.Sprintf(detail, a...)}
		if c.Range != (hcl.Range{}) {
			d.Subject = c.Range.Ptr()
		}
		return d
	}
	if c.PeriodPS > 0 {
		fo4 := c.PeriodPS / lib.fo4PS()
		if !(fo4 >= specs.MinClockFO4 && fo4 <= specs.MaxClockFO4) {
			return bad("Invalid clock", "%s %s is %.4g FO4 in %s (FO4 = %.2f ps), outside %d to %d FO4.",
				what, specs.FormatPS(c.PeriodPS), fo4, lib.libraryName(), lib.fo4PS(), specs.MinClockFO4, specs.MaxClockFO4)
		}
		c.ClockFO4 = fo4
	}
	if c.ClockFO4 == 0 {
		return nil
	}
	if c.ModeDefaulted {
		c.TimingMode = specs.DefaultTimingMode(lib != nil)
	}
	if c.TimingMode == "liberty" && lib == nil {
		return bad("Library needed", "timing_mode = \"liberty\" places the registers with a cell library's model: give the run one with --liberty FILE (e.g. ../shared/liberty/%s.lib.gz), or choose timing_mode \"sized\".", DefaultLibraryName)
	}
	return nil
}

// PeriodPS is a clock of period fo4 FO4 in ps, in library lib (nil: the
// default library), rounded to 1e-6 ps so that a period given as 1 GHz
// reads 1000 ps again.
func PeriodPS(fo4 float64, lib *Library) float64 {
	return math.Round(fo4*lib.fo4PS()*1e6) / 1e6
}

// missesInLibrary warns when unit u's design d was given a period under
// another model than library lib's and a stage of it (a pipelined unit)
// or a register-to-register path (a shared memory's front end) would miss
// that period in the library: the period is a promise that the user's
// flow checks in their library.
func missesInLibrary(u specs.Unit, d *netlist.Design, lib *Library) hcl.Diagnostics {
	period, mode := 0.0, ""
	switch {
	case d.Pipeline != nil:
		period, mode = d.Pipeline.PeriodFO4, d.Pipeline.Mode
	case d.Protocol != nil && d.Protocol.PeriodFO4 > 0:
		period, mode = d.Protocol.PeriodFO4, d.Protocol.Mode
	}
	if period == 0 || mode == timing.Liberty {
		return nil
	}
	opt, err := timing.PipelineOptionsIn(timing.Liberty, lib.Tech)
	if err != nil {
		return nil
	}
	what, worst := "slowest register-to-register path", 0.0
	if d.Pipeline != nil {
		st, err := timing.StageDelays(d, opt)
		if err != nil {
			return nil
		}
		for i, x := range st {
			if x > worst {
				worst, what = x, fmt.Sprintf("stage %d of %d", i+1, len(st))
			}
		}
	} else if worst, err = timing.SlowestPath(d, opt); err != nil {
		return nil
	}
	if worst <= period {
		return nil
	}
	var rng *hcl.Range
	if c, ok := u.(specs.Clocked); ok && c.Clocks().Range != (hcl.Range{}) {
		rng = c.Clocks().Range.Ptr()
	} else {
		r := u.DeclRange()
		rng = &r
	}
	return hcl.Diagnostics{{Severity: hcl.DiagWarning, Summary: "Period missed in the library",
		Detail: fmt.Sprintf("%s was given %.4g FO4 (%.4g ps in %s) under the %s model, but in %s's own model its %s takes %.2f FO4 (%.0f ps), %.0f%% over the period. Use timing_mode = \"liberty\" (the default when --liberty is given) to place the registers in this library.",
			u.UnitName(), period, period*lib.FO4PS, lib.Name, mode, lib.Name, what, worst, worst*lib.FO4PS, 100*(worst/period-1)),
		Subject: rng}}
}
