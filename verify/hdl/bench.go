package hdl

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/lsugen/lsugen/internal/atomicfile"
	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/toolchain"
)

// Engine is an external simulator.
type Engine string

const (
	Icarus    Engine = "icarus"    // Icarus Verilog: iverilog, then vvp
	Verilator Engine = "verilator" // Verilator, compiled to a binary
)

// Engines lists the supported engines.
var Engines = []Engine{Icarus, Verilator}

func (e Engine) valid() bool { return e == Icarus || e == Verilator }

// Bench describes a cross-check run: one testbench that instantiates every
// module in Modules (all have the same ports) and applies each vector to all
// of them. A combinational bench (Clock "") applies the vectors one after
// another; a clocked bench drives the Clock input itself, applies one reset
// cycle (Reset = 1, every other input 0, outputs not written) and then one
// vector per clock cycle, writing every module's outputs just before each
// rising edge (see the testbench's header comment for the exact times).
//
// Files in Dir, all kept for inspection:
//
//	lsugen_tb.v                      the testbench
//	vectors_<engine>.hex             Run's vectors
//	outputs_<engine>.hex             Run's outputs
//	<name>_{vectors,outputs}_<engine>.hex, <name>_<engine>.vcd   DumpVCD's
//	iverilog.cmd, sim_icarus.vvp     Icarus build
//	obj_verilator/sim                Verilator build (obj_verilator_vcd/ with tracing, for DumpVCD)
//	*.stamp                          build fingerprints: unchanged inputs are not rebuilt
//
// The vector and output file formats are described in the testbench's
// header comment. Run and DumpVCD may be called concurrently, also with
// different engines; calls for the same Dir and engine take turns.
type Bench struct {
	Dir     string         // work directory; created if missing
	Sources []string       // Verilog files defining the modules; a file named twice is read once
	Modules []string       // module names, e.g. {"h", "h_gates"}
	Ports   []netlist.Port // the shared interface (only Name, Dir and width are used)

	// Clock names the one-bit input the testbench drives as the clock of
	// a clocked bench; it is no part of the vectors. "" for a
	// combinational bench.
	Clock string
	// Reset names the one-bit synchronous active-high reset input of a
	// clocked bench: 1 in the reset cycle before the first vector, and an
	// ordinary input of the vectors after it. "" for no reset cycle.
	Reset string
	// VCDCycles is how many cycles DumpVCD of a clocked bench dumps: the
	// last ones of the vectors given (all of them are simulated, so the
	// state is right). 0 means DefaultVCDCycles; negative, every cycle.
	VCDCycles int
	// Version is written into the $version of the VCDs DumpVCD leaves
	// (StampVCD): the lsugen version, rtl.Info's Version. "" leaves the
	// simulator's.
	Version string
	// Rerun runs the simulator even when the run cache holds the outputs
	// of an identical run, and stores nothing (see runCache); the builds
	// still come from their caches.
	Rerun bool
}

// DefaultVCDCycles is the window DumpVCD dumps of a clocked bench by
// default: the last 1000 cycles.
const DefaultVCDCycles = 1000

// Run compiles and runs the bench under engine e and returns
// outs[m][v][o]: module m, vector v, output port o (outputs in Ports order),
// each a little-endian slice of (width+63)/64 words with the bits above the
// width 0.
//
// vectors[v][i] is input port i's value (inputs in Ports order, outputs
// skipped) as little-endian 64-bit words, at least (width+63)/64 of them;
// bits at or above the width are ignored.
//
// Errors are *StepError values naming the engine and the step (build,
// verilate, compile, run, parse) with the tail of the tool's output.
// Warnings from the compilers are errors; so is an output with x or z bits
// (an *XZError naming the module, vector and port).
func (b *Bench) Run(ctx context.Context, e Engine, vectors [][][]uint64) ([][][][]uint64, error) {
	outs, _, err := b.RunCached(ctx, e, vectors)
	return outs, err
}

