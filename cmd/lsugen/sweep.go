package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/lsugen/lsugen/gen"
	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/plot"
	"github.com/lsugen/lsugen/retime"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/timing"
	"github.com/lsugen/lsugen/units"
	"github.com/lsugen/lsugen/verify/sta"
)

// The clock sweep of lsugen timing (issue 16 part 5, docs/clock-sweep.md):
// every combinational unit pipelined (package retime) at every period of
// --sweep-clock LO:HI:STEP, with its latency, flip-flops, area and worst
// stage. The points are computed here (--jobs N at once), or written as a
// job list of one shell command per point (--job-list FILE): each runs
// lsugen timing --sweep-point UNIT@P, which writes one JSON result into
// --out-dir, and --sweep-merge DIR builds the table and figure from them.

// maxSweepPeriods bounds the periods of one sweep.
const maxSweepPeriods = 1000

// The statuses of a sweep point.
const (
	sweepOK        = "ok"               // pipelined
	sweepClocked   = "clocked"          // the unit has a clock already: not swept
	sweepTooShort  = "period_too_short" // no pipelining meets the period
	sweepFailed    = "failed"           // pipelining or timing failed otherwise
	sweepMissing   = "missing"          // merge: no result file
	sweepMalformed = "malformed"        // merge: a result file that is not this point's
)

// sweepManifestFile is the manifest --job-list writes into --out-dir: the
// sweep's model, periods and units, from which --sweep-merge knows which
// points to expect.
const sweepManifestFile = "sweep.json"

// sweepFlags are timing's sweep flags.
type sweepFlags struct {
	clock, point, merge string
	jobList, outDir     string
	jobCommand          string
	staLiberty          string
	jobs                int
	fs                  *pflag.FlagSet
}

// addSweepFlags declares the sweep flags of lsugen timing.
func addSweepFlags(fs *pflag.FlagSet, s *sweepFlags) {
	fs.StringVar(&s.clock, "sweep-clock", "", "pipeline every combinational unit at the clock periods LO, LO+STEP, ... up to HI FO4 (LO:HI:STEP, e.g. 20:60:4) and report latency, flip-flops, area and worst stage at each (docs/clock-sweep.md)")
	fs.StringVar(&s.jobList, "job-list", "", "with --sweep-clock: compute nothing here; write FILE, one shell command per point for GNU parallel or a Slurm array, and the sweep's manifest into --out-dir")
	fs.StringVar(&s.outDir, "out-dir", "", "the directory of a sweep's point results (--job-list, --sweep-point)")
	fs.StringVar(&s.jobCommand, "job-command", "", "with --job-list: the shell words that run lsugen in each job (default: this lsugen's absolute path)")
	fs.StringVar(&s.point, "sweep-point", "", "compute one point UNIT@P of a sweep (unit UNIT at P FO4) and write it as JSON into --out-dir")
	fs.StringVar(&s.merge, "sweep-merge", "", "build a sweep's table (and --svg figure) from the point results in DIR, naming the points missing or malformed")
	fs.StringVar(&s.staLiberty, "sta-liberty", "", "with --sweep-point or --job-list: also time each point's pipeline with Yosys + OpenSTA on this liberty `FILE`, stage by stage (crosscheck-timing's flow, minutes per point)")
	addJobsFlag(fs, &s.jobs, 1)
	s.fs = fs
}

// sweepStepFlags are the flags that make lsugen timing a sweep step.
var sweepStepFlags = []string{"sweep-clock", "sweep-point", "sweep-merge", "job-list", "out-dir", "job-command", "jobs"}

// active reports whether the command is a sweep or one of its steps: any
// sweep flag given (runSweep refuses those given without their step).
func (s *sweepFlags) active() bool {
	if s.fs == nil {
		return false
	}
	for _, f := range sweepStepFlags {
		if s.fs.Changed(f) {
			return true
		}
	}
	return false
}

// sweepModel is the timing model of a sweep: what sets its cuts and
// measures its points. A result file computed under another model is not
// a point of the sweep.
type sweepModel struct {
	// Mode is the sizing regime: "unsized" or "sized".
	Mode       string      `json:"mode"`
	DriverSize float64     `json:"driver_size"`
	OutputLoad float64     `json:"output_load"`
	Wire       timing.Wire `json:"wire"`
	// Tech names the characterized cell library (--liberty); "" for the
	// textbook gate table.
	Tech string `json:"tech,omitempty"`
	// SetupFO4 is the register setup time charged to every stage.
	SetupFO4 float64 `json:"setup_fo4"`
}

func modelOf(opt timing.Options) sweepModel {
	m := sweepModel{Mode: string(opt.Mode), DriverSize: opt.DriverSize, OutputLoad: opt.OutputLoad, Wire: opt.Wire, SetupFO4: timing.SetupFO4}
	if m.Mode == "" {
		m.Mode = string(timing.Unsized)
	}
	if opt.Tech != nil {
		m.Tech = opt.Tech.Name
	}
	return m
}

