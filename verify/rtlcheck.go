package verify

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/lsugen/lsugen/rtl"
	"github.com/lsugen/lsugen/toolchain"
	"github.com/lsugen/lsugen/verify/hdl"
)

// RTLCheck is a check of Verilog that lsugen need not have written (a
// hand-edited unit, another generator's block) against a unit's golden
// vectors: the unit's standalone testbench and vector file, exactly as
// `lsugen gen --tb` writes them, built with the given sources under each
// simulator.
type RTLCheck struct {
	Golden *GoldenSet
	Info   rtl.Info // provenance for the testbench's and the vector file's headers, and the VCDs' $version
	// Sources are the files that define Top (and what it instantiates):
	// Verilog (.v) or SystemVerilog (.sv). With a .sv file Icarus compiles
	// with -g2012; where it cannot (Icarus 11 lacks `inside`, streaming
	// concatenation, ...) its result is Skipped with the reason in Note, and
	// Verilator's (which reads every file as SystemVerilog) decides.
	Sources []string
	Top     string // the module to check; "" for the unit's name
	Dir     string // work directory: the testbench, the vector file, the builds
	// IncludeDirs are the directories searched for `include files: -I DIR
	// to Icarus, -IDIR to Verilator.
	IncludeDirs []string
	// Defines are preprocessor macros for the sources, NAME or NAME=VALUE
	// (NAME alone is NAME=1, as for a C compiler), given to both simulators
	// as -DNAME=VALUE. DUT is the testbench's: name the module with Top.
	Defines []string
	// VCD makes each simulator write a waveform of the run, with the
	// testbench's +dump: Dir/NAME_<engine>.vcd, each output beside its
	// expected value and the flag mismatch (see Testbench), stamped with
	// Info's version. Verilator then builds with --trace.
	VCD bool
	// VCDFrom is the first vector (cycle) the waveform holds (+vcdfrom):
	// 0 for the whole run; a later one keeps the VCD of a failure deep in
	// an exhaustive file small.
	VCDFrom int
}

// RTLResult is the verdict of one simulator.
type RTLResult struct {
	Engine Engine
	Passed bool
	// Skipped says the simulator could not compile the sources (Icarus and
	// some SystemVerilog); Note says why. Neither passed nor failed.
	Skipped bool
	Note    string
	Count   int    // vectors (cycles) that passed
	Failure string // the testbench's FAIL line, when it failed
	Elapsed time.Duration
	Output  string // everything the simulation printed
	VCD     string // the waveform, with RTLCheck.VCD
}

var (
	passLine = regexp.MustCompile(`(?m)^PASS (\d+) (vectors|cycles)\s*$`)
	failLine = regexp.MustCompile(`(?m)^FAIL .*$`)
)