// RunCached is Run, and reports whether the outputs came from the run
// cache (an identical earlier run's; see runCache): no simulator ran.
func (b *Bench) RunCached(ctx context.Context, e Engine, vectors [][][]uint64) ([][][][]uint64, bool, error) {
	outs, _, cached, err := b.run(ctx, e, vectors, "", nil)
	return outs, cached, err
}

// DumpVCD runs vectors (typically the one failing vector) with a VCD dump of
// all signals of the testbench, modules under test included, and returns
// the VCD's path: <Dir>/<name>_<engine>.vcd. Name may use letters, digits,
// '_', '-' and '.'. Under Verilator this is a separate build with tracing.
//
// A clocked bench replays every vector given (typically the prefix up to
// a failing cycle), since the state depends on all of them, but dumps only
// the last VCDCycles cycles, so that a failure after a million cycles
// leaves a small VCD; the dump includes the reset cycle when the window
// reaches back to cycle 0.
func (b *Bench) DumpVCD(ctx context.Context, e Engine, vectors [][][]uint64, name string) (string, error) {
	if !validName(name) {
		return "", &StepError{Engine: e, Step: "dump", Err: fmt.Errorf("bad VCD name %q: use letters, digits, '_', '-', '.'", name)}
	}
	_, vcd, _, err := b.run(ctx, e, vectors, name, nil)
	return vcd, err
}

// DumpVCDExpected is DumpVCD with the expected outputs of each vector,
// expected[v][o] (outputs in Ports order, as Run returns them), which the
// VCD shows as <output>_expected beside the modules' outputs, with the
// flag mismatch (see the testbench's header comment).
func (b *Bench) DumpVCDExpected(ctx context.Context, e Engine, vectors, expected [][][]uint64, name string) (string, error) {
	if !validName(name) {
		return "", &StepError{Engine: e, Step: "dump", Err: fmt.Errorf("bad VCD name %q: use letters, digits, '_', '-', '.'", name)}
	}
	if len(expected) != len(vectors) {
		return "", &StepError{Engine: e, Step: "dump", Err: fmt.Errorf("%d expected outputs for %d vectors", len(expected), len(vectors))}
	}
	_, vcd, _, err := b.run(ctx, e, vectors, name, expected)
	return vcd, err
}

// vcdFrom is the first cycle DumpVCD of n vectors dumps.
func (b *Bench) vcdFrom(n int) int {
	w := b.VCDCycles
	switch {
	case w == 0:
		w = DefaultVCDCycles
	case w < 0:
		return 0
	}
	return max(0, n-w)
}

