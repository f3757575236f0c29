package sta

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/rtl"
	"github.com/lsugen/lsugen/timing"
	"github.com/lsugen/lsugen/timing/liberty"
)

// CrosscheckUnit is one design to cross-check.
type CrosscheckUnit struct {
	Design *netlist.Design
	// Kind and Variant describe the unit in the report.
	Kind, Variant string
	// Info heads the Verilog written for the flow.
	Info rtl.Info
	// Skip, when not "", leaves the unit out: it is reported as skipped
	// with this reason.
	Skip string
}

// CrosscheckOptions set up a cross-check.
type CrosscheckOptions struct {
	// Config sets up the flow; Config.WorkDir is required and the caller
	// owns it (Crosscheck neither creates a temporary one nor removes it).
	Config Config
	// BandPct is the tolerance of the sized model against the
	// timing-driven flow, in percent.
	BandPct float64
	// Jobs is the number of units run at a time; below 1 means 1.
	Jobs int
	// TimeoutName is how the reasons of units skipped for exceeding
	// Config.Timeout name that limit ("--timeout" for the command); ""
	// means "the time limit".
	TimeoutName string
}

// UnitDone is what the progress function of Crosscheck hears as each unit
// finishes: exactly one of Err, TimedOut and Result is set.
type UnitDone struct {
	Name string
	// Result is the unit through both flows.
	Result *UnitResult
	// TimedOut: a Yosys or OpenSTA run exceeded Config.Timeout; the unit
	// is reported as skipped.
	TimedOut bool
	// Err is the unit's failure, which cancels the others.
	Err error
	// Seconds is the unit's wall time.
	Seconds float64
}

// crosscheck is the work of one Crosscheck call: the flow and the library
// as the model sees it, shared by the workers.
type crosscheck struct {
	opts   CrosscheckOptions
	flow   *Flow
	ch     *liberty.Characterization
	libOpt timing.Options // the characterized model in the flow's environment
	report *Report
}

// outcome is one unit's run.
type outcome struct {
	res      *UnitResult
	mapped   *Timing
	stages   *stageTimings // a pipelined unit's D pins at its period
	seconds  float64
	err      error
	timedOut bool
}

// Crosscheck measures the library's FO4, characterizes the library for
// lsugen's model and runs every unit not marked Skip through both flows
// and through OpenSTA as lsugen's own gates in library cells (up to
// opts.Jobs at a time), then sets lsugen's unsized and sized estimates
// beside them. The report keeps the order of units. progress, if not nil,
// is called as each unit finishes, from one goroutine at a time.
//
// The first unit to fail cancels the others and its error is returned,
// with the unit's name; a unit whose tool run exceeds Config.Timeout is
// reported as skipped, not failed. Cancelling ctx stops the run with
// ctx's error.
func Crosscheck(ctx context.Context, units []CrosscheckUnit, opts CrosscheckOptions, progress func(UnitDone)) (*Report, error) {
	c := &crosscheck{opts: opts}
	if err := c.setUp(ctx); err != nil {
		return nil, err
	}
	var todo []int
	for i, u := range units {
		if u.Skip != "" {
			c.report.Skipped = append(c.report.Skipped, Skipped{Name: u.Design.Name, Gates: len(u.Design.Gates), Reason: u.Skip})
			continue
		}
		todo = append(todo, i)
	}
	results, err := c.runAll(ctx, units, todo, progress)
	if err != nil {
		return nil, err
	}
	for _, i := range todo {
		if err := c.add(units[i], results[i]); err != nil {
			return nil, err
		}
	}
	return c.report, nil
}

// setUp prepares the flow, measures FO4 and characterizes the library.
func (c *crosscheck) setUp(ctx context.Context) error {
	var err error
	if c.flow, err = New(c.opts.Config); err != nil {
		return err
	}
	fo4, err := c.flow.MeasureFO4(ctx)
	if err != nil {
		return err
	}
	// Every cell is a candidate for the model's table: the don't-use cells
	// are already cut from the flow's copy of the library.
	if c.ch, err = liberty.Characterize(c.flow.Lib.Library, liberty.Options{DontUse: []string{}}); err != nil {
		return err
	}
	if c.flow.Macro, err = MacroScaleFor(c.flow.Lib.Library, c.ch); err != nil {
		return err
	}
	c.report = NewReport(c.flow, fo4, c.opts.BandPct)
	c.report.Model = NewModelTech(c.ch)
	if c.report.Model.NAND2Area, err = NAND2Area(c.ch, c.flow.Lib.Library); err != nil {
		return err
	}
	// The same driver and output load as the flow, in reference-inverter
	// caps.
	c.libOpt = timing.OptionsFor(c.ch.Tech)
	c.libOpt.DriverSize = c.flow.DriverCap * c.flow.Lib.CapUnitFF / c.ch.RefCapFF
	c.libOpt.OutputLoad = c.flow.OutputLoad * c.flow.Lib.CapUnitFF / c.ch.RefCapFF
	return nil
}

