// Package sta cross-validates lsugen's logical-effort timing model against
// a real timing flow: Yosys synthesises a unit's readable RTL (or its gate
// netlist) to a standard cell library, once plainly and once with ABC's
// timing-driven mapping, and OpenSTA times the two netlists; the library's
// FO4 delay as lsugen characterizes it (liberty.Characterization.FO4PS,
// timing.Options.FO4PS of the characterized Tech), the figure of every
// other output too, converts the delays to FO4 so that they compare with
// the figures of package timing. OpenSTA's own measure of it, on an FO4
// chain (MeasureFO4), is reported beside it as a check.
//
// # The flow
//
// Synthesis (Yosys, found with toolchain.Find("yosys")), for the unit's RTL:
//
//	read_verilog NAME.v; synth -top NAME; dfflibmap -liberty LIB
//	abc -script TAG.abc -liberty LIB                     (plain)
//	abc -script TAG.abc -constr CONSTR -liberty LIB      (timing-driven)
//	opt_clean -purge; stat -liberty LIB; write_verilog -noattr -simple-lhs
//
// TAG.abc is the script Yosys 0.23's abc pass runs by default for a
// liberty mapping (plain) or a delay target (timing-driven), written out
// (abcScript), with one change: ABC's SAT sweeping (&fraig -x) gets a
// conflict limit per candidate of Config.FraigConflicts (default 10,000)
// instead of 1,000,000. In the speculative coalescers it meets candidate
// equivalences between the monotonicity detector's subtractors that take
// SAT a million conflicts each to refute: the 32-lane one's sweep alone
// ran past 30 minutes, against 10 s with the limit. A candidate left
// undecided is not merged, so the netlist stays correct; on that unit
// the limit left 6 of 65,809 AIG nodes unmerged that the default merges.
// CONSTR holds set_driving_cell (the driver cell) and set_load (the output
// load in fF); TARGET is the delay target in ps, by default 1 ps
// (DefaultTargetPS), a target no netlist meets, so that ABC's mapper works
// for delay and its buffer/upsize/dnsize passes run to the end. A target
// taken from the plain netlist's OpenSTA delay (say half of it) can lie
// above what ABC's own delay model estimates and leave speed on the table:
// on the 704-byte warp ready mask it gave 7.8 ns where -D 1 gives 4.3 ns;
// on no example unit was -D 1 slower.
// LIB is the liberty with the DefaultDontUse cells removed (PrepareLibrary).
//
// Timing (OpenSTA, toolchain.Find("sta")): read_liberty, read_verilog,
// link_design, a clock (virtual for combinational units, on the design's
// clock port for sequential ones; ideal), input and output delays of 0,
// set_driving_cell on every data input and set_load on every output. The
// delay of a unit is the latest data arrival time over all endpoints
// (output ports and flip-flop D pins), without setup time: lsugen's model
// has none either; at a memory macro's input (see memory.go), the arrival
// plus the macro's setup, as in the model. The library's default wire-load model applies (for
// sky130 the "Small" table), to the units and to the FO4 chain alike.
//
// # Mapping lsugen's timing.Options onto the flow
//
//   - DriverSize 1, the unit inverter driving each input bit, is the
//     driver cell, by default the library's smallest inverter
//     (sky130_fd_sc_hd__inv_1), in set_driving_cell for OpenSTA and in
//     ABC's constraint file.
//   - OutputLoad 1 plus the model's wire on the output net (CapPerFanout
//     2 unit-inverter caps and the area term) is an output net of 3 to 5
//     unit-inverter input caps for small units; the flow puts LoadFactor
//     (default 4) driver input capacitances on each output bit, the load of
//     an FO4 stage.
//   - FO4: the library's is the characterized one, the reference inverter
//     driving four copies of itself and a fanout-4 net's wire under the
//     library's wire load, rise and fall averaged, at an FO4 stage's input
//     transition. The check measures the same in OpenSTA: an FO4 chain of
//     the driver cell (FO4ChainVerilog), the delay of its fourth stage from
//     its input pin to the next stage's, the mean of its rising and falling
//     output transitions.
//   - Mode Unsized is compared with the plain flow and Mode Sized with the
//     timing-driven one.
//
// # What the comparison can and cannot say
//
// From the readable RTL, Yosys chooses its own structure for word-level
// operators: the four subtractor architectures of the monotonicity
// detector synthesise to one netlist. Config.Source = SourceGates starts
// from lsugen's gate netlist instead, though ABC's AIG rewriting still
// restructures it. ABC's timing-driven passes (buffer, upsize, dnsize) size
// from a few discrete drive strengths and build fanout trees of small
// buffers; Mode Sized assumes the continuous, optimally tapered stages of
// Logical Effort, so it is a bound such a flow approaches from above.
package sta

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/rtl"
	"github.com/lsugen/lsugen/toolchain"
)