func validName(s string) bool {
	if s == "" || s == "." || s == ".." {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// prepared is a bench made ready for a run: paths resolved, sources
// read, testbench written.
type prepared struct {
	dir       string   // absolute
	sources   []string // absolute
	srcData   [][]byte
	tbPath    string
	tbText    string
	timescale bool // the testbench has a `timescale
	tp        *tbPorts
	clocked   bool
	modules   []string
}

var (
	dirLocksMu sync.Mutex
	dirLocks   = map[string]*sync.Mutex{}
)

// lockDir serialises the calls for one directory and engine.
func lockDir(dir string, e Engine) func() {
	key := dir + "\x00" + string(e)
	dirLocksMu.Lock()
	mu := dirLocks[key]
	if mu == nil {
		mu = new(sync.Mutex)
		dirLocks[key] = mu
	}
	dirLocksMu.Unlock()
	mu.Lock()
	return mu.Unlock
}

func (b *Bench) run(ctx context.Context, e Engine, vectors [][][]uint64, vcdName string, expected [][][]uint64) ([][][][]uint64, string, bool, error) {
	fail := func(step string, err error) ([][][][]uint64, string, bool, error) {
		var se *StepError
		if errors.As(err, &se) {
			return nil, "", false, err
		}
		return nil, "", false, &StepError{Engine: e, Step: step, Err: err}
	}
	if !e.valid() {
		return fail("setup", fmt.Errorf("unknown engine %q (want %q or %q)", e, Icarus, Verilator))
	}
	if err := ctx.Err(); err != nil {
		return fail("setup", err)
	}
	p, err := b.prepare()
	if err != nil {
		return fail("setup", err)
	}
	unlock := lockDir(p.dir, e)
	defer unlock()
	if err := atomicfile.Write(p.tbPath, []byte(p.tbText)); err != nil {
		return fail("setup", err)
	}

	prefix := ""
	if vcdName != "" {
		prefix = vcdName + "_"
	}
	vecFile := prefix + "vectors_" + string(e) + ".hex"
	outFile := prefix + "outputs_" + string(e) + ".hex"
	vcdFile := ""
	if vcdName != "" {
		vcdFile = vcdName + "_" + string(e) + ".vcd"
		os.Remove(filepath.Join(p.dir, vcdFile))
	}
	if err := writeVectors(filepath.Join(p.dir, vecFile), p.tp, vectors, expected); err != nil {
		return fail("write vectors", err)
	}
	os.Remove(filepath.Join(p.dir, outFile))

	args := []string{"+" + InPlusarg + "=" + vecFile, "+" + OutPlusarg + "=" + outFile, "+" + CountPlusarg + "=" + strconv.Itoa(len(vectors))}
	if vcdFile != "" {
		args = append(args, "+"+DumpPlusarg+"="+vcdFile)
		if p.clocked {
			args = append(args, "+"+DumpFromPlusarg+"="+strconv.Itoa(b.vcdFrom(len(vectors))))
		}
	}
	if expected != nil {
		args = append(args, "+"+ExpPlusarg)
	}
	for _, f := range []string{vecFile, outFile, vcdFile} {
		if len(f) >= maxPathChars {
			return fail("run", fmt.Errorf("file name %q longer than the testbench's %d characters", f, maxPathChars-1))
		}
	}
	var cache runCache
	if vcdFile == "" && !b.Rerun {
		cache = p.runCacheFor(e, filepath.Join(p.dir, vecFile), args)
	}
	out, cached := cache.fetch(filepath.Join(p.dir, outFile))
	var sim *command
	if !cached {
		switch e {
		case Icarus:
			sim, err = p.buildIcarus(ctx)
		case Verilator:
			sim, err = p.buildVerilator(ctx, vcdName != "")
		}
		if err != nil {
			return fail("build", err)
		}
		sim.simulation(b.Modules[0])
		sim.Args = append(sim.Args, args...)
		if out, err = sim.run(ctx); err != nil {
			return fail("run", err)
		}
		if finished(out, len(vectors)) {
			cache.store(filepath.Join(p.dir, outFile), out)
		}
	} else {
		// A failure below names the run as it would have been made.
		sim = newCommand(e, "run (from the cache)", p.dir, string(e), args...)
	}
	if i := bytes.Index(out, []byte(TBError)); i >= 0 {
		return fail("run", sim.fail(errors.New("testbench error: "+firstLine(string(out[i:]))), out))
	}
	if !bytes.Contains(out, []byte(TBDone+" "+strconv.Itoa(len(vectors)))) {
		return fail("run", sim.fail(errors.New("the testbench did not finish"), out))
	}
	if w := simWarnings(e, out); len(w) > 0 {
		return fail("run", sim.fail(fmt.Errorf("simulator warnings: %s", w[0]), out))
	}
	outs, err := readOutputs(filepath.Join(p.dir, outFile), p.tp, len(p.modules), len(vectors))
	var le *lineError
	switch {
	case err == nil:
	case vcdFile != "" && errors.Is(err, errXZ):
		// A dump is for looking at the x; its outputs are not returned.
	case errors.As(err, &le) && errors.Is(le.err, errXZ):
		return fail("parse", &XZError{Module: p.modules[le.module], Vector: le.vector, Clocked: p.clocked,
			Port: le.port, File: outFile, Line: le.line, Text: le.text})
	case errors.As(err, &le):
		what := "vector"
		if p.clocked {
			what = "cycle"
		}
		return fail("parse", fmt.Errorf("module %s, %s %d: %v (%s line %d: %.80s)",
			p.modules[le.module], what, le.vector, le.err, outFile, le.line, le.text))
	default:
		return fail("parse", err)
	}
	if vcdFile == "" {
		return outs, "", cached, nil
	}
	vcd := filepath.Join(p.dir, vcdFile)
	if st, err := os.Stat(vcd); err != nil || st.Size() == 0 {
		return fail("dump", sim.fail(fmt.Errorf("no VCD written to %s", vcd), out))
	}
	if err := StampVCD(vcd, b.Version); err != nil {
		return fail("dump", err)
	}
	return outs, vcd, false, nil
}

// XZError is a module output with x or z bits (an undriven output, or
// under Icarus state that no reset defined), the error of Run inside a
// *StepError; errors.As finds it. DumpVCD does not fail on it: its VCD is
// what shows where the x comes from.
type XZError struct {
	Module  string
	Vector  int  // the vector, or the cycle of a clocked bench
	Clocked bool // Vector counts cycles
	Port    string
	File    string // the output file and its line
	Line    int
	Text    string // the line: all the module's outputs as hex digits
}

func (e *XZError) Error() string {
	what := "vector"
	if e.Clocked {
		what = "cycle"
	}
	return fmt.Sprintf("module %s, %s %d: output %s has x or z bits (%s line %d: %.80s)", e.Module, what, e.Vector, e.Port, e.File, e.Line, e.Text)
}

func (e *XZError) Unwrap() error { return errXZ }

// simWarnings are the warning lines of a simulation run.
func simWarnings(e Engine, out []byte) []string {
	if e == Verilator {
		var w []string
		for _, l := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(l, "%Warning") || strings.HasPrefix(l, "%Error") {
				w = append(w, l)
			}
		}
		return w
	}
	return warningLines(out)
}

func (b *Bench) prepare() (*prepared, error) {
	if b.Dir == "" {
		return nil, errors.New("Bench.Dir is empty")
	}
	if len(b.Sources) == 0 {
		return nil, errors.New("Bench.Sources is empty")
	}
	if len(b.Modules) == 0 {
		return nil, errors.New("Bench.Modules is empty")
	}
	t := b.testbench(false)
	tp, err := t.ports()
	if err != nil {
		return nil, err
	}
	dir, err := filepath.Abs(b.Dir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, err
	}
	p := &prepared{dir: dir, tp: tp, clocked: b.Clock != "", modules: b.Modules, tbPath: filepath.Join(dir, TopModule+".v")}
	for _, s := range b.Sources {
		abs, err := filepath.Abs(s)
		if err != nil {
			return nil, err
		}
		// A file both views read (a design's bank module, rtl.Sources) is
		// compiled once.
		if slices.Contains(p.sources, abs) {
			continue
		}
		if abs == p.tbPath {
			return nil, fmt.Errorf("source %s is the testbench's file", s)
		}
		data, err := os.ReadFile(abs)
		if err != nil {
			return nil, err
		}
		p.sources = append(p.sources, abs)
		p.srcData = append(p.srcData, data)
		p.timescale = p.timescale || hasTimescale(data)
	}
	text, err := b.testbench(p.timescale).Write()
	if err != nil {
		return nil, err
	}
	p.tbText = string(text)
	return p, nil
}

// testbench is the bench's testbench, with a `timescale when the sources
// have one (Icarus' -Wall warns when some modules have a timescale and
// others not; otherwise the runner gives 1ns/1ps).
func (b *Bench) testbench(timescale bool) *Testbench {
	t := &Testbench{Module: TopModule, Timescale: timescale, Ports: b.Ports, Clock: b.Clock, Reset: b.Reset,
		Modules: b.Modules, Expected: true, VCD: true}
	t.Comment = benchComment(t)
	return t
}

// benchComment is the header comment of a Bench's testbench.
func benchComment(t *Testbench) string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("// Code generated by lsugen (verify/hdl); DO NOT EDIT.\n")
	p("//\n")
	if t.Clock != "" {
		p("// Clocked cross-check testbench: drives the clock %s of every module under\n", t.Clock)
		p("// test and applies one input vector per clock cycle to all of them at once.\n")
		p("// Times in ns, one cycle 2 ns: ")
		if t.Reset != "" {
			p("the reset cycle (%s = 1, every other input 0,\n", t.Reset)
			p("// its outputs not written) with its rising edge at 1; ")
		} else {
			p("no reset input, so no reset cycle;\n// ")
		}
		p("then cycle v's inputs at\n")
		p("// 2v+2, every module's outputs written at 2v+3 (Mealy outputs: from the\n")
		p("// state before the edge), the rising edge at 2v+3 and %s = 0 at 2v+4.\n", t.Clock)
	} else {
		p("// Combinational cross-check testbench: applies each input vector to every\n")
		p("// module under test at once, waits #1 and writes each module's outputs.\n")
	}
	if !t.Timescale {
		p("// Time unit 1ns / 1ps: the sources have no `timescale, so the runner gives\n")
		p("// it (+timescale+1ns/1ps in iverilog.cmd, --timescale 1ns/1ps to Verilator).\n")
	}
	p("//\n")
	p("// Modules under test:\n")
	for k, m := range t.Modules {
		p("//   dut%d  %s (outputs m%d_<port>)\n", k, m, k)
	}
	p("//\n")
	p("// Plusargs: +%s=<vector file> +%s=<output file> +%s=<count>\n", InPlusarg, OutPlusarg, CountPlusarg)
	p("//   [+%s: the vector lines end with the expected outputs, shown in the\n", ExpPlusarg)
	p("//   waveform as <port>%s with the flag %s]\n", ExpectedSuffix, MismatchSignal)
	p("//   [+%s[=<file>] [+%s=<n>]: a VCD of %s, from vector n on]\n", DumpPlusarg, DumpFromPlusarg, t.Module)
	p("// Vector file: one line per vector, the inputs' values in hex, separated by\n")
	p("// spaces:")
	for _, port := range t.Ports {
		if port.Dir == netlist.In && port.Name != t.Clock {
			p(" %s", port.Name)
		}
	}
	p(".\n")
	p("// Output file: per vector one line per module in dut order, its outputs the\n")
	p("// same way:")
	for _, port := range t.Ports {
		if port.Dir == netlist.Out {
			p(" %s", port.Name)
		}
	}
	p(". x or z digits are errors (outputs must be driven).\n")
	p("// Errors print a line starting with %s; the end prints\n// %s <count>.\n", TBError, TBDone)
	return b.String()
}

// fingerprint hashes everything a build depends on: the parts given, the
// testbench and the sources' paths and contents.
func (p *prepared) fingerprint(parts ...string) string {
	h := sha256.New()
	w := func(s string) {
		fmt.Fprintf(h, "%d:%s", len(s), s)
	}
	for _, s := range parts {
		w(s)
	}
	w(p.tbText)
	for i, s := range p.sources {
		w(s)
		w(string(p.srcData[i]))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// upToDate reports whether stamp holds fp and product exists.
func upToDate(stamp, fp, product string) bool {
	old, err := os.ReadFile(stamp)
	if err != nil || strings.TrimSpace(string(old)) != fp {
		return false
	}
	_, err = os.Stat(product)
	return err == nil
}

// findFor is Find with the error wrapped as a step of engine e.
func findFor(e Engine, name string) (*toolchain.Tool, error) {
	t, err := toolchain.Find(name)
	if err != nil {
		return nil, &StepError{Engine: e, Step: "find " + name, Err: err}
	}
	return t, nil
}