// runAll runs units[todo[...]] on opts.Jobs workers and returns the
// outcomes indexed like units.
func (c *crosscheck) runAll(ctx context.Context, units []CrosscheckUnit, todo []int, progress func(UnitDone)) ([]outcome, error) {
	// Our own cancel, so that the first failure stops the others without
	// touching the caller's context.
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	results := make([]outcome, len(units))
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex // guards next, firstErr and calls of progress
		next     int
		firstErr error
	)
	for w := 0; w < min(max(c.opts.Jobs, 1), len(todo)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				if next >= len(todo) || wctx.Err() != nil {
					mu.Unlock()
					return
				}
				i := todo[next]
				next++
				mu.Unlock()
				results[i] = c.runUnit(wctx, units[i])
				mu.Lock()
				if progress != nil {
					progress(results[i].done(units[i].Design.Name))
				}
				if err := results[i].err; err != nil && firstErr == nil {
					firstErr = fmt.Errorf("%s: %w", units[i].Design.Name, err)
					cancel() // the units in flight stop; no more start
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return results, nil
}

// runUnit takes one unit through both flows and times its own gates.
func (c *crosscheck) runUnit(ctx context.Context, u CrosscheckUnit) outcome {
	start := time.Now()
	res, err := c.flow.Run(ctx, u.Design, u.Info)
	var mapped *Timing
	if err == nil {
		mapped, err = c.flow.RunMapped(ctx, u.Design, c.ch)
	}
	var stages *stageTimings
	if err == nil && staged(u.Design) && len(u.Design.Memories) > 0 {
		err = errors.New("a pipelined unit with memory macros: its stages are timed at flip-flops only")
	}
	if err == nil && staged(u.Design) {
		stages, err = c.flow.timeStages(ctx, u.Design, res, c.report.FO4PS())
	}
	o := outcome{res: res, mapped: mapped, stages: stages, seconds: time.Since(start).Seconds(), err: err}
	if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
		// A tool run's own Config.Timeout, not the caller's deadline:
		// reported, not fatal.
		o.timedOut, o.err = true, nil
	}
	return o
}

func (o outcome) done(name string) UnitDone {
	d := UnitDone{Name: name, Err: o.err, TimedOut: o.timedOut, Seconds: o.seconds}
	if o.err == nil && !o.timedOut {
		d.Result = o.res
	}
	return d
}

// add puts one unit's outcome into the report: a skip for a timeout, else
// the flows beside lsugen's analyses with both gate tables.
func (c *crosscheck) add(u CrosscheckUnit, o outcome) error {
	d := u.Design
	if o.timedOut {
		limit := c.opts.TimeoutName
		if limit == "" {
			limit = "the time limit"
		}
		c.report.Skipped = append(c.report.Skipped, Skipped{Name: d.Name, Gates: len(d.Gates),
			Reason: fmt.Sprintf("a Yosys or OpenSTA run exceeded %s %v (%.0fs)", limit, c.flow.cfg.Timeout, o.seconds)})
		return nil
	}
	lib, textbook, fixed, err := estimates(u, c.libOpt)
	if err != nil {
		return err
	}
	area, cells, err := MappedArea(d, c.ch, c.flow.Lib.Library)
	if err != nil {
		return err
	}
	c.report.add(o.res, o.mapped, area, cells, u.Kind, u.Variant, len(d.Gates), lib, textbook, fixed, o.seconds)
	if o.stages != nil {
		pr := newPipelineReport(d, o.stages, c.report.FO4PS())
		if err := setStageModels(pr, d, c.libOpt, c.report.FO4PS()); err != nil {
			return err
		}
		c.report.Units[len(c.report.Units)-1].Pipeline = pr
	}
	return nil
}