// Config sets up a Flow.
type Config struct {
	// Liberty is the cell library, plain or gzipped.
	Liberty string
	// Driver is the cell driving every input; "" picks the library's
	// smallest inverter.
	Driver string
	// LoadFactor is the load on each output bit in driver input
	// capacitances; 0 means DefaultLoadFactor.
	LoadFactor float64
	// WorkDir receives the prepared liberty and, per unit, the RTL,
	// scripts, netlists and logs. Required.
	WorkDir string
	// DontUse are the cells removed from the liberty; nil means
	// DefaultDontUse (an empty, non-nil slice removes nothing).
	DontUse []string
	// TargetPS is the timing-driven flow's delay target in ps; 0 means
	// DefaultTargetPS.
	TargetPS float64
	// Timeout bounds each tool run; 0 means 30 minutes.
	Timeout time.Duration
	// FraigConflicts is the conflict limit per candidate of ABC's SAT
	// sweeping (&fraig -x -C); 0 means DefaultFraigConflicts.
	FraigConflicts int
	// Source is what is synthesised: SourceRTL (the default, the readable
	// RTL module NAME, whose word-level operators Yosys maps with its own
	// architectures) or SourceGates (the structural module NAME_gates, the
	// very gates lsugen's model times; ABC still restructures them).
	Source Source
}

// Source selects the Verilog a unit is synthesised from.
type Source string

const (
	SourceRTL   Source = "rtl"
	SourceGates Source = "gates"
)

// DefaultLoadFactor is the output load in driver input capacitances: an
// FO4 load.
const DefaultLoadFactor = 4

// DefaultTargetPS is the timing-driven flow's delay target: as fast as ABC
// can.
const DefaultTargetPS = 1

// DefaultFraigConflicts is the conflict limit per candidate of ABC's SAT
// sweeping in the flow (ABC's own default is 1,000,000; see the package
// comment).
const DefaultFraigConflicts = 10000

// abcScript is Yosys 0.23's default ABC script for a liberty mapping
// (ABC_COMMAND_LIB), or with a delay target for the timing-driven one
// (ABC_COMMAND_CTR, "retime -o" after "dretime" and -D TARGET on the
// mapper and sizers), with &fraig's conflict limit set to conflicts.
func abcScript(targetPS float64, conflicts int) string {
	fraig := fmt.Sprintf("strash; &get -n; &fraig -x -C %d; &put; scorr; dc2; dretime", conflicts)
	if targetPS <= 0 {
		return fraig + "; strash; &get -n; &dch -f; &nf; &put\n"
	}
	d := fmt.Sprintf("-D %d", int64(math.Round(targetPS)))
	return fraig + "; retime -o " + d + "; strash; &get -n; &dch -f; &nf " + d +
		"; &put; buffer; upsize " + d + "; dnsize " + d + "; stime -p\n"
}

// Flow runs units through synthesis and static timing with one library.
type Flow struct {
	cfg   Config
	Yosys *toolchain.Tool
	STA   *toolchain.Tool
	Lib   *Library
	// Driver is the cell that drives the inputs, DriverIn and DriverOut
	// its pins.
	Driver              *LibCell
	DriverIn, DriverOut string
	// DriverCap is the driver's input capacitance and OutputLoad the load
	// on each output bit, both in library units.
	DriverCap, OutputLoad float64
	// Macro converts the figures of a design's memory macros; a design
	// with memories needs it set (MacroScaleFor).
	Macro MacroScale
}