// Run writes the testbench and the vector file into c.Dir and runs them
// with each engine (icarus, verilator). A module that fails a vector is a
// result with Passed false; a simulator that cannot compile SystemVerilog
// sources is a result with Skipped set. An error means a check could not
// run (a missing tool, a compile error, a module whose ports differ, a
// testbench that did not finish, every simulator skipped), and says so
// with the tool's output.
func (c RTLCheck) Run(ctx context.Context, engines []Engine) ([]RTLResult, error) {
	g := c.Golden
	d := g.Design
	top := c.Top
	if top == "" {
		top = d.Name
	}
	if !isIdentifier(top) {
		return nil, fmt.Errorf("module %q is not a Verilog identifier", top)
	}
	if top == TestbenchModule(d) {
		return nil, fmt.Errorf("module %s is the testbench's name", top)
	}
	if len(c.Sources) == 0 {
		return nil, errors.New("no Verilog files to check")
	}
	defines, err := defineArgs(c.Defines)
	if err != nil {
		return nil, err
	}
	for _, e := range engines {
		if e != Icarus && e != Verilator {
			return nil, fmt.Errorf("simulator %q cannot run Verilog files: use icarus or verilator", e)
		}
	}
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return nil, err
	}
	tb := filepath.Join(c.Dir, TestbenchFileName(d))
	vec, err := filepath.Abs(filepath.Join(c.Dir, VectorFileName(d)))
	if err != nil {
		return nil, err
	}
	if len(vec) >= 1024 {
		return nil, fmt.Errorf("work directory path too long for the testbench's file name register: %s", vec)
	}
	for _, src := range c.Sources {
		if a, _ := filepath.Abs(src); a == vec || a == mustAbs(tb) {
			return nil, fmt.Errorf("%s is a file the check writes; give the sources from another directory", src)
		}
	}
	if err := os.WriteFile(tb, g.Testbench(c.Info), 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(vec, g.VectorFile(c.Info), 0o644); err != nil {
		return nil, err
	}
	var sv []string
	for _, src := range c.Sources {
		if strings.HasSuffix(src, ".sv") {
			sv = append(sv, filepath.Base(src))
		}
	}
	var results []RTLResult
	for _, e := range engines {
		sa := hdl.Standalone{
			Dir:         c.Dir,
			Testbench:   tb,
			Top:         TestbenchModule(d),
			Sources:     c.Sources,
			Defines:     append([]string{DUTMacro + "=" + top}, defines...),
			IncludeDirs: c.IncludeDirs,
			Args:        []string{"+vectors=" + vec},
		}
		vcd := ""
		if c.VCD {
			if vcd, err = filepath.Abs(filepath.Join(c.Dir, d.Name+"_"+string(e)+".vcd")); err != nil {
				return results, err
			}
			if len(vcd) >= 1024 {
				return results, fmt.Errorf("work directory path too long for the testbench's file name register: %s", vcd)
			}
			os.Remove(vcd)
			sa.Args = append(sa.Args, "+"+DumpPlusarg+"="+vcd, "+"+DumpFromPlusarg+"="+strconv.Itoa(max(0, c.VCDFrom)))
			sa.Trace = true
		}
		start := time.Now()
		run, err := sa.Run(ctx, hdl.Engine(e))
		if err != nil {
			if note, ok := icarusCannotCompile(e, sv, err); ok {
				results = append(results, RTLResult{Engine: e, Skipped: true, Note: note, Elapsed: time.Since(start)})
				continue
			}
			return results, err
		}
		r := RTLResult{Engine: e, Elapsed: time.Since(start), Output: run.Output}
		if c.VCD {
			if err := hdl.StampVCD(vcd, c.Info.Version); err != nil {
				return results, fmt.Errorf("%s: the waveform: %w", e, err)
			}
			r.VCD = vcd
		}
		pass := passLine.FindStringSubmatch(run.Output)
		fail := failLine.FindString(run.Output)
		switch {
		case fail != "":
			r.Failure = strings.TrimPrefix(fail, "FAIL ")
			if !run.Failed() {
				return results, fmt.Errorf("%s: the testbench printed a failure but exited with status 0:\n%s", e, outputTail(run.Output))
			}
		case pass != nil && !run.Failed():
			r.Count, _ = strconv.Atoi(pass[1])
			if r.Count != g.Len() {
				return results, fmt.Errorf("%s: the testbench passed %d lines of the %d in %s", e, r.Count, g.Len(), vec)
			}
			r.Passed = true
		default:
			return results, fmt.Errorf("%s: the testbench did not finish (%s; command: %s):\n%s", e, run.Status, run.Command, outputTail(run.Output))
		}
		results = append(results, r)
	}
	ran := false
	for _, r := range results {
		ran = ran || !r.Skipped
	}
	if !ran && len(results) > 0 {
		return results, fmt.Errorf("no simulator could check the sources: %s", results[0].Note)
	}
	return results, nil
}

// icarusCannotCompile reports whether err is Icarus failing to compile
// sources that include SystemVerilog files (sv), and says so in a note
// with the compiler's first error. A missing tool, a warning about the
// testbench (ports that differ) and anything under Verilator stay errors.
func icarusCannotCompile(e Engine, sv []string, err error) (string, bool) {
	var se *hdl.StepError
	if e != Icarus || len(sv) == 0 || !errors.As(err, &se) || !strings.HasPrefix(se.Step, "build") || errors.Is(err, hdl.ErrInterface) {
		return "", false
	}
	why := ""
	var te *toolchain.Error
	if errors.As(err, &te) {
		// The first error ("sorry: ..." for what Icarus lacks), not a
		// warning about the sources.
		for _, l := range strings.Split(te.Output, "\n") {
			l = strings.TrimSpace(l)
			if strings.Contains(l, "sorry") || strings.Contains(l, "error") {
				why = ": " + strings.TrimSuffix(l, ".")
				break
			}
		}
	}
	return fmt.Sprintf("Icarus Verilog cannot compile the SystemVerilog sources (%s) with -g2012%s; not checked under Icarus",
		strings.Join(sv, ", "), why), true
}

// defineArgs checks macros given as NAME or NAME=VALUE and returns them as
// NAME=VALUE, NAME alone as NAME=1.
func defineArgs(defs []string) ([]string, error) {
	var out []string
	for _, def := range defs {
		name, value, ok := strings.Cut(def, "=")
		if !ok {
			value = "1"
		}
		switch {
		case !isIdentifier(name) || strings.Contains(name, "$"):
			return nil, fmt.Errorf("define %q: %q is not a macro name", def, name)
		case name == DUTMacro:
			return nil, fmt.Errorf("define %q: %s is the testbench's macro for the module to check; name the module as the top instead", def, DUTMacro)
		case strings.ContainsAny(value, "\n\r"):
			return nil, fmt.Errorf("define %q: a value on more than one line", def)
		}
		out = append(out, name+"="+value)
	}
	return out, nil
}

// isIdentifier reports whether s is a simple Verilog identifier (escaped
// identifiers cannot be given as a macro on a command line).
func isIdentifier(s string) bool {
	for i, c := range s {
		switch {
		case c == '_', c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case (c >= '0' && c <= '9' || c == '$') && i > 0:
		default:
			return false
		}
	}
	return s != ""
}

func mustAbs(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	return a
}

// outputTail is the last lines of a simulation's output.
func outputTail(out string) string {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) > 20 {
		lines = append([]string{"..."}, lines[len(lines)-20:]...)
	}
	return "    " + strings.Join(lines, "\n    ")
}