// sweepPoint is one unit at one period.
type sweepPoint struct {
	Unit      string  `json:"unit"`
	Kind      string  `json:"kind"`
	Variant   string  `json:"variant"`
	PeriodFO4 float64 `json:"period_fo4"`
	// Status is ok, clocked, period_too_short, failed, or (from a merge)
	// missing or malformed; Reason says why a point is not ok.
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
	// For an ok point: the latency L in cycles, the flip-flops (data,
	// output and valid registers), the pipelined unit's area in NAND2
	// equivalents (flip-flops included), each stage's delay with clock-to-Q
	// and setup, the worst of them, and the data registers at each
	// boundary between stages.
	LatencyCycles  int       `json:"latency_cycles,omitempty"`
	Registers      int       `json:"registers,omitempty"`
	AreaGE         float64   `json:"area_ge,omitempty"`
	WorstStageFO4  float64   `json:"worst_stage_fo4,omitempty"`
	StageFO4       []float64 `json:"stage_fo4,omitempty"`
	StageRegisters []int     `json:"stage_registers,omitempty"`
	// STA is OpenSTA's timing of the point's pipeline (--sta-liberty).
	STA *sweepSTA `json:"sta,omitempty"`
}

// sweepSTA is a point's pipeline timed by crosscheck-timing's flow: the
// worst stage (arrival plus the library's setup, in the library's measured
// FO4) and least slack at the period, in the timing-driven Yosys + ABC
// netlist and in lsugen's own gates in library cells.
type sweepSTA struct {
	Library             string  `json:"library"`
	PeriodPS            float64 `json:"period_ps"`
	TimingDrivenFO4     float64 `json:"timing_driven_worst_stage_fo4"`
	TimingDrivenSlackPS float64 `json:"timing_driven_slack_ps"`
	MappedFO4           float64 `json:"mapped_worst_stage_fo4"`
	MappedSlackPS       float64 `json:"mapped_slack_ps"`
	WithinPeriod        bool    `json:"within_period"`
}

// sweepDoc is lsugen timing --sweep-clock --json (and --sweep-merge --json).
type sweepDoc struct {
	// Version is lsugen's version.
	Version    string       `json:"version"`
	Model      sweepModel   `json:"model"`
	PeriodsFO4 []float64    `json:"periods_fo4"`
	Points     []sweepPoint `json:"points"`
}

// sweepUnit is a unit of a sweep's manifest.
type sweepUnit struct {
	Name    string `json:"name"`
	Kind    string `json:"kind"`
	Variant string `json:"variant"`
	// Clock is the clock of a unit that has one (not swept).
	Clock string `json:"clock,omitempty"`
	// Design is a digest of the unit's generated netlist: a result file
	// computed from another netlist is not a point of this sweep.
	Design string `json:"design_sha256"`
}

// sweepManifest is the sweep.json --job-list writes into --out-dir.
type sweepManifest struct {
	Version    string      `json:"version"`
	Model      sweepModel  `json:"model"`
	PeriodsFO4 []float64   `json:"periods_fo4"`
	Units      []sweepUnit `json:"units"`
}

// sweepPointDoc is the result file of one point (--sweep-point).
type sweepPointDoc struct {
	Version string     `json:"version"`
	Model   sweepModel `json:"model"`
	Design  string     `json:"design_sha256"`
	sweepPoint
}

// runSweep is lsugen timing with --sweep-clock, --sweep-point or
// --sweep-merge; opt is the timing command's model, its mode sized unless
// --mode was given.
func runSweep(a *app, cmd *cobra.Command, s *sweepFlags, opt timing.Options, specPaths []string, b budget, asJSON bool, svg string) error {
	fl := cmd.Flags()
	if !flagChanged(fl, "mode") {
		opt.Mode = timing.Sized
	}
	if err := s.check(fl, specPaths, asJSON, svg); err != nil {
		return err
	}
	if svg != "" {
		if err := checkOutputFile(svg); err != nil {
			return badInput(fmt.Errorf("--svg: %w", err))
		}
	}
	switch {
	case s.merge != "":
		return s.runMerge(a, asJSON, svg)
	case s.point != "":
		return s.runPoint(a, opt, specPaths, b, asJSON)
	}
	periods, err := parseSweepClock(s.clock)
	if err != nil {
		return usagef("%v", err)
	}
	if s.jobList != "" {
		return s.writeJobList(a, fl, opt, periods, specPaths, b)
	}
	us, err := loadAndGenerate(specPaths, b, a.stderr)
	if err != nil {
		return err
	}
	pts, err := sweepPoints(a.ctx, us, periods, opt, s.jobs)
	if err != nil {
		return err
	}
	doc := &sweepDoc{Version: gen.Version, Model: modelOf(opt), PeriodsFO4: periods, Points: pts}
	return finishSweep(a, doc, asJSON, svg)
}