// New finds Yosys and OpenSTA, prepares the library in cfg.WorkDir and
// picks the driver cell.
func New(cfg Config) (*Flow, error) {
	if cfg.WorkDir == "" {
		return nil, fmt.Errorf("sta: no work directory")
	}
	if cfg.Liberty == "" {
		return nil, fmt.Errorf("sta: no liberty file")
	}
	if cfg.LoadFactor == 0 {
		cfg.LoadFactor = DefaultLoadFactor
	}
	if !(cfg.LoadFactor > 0) || math.IsInf(cfg.LoadFactor, 0) {
		return nil, fmt.Errorf("sta: load factor %v must be positive", cfg.LoadFactor)
	}
	if cfg.TargetPS == 0 {
		cfg.TargetPS = DefaultTargetPS
	}
	if !(cfg.TargetPS > 0) || math.IsInf(cfg.TargetPS, 0) {
		return nil, fmt.Errorf("sta: the delay target must be positive")
	}
	switch cfg.Source {
	case "":
		cfg.Source = SourceRTL
	case SourceRTL, SourceGates:
	default:
		return nil, fmt.Errorf("sta: source %q is not %q or %q", cfg.Source, SourceRTL, SourceGates)
	}
	if cfg.FraigConflicts == 0 {
		cfg.FraigConflicts = DefaultFraigConflicts
	}
	if cfg.FraigConflicts < 0 {
		return nil, fmt.Errorf("sta: fraig conflict limit %d must be positive", cfg.FraigConflicts)
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 30 * time.Minute
	}
	if cfg.DontUse == nil {
		cfg.DontUse = DefaultDontUse
	}
	abs, err := filepath.Abs(cfg.WorkDir)
	if err != nil {
		return nil, err
	}
	cfg.WorkDir = abs
	f := &Flow{cfg: cfg}
	if f.Yosys, err = toolchain.Find("yosys"); err != nil {
		return nil, err
	}
	if f.STA, err = toolchain.Find("sta"); err != nil {
		return nil, err
	}
	if f.Lib, err = PrepareLibrary(cfg.Liberty, filepath.Join(cfg.WorkDir, "lib"), cfg.DontUse); err != nil {
		return nil, err
	}
	if f.Driver, err = f.Lib.Driver(cfg.Driver); err != nil {
		return nil, err
	}
	f.DriverIn, f.DriverOut = f.Driver.Inputs[0].Name, f.Driver.Outputs[0].Name
	f.DriverCap = f.Driver.Inputs[0].Cap
	if !(f.DriverCap > 0) {
		return nil, fmt.Errorf("sta: driver cell %s: no input capacitance in the liberty", f.Driver.Name)
	}
	f.OutputLoad = cfg.LoadFactor * f.DriverCap
	return f, nil
}

// WorkDir is the flow's (absolute) work directory.
func (f *Flow) WorkDir() string { return f.cfg.WorkDir }

// Source is what the flow synthesises.
func (f *Flow) Source() Source { return f.cfg.Source }

// FraigConflicts is the conflict limit of ABC's SAT sweeping in the flow.
func (f *Flow) FraigConflicts() int { return f.cfg.FraigConflicts }

// FO4 is the library's fanout-of-4 delay as OpenSTA measures it. It is a
// check of the library's FO4 figure, the one lsugen's characterization
// computes (timing.Options.FO4PS of the characterized Tech), by which
// every FO4 figure of the cross-check converts; see MeasureFO4.
type FO4 struct {
	// RisePS and FallPS are the measured stage's delay for a rising and a
	// falling output, PS their mean.
	RisePS float64 `json:"rise_ps"`
	FallPS float64 `json:"fall_ps"`
	PS     float64 `json:"ps"`
}

// FO4Stages is the length of MeasureFO4's chain and FO4Measured the stage
// it times: by the fourth stage the input transition has settled to that of
// an endless chain (the first is driven by the port's driving cell).
const (
	FO4Stages   = 6
	FO4Measured = 4
)

