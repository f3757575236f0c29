package verify

import (
	"fmt"
	"strings"

	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/rtl"
	"github.com/lsugen/lsugen/verify/hdl"
)

// DUTMacro is the macro that names the module a standalone testbench
// instantiates; without it the testbench checks the unit's RTL module.
const DUTMacro = "DUT"

// ExpectedSuffix ends the name of the testbench's register that holds an
// output's expected value (bank_o_expected beside bank_o), and
// MismatchSignal is its one-bit flag that an output differs from its
// expected value. Both are signals of the testbench's VCD (+dump), and of
// lsugen's own VCDs.
const (
	ExpectedSuffix = hdl.ExpectedSuffix
	MismatchSignal = hdl.MismatchSignal
)

// DumpPlusarg is the plusarg that makes a standalone testbench write a VCD:
// +dump writes DumpFileName(d), +dump=FILE writes FILE. With
// +DumpFromPlusarg=N (vcdfrom=N) the dump starts at vector (cycle) N, so
// that a failure deep in a long vector file leaves a small VCD.
const (
	DumpPlusarg     = hdl.DumpPlusarg
	DumpFromPlusarg = hdl.DumpFromPlusarg
)

// DumpFileName is the VCD a standalone testbench writes under +dump.
func DumpFileName(d *netlist.Design) string { return TestbenchModule(d) + ".vcd" }

// Standalone testbench: plain Verilog-2005 (plus $fatal) that needs nothing
// from lsugen at run time, written by hdl.Testbench (Golden); this file
// writes its header comment. It streams the vector file with $fgetc and
// $fscanf rather than $readmemh: the file's comments and its count of lines
// can then change without a new build, and its error messages can name the
// file's line.

// Testbench renders the self-checking testbench of the golden set: module
// TestbenchModule(d), file TestbenchFileName(d). It reads the vector file
// (VectorFileName(d) in the working directory, or +vectors=FILE), applies
// every vector (cycle) to the module named by the macro DUT (default: the
// RTL module) and compares every output with === (x or z bits fail). It
// prints "PASS <n> vectors" ("cycles" for a clocked unit), or the first
// failing vector and $fatal(1). With +dump (+dump=FILE) it writes a VCD of
// the run: the inputs, each output beside its expected value, the flag
// mismatch and the module's own signals.
func (g *GoldenSet) Testbench(info rtl.Info) []byte {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	d := g.Design
	ins, outs := g.s.ins, g.s.outs
	tb, vec, vcd := TestbenchModule(d), VectorFileName(d), DumpFileName(d)
	gates := rtl.GatesModuleName(d)
	what, whats := "vector", "vectors"
	if g.Clocked {
		what, whats = "cycle", "cycles"
	}

	p("%s\n", ruleLine)
	p("// Module %s: self-checking testbench of %s\n", tb, d.Name)
	p("//\n")
	para := func(format string, args ...any) {
		for _, l := range wrapText(fmt.Sprintf(format, args...), 76) {
			p("// %s\n", l)
		}
	}
	para("%s. Do not edit.", generatedBy(info))
	p("//\n")
	para("Reads the golden vectors of %s (its inputs and the behavioural model's expected outputs) "+
		"from %s, applies them to the module under test and compares every output with ===, so x or z bits fail. "+
		"Prints \"PASS <n> %s\" and finishes, or prints the first failing %s (its number and line, the port, "+
		"the expected and the actual value, the inputs) and stops with $fatal(1): a non-zero exit status under vvp and Verilator.",
		d.Name, vec, whats, what)
	p("//\n")
	if g.Clocked {
		p("// Protocol (times in ns; the testbench drives %s, one cycle is 2 ns):\n", d.Clock)
		p("//   0       the reset cycle: %s = 1, every other input 0\n", ResetPort)
		p("//   1       rising edge of %s; the reset cycle's outputs are not checked\n", d.Clock)
		p("//   2       %s = 0\n", d.Clock)
		p("//   then for cycle v = 0, 1, ... (the vector file's v-th line, counted from 0):\n")
		p("//   2v+2    the cycle's inputs are applied (%s is an ordinary input now)\n", ResetPort)
		p("//   2v+3    every output is compared with its expected value (outputs may\n")
		p("//           depend on the cycle's inputs), then the rising edge of %s\n", d.Clock)
		p("//   2v+4    %s = 0\n", d.Clock)
	} else {
		para("Protocol: combinational. For vector v (the vector file's v-th line, counted from 0) " +
			"the inputs are applied at time v ns and every output is compared 1 ns later.")
	}
	p("//\n")
	para("Vector file: lines starting with # and blank lines are skipped; every other line is one %s, "+
		"these columns in hex (most significant digit first), separated by spaces:", what)
	var rows [][]string
	for _, port := range ins {
		rows = append(rows, []string{port.Name, "input", rangeText(port.Width())})
	}
	for _, port := range outs {
		rows = append(rows, []string{port.Name, "expected output", rangeText(port.Width())})
	}
	for _, l := range rtl.Table(rows) {
		p("//   %s\n", l)
	}
	p("//\n")
	para("The module under test is the macro %s, by default %s (the readable RTL); define it to check "+
		"another module with the same ports, such as the gate netlist %s. "+
		"The vector file is %s in the working directory; the plusarg +vectors=FILE reads another.",
		DUTMacro, d.Name, gates, vec)
	p("//\n")
	when := ""
	if g.Clocked {
		when = " between a cycle's inputs and the rising edge, where the outputs are compared"
	}
	para("Waveform: the plusarg +%s writes a VCD of the run to %s (+%s=FILE: to FILE), from time 0 "+
		"(+%s=N: from %s N on, the number a FAIL line gives): the inputs, "+
		"every output beside its expected value (%s%s beside %s), the flag %s, 1 while an output differs "+
		"from its expected value%s, tb_n, the %s's number, and the signals of the module under test (dut). "+
		"Verilator needs --trace in the build for it.",
		DumpPlusarg, vcd, DumpPlusarg, DumpFromPlusarg, what, outs[0].Name, ExpectedSuffix, outs[0].Name, MismatchSignal, when, what)
	p("//\n")
	// The commands start with "$ ": a comment whose first word is
	// verilator is a Verilator metacomment (and an error).
	// A unit that instantiates others is compiled with their files too.
	rtlFiles, _ := rtl.Sources(d)
	srcs := strings.Join(rtlFiles, " ")
	para("Run, in the directory of %s, %s and %s:", TestbenchFileName(d), strings.Join(rtlFiles, ", "), vec)
	p("//   $ iverilog -g2005 -Wall -o %s.vvp %s %s\n", tb, TestbenchFileName(d), srcs)
	p("//   $ vvp -n %s.vvp\n", tb)
	p("//   $ verilator --binary -Wall %s %s\n", TestbenchFileName(d), srcs)
	p("//   $ obj_dir/V%s\n", tb)
	p("// With a waveform in %s:\n", vcd)
	p("//   $ vvp -n %s.vvp +%s\n", tb, DumpPlusarg)
	p("//   $ verilator --binary -Wall --trace %s %s\n", TestbenchFileName(d), srcs)
	p("//   $ obj_dir/V%s +%s\n", tb, DumpPlusarg)
	para("The gate netlist: add -D%s=%s to both commands that compile, and give %s.v for %s.v. "+
		"Any other Verilog: `lsugen verify --rtl FILE.v --unit %s SPEC` runs both simulators.",
		DUTMacro, gates, gates, d.Name, d.Name)
	p("%s\n", ruleLine)
	text, err := testbenchOf(d, g.Clocked, true, false, b.String()).Write()
	if err != nil {
		// NewGoldenSet checked the ports (checkTestbenchNames).
		panic("verify: " + err.Error())
	}
	return text
}