// check refuses the flag combinations a sweep cannot honour, naming the
// flag.
func (s *sweepFlags) check(fl *pflag.FlagSet, specPaths []string, asJSON bool, svg string) error {
	var given []string
	for _, f := range sweepStepFlags {
		if !fl.Changed(f) {
			continue
		}
		given = append(given, "--"+f)
		if fl.Lookup(f).Value.String() == "" {
			return usagef("--%s: empty; it needs a value", f)
		}
	}
	n := 0
	for _, v := range []string{s.clock, s.point, s.merge} {
		if v != "" {
			n++
		}
	}
	if n > 1 {
		return usagef("--sweep-clock, --sweep-point and --sweep-merge are three steps: give one")
	}
	if n == 0 {
		return usagef("%s: applies to a clock sweep, with --sweep-clock LO:HI:STEP, --sweep-point or --sweep-merge", strings.Join(given, ", "))
	}
	for _, f := range []string{"clock", "paths", "svg-unit"} {
		if flagChanged(fl, f) {
			return usagef("--%s is for the timing report, not a sweep (its periods are --sweep-clock LO:HI:STEP)", f)
		}
	}
	for _, f := range []string{"clock-fo4", "timing-mode"} {
		if flagChanged(fl, f) {
			return usagef("--%s pipelines the units at one period before a sweep could: the sweep pipelines them at each period of --sweep-clock, with the model of --mode", f)
		}
	}
	if s.jobList != "" && s.clock == "" {
		return usagef("--job-list FILE needs --sweep-clock LO:HI:STEP")
	}
	if s.jobCommand != "" && s.jobList == "" {
		return usagef("--job-command applies to --job-list only")
	}
	if flagChanged(fl, "sta-liberty") {
		if s.jobList == "" && s.point == "" {
			return usagef("--sta-liberty runs OpenSTA on each point, minutes apiece: with --job-list (passed to every job) or --sweep-point")
		}
		// The jobs may run elsewhere: they get the library's absolute path.
		abs, err := filepath.Abs(s.staLiberty)
		if err != nil {
			return badInput(err)
		}
		if _, err := os.Stat(abs); err != nil {
			return badInput(fmt.Errorf("--sta-liberty: %w", err))
		}
		if err := fl.Set("sta-liberty", abs); err != nil {
			return err
		}
	}
	needDir := s.jobList != "" || s.point != ""
	if needDir && s.outDir == "" {
		return usagef("--job-list and --sweep-point need --out-dir DIR, the directory of the point results")
	}
	if !needDir && s.outDir != "" {
		return usagef("--out-dir applies to --job-list and --sweep-point only")
	}
	if flagChanged(fl, "jobs") && (s.clock == "" || s.jobList != "") {
		return usagef("--jobs N computes the points of --sweep-clock here: not with --job-list, --sweep-point or --sweep-merge")
	}
	if s.jobs < 1 || s.jobs > 1024 {
		return usagef("--jobs %d: want 1 to 1024", s.jobs)
	}
	if s.jobList != "" || s.point != "" {
		if svg != "" {
			return usagef("--svg draws a whole sweep: with --sweep-clock (without --job-list) or --sweep-merge")
		}
	}
	if s.jobList != "" && asJSON {
		return usagef("--json: --job-list computes nothing to report")
	}
	if s.merge != "" {
		if len(specPaths) > 0 {
			return usagef("--sweep-merge DIR takes no spec files (given %s): the manifest in DIR names the units", strings.Join(specPaths, " "))
		}
		var model []string
		fl.Visit(func(f *pflag.Flag) {
			if passThrough(f) {
				model = append(model, "--"+f.Name)
			}
		})
		if len(model) > 0 {
			return usagef("%s: --sweep-merge takes the model from the sweep's manifest", strings.Join(model, ", "))
		}
	}
	return nil
}

// parseSweepClock reads LO:HI:STEP into the periods LO, LO+STEP, ... up to
// HI, in FO4.
func parseSweepClock(s string) ([]float64, error) {
	parts := strings.Split(s, ":")
	if len(parts) != 3 {
		return nil, fmt.Errorf("--sweep-clock %q: want LO:HI:STEP in FO4, e.g. 20:60:4", s)
	}
	var v [3]float64
	for i, name := range []string{"LO", "HI", "STEP"} {
		x, err := strconv.ParseFloat(strings.TrimSpace(parts[i]), 64)
		if err != nil || !(x > 0) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("--sweep-clock %q: %s %q is not a positive finite number", s, name, parts[i])
		}
		v[i] = x
	}
	lo, hi, step := v[0], v[1], v[2]
	if lo < minClockFO4 || hi > maxClockFO4 {
		return nil, fmt.Errorf("--sweep-clock %q: want periods from %g to %g FO4", s, minClockFO4, maxClockFO4)
	}
	if lo > hi {
		return nil, fmt.Errorf("--sweep-clock %q: LO %g is above HI %g", s, lo, hi)
	}
	// A period within a billionth of a step of HI counts as HI: 0.1 steps
	// do not lose the last period to rounding.
	n := math.Floor((hi-lo)/step+1e-9) + 1
	if n > maxSweepPeriods {
		return nil, fmt.Errorf("--sweep-clock %q: %.0f periods, more than %d: take a larger STEP", s, n, maxSweepPeriods)
	}
	out := make([]float64, int(n))
	for i := range out {
		p, _ := strconv.ParseFloat(strconv.FormatFloat(lo+float64(i)*step, 'f', 9, 64), 64)
		out[i] = p
	}
	return out, nil
}