// FO4ChainVerilog is an FO4 chain of inverter cell (input pin in, output
// out): FO4Stages inverters c1..c6 in a row, each of c1..c5 driving the
// next and three more copies of itself (l<k>_1..3, outputs open), so that
// every net of the chain has a fanout of four and the library's
// fanout-4 wire load; c6 drives the output port y.
func FO4ChainVerilog(cell, in, out string) string {
	var v strings.Builder
	fmt.Fprintf(&v, "module lsugen_fo4 (a, y);\n  input a;\n  output y;\n  wire [%d:1] n;\n", FO4Stages)
	fmt.Fprintf(&v, "  %s c1 (.%s(a), .%s(n[1]));\n", cell, in, out)
	for k := 2; k <= FO4Stages; k++ {
		fmt.Fprintf(&v, "  %s c%d (.%s(n[%d]), .%s(n[%d]));\n", cell, k, in, k-1, out, k)
	}
	for k := 1; k < FO4Stages; k++ {
		for j := 1; j <= 3; j++ {
			fmt.Fprintf(&v, "  %s l%d_%d (.%s(n[%d]), .%s());\n", cell, k, j, in, k, out)
		}
	}
	fmt.Fprintf(&v, "  assign y = n[%d];\nendmodule\n", FO4Stages)
	return v.String()
}

// MeasureFO4 times an FO4 chain of the driver cell (FO4ChainVerilog) with
// OpenSTA under the library's default wire-load model and returns the delay
// of stage FO4Measured, from its input pin to the next stage's input pin
// (cell and wire), for a rising and a falling output.
func (f *Flow) MeasureFO4(ctx context.Context) (FO4, error) {
	dir := filepath.Join(f.cfg.WorkDir, "fo4")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return FO4{}, err
	}
	c, in, out := f.Driver.Name, f.DriverIn, f.DriverOut
	if err := os.WriteFile(filepath.Join(dir, "fo4.v"), []byte(FO4ChainVerilog(c, in, out)), 0o644); err != nil {
		return FO4{}, err
	}
	stage, next := fmt.Sprintf("c%d", FO4Measured), fmt.Sprintf("c%d", FO4Measured+1)
	var t strings.Builder
	fmt.Fprintf(&t, "read_liberty {%s}\nread_verilog {fo4.v}\nlink_design lsugen_fo4\n", f.Lib.Path)
	fmt.Fprintf(&t, "create_clock -name lsugen_vclk -period %g\n", f.period())
	t.WriteString("set_input_delay 0 -clock lsugen_vclk [all_inputs]\nset_output_delay 0 -clock lsugen_vclk [all_outputs]\n")
	fmt.Fprintf(&t, "set_driving_cell -lib_cell %s -pin %s [all_inputs]\n", c, out)
	fmt.Fprintf(&t, "set_load %g [all_outputs]\n", f.OutputLoad)
	for _, tr := range []string{"rise", "fall"} {
		fmt.Fprintf(&t, "puts \"lsugen-fo4 %s\"\n", tr)
		fmt.Fprintf(&t, "report_checks -path_delay max -format full -digits 6 -fields {input_pins} -%s_through [get_pins {%s/%s}]\n", tr, stage, out)
	}
	t.WriteString("exit\n")
	if err := os.WriteFile(filepath.Join(dir, "fo4.tcl"), []byte(t.String()), 0o644); err != nil {
		return FO4{}, err
	}
	outp, err := f.runSTA(ctx, "fo4", dir, "fo4.tcl")
	if err != nil {
		return FO4{}, err
	}
	var r FO4
	sections := strings.Split(string(outp), "lsugen-fo4 ")
	for _, s := range sections[1:] {
		tr, rest, _ := strings.Cut(s, "\n")
		lines := pathLines(rest)
		a, okA := lines[stage+"/"+in]
		b, okB := lines[next+"/"+in]
		if !okA || !okB {
			return FO4{}, outputError("fo4", fmt.Errorf("no %s path through %s in OpenSTA's report", tr, stage), outp)
		}
		d := (b - a) * f.Lib.TimeUnitPS
		switch tr {
		case "rise":
			r.RisePS = d
		case "fall":
			r.FallPS = d
		}
	}
	if !(r.RisePS > 0 && r.FallPS > 0) {
		return FO4{}, outputError("fo4", fmt.Errorf("stage delays %v / %v ps are not positive", r.RisePS, r.FallPS), outp)
	}
	r.PS = (r.RisePS + r.FallPS) / 2
	return r, nil
}