// estimates are lsugen's analyses of u, unsized and sized: with the
// characterized table (libOpt), with the textbook one, and with the
// characterized one at a fixed transition (none, fixed[0] nil, when
// libOpt's table has no transition models).
func estimates(u CrosscheckUnit, libOpt timing.Options) (lib, textbook, fixed [2]*timing.Result, err error) {
	d := u.Design
	slews := libOpt.Tech != nil && libOpt.Tech.Cells[netlist.INV].Slew != nil
	for i, mode := range []timing.Mode{timing.Unsized, timing.Sized} {
		opt := timing.DefaultOptions()
		opt.Mode = mode
		if textbook[i], err = timing.Analyze(d, opt); err != nil {
			return lib, textbook, fixed, fmt.Errorf("%s: %w", d.Name, err)
		}
		o := libOpt
		o.Mode = mode
		if lib[i], err = timing.Analyze(d, o); err != nil {
			return lib, textbook, fixed, fmt.Errorf("%s: %w", d.Name, err)
		}
		if slews {
			o.FixedSlew = true
			if fixed[i], err = timing.Analyze(d, o); err != nil {
				return lib, textbook, fixed, fmt.Errorf("%s: %w", d.Name, err)
			}
		}
	}
	return lib, textbook, fixed, nil
}

// PageInfo is the provenance of a report that the report does not hold.
type PageInfo struct {
	// Version is the generator's version ("lsugen 0.1.0").
	Version string
	// Jobs is the number of units run at a time and CPUs the machine's
	// CPU count.
	Jobs, CPUs int
	// Seconds is the run's wall time; 0 leaves it out.
	Seconds float64
}

// WritePage writes the report as a complete Markdown page: a title, how
// the figures were obtained, the table of WriteMarkdown, the skipped
// units, a summary and the provenance. Everything but the measured figures
// is fixed by the report and p: the page has no dates, and the liberty is
// named by its file name only.
func (r *Report) WritePage(w io.Writer, p PageInfo) error {
	bw := bufio.NewWriter(w)
	lib := filepath.Base(r.Liberty)
	fmt.Fprintf(bw, "# lsugen's timing model against Yosys + OpenSTA on %s\n\n", r.Library)
	bw.WriteString("<!-- Generated by `lsugen crosscheck-timing --doc` (`make crosscheck`); do not edit. -->\n\n")
	r.writeMethod(bw, lib)
	fmt.Fprintf(bw, "## Results\n\n")
	fmt.Fprintf(bw, "FO4 figures are in the library's FO4 of %.2f ps, the figure of `lsugen characterize` and the SDC (the textbook model's in its own FO4); ✗ marks a sized error outside ±%g%%.\n\n",
		r.FO4PS(), r.BandPct)
	if err := r.WriteMarkdown(bw); err != nil {
		return err
	}
	if len(r.areaUnits()) > 0 {
		fmt.Fprintf(bw, "\nThe units' cell areas in the library's NAND2 equivalents (%s, %g %s per GE; the area in that unit in parentheses), memory macros left out: "+
			"lsugen's gates in library cells summed from the library's cell areas, the two flows from Yosys's `stat -liberty`; "+
			"beside them lsugen's unsized and sized area (sized: with the inverters of its buffer trees), with the characterized table (the library's own cell areas) "+
			"and with the textbook one (GE from transistor counts). The unsized area's errors are against lsugen's gates in library cells "+
			"(the same gates: the gate table's areas alone) and against the plain flow (what area-oriented synthesis makes of them), the sized area's against the timing-driven flow.\n\n",
			r.Model.Cells[netlist.NAND2.String()], r.Model.NAND2Area, areaUnit(r.Library))
		if err := r.WriteAreaMarkdown(bw); err != nil {
			return err
		}
	}
	if len(r.pipelinedUnits()) > 0 {
		fmt.Fprintf(bw, "\nThe pipelined units' stages: OpenSTA's worst arrival plus the library's setup time at the D pins of the registers that end each stage, "+
			"with the clock at the period in the library's FO4 (slack against it, ✗ when negative), beside the model's stage delays with its setup time of %g FO4 "+
			"(textbook: the model and mode that placed the registers, in its own FO4); errors against the timing-driven flow, the unsized model's against lsugen's gates.\n\n", timing.SetupFO4)
		if err := r.WriteStagesMarkdown(bw); err != nil {
			return err
		}
	}
	if len(r.Skipped) > 0 {
		bw.WriteString("\nNot run:\n\n")
		for _, s := range r.Skipped {
			fmt.Fprintf(bw, "- `%s` (%d gates): %s\n", s.Name, s.Gates, s.Reason)
		}
	}
	r.writeSummary(bw)
	r.writeProvenance(bw, lib, p)
	return bw.Flush()
}