// testbenchOf is the testbench of design d with the module under test
// named by the macro DUT: the self-checking one of the golden set
// (golden) or the harness of `verify --rtl` (nonce-framed, the inputs
// only).
func testbenchOf(d *netlist.Design, clocked, golden, nonce bool, comment string) *hdl.Testbench {
	t := &hdl.Testbench{
		Module:     TestbenchModule(d),
		Comment:    comment,
		Timescale:  true,
		Ports:      d.Ports,
		Modules:    []string{d.Name},
		Macro:      DUTMacro,
		Golden:     golden,
		VectorFile: VectorFileName(d),
		Nonce:      nonce,
		VCD:        golden,
	}
	if clocked {
		t.Clock, t.Reset = d.Clock, ResetPort
	}
	return t
}

const ruleLine = "// ----------------------------------------------------------------------------"

// wrapText breaks text into lines of at most width characters at spaces
// (a longer word gets a line of its own). No line but the first starts
// with the word verilator, in any case: as the first word of a comment,
// Verilator reads it as a metacomment, an error. The words before such a
// word move down with it, even if that makes the line longer.
func wrapText(text string, width int) []string {
	var lines [][]string
	n := 0 // length of the last line
	for _, w := range strings.Fields(text) {
		if len(lines) == 0 || n+1+len(w) > width {
			lines = append(lines, []string{w})
			n = len(w)
			continue
		}
		lines[len(lines)-1] = append(lines[len(lines)-1], w)
		n += 1 + len(w)
	}
	metacomment := func(w string) bool { return strings.HasPrefix(strings.ToLower(w), "verilator") }
	for i := 1; i < len(lines); i++ {
		for i > 0 && metacomment(lines[i][0]) {
			prev := lines[i-1]
			lines[i] = append([]string{prev[len(prev)-1]}, lines[i]...)
			if lines[i-1] = prev[:len(prev)-1]; len(lines[i-1]) == 0 {
				lines = append(lines[:i-1], lines[i:]...)
				i--
			}
		}
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.Join(l, " ")
	}
	return out
}

// rangeText describes a port's bits for the header comment.
func rangeText(w int) string {
	if w == 1 {
		return "1 bit"
	}
	return fmt.Sprintf("[%d:0]", w-1)
}