// sweepPoints computes every unit at every period, jobs points at once,
// in the order unit by unit, period by period. It stops early when ctx is
// cancelled.
func sweepPoints(ctx context.Context, us []unit, periods []float64, opt timing.Options, jobs int) ([]sweepPoint, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	pts := make([]sweepPoint, len(us)*len(periods))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < min(jobs, len(pts)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				pts[i] = sweepPointOf(us[i/len(periods)], periods[i%len(periods)], opt)
			}
		}()
	}
feed:
	for i := range pts {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	return pts, ctx.Err()
}

// sweepPointOf pipelines u at period p and measures the result. A unit
// with a clock, a period too short and any other failure are points with
// their status and reason, never an abort.
func sweepPointOf(u unit, p float64, opt timing.Options) (pt sweepPoint) {
	d := u.design
	pt = sweepPoint{Unit: d.Name, Kind: u.spec.UnitKind(), Variant: u.spec.Variant(), PeriodFO4: p}
	if d.Clock != "" {
		pt.Status = sweepClocked
		pt.Reason = fmt.Sprintf("the unit has a clock (%s) already: not pipelined", d.Clock)
		return pt
	}
	defer func() {
		if r := recover(); r != nil {
			pt = sweepPoint{Unit: pt.Unit, Kind: pt.Kind, Variant: pt.Variant, PeriodFO4: p, Status: sweepFailed,
				Reason: fmt.Sprintf("internal error (please report it): %v", r)}
		}
	}()
	r, err := retime.Pipeline(d, retime.Options{PeriodFO4: p, Timing: opt})
	if err != nil {
		pt.Status, pt.Reason = sweepFailed, err.Error()
		if errors.Is(err, retime.ErrPeriod) {
			pt.Status = sweepTooShort
		}
		return pt
	}
	res, err := timing.Analyze(r.Design, opt)
	if err != nil {
		pt.Status, pt.Reason = sweepFailed, err.Error()
		return pt
	}
	pt.Status = sweepOK
	pt.LatencyCycles, pt.Registers, pt.AreaGE = r.Latency, r.Registers, res.AreaGE
	pt.StageFO4 = slices.Clone(r.StageFO4)
	if len(r.StageRegisters) > 0 { // nil as in the JSON
		pt.StageRegisters = slices.Clone(r.StageRegisters)
	}
	for _, f := range r.StageFO4 {
		pt.WorstStageFO4 = max(pt.WorstStageFO4, f)
	}
	return pt
}

// finishSweep prints a sweep (a table or JSON), writes its figure, and
// fails (exit status 1) when a point failed or, from a merge, is missing
// or malformed, after reporting everything else.
func finishSweep(a *app, doc *sweepDoc, asJSON bool, svg string) error {
	if svg != "" {
		b, err := sweepSVG(doc)
		if err != nil {
			return err
		}
		if err := writeFileAtomic(svg, b); err != nil {
			return err
		}
	}
	if asJSON {
		if err := printJSON(a.stdout, doc); err != nil {
			return err
		}
	} else {
		if err := writeSweepTable(a.stdout, doc); err != nil {
			return err
		}
		if svg != "" {
			fmt.Fprintf(a.stdout, "\nwrote %s\n", svg)
		}
	}
	counts := map[string]int{}
	bad := 0
	for _, p := range doc.Points {
		switch p.Status {
		case sweepFailed, sweepMissing, sweepMalformed:
			fmt.Fprintf(a.stderr, "lsugen timing: %s %s: %s\n", pointName(p.Unit, p.PeriodFO4), p.Status, oneLine(p.Reason))
			counts[p.Status]++
			bad++
		}
	}
	if bad > 0 {
		var what []string
		for _, st := range []string{sweepFailed, sweepMissing, sweepMalformed} {
			if counts[st] > 0 {
				what = append(what, fmt.Sprintf("%d %s", counts[st], st))
			}
		}
		return &exitError{code: 1, err: fmt.Errorf("%d of %s not computed (%s)", bad, plot.Plural(len(doc.Points), "point"), strings.Join(what, ", "))}
	}
	return nil
}

// statusWords is a status as the table prints it.
var statusWords = map[string]string{
	sweepClocked:   "clocked: not swept",
	sweepTooShort:  "period too short",
	sweepFailed:    "FAILED",
	sweepMissing:   "MISSING",
	sweepMalformed: "MALFORMED",
}