// writeMethod describes the flows and the columns.
func (r *Report) writeMethod(w *bufio.Writer, lib string) {
	src := "readable RTL (the module the unit is named after)"
	if r.Source == string(SourceGates) {
		src = "gate netlist (the module NAME_gates, the very gates the model times)"
	}
	fmt.Fprintf(w, "## Method\n\n")
	fmt.Fprintf(w, "Each unit's %s is synthesised with Yosys %s to %s (%s, %d don't-use cells removed) twice: "+
		"plainly (`abc -liberty`, an area-oriented mapping) and timing-driven (`abc -D %s -constr`, with the delay target in ps; "+
		"the default, 1 ps, is a target no netlist meets, so that ABC's mapper, buffering and up/down-sizing work for speed to the end). "+
		"Both runs use the ABC scripts Yosys's `abc` pass runs by default, except that ABC's SAT sweeping (`&fraig -x`) stops at %d conflicts per candidate equivalence.\n\n",
		src, r.Yosys, r.Library, lib, r.RemovedCells, r.target(), r.FraigConflicts)
	fmt.Fprintf(w, "OpenSTA %s times both netlists with an ideal clock (virtual for combinational units), %s driving every data input (%.2f fF of input capacitance) "+
		"and %.2f fF on every output bit, under the library's wire-load model; a unit's delay is the latest arrival at any output or flip-flop D pin, "+
		"without setup time, as in the model. OpenSTA also times lsugen's own gate netlist with each gate in the cell `lsugen characterize` chose for its kind, "+
		"without synthesis: that separates the model's arithmetic from what synthesis changes.\n\n",
		r.STA, r.Driver, r.DriverCapFF, r.OutputLoadFF)
	m := r.Model
	fmt.Fprintf(w, "The model uses the gate table characterized from the same library (reference inverter %s, τ = %.2f ps, p_inv = %.2f τ, wire load %q) "+
		"with the same driver and output load. The library's FO4, by which every delay below converts, is the one `lsugen characterize` computes: "+
		"%s driving four copies of itself and the wire of a fanout-4 net, %.2f ps. As a check, OpenSTA measures a stage of an FO4 chain of %s at %.2f ps "+
		"(%.2f ps rising, %.2f ps falling; the characterized figure is %+.1f%% from it).\n\n",
		m.Inverter, m.TauPS, m.PInv, m.WireLoad, m.Inverter, m.FO4PS, r.Driver, r.FO4.PS, r.FO4.RisePS, r.FO4.FallPS, 100*(m.FO4PS-r.FO4.PS)/r.FO4.PS)
	if len(r.Units) > 0 && r.Units[0].LibFixedSlew != nil {
		fmt.Fprintf(w, "The characterized model propagates transitions, a rising and a falling one per net, read from the library's own tables "+
			"(g and p are fitted at %.1f ps, an FO4 stage's transition); the summary also counts the model that reads every table at that one transition, as it did before.\n\n",
			m.SlewPS)
	}
	w.WriteString("The columns, delays in FO4:\n\n")
	for _, c := range [][2]string{
		{"gates", "lsugen's gate count of the unit"},
		{"lsugen's gates in library cells", "OpenSTA's delay of lsugen's own netlist in the characterized cells"},
		{"model unsized", "lsugen's unsized estimate with the characterized table; its error is against the previous column"},
		{"flow plain", "the plain flow's delay; the error after it is the unsized estimate's against it"},
		{"flow timing-driven", "the timing-driven flow's delay, also in ps"},
		{"model sized", fmt.Sprintf("lsugen's sized estimate with the characterized table; its error is against the timing-driven flow, ✗ when outside ±%g%%", r.BandPct)},
		{"textbook sized", "lsugen's default model (the textbook gate table and wire model), sized, in its own FO4; its error is against the timing-driven flow"},
	} {
		fmt.Fprintf(w, "- **%s**: %s.\n", c[0], c[1])
	}
	w.WriteString("\nAn error is 100·(model − reference)/reference, from the unrounded delays in ps.\n\n")
}

