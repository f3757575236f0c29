package verify

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lsugen/lsugen/rtl"
	"github.com/lsugen/lsugen/toolchain"
	"github.com/lsugen/lsugen/verify/hdl"
)

// RTLCheck is a check of Verilog that lsugen need not have written (a
// hand-edited unit, another generator's block) against a unit's golden
// vectors, built with the given sources under each simulator. The verdict
// is the harness's (see harnessTestbench): the simulation gets the inputs
// only and dumps the module's outputs, which Run compares with the
// expected outputs; nothing the module prints or does decides it.
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
	Dir     string // work directory: the harness's testbench, inputs and dump, the builds
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
	Failure string // the first mismatch, as the standalone testbench's FAIL line without "FAIL "
	Elapsed time.Duration
	Output  string // everything the simulation printed
	VCD     string // the waveform, with RTLCheck.VCD
}

// Run writes the harness's testbench and input file into c.Dir, runs them
// with each engine (icarus, verilator) and compares each run's output dump
// with the expected outputs. A module that fails a vector is a result with
// Passed false; a simulator that cannot compile SystemVerilog sources is a
// result with Skipped set. An error means a check could not run (a missing
// tool, a compile error, a module whose ports differ, a dump that is
// missing, not framed by the run's nonce or short: a simulation that ended
// early, every simulator skipped), and says so with the tool's output.
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
	// The harness's files: its testbench, the inputs, the outputs' dump
	// (one per simulation, named by its nonce). The golden vector file and
	// the self-checking testbench are written only for a waveform, into
	// waveform/, after every verdict.
	tb := filepath.Join(c.Dir, TestbenchFileName(d))
	wdir := filepath.Join(c.Dir, "waveform")
	wtb := filepath.Join(wdir, TestbenchFileName(d))
	vec, err := filepath.Abs(filepath.Join(c.Dir, VectorFileName(d)))
	if err != nil {
		return nil, err
	}
	inputs, err := filepath.Abs(filepath.Join(c.Dir, "inputs.hex"))
	if err != nil {
		return nil, err
	}
	// outputs_<32 hex digits>.hex beside inputs.hex.
	if len(inputs) >= 1024-40 {
		return nil, fmt.Errorf("work directory path too long for the testbench's file name register: %s", inputs)
	}
	for _, src := range c.Sources {
		a := mustAbs(src)
		base := filepath.Base(a)
		if a == vec || a == mustAbs(tb) || a == inputs || a == mustAbs(wtb) ||
			filepath.Dir(a) == mustAbs(c.Dir) && strings.HasPrefix(base, "outputs_") && strings.HasSuffix(base, ".hex") {
			return nil, fmt.Errorf("%s is a file the check writes; give the sources from another directory", src)
		}
	}
	// An earlier run's files: no golden vectors stay where the
	// simulation runs, and no old dump can be taken for this run's.
	os.Remove(vec)
	if old, _ := filepath.Glob(filepath.Join(c.Dir, "outputs_*.hex")); len(old) > 0 {
		for _, f := range old {
			os.Remove(f)
		}
	}
	if err := os.WriteFile(tb, g.harnessTestbench(), 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(inputs, g.harnessInputs(), 0o644); err != nil {
		return nil, err
	}
	vecText := g.VectorFile(c.Info) // in memory: its line numbers name the failing vector
	first := vectorFileFirstLine(vecText)
	var sv []string
	for _, src := range c.Sources {
		if strings.HasSuffix(src, ".sv") {
			sv = append(sv, filepath.Base(src))
		}
	}
	var results []RTLResult
	for _, e := range engines {
		nonce, err := newNonce()
		if err != nil {
			return results, err
		}
		dump := filepath.Join(filepath.Dir(inputs), "outputs_"+nonce+".hex")
		sa := hdl.Standalone{
			Dir:         c.Dir,
			Testbench:   tb,
			Top:         TestbenchModule(d),
			Unit:        d.Name + " (module " + top + ")",
			Sources:     c.Sources,
			Defines:     append([]string{DUTMacro + "=" + top}, defines...),
			IncludeDirs: c.IncludeDirs,
			Args: []string{"+" + hdl.InPlusarg + "=" + inputs, "+" + hdl.OutPlusarg + "=" + dump,
				"+" + hdl.CountPlusarg + "=" + strconv.Itoa(g.Len()), "+" + hdl.NoncePlusarg + "=" + nonce},
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
		count, failure, err := g.compareDump(dump, nonce, VectorFileName(d), first)
		switch {
		case err != nil:
			return results, fmt.Errorf("%s: the testbench did not finish: %v (%s; command: %s):\n%s", e, err, run.Status, run.Command, outputTail(run.Output))
		case failure != "":
			r.Failure, r.Count = failure, count
		case run.Failed():
			return results, fmt.Errorf("%s: the simulation wrote every output but exited with %s (command: %s):\n%s", e, run.Status, run.Command, outputTail(run.Output))
		default:
			r.Count, r.Passed = count, true
		}
		results = append(results, r)
	}
	if c.VCD {
		// The waveform: the self-checking testbench run again, after
		// every verdict, only for its VCD (each output beside its
		// expected value); what it prints decides nothing.
		if err := os.MkdirAll(wdir, 0o755); err != nil {
			return results, err
		}
		if err := os.WriteFile(wtb, g.Testbench(c.Info), 0o644); err != nil {
			return results, err
		}
		if err := os.WriteFile(vec, vecText, 0o644); err != nil {
			return results, err
		}
		for i := range results {
			r := &results[i]
			if r.Skipped {
				continue
			}
			vcd, err := filepath.Abs(filepath.Join(c.Dir, d.Name+"_"+string(r.Engine)+".vcd"))
			if err != nil {
				return results, err
			}
			if len(vcd) >= 1024 {
				return results, fmt.Errorf("work directory path too long for the testbench's file name register: %s", vcd)
			}
			os.Remove(vcd)
			sa := hdl.Standalone{
				Dir:         wdir,
				Testbench:   wtb,
				Top:         TestbenchModule(d),
				Unit:        d.Name + " (module " + top + ")",
				Sources:     c.Sources,
				Defines:     append([]string{DUTMacro + "=" + top}, defines...),
				IncludeDirs: c.IncludeDirs,
				Args:        []string{"+vectors=" + vec, "+" + DumpPlusarg + "=" + vcd, "+" + DumpFromPlusarg + "=" + strconv.Itoa(max(0, c.VCDFrom))},
				Trace:       true,
			}
			if _, err := sa.Run(ctx, hdl.Engine(r.Engine)); err != nil {
				return results, fmt.Errorf("%s: the waveform: %w", r.Engine, err)
			}
			if err := hdl.StampVCD(vcd, c.Info.Version); err != nil {
				return results, fmt.Errorf("%s: the waveform: %w", r.Engine, err)
			}
			r.VCD = vcd
		}
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

// The harness of `verify --rtl`: the verdict is lsugen's, not the
// simulation's. The simulation gets the golden vectors' inputs only, in a
// file of their own (inputs_<nonce>.hex); the expected outputs stay in
// this process's memory and are in no file in the work directory while the
// simulation runs. The harness testbench applies every vector (cycle) to
// the module under test and writes the module's outputs to a dump,
// outputs_<nonce>.hex, whose first and last lines are the per-run nonce:
// 128 random bits the harness passes in (+lsugen_nonce). Run then compares
// the dump with the expected outputs, vector by vector.
//
// A module under test runs inside the simulation and can print anything
// ("PASS 16384 vectors"), call $finish, read the plusargs (the nonce
// included) and write files: none of that is a verdict. A dump that is
// missing, lacks its nonce at either end or holds fewer or more lines than
// vectors is an error. A module cannot write a passing dump by copying the
// expected outputs, since no file it can reach holds them; the only way to
// write them is to compute them from the inputs, which is what a correct
// module does.

// harnessTestbench is the testbench of the harness: module
// TestbenchModule(d), with the module under test named by the macro DUT.
// Plusargs: +lsugen_in=FILE (one line per vector: the inputs in hex,
// separated by spaces), +lsugen_out=FILE, +lsugen_n=N (vectors),
// +lsugen_nonce=HEX (32 digits).
func (g *GoldenSet) harnessTestbench() []byte {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	d := g.Design
	p("// Harness testbench of `lsugen verify --rtl` for %s: applies the inputs of\n", d.Name)
	p("// the golden vectors and writes the module's outputs, framed by a per-run\n")
	p("// nonce, for lsugen to compare with the expected outputs (which this\n")
	p("// simulation never sees). Written by lsugen for one check; not for use by hand\n")
	p("// (`lsugen gen --tb` writes the self-checking testbench).\n")
	text, err := testbenchOf(d, g.Clocked, false, true, b.String()).Write()
	if err != nil {
		// Golden checked the ports (checkTestbenchNames).
		panic("verify: " + err.Error())
	}
	return text
}

// harnessInputs is the harness's input file: one line per vector, each
// input's value in hex, separated by spaces (an empty line for a unit
// without inputs).
func (g *GoldenSet) harnessInputs() []byte {
	in := make([][]uint64, len(g.s.ins))
	line := make([]byte, 0, lineBytes(g.s.ins, nil)+1)
	var b bytes.Buffer
	for c := 0; c < g.s.cycles; c++ {
		g.s.inView(in, c)
		line = line[:0]
		for j, port := range g.s.ins {
			if j > 0 {
				line = append(line, ' ')
			}
			line = appendHexWords(line, in[j], port.Width())
		}
		line = append(line, '\n')
		b.Write(line)
	}
	return b.Bytes()
}

// newNonce is 128 random bits as 32 hex digits.
func newNonce() (string, error) {
	var n [16]byte
	if _, err := rand.Read(n[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(n[:]), nil
}

// errIncomplete is a dump that does not hold every vector between its
// two nonce lines.
var errIncomplete = errors.New("incomplete output dump")

// compareDump checks the harness's dump (path, written under nonce)
// against the expected outputs: it returns the number of vectors that
// match and, at the first that does not, the failure line (as the
// standalone testbench's FAIL line, without "FAIL "). A dump that is
// missing, is not framed by the nonce or has the wrong number of lines is
// an error wrapping errIncomplete.
func (g *GoldenSet) compareDump(path, nonce string, vecName string, firstLine int) (int, string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return 0, "", fmt.Errorf("%w: the simulation wrote no output dump %s (the simulation ended before the testbench began)", errIncomplete, filepath.Base(path))
		}
		return 0, "", err
	}
	lines := strings.Split(string(data), "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	n := g.s.cycles
	what, whats := "vector", "vectors"
	if g.Clocked {
		what, whats = "cycle", "cycles"
	}
	if len(lines) == 0 || strings.TrimSpace(lines[0]) != nonce {
		return 0, "", fmt.Errorf("%w: %s does not begin with this run's nonce", errIncomplete, filepath.Base(path))
	}
	body := lines[1:]
	closed := len(body) > 0 && strings.TrimSpace(body[len(body)-1]) == nonce
	if closed {
		body = body[:len(body)-1]
	}
	if !closed || len(body) != n {
		got := len(body)
		return 0, "", fmt.Errorf("%w: %s holds %d of the %d %s and %s: the simulation ended early ($finish or $stop in the module under test?) or something else wrote the file",
			errIncomplete, filepath.Base(path), min(got, n), n, whats, map[bool]string{true: "its closing nonce", false: "no closing nonce"}[closed])
	}
	exp := make([][]uint64, len(g.s.outs))
	in := make([][]uint64, len(g.s.ins))
	got := make([]uint64, 0, 4)
	for v, line := range body {
		cols := strings.Fields(line)
		if len(cols) != len(g.s.outs) {
			return v, "", fmt.Errorf("%w: %s line %d: %d columns, want %d", errIncomplete, filepath.Base(path), v+2, len(cols), len(g.s.outs))
		}
		g.s.outView(exp, v)
		for j, port := range g.s.outs {
			w := port.Width()
			got = got[:0]
			ok := len(cols[j]) == hexDigits(w)
			if ok {
				var perr error
				got, perr = parseHexWords(got, cols[j], w)
				ok = perr == nil && slices.Equal(got, exp[j][:words(w)])
			}
			if ok {
				continue
			}
			g.s.inView(in, v)
			var ib strings.Builder
			for k, ip := range g.s.ins {
				if k > 0 {
					ib.WriteByte(' ')
				}
				fmt.Fprintf(&ib, "%s=%d'h%s", ip.Name, ip.Width(), appendHexWords(nil, in[k], ip.Width()))
			}
			if ib.Len() == 0 {
				ib.WriteString("(none)")
			}
			return v, fmt.Sprintf("%s %d (%s line %d): %s expected %d'h%s, got %d'h%s; inputs %s",
				what, v, vecName, firstLine+v, port.Name, w, appendHexWords(nil, exp[j], w), w, cols[j], ib.String()), nil
		}
	}
	return n, "", nil
}

// parseHexWords appends the words of the hex number s (width bits) to dst;
// any character that is not a hex digit (x and z bits) is an error.
func parseHexWords(dst []uint64, s string, width int) ([]uint64, error) {
	w := make([]uint64, words(width))
	for i := 0; i < len(s); i++ {
		c := s[i]
		var d uint64
		switch {
		case c >= '0' && c <= '9':
			d = uint64(c - '0')
		case c >= 'a' && c <= 'f':
			d = uint64(c-'a') + 10
		case c >= 'A' && c <= 'F':
			d = uint64(c-'A') + 10
		default:
			return nil, fmt.Errorf("bad hex digit %q", c)
		}
		bit := 4 * (len(s) - 1 - i)
		if bit/64 < len(w) {
			w[bit/64] |= d << uint(bit%64)
		}
	}
	if width%64 != 0 && w[len(w)-1]>>uint(width%64) != 0 {
		return nil, errors.New("more bits than the port")
	}
	return append(dst, w...), nil
}

// vectorFileFirstLine is the line of the vector file that holds vector 0:
// the one after its header comment.
func vectorFileFirstLine(vec []byte) int {
	line := 1
	for len(vec) > 0 && vec[0] == '#' {
		i := bytes.IndexByte(vec, '\n')
		if i < 0 {
			break
		}
		vec = vec[i+1:]
		line++
	}
	return line
}