// writeSweepTable prints the sweep unit by unit, period by period; a
// clocked unit is one row.
func writeSweepTable(w io.Writer, doc *sweepDoc) error {
	fmt.Fprintf(w, "clock sweep (%s): %s from %g to %g FO4, setup %g FO4 in each stage\n", modeWords(timing.Options{Mode: timing.Mode(doc.Model.Mode)}),
		plot.Plural(len(doc.PeriodsFO4), "period"), first(doc.PeriodsFO4), last(doc.PeriodsFO4), doc.Model.SetupFO4)
	if doc.Model.Tech != "" {
		fmt.Fprintf(w, "cell library: %s\n", doc.Model.Tech)
	}
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "unit\tkind\tperiod FO4\tcycles\tflip-flops\tarea GE\tworst stage FO4\tnote")
	for i := 0; i < len(doc.Points); i++ {
		p := doc.Points[i]
		if p.Status == sweepClocked {
			for i+1 < len(doc.Points) && doc.Points[i+1].Unit == p.Unit && doc.Points[i+1].Status == sweepClocked {
				i++
			}
			fmt.Fprintf(tw, "%s\t%s\t-\t-\t-\t-\t-\t%s\n", p.Unit, p.Kind, statusWords[p.Status])
			continue
		}
		if p.Status != sweepOK {
			fmt.Fprintf(tw, "%s\t%s\t%g\t-\t-\t-\t-\t%s: %s\n", p.Unit, p.Kind, p.PeriodFO4, statusWords[p.Status], shortReason(p))
			continue
		}
		note := ""
		if p.STA != nil {
			note = fmt.Sprintf("OpenSTA, timing-driven flow: worst stage %.2f FO4, slack %.0f ps", p.STA.TimingDrivenFO4, p.STA.TimingDrivenSlackPS)
		}
		fmt.Fprintf(tw, "%s\t%s\t%g\t%d\t%d\t%.1f\t%.2f\t%s\n", p.Unit, p.Kind, p.PeriodFO4, p.LatencyCycles, p.Registers, p.AreaGE, p.WorstStageFO4, note)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	// No padding after the last cell of a row without a note.
	for _, line := range strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n") {
		if _, err := fmt.Fprintln(w, strings.TrimRight(line, " ")); err != nil {
			return err
		}
	}
	return nil
}

func first(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	return xs[0]
}

func last(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	return xs[len(xs)-1]
}

// shortReason is a point's reason without what its row says already:
// the retime prefix naming the unit and period, and the status.
func shortReason(p sweepPoint) string {
	r := oneLine(p.Reason)
	for _, pre := range []string{
		fmt.Sprintf("retime: %s at %v FO4: ", p.Unit, p.PeriodFO4),
		fmt.Sprintf("retime: %s: ", p.Unit),
	} {
		r = strings.TrimPrefix(r, pre)
	}
	if p.Status == sweepTooShort {
		r = strings.TrimSuffix(r, ": "+retime.ErrPeriod.Error())
	}
	return r
}

// oneLine keeps a reason on its table row.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// sweepSVG draws (a) area against period, one series per unit, from the
// points pipelined, and (b) the flip-flops, which show the cost of a
// deeper pipeline where units of very different areas share panel (a).
func sweepSVG(doc *sweepDoc) ([]byte, error) {
	var area, regs []plot.Series
	var left []string
	for i := 0; i < len(doc.Points); {
		j := i
		a := plot.Series{Name: doc.Points[i].Unit}
		r := plot.Series{Name: a.Name}
		for ; j < len(doc.Points) && doc.Points[j].Unit == a.Name; j++ {
			p := doc.Points[j]
			if p.Status != sweepOK {
				continue
			}
			tip := fmt.Sprintf("%s at %g FO4: %s, %s, %.1f GE, worst stage %.2f FO4", p.Unit, p.PeriodFO4, plot.Plural(p.LatencyCycles, "cycle"), plot.Plural(p.Registers, "flip-flop"), p.AreaGE, p.WorstStageFO4)
			a.Points = append(a.Points, plot.Point{X: p.PeriodFO4, Y: p.AreaGE, Tip: tip})
			r.Points = append(r.Points, plot.Point{X: p.PeriodFO4, Y: float64(p.Registers), Tip: tip})
		}
		if len(a.Points) > 0 {
			area, regs = append(area, a), append(regs, r)
		} else {
			left = append(left, a.Name)
		}
		i = j
	}
	if len(area) == 0 {
		return nil, errors.New("--svg: no point of the sweep was pipelined: nothing to draw")
	}
	sub := fmt.Sprintf("%s (--mode %s); each unit pipelined at each period; hover a point for its cycles and flip-flops", modeWords(timing.Options{Mode: timing.Mode(doc.Model.Mode)}), doc.Model.Mode)
	if len(left) > 0 {
		sub += "; not drawn (clocked, or no period met): " + strings.Join(left, ", ")
	}
	f := plot.NewFigure()
	f.LineChart(&plot.LineChart{
		Title:    "(a) Area of the pipelined units against the clock period",
		Subtitle: sub,
		XLabel:   "clock period (FO4)",
		YLabel:   "area (GE, flip-flops included)",
		Series:   area,
	})
	f.LineChart(&plot.LineChart{
		Title:    "(b) Flip-flops of the pipelined units against the clock period",
		Subtitle: "pipeline, output and valid registers",
		XLabel:   "clock period (FO4)",
		YLabel:   "flip-flops",
		Series:   regs,
	})
	return f.SVG(), nil
}