// period is the clock period in library units: 1 µs, long enough that
// nothing in the units here misses it (only arrival times are read).
func (f *Flow) period() float64 { return 1e6 / f.Lib.TimeUnitPS }

// pathRE matches a line of a full path report: delay, time, transition,
// pin and cell (or "in"/"out" for ports).
var pathRE = regexp.MustCompile(`^\s*(-?[0-9.]+)\s+(-?[0-9.]+)\s+([\^v])\s+(\S+)\s+\(([^)]+)\)\s*$`)

// pathLines returns the arrival time of each pin of a path report, in
// library units.
func pathLines(report string) map[string]float64 {
	m := map[string]float64{}
	for _, l := range strings.Split(report, "\n") {
		if s := pathRE.FindStringSubmatch(l); s != nil {
			if t, err := strconv.ParseFloat(s[2], 64); err == nil {
				if _, dup := m[s[4]]; !dup {
					m[s[4]] = t
				}
			}
		}
	}
	return m
}

// Netlist is a synthesised netlist.
type Netlist struct {
	Path string `json:"-"`
	Top  string `json:"-"`
	// macros are the design's memory macros' files (in Path's
	// directory), nil for none: OpenSTA reads their liberty model.
	// Cells is the cell count and Area the cell area (library units,
	// µm² for sky130), from Yosys' stat -liberty.
	Cells int     `json:"cells"`
	Area  float64 `json:"area"`
	// Seconds is the synthesis run time.
	Seconds float64 `json:"synth_s"`
	macros  *macros
}

// Timing is OpenSTA's verdict on a netlist.
type Timing struct {
	// DelayPS is the latest arrival over all endpoints, in ps; 0 when no
	// endpoint has a timed path.
	DelayPS float64 `json:"delay_ps"`
	// Endpoint is where the latest arrival is, Depth the number of
	// combinational cells on its path.
	Endpoint string `json:"endpoint"`
	Depth    int    `json:"depth"`
	// Seconds is OpenSTA's run time.
	Seconds float64 `json:"sta_s"`
	// Report is OpenSTA's report of the path.
	Report string `json:"-"`
}

// Result is one synthesis and its timing.
type Result struct {
	Netlist
	Timing
}

// UnitResult is a unit through both flows.
type UnitResult struct {
	Name string
	// Clock is the design's clock port, "" for combinational units.
	Clock string
	// TargetPS is the timing-driven flow's delay target.
	TargetPS            float64
	Plain, TimingDriven Result
	// Dir is the unit's work directory.
	Dir string
}

// Run writes the design's Verilog (the readable RTL, or the gate netlist
// with Config.Source "gates") into WorkDir/NAME, synthesises it plainly and
// timing-driven, and times both netlists.
func (f *Flow) Run(ctx context.Context, d *netlist.Design, info rtl.Info) (*UnitResult, error) {
	dir := filepath.Join(f.cfg.WorkDir, safeFileName(d.Name))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	// The unit's file and those of the units it instantiates, which
	// synthesis flattens.
	top, write := d.Name, rtl.WriteRTL
	if f.cfg.Source == SourceGates {
		top, write = rtl.GatesModuleName(d), rtl.WriteGates
	}
	mc, err := f.writeMacros(dir, d)
	if err != nil {
		return nil, err
	}
	var files []string
	if mc != nil {
		files = append(files, mc.stub) // the banks: black boxes
	}
	for _, x := range append(d.Submodules(), d) {
		var src strings.Builder
		if err := write(&src, x, info); err != nil {
			return nil, err
		}
		file := rtl.RTLFileName(x)
		if f.cfg.Source == SourceGates {
			file = rtl.GatesFileName(x)
		}
		if err := os.WriteFile(filepath.Join(dir, file), []byte(src.String()), 0o644); err != nil {
			return nil, err
		}
		files = append(files, file)
	}
	u := &UnitResult{Name: d.Name, Clock: d.Clock, Dir: dir}
	if u.Plain, err = f.flow(ctx, dir, top, files, mc, d.Clock, "plain", 0); err != nil {
		return nil, err
	}
	u.TargetPS = math.Max(1, math.Round(f.cfg.TargetPS))
	if u.TimingDriven, err = f.flow(ctx, dir, top, files, mc, d.Clock, "timing_driven", u.TargetPS); err != nil {
		return nil, err
	}
	return u, nil
}