// writeSummary counts the units within the band for each comparison.
func (r *Report) writeSummary(w *bufio.Writer) {
	within := func(e func(UnitReport) *float64) (n int) {
		for _, u := range r.Units {
			if p := e(u); p != nil && math.Abs(*p) <= r.BandPct {
				n++
			}
		}
		return n
	}
	n := len(r.Units)
	fmt.Fprintf(w, "\n## Summary\n\nWithin ±%g%% of the reference, of %d units:\n\n", r.BandPct, n)
	fmt.Fprintf(w, "- the unsized model against lsugen's gates in library cells: %d;\n", within(func(u UnitReport) *float64 { return u.Lib.MappedErrorPct }))
	fmt.Fprintf(w, "- the unsized model against the plain flow: %d;\n", within(func(u UnitReport) *float64 { return u.Lib.UnsizedErrorPct }))
	fmt.Fprintf(w, "- the sized model against the timing-driven flow: %d", n-len(r.OutsideBand))
	if len(r.OutsideBand) > 0 {
		var out []string
		for _, u := range r.Units {
			if !u.WithinBand {
				out = append(out, fmt.Sprintf("`%s` (%s)", u.Name, pct(u.Lib.SizedErrorPct)))
			}
		}
		fmt.Fprintf(w, " (outside: %s)", strings.Join(out, ", "))
	}
	w.WriteString(";\n")
	fixed := func(e func(ModelEstimate) *float64) func(UnitReport) *float64 {
		return func(u UnitReport) *float64 {
			if u.LibFixedSlew == nil {
				return nil
			}
			return e(*u.LibFixedSlew)
		}
	}
	if len(r.Units) > 0 && r.Units[0].LibFixedSlew != nil {
		fmt.Fprintf(w, "- the model with every table read at one transition (%.1f ps, before it propagated transitions): unsized against lsugen's gates in library cells %d, "+
			"sized against the timing-driven flow %d",
			r.Model.SlewPS, within(fixed(func(e ModelEstimate) *float64 { return e.MappedErrorPct })), within(fixed(func(e ModelEstimate) *float64 { return e.SizedErrorPct })))
		var out []string
		for _, u := range r.Units {
			if p := fixed(func(e ModelEstimate) *float64 { return e.SizedErrorPct })(u); p == nil || math.Abs(*p) > r.BandPct {
				out = append(out, fmt.Sprintf("`%s` (%s)", u.Name, pct(p)))
			}
		}
		if len(out) > 0 {
			fmt.Fprintf(w, " (outside: %s)", strings.Join(out, ", "))
		}
		w.WriteString(";\n")
	}
	fmt.Fprintf(w, "- the textbook model, sized, against the timing-driven flow: %d.\n\n", within(func(u UnitReport) *float64 { return u.Textbook.SizedErrorPct }))
	r.writeAreaSummary(w)
}

// writeProvenance lists what produced the figures.
func (r *Report) writeProvenance(w *bufio.Writer, lib string, p PageInfo) {
	w.WriteString("## Provenance\n\n")
	fmt.Fprintf(w, "- %s; Yosys %s; OpenSTA %s.\n", p.Version, r.Yosys, r.STA)
	fmt.Fprintf(w, "- Library `%s` (%s).\n", lib, r.Library)
	fmt.Fprintf(w, "- Source %s; driver %s; output load %.2f fF per bit; delay target %s ps; `&fraig -x -C %d`.\n",
		r.Source, r.Driver, r.OutputLoadFF, r.target(), r.FraigConflicts)
	if r.FlowFrom {
		w.WriteString("- The flow figures (FO4, both flows, lsugen's gates in library cells) are a previous run's, read from its `--json` report " +
			"(`crosscheck-timing --flow-from`); lsugen's estimates were computed anew")
	} else {
		fmt.Fprintf(w, "- %d units at a time on a machine with %d CPUs", p.Jobs, p.CPUs)
	}
	if p.Seconds > 0 {
		if r.FlowFrom {
			w.WriteString("; that run took")
		} else {
			w.WriteString(":")
		}
		fmt.Fprintf(w, " %s in all", duration(p.Seconds))
		slow := -1
		for i, u := range r.Units {
			if slow < 0 || u.Seconds > r.Units[slow].Seconds {
				slow = i
			}
		}
		if slow >= 0 {
			fmt.Fprintf(w, ", the slowest unit `%s` %s", r.Units[slow].Name, duration(r.Units[slow].Seconds))
		}
	}
	w.WriteString(".\n")
}

// target is the timing-driven flow's delay target in ps, the same for
// every unit; "TARGET" when no unit ran.
func (r *Report) target() string {
	if len(r.Units) == 0 {
		return "TARGET"
	}
	return fmt.Sprintf("%g", r.Units[0].TargetPS)
}

// duration writes s seconds as "14 min 37 s" or "9.2 s".
func duration(s float64) string {
	if s < 60 {
		return fmt.Sprintf("%.1f s", s)
	}
	t := int64(math.Round(s))
	return fmt.Sprintf("%d min %d s", t/60, t%60)
}