// pointName is a point's name, UNIT@P, also its result file's name
// without .json.
func pointName(unit string, p float64) string {
	return unit + "@" + strconv.FormatFloat(p, 'g', -1, 64)
}

// parsePointName reads UNIT@P.
func parsePointName(s string) (string, float64, error) {
	i := strings.LastIndexByte(s, '@')
	if i <= 0 {
		return "", 0, fmt.Errorf("--sweep-point %q: want UNIT@P, a unit's name and a period in FO4 (e.g. coalesce_a2a_8@40)", s)
	}
	p, err := strconv.ParseFloat(s[i+1:], 64)
	if err != nil || !(p >= minClockFO4 && p <= maxClockFO4) {
		return "", 0, fmt.Errorf("--sweep-point %q: the period %q is not a number of FO4 from %g to %g", s, s[i+1:], minClockFO4, maxClockFO4)
	}
	return s[:i], p, nil
}

// designDigest is a SHA-256 of d's ports and gates.
func designDigest(d *netlist.Design) string {
	h := sha256.New()
	var buf [8]byte
	put := func(v uint64) {
		binary.LittleEndian.PutUint64(buf[:], v)
		h.Write(buf[:])
	}
	str := func(s string) {
		put(uint64(len(s)))
		io.WriteString(h, s)
	}
	str(d.Name)
	str(d.Clock)
	put(uint64(d.NumNets))
	for _, p := range d.Ports {
		str(p.Name)
		put(uint64(p.Dir))
		put(uint64(len(p.Bits)))
		for _, n := range p.Bits {
			put(uint64(n))
		}
	}
	put(uint64(len(d.Gates)))
	for _, g := range d.Gates {
		put(uint64(g.Kind))
		put(uint64(g.Out))
		put(uint64(len(g.In)))
		for _, n := range g.In {
			put(uint64(n))
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// runPoint computes one point and writes its result file.
func (s *sweepFlags) runPoint(a *app, opt timing.Options, specPaths []string, b budget, asJSON bool) error {
	name, p, err := parsePointName(s.point)
	if err != nil {
		return usagef("%v", err)
	}
	u, err := loadUnit(specPaths, name, b, a.stderr)
	if err != nil {
		return err
	}
	doc := sweepPointDoc{Version: gen.Version, Model: modelOf(opt), Design: designDigest(u.design), sweepPoint: sweepPointOf(*u, p, opt)}
	if s.staLiberty != "" && doc.Status == sweepOK {
		if doc.STA, err = staPoint(a.context(), *u, p, opt, s.staLiberty); err != nil {
			doc.Status, doc.Reason = sweepFailed, "OpenSTA: "+err.Error()
		}
	}
	data, err := marshalJSON(doc)
	if err != nil {
		return err
	}
	file := pointName(name, p) + ".json"
	if err := writeAllContext(a.ctx, s.outDir, map[string][]byte{file: data}); err != nil {
		return err
	}
	if asJSON {
		if _, err := a.stdout.Write(data); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(a.stdout, "%s: %s; wrote %s\n", pointName(name, p), pointWords(doc.sweepPoint), filepath.Join(s.outDir, file))
	}
	if doc.Status == sweepFailed {
		return &exitError{code: 1, err: fmt.Errorf("%s: %s", pointName(name, p), doc.Reason)}
	}
	return nil
}

// staPoint pipelines u at p as the point did and times the pipeline with
// crosscheck-timing's flow and its defaults on the liberty lib.
func staPoint(ctx context.Context, u unit, p float64, opt timing.Options, lib string) (*sweepSTA, error) {
	r, err := retime.Pipeline(u.design, retime.Options{PeriodFO4: p, Timing: opt})
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "lsugen-sweep-sta-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	rep, err := sta.Crosscheck(ctx, []sta.CrosscheckUnit{{Design: r.Design, Kind: u.spec.UnitKind(), Variant: u.spec.Variant()}},
		sta.CrosscheckOptions{
			Config: sta.Config{Liberty: lib, LoadFactor: sta.DefaultLoadFactor, WorkDir: dir, TargetPS: sta.DefaultTargetPS,
				FraigConflicts: sta.DefaultFraigConflicts, Timeout: 30 * time.Minute, Source: sta.SourceRTL},
			BandPct: sta.DefaultBandPct, Jobs: 1,
		}, nil)
	if err != nil {
		return nil, err
	}
	if len(rep.Units) != 1 || rep.Units[0].Pipeline == nil {
		return nil, fmt.Errorf("%s: no stage timing (skipped: %v)", u.design.Name, rep.Skipped)
	}
	pr := rep.Units[0].Pipeline
	st := &sweepSTA{Library: rep.Library, PeriodPS: pr.PeriodPS, WithinPeriod: true}
	for i, sr := range pr.Stages {
		if i == 0 || sr.TimingDriven.FO4 > st.TimingDrivenFO4 {
			st.TimingDrivenFO4 = sr.TimingDriven.FO4
		}
		if i == 0 || sr.TimingDriven.SlackPS < st.TimingDrivenSlackPS {
			st.TimingDrivenSlackPS = sr.TimingDriven.SlackPS
		}
		if i == 0 || sr.Mapped.FO4 > st.MappedFO4 {
			st.MappedFO4 = sr.Mapped.FO4
		}
		if i == 0 || sr.Mapped.SlackPS < st.MappedSlackPS {
			st.MappedSlackPS = sr.Mapped.SlackPS
		}
		st.WithinPeriod = st.WithinPeriod && sr.TimingDriven.WithinPeriod
	}
	return st, nil
}

// loadUnit is loadAndGenerate for the one unit a sweep point needs: the
// specs are loaded whole, only that unit is generated.
func loadUnit(paths []string, name string, b budget, stderr io.Writer) (*unit, error) {
	if len(paths) == 0 {
		return nil, usagef("no spec files given")
	}
	loader := specs.NewLoader()
	file, diags := loader.Load(paths...)
	if diags.HasErrors() {
		printDiagnostics(stderr, loader, diags)
		return nil, errBadInput
	}
	var su specs.Unit
	var names []string
	for _, u := range file.Units {
		names = append(names, u.UnitName())
		if u.UnitName() == name {
			su = u
		}
	}
	if su == nil {
		return nil, usagef("--sweep-point: no unit %s in the specs (units: %s)", name, strings.Join(names, ", "))
	}
	if err := b.check([]specs.Unit{su}); err != nil {
		return nil, err
	}
	d, gd := units.Generate(su)
	diags = append(diags, gd...)
	if len(diags) > 0 {
		printDiagnostics(stderr, loader, diags)
	}
	if diags.HasErrors() || d == nil {
		return nil, errBadInput
	}
	return &unit{spec: su, design: d}, nil
}

// pointWords says what a point came to, in one line.
func pointWords(p sweepPoint) string {
	if p.Status != sweepOK {
		return statusWords[p.Status] + ": " + oneLine(p.Reason)
	}
	w := fmt.Sprintf("%s, %s, %.1f GE, worst stage %.2f FO4", plot.Plural(p.LatencyCycles, "cycle"), plot.Plural(p.Registers, "flip-flop"), p.AreaGE, p.WorstStageFO4)
	if p.STA != nil {
		w += fmt.Sprintf("; OpenSTA (%s, timing-driven flow): worst stage %.2f FO4, slack %.0f ps", p.STA.Library, p.STA.TimingDrivenFO4, p.STA.TimingDrivenSlackPS)
	}
	return w
}

// sweepOwnFlags are the flags of the sweep and of the timing report's
// outputs: a job line never passes them on.
var sweepOwnFlags = map[string]bool{
	"sweep-clock": true, "sweep-point": true, "sweep-merge": true, "job-list": true, "out-dir": true,
	"job-command": true, "jobs": true, "svg": true, "svg-unit": true, "json": true, "paths": true, "clock": true, "help": true,
}

// passThrough reports whether a job line passes f on: a flag of the model
// or the budget.
func passThrough(f *pflag.Flag) bool { return !sweepOwnFlags[f.Name] }

// shellQuote quotes s for a POSIX shell, leaving plain words alone.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("@%+=:,./_-", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// writeJobList writes the manifest into --out-dir and the job list: one
// line per point of a unit without a clock, each a shell command that
// computes that point.
func (s *sweepFlags) writeJobList(a *app, fl *pflag.FlagSet, opt timing.Options, periods []float64, specPaths []string, b budget) error {
	if err := checkOutputFile(s.jobList); err != nil {
		return badInput(fmt.Errorf("--job-list: %w", err))
	}
	us, err := loadAndGenerate(specPaths, b, a.stderr)
	if err != nil {
		return err
	}
	exe := s.jobCommand
	if exe == "" {
		p, err := os.Executable()
		if err != nil {
			return fmt.Errorf("--job-list: finding lsugen's own path (give --job-command): %w", err)
		}
		exe = shellQuote(p)
	}
	dir, err := filepath.Abs(s.outDir)
	if err != nil {
		return badInput(fmt.Errorf("--out-dir %s: %w", s.outDir, err))
	}
	// The model's and budget's flags as given, the mode always.
	var common []string
	common = append(common, "--mode="+string(opt.Mode))
	fl.VisitAll(func(f *pflag.Flag) {
		if !f.Changed || !passThrough(f) || f.Name == "mode" {
			return
		}
		name := f.Name
		if to, ok := f.Annotations[deprecatedFor]; ok {
			name = to[0]
		}
		v := f.Value.String()
		if name == "liberty" {
			if abs, err := filepath.Abs(v); err == nil {
				v = abs
			}
		}
		common = append(common, shellQuote("--"+name+"="+v))
	})
	common = append(common, shellQuote("--out-dir="+dir), "--")
	for _, p := range specPaths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return badInput(fmt.Errorf("%s: %w", p, err))
		}
		common = append(common, shellQuote(abs))
	}
	tail := strings.Join(common, " ")
	man := sweepManifest{Version: gen.Version, Model: modelOf(opt), PeriodsFO4: periods}
	var lines strings.Builder
	jobs := 0
	for _, u := range us {
		man.Units = append(man.Units, sweepUnit{Name: u.design.Name, Kind: u.spec.UnitKind(), Variant: u.spec.Variant(), Clock: u.design.Clock, Design: designDigest(u.design)})
		if u.design.Clock != "" {
			continue
		}
		for _, p := range periods {
			fmt.Fprintf(&lines, "%s timing --sweep-point=%s %s\n", exe, shellQuote(pointName(u.design.Name, p)), tail)
			jobs++
		}
	}
	data, err := marshalJSON(man)
	if err != nil {
		return err
	}
	if err := writeAllContext(a.ctx, s.outDir, map[string][]byte{sweepManifestFile: data}); err != nil {
		return err
	}
	if err := writeFileAtomic(s.jobList, []byte(lines.String())); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "wrote %s: %s, one per line; results go to %s\nrun them with: parallel < %s   (or a Slurm array: docs/clock-sweep.md)\nthen: lsugen timing --sweep-merge %s\n",
		s.jobList, plot.Plural(jobs, "job"), dir, shellQuote(s.jobList), shellQuote(dir))
	return nil
}