func (f *Flow) flow(ctx context.Context, dir, top string, files []string, mc *macros, clock, tag string, targetPS float64) (Result, error) {
	n, err := f.Synthesize(ctx, dir, top, files, tag, targetPS)
	if err != nil {
		return Result{}, err
	}
	n.macros = mc
	t, err := f.Time(ctx, dir, n, clock, tag)
	if err != nil {
		return Result{}, err
	}
	return Result{*n, *t}, nil
}

var (
	cellsRE = regexp.MustCompile(`Number of cells:\s+(\d+)`)
	areaRE  = regexp.MustCompile(`Chip area for module '[^']*':\s+([0-9.eE+-]+)`)
)

// Synthesize maps the files in dir (module top, and the modules it
// instantiates, flattened) to the library with Yosys into
// dir/TAG_netlist.v; a positive targetPS makes ABC's mapping
// timing-driven with that delay target.
func (f *Flow) Synthesize(ctx context.Context, dir, top string, files []string, tag string, targetPS float64) (*Netlist, error) {
	abcFile, abcText := tag+".abc", abcScript(targetPS, f.cfg.FraigConflicts)
	if err := os.WriteFile(filepath.Join(dir, abcFile), []byte(abcText), 0o644); err != nil {
		return nil, err
	}
	constr, constrText := "", ""
	if targetPS > 0 {
		constr = tag + ".constr"
		// ABC's constraint file: the driver cell and the output load in fF.
		constrText = fmt.Sprintf("set_driving_cell %s\nset_load %.4f\n", f.Driver.Name, f.OutputLoad*f.Lib.CapUnitFF)
		if err := os.WriteFile(filepath.Join(dir, constr), []byte(constrText), 0o644); err != nil {
			return nil, err
		}
	}
	out := tag + "_netlist.v"
	var reads []string
	for _, file := range files {
		reads = append(reads, yosysQuote(file))
	}
	constrArg := ""
	if constr != "" {
		constrArg = yosysQuote(constr)
	}
	script := synthScript(reads, top, yosysQuote(f.Lib.Path), yosysQuote(abcFile), constrArg, yosysQuote(out))
	ys := tag + ".ys"
	if err := os.WriteFile(filepath.Join(dir, ys), []byte(script), 0o644); err != nil {
		return nil, err
	}
	log := tag + "_yosys.log"
	start := time.Now()
	cached := synthCachePath(f.synthKey(dir, files, top, abcText, constrText))
	if !loadSynth(cached, filepath.Join(dir, out), filepath.Join(dir, log)) {
		if _, err := f.command(f.Yosys, dir, "-q", "-l", log, "-s", ys).Run(ctx); err != nil {
			return nil, &StepError{Step: "synth " + tag + " " + top, Err: err}
		}
		storeSynth(cached, filepath.Join(dir, out), filepath.Join(dir, log))
	}
	n := &Netlist{Path: filepath.Join(dir, out), Top: top, Seconds: time.Since(start).Seconds()}
	b, err := os.ReadFile(filepath.Join(dir, log))
	if err != nil {
		return nil, err
	}
	// The statistics are the last ones in the log: stat runs after abc.
	s := string(b)
	if i := strings.LastIndex(s, "Printing statistics."); i >= 0 {
		s = s[i:]
	}
	if m := cellsRE.FindStringSubmatch(s); m != nil {
		n.Cells, _ = strconv.Atoi(m[1])
	}
	if m := areaRE.FindStringSubmatch(s); m != nil {
		n.Area, _ = strconv.ParseFloat(m[1], 64)
	}
	return n, nil
}

// synthScript is the Yosys script of Synthesize: reads are the read
// files, lib the library, abc and constr ABC's script and constraints
// ("" for none), out the netlist written, each as the script names it.
func synthScript(reads []string, top, lib, abc, constr, out string) string {
	abcCmd := "abc -script " + abc
	if constr != "" {
		abcCmd += " -constr " + constr
	}
	abcCmd += " -liberty " + lib
	var s []string
	for _, r := range reads {
		s = append(s, "read_verilog "+r)
	}
	return strings.Join(append(s,
		"synth -flatten -top "+top,
		"dfflibmap -liberty "+lib,
		abcCmd,
		"opt_clean -purge",
		"stat -liberty "+lib,
		// -simple-lhs: OpenSTA's Verilog reader takes no concatenation on
		// the left of an assign, which pass-through bits otherwise get.
		"write_verilog -noattr -simple-lhs "+out,
		"",
	), "\n")
}

// yosysQuote quotes a file name for a Yosys script.
func yosysQuote(s string) string {
	if strings.ContainsAny(s, " \t\"\\;#") {
		return strconv.Quote(s)
	}
	return s
}

// tclBrace quotes s for Tcl.
func tclBrace(s string) string {
	if strings.ContainsAny(s, "{}\\") {
		var b strings.Builder
		for _, r := range s {
			if strings.ContainsRune("{}\\[]$\" ;", r) {
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		}
		return b.String()
	}
	return "{" + s + "}"
}

var worstRE = regexp.MustCompile(`(?m)^lsugen-worst (\S+)(?: (\S+))?\s*$`)

// Time runs OpenSTA on netlist n: a virtual clock when clock is "", else
// a clock on that port, zero input and output delays, the driver cell on
// every data input and the output load on every output. It returns the
// latest arrival over all endpoints; at a memory macro's input, the
// arrival plus the macro's setup.
func (f *Flow) Time(ctx context.Context, dir string, n *Netlist, clock, tag string) (*Timing, error) {
	var t strings.Builder
	fmt.Fprintf(&t, "read_liberty %s\n", tclBrace(f.Lib.Path))
	// The set-up added at a bank's input pins (seconds), by cell name.
	macroSetup := "set lsugen_setup [dict create]\n"
	if n.macros != nil {
		fmt.Fprintf(&t, "read_liberty %s\n", tclBrace(n.macros.liberty))
		macroSetup = fmt.Sprintf("set lsugen_setup [dict create %s %.6e]\n", n.macros.module, n.macros.setupPS*1e-12)
	}
	fmt.Fprintf(&t, "read_verilog %s\nlink_design %s\n%s", tclBrace(filepath.Base(n.Path)), n.Top, macroSetup)
	clk := "lsugen_vclk"
	if clock == "" {
		fmt.Fprintf(&t, "create_clock -name %s -period %g\n", clk, f.period())
		t.WriteString("set lsugen_inputs [all_inputs]\n")
	} else {
		clk = clock
		fmt.Fprintf(&t, "create_clock -name %s -period %g [get_ports %s]\n", clk, f.period(), tclBrace(clock))
		fmt.Fprintf(&t, "set lsugen_inputs [delete_from_list [all_inputs] [get_ports %s]]\n", tclBrace(clock))
	}
	fmt.Fprintf(&t, `if {[llength $lsugen_inputs] > 0} {
  set_input_delay 0 -clock %[1]s $lsugen_inputs
  set_driving_cell -lib_cell %[2]s -pin %[3]s $lsugen_inputs
}
set_output_delay 0 -clock %[1]s [all_outputs]
set_load %[4]g [all_outputs]
set lsugen_worst ""
set lsugen_arrival -1
foreach pe [find_timing_paths -path_delay max -group_count 1000000000 -endpoint_count 1] {
  set a [$pe data_arrival_time]
  set ep [get_property $pe endpoint]
  if {[string first / [get_full_name $ep]] >= 0} {
    set ref [get_property [get_cells -of_objects $ep] ref_name]
    if {[dict exists $lsugen_setup $ref]} { set a [expr {$a + [dict get $lsugen_setup $ref]}] }
  }
  if {$a > $lsugen_arrival} { set lsugen_arrival $a; set lsugen_worst $pe }
}
if {$lsugen_worst == ""} {
  puts "lsugen-worst none"
} else {
  set ep [get_property $lsugen_worst endpoint]
  puts "lsugen-worst [format %%.9e $lsugen_arrival] [get_full_name $ep]"
  report_checks -path_delay max -format full -digits 4 -fields {input_pins} -to $ep
}
exit
`, clk, f.Driver.Name, f.DriverOut, f.OutputLoad)
	tcl := tag + "_sta.tcl"
	if err := os.WriteFile(filepath.Join(dir, tcl), []byte(t.String()), 0o644); err != nil {
		return nil, err
	}
	start := time.Now()
	out, err := f.runSTA(ctx, "sta "+tag+" "+n.Top, dir, tcl)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, tag+"_sta.log"), out, 0o644); err != nil {
		return nil, err
	}
	r := &Timing{Seconds: time.Since(start).Seconds()}
	m := worstRE.FindStringSubmatch(string(out))
	if m == nil {
		return nil, outputError("sta "+tag+" "+n.Top, fmt.Errorf("no result line in OpenSTA's output"), out)
	}
	if m[1] == "none" {
		return r, nil
	}
	sec, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return nil, outputError("sta "+tag+" "+n.Top, fmt.Errorf("arrival %q: %v", m[1], err), out)
	}
	r.DelayPS = sec * 1e12
	r.Endpoint = m[2]
	i := strings.Index(string(out), "Startpoint:")
	if i >= 0 {
		r.Report = string(out[i:])
	}
	r.Depth = f.depth(r.Report)
	return r, nil
}