// runMerge builds the sweep from the manifest and point results in
// --sweep-merge DIR.
func (s *sweepFlags) runMerge(a *app, asJSON bool, svg string) error {
	dir := s.merge
	mpath := filepath.Join(dir, sweepManifestFile)
	raw, err := os.ReadFile(mpath)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return badInput(fmt.Errorf("--sweep-merge %s: no %s: not the --out-dir of lsugen timing --sweep-clock ... --job-list", dir, sweepManifestFile))
		}
		return badInput(fmt.Errorf("--sweep-merge: %w", err))
	}
	var man sweepManifest
	if err := decodeStrict(raw, &man); err != nil {
		return badInput(fmt.Errorf("--sweep-merge: %s: not a sweep manifest: %v", mpath, err))
	}
	if len(man.PeriodsFO4) == 0 || len(man.PeriodsFO4) > maxSweepPeriods || len(man.Units) == 0 {
		return badInput(fmt.Errorf("--sweep-merge: %s: want 1 to %d periods and at least one unit", mpath, maxSweepPeriods))
	}
	doc := &sweepDoc{Version: gen.Version, Model: man.Model, PeriodsFO4: man.PeriodsFO4}
	for _, u := range man.Units {
		for _, p := range man.PeriodsFO4 {
			pt := sweepPoint{Unit: u.Name, Kind: u.Kind, Variant: u.Variant, PeriodFO4: p}
			if u.Clock != "" {
				pt.Status, pt.Reason = sweepClocked, fmt.Sprintf("the unit has a clock (%s) already: not pipelined", u.Clock)
			} else {
				pt = readPoint(dir, &man, u, pt)
			}
			doc.Points = append(doc.Points, pt)
		}
	}
	return finishSweep(a, doc, asJSON, svg)
}

// readPoint reads the result file of one expected point; a file that is
// absent, unreadable or not this point's (another unit, period, model,
// netlist or lsugen version) makes the point missing or malformed with
// the reason.
func readPoint(dir string, man *sweepManifest, u sweepUnit, want sweepPoint) sweepPoint {
	path := filepath.Join(dir, pointName(u.Name, want.PeriodFO4)+".json")
	bad := func(status, format string, args ...any) sweepPoint {
		want.Status, want.Reason = status, path+": "+fmt.Sprintf(format, args...)
		return want
	}
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return bad(sweepMissing, "no such file (the job did not run or did not finish)")
	}
	if err != nil {
		return bad(sweepMalformed, "%v", err)
	}
	var doc sweepPointDoc
	if err := decodeStrict(raw, &doc); err != nil {
		return bad(sweepMalformed, "not a sweep point: %v", err)
	}
	got := doc.sweepPoint
	switch {
	case doc.Version != man.Version:
		return bad(sweepMalformed, "written by lsugen %s, the sweep by %s", doc.Version, man.Version)
	case !reflect.DeepEqual(doc.Model, man.Model):
		return bad(sweepMalformed, "computed under another timing model than the sweep's")
	case got.Unit != u.Name || got.PeriodFO4 != want.PeriodFO4:
		return bad(sweepMalformed, "holds the point %s", pointName(got.Unit, got.PeriodFO4))
	case doc.Design != u.Design:
		return bad(sweepMalformed, "computed from another netlist of %s (the spec changed since the job list was written?)", u.Name)
	}
	switch got.Status {
	case sweepOK:
		if got.LatencyCycles < 1 || len(got.StageFO4) != got.LatencyCycles || got.Registers < 1 {
			return bad(sweepMalformed, "an ok point needs latency_cycles >= 1, one stage_fo4 per cycle and registers")
		}
	case sweepTooShort, sweepFailed:
	default:
		return bad(sweepMalformed, "status %q is not a computed point's", got.Status)
	}
	got.Kind, got.Variant = u.Kind, u.Variant
	return got
}

// decodeStrict decodes one JSON document with no unknown fields.
func decodeStrict(raw []byte, v any) error {
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("more than one JSON document")
	}
	return nil
}