// depth counts the combinational cells on a path report: the lines of a
// cell's output pin, flip-flops left out.
func (f *Flow) depth(report string) int {
	n := 0
	arrival := strings.Index(report, "data arrival time")
	if arrival < 0 {
		return 0
	}
	for _, l := range strings.Split(report[:arrival], "\n") {
		s := pathRE.FindStringSubmatch(l)
		if s == nil {
			continue
		}
		c, ok := f.Lib.Cells[s[5]]
		if !ok || c.Sequential {
			continue
		}
		if i := strings.LastIndexByte(s[4], '/'); i >= 0 && hasOutput(c, s[4][i+1:]) {
			n++
		}
	}
	return n
}

// errorLineRE finds OpenSTA's error messages, which it prints and then
// carries on.
var errorLineRE = regexp.MustCompile(`(?m)^Error: .*$`)

// runSTA runs OpenSTA on script (a file in dir) and returns its output,
// or the output of an identical run from the STA run cache (stacache.go).
func (f *Flow) runSTA(ctx context.Context, step, dir, script string) ([]byte, error) {
	cached := staCachePath(staKey(f.STA, dir, script))
	if out, ok := loadSTA(cached); ok {
		return out, nil
	}
	c := f.command(f.STA, dir, "-no_splash", "-exit", script)
	res, err := c.Run(ctx)
	if err != nil {
		return res.Output, &StepError{Step: step, Err: err}
	}
	if m := errorLineRE.Find(res.Output); m != nil {
		return res.Output, &StepError{Step: step, Err: c.Fail(fmt.Errorf("%s", m), res.Output)}
	}
	storeSTA(cached, res.Output)
	return res.Output, nil
}

// command is a run of tool t with args in dir under the flow's timeout.
// TMPDIR is dir, so that the temporary directories Yosys makes for ABC,
// which a killed run leaves behind, stay in the work directory.
func (f *Flow) command(t *toolchain.Tool, dir string, args ...string) *toolchain.Cmd {
	c := t.Command(dir, args...)
	c.Env = []string{"TMPDIR=" + dir}
	c.Timeout = f.cfg.Timeout
	return c
}

// StepError is the failure of one step of the flow, e.g. "synth plain
// coalesce_a2a_8". A step that ran a tool, or read its output, has a
// *toolchain.Error as Err, with the command line and the output's tail.
type StepError struct {
	Step string
	Err  error
}

func (e *StepError) Error() string { return fmt.Sprintf("sta: %s: %v", e.Step, e.Err) }

func (e *StepError) Unwrap() error { return e.Err }

// outputError is the StepError of a step whose tool's output out lacks
// what the flow reads from it.
func outputError(step string, err error, out []byte) *StepError {
	return &StepError{Step: step, Err: &toolchain.Error{Err: err, Output: toolchain.Tail(out)}}
}
