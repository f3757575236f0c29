package verify

import (
	"fmt"
	"strings"

	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/rtl"
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
	ExpectedSuffix = "_expected"
	MismatchSignal = "mismatch"
)

// DumpPlusarg is the plusarg that makes a standalone testbench write a VCD:
// +dump writes DumpFileName(d), +dump=FILE writes FILE. With
// +DumpFromPlusarg=N (vcdfrom=N) the dump starts at vector (cycle) N, so
// that a failure deep in a long vector file leaves a small VCD.
const (
	DumpPlusarg     = "dump"
	DumpFromPlusarg = "vcdfrom"
)

// DumpFileName is the VCD a standalone testbench writes under +dump.
func DumpFileName(d *netlist.Design) string { return TestbenchModule(d) + ".vcd" }

// Standalone testbench: plain Verilog-2005 (plus $fatal, which Icarus takes
// under -g2005 and Verilator everywhere) that needs nothing from lsugen at
// run time. It streams the vector file with $fgetc and $fscanf rather than
// $readmemh: the file's comments and its count of lines can then change
// without a new build, and its error messages can name the file's line.

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

	p("`timescale 1ns / 1ps\n")
	p("\n")
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
	p("\n")
	p("`ifndef %s\n", DUTMacro)
	p("`define %s %s\n", DUTMacro, d.Name)
	p("`endif\n")
	p("\n")
	p("module %s;\n", tb)
	p("\n")
	p("    // The module under test: inputs, outputs and the expected outputs.\n")
	for _, l := range rtl.Table(portDecls(g, ins, outs, true)) {
		p("    %s\n", l)
	}
	p("\n")
	var differs []string
	for _, port := range outs {
		differs = append(differs, fmt.Sprintf("%s !== %s%s", port.Name, port.Name, ExpectedSuffix))
	}
	if g.Clocked {
		p("    // 1 from the time a cycle's inputs are applied to the rising edge, where\n")
		p("    // the outputs are compared; 0 in the reset cycle.\n")
		p("    reg tb_check;\n")
		p("    // 1 while an output differs from its expected value (x or z bits differ).\n")
		p("    wire %s = tb_check && (%s);\n", MismatchSignal, strings.Join(differs, " || "))
	} else {
		p("    // 1 while an output differs from its expected value (x or z bits differ).\n")
		p("    wire %s = %s;\n", MismatchSignal, strings.Join(differs, " || "))
	}
	p("\n")
	b.WriteString(dutInstance(g, ins, outs))
	p("\n")
	p("    reg [8*1024-1:0] tb_file; // the vector file's name\n")
	p("    integer tb_fd;            // its descriptor\n")
	p("    integer tb_line;          // the line being read, from 1\n")
	p("    integer tb_n;             // %s checked so far: the current %s's number\n", whats, what)
	p("    integer tb_c;             // the character read, -1 at the end of the file\n")
	p("    integer tb_r;             // a system function's result\n")
	p("    reg [8*1024-1:0] tb_dump; // the VCD's name (+%s)\n", DumpPlusarg)
	p("    integer tb_dump_at;       // the %s where the dump starts; -1: no dump\n", what)
	p("\n")
	p("    initial begin\n")
	p("        tb_file = %q;\n", vec)
	p("        tb_r = $value$plusargs(\"vectors=%%s\", tb_file);\n")
	p("        tb_fd = $fopen(tb_file, \"r\");\n")
	p("        if (tb_fd == 0) begin\n")
	p("            $display(\"FAIL cannot open the vector file %%0s\", tb_file);\n")
	p("            $fatal(1, \"%s: no vector file\");\n", tb)
	p("        end\n")
	// Verilator 5.006 ignores a $dumpfile in the block of a $value$plusargs.
	p("        tb_dump = %q;\n", vcd)
	p("        tb_r = $value$plusargs(\"%s=%%s\", tb_dump);\n", DumpPlusarg)
	p("        tb_dump_at = 0;\n")
	p("        tb_r = $value$plusargs(\"%s=%%d\", tb_dump_at);\n", DumpFromPlusarg)
	p("        if (tb_dump_at < 0)\n")
	p("            tb_dump_at = 0;\n")
	p("        if (!$test$plusargs(\"%s\"))\n", DumpPlusarg)
	p("            tb_dump_at = -1;\n")
	p("        if (tb_dump_at == 0) begin\n")
	p("            $dumpfile(tb_dump);\n")
	p("            $dumpvars(0, %s);\n", tb)
	p("        end\n")
	b.WriteString(resetCycle(g, ins, "        tb_check = 1'b0;\n"))
	p("        tb_n = 0;\n")
	p("        tb_line = 1;\n")
	p("        tb_c = $fgetc(tb_fd);\n")
	p("        while (tb_c != -1) begin\n")
	p("            if (tb_c == \"#\") begin\n")
	p("                // A comment: skip the rest of the line.\n")
	p("                while (tb_c != \"\\n\" && tb_c != -1)\n")
	p("                    tb_c = $fgetc(tb_fd);\n")
	// 13 is CR, which Verilog-2005 has no string escape for.
	p("            end else if (tb_c != \"\\n\" && tb_c != \" \" && tb_c != \"\\t\" && tb_c != 13) begin\n")
	p("                if (tb_n == tb_dump_at && tb_n != 0) begin\n")
	p("                    $dumpfile(tb_dump);\n")
	p("                    $dumpvars(0, %s);\n", tb)
	p("                end\n")
	p("                // A %s: the inputs, then the expected outputs.\n", what)
	p("                tb_r = $ungetc(tb_c, tb_fd);\n")
	var targets []string
	for _, port := range ins {
		targets = append(targets, port.Name)
	}
	for _, port := range outs {
		targets = append(targets, port.Name+ExpectedSuffix)
	}
	p("                tb_r = $fscanf(tb_fd, \"%s\", %s);\n", strings.TrimSpace(strings.Repeat("%h ", len(targets))), strings.Join(targets, ", "))
	p("                tb_c = $fgetc(tb_fd);\n")
	p("                while (tb_c == \" \" || tb_c == \"\\t\" || tb_c == 13)\n")
	p("                    tb_c = $fgetc(tb_fd);\n")
	p("                if (tb_r != %d || (tb_c != \"\\n\" && tb_c != -1)) begin\n", len(targets))
	p("                    $display(\"FAIL %%0s line %%0d: not %d hex columns\", tb_file, tb_line);\n", len(targets))
	p("                    $fatal(1, \"%s: bad vector file\");\n", tb)
	p("                end\n")
	if g.Clocked {
		p("                tb_check = 1'b1;\n")
	}
	p("                #1;\n")
	inFmt, inArgs := inputsText(ins)
	p("                if (%s) begin\n", MismatchSignal)
	for k, port := range outs {
		w := port.Width()
		exp := port.Name + ExpectedSuffix
		switch {
		case len(outs) == 1:
		case k == 0:
			p("                    if (%s !== %s) begin\n", port.Name, exp)
		case k == len(outs)-1:
			p("                    end else begin\n")
		default:
			p("                    end else if (%s !== %s) begin\n", port.Name, exp)
		}
		ind := "                        "
		if len(outs) == 1 {
			ind = "                    "
		}
		p("%s$display(\"FAIL %s %%0d (%%0s line %%0d): %s expected %d'h%%h, got %d'h%%h; inputs %s\",\n", ind, what, port.Name, w, w, inFmt)
		p("%s    tb_n, tb_file, tb_line, %s, %s%s);\n", ind, exp, port.Name, inArgs)
	}
	if len(outs) > 1 {
		p("                    end\n")
	}
	p("                    if (tb_dump_at >= 0 && tb_n >= tb_dump_at)\n")
	p("                        $dumpflush;\n")
	p("                    $fatal(1, \"%s: %s %%0d failed\", tb_n);\n", tb, what)
	p("                end\n")
	if g.Clocked {
		p("                %s = 1'b1;\n", d.Clock)
		p("                tb_check = 1'b0;\n")
		p("                #1;\n")
		p("                %s = 1'b0;\n", d.Clock)
	}
	p("                tb_n = tb_n + 1;\n")
	p("            end\n")
	p("            if (tb_c == \"\\n\")\n")
	p("                tb_line = tb_line + 1;\n")
	p("            if (tb_c != -1)\n")
	p("                tb_c = $fgetc(tb_fd);\n")
	p("        end\n")
	p("        $fclose(tb_fd);\n")
	p("        if (tb_n == 0) begin\n")
	p("            $display(\"FAIL no %s in %%0s\", tb_file);\n", whats)
	p("            $fatal(1, \"%s: no %s\");\n", tb, whats)
	p("        end\n")
	p("        $display(\"PASS %%0d %s\", tb_n);\n", whats)
	p("        $finish;\n")
	p("    end\n")
	p("\n")
	p("endmodule\n")
	return []byte(b.String())
}

const ruleLine = "// ----------------------------------------------------------------------------"

// inputsText is the $display format and arguments (each with a leading
// ", ") that print every input as name=W'hVALUE.
func inputsText(ins []*netlist.Port) (format, args string) {
	var fs []string
	var as strings.Builder
	for _, port := range ins {
		fs = append(fs, fmt.Sprintf("%s=%d'h%%h", port.Name, port.Width()))
		as.WriteString(", " + port.Name)
	}
	if len(fs) == 0 {
		return "(none)", ""
	}
	return strings.Join(fs, " "), as.String()
}

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

// declText is the range of a declaration of width w, "" for one bit.
func declText(w int) string {
	if w == 1 {
		return ""
	}
	return fmt.Sprintf("[%d:0]", w-1)
}

// rangeText describes a port's bits for the header comment.
func rangeText(w int) string {
	if w == 1 {
		return "1 bit"
	}
	return fmt.Sprintf("[%d:0]", w-1)
}

// portDecls declares the testbench's nets of the module under test: its
// clock, a reg per input, a wire per output and, with expected, a reg per
// output for its expected value.
func portDecls(g *GoldenSet, ins, outs []*netlist.Port, expected bool) [][]string {
	var decls [][]string
	if g.Clocked {
		decls = append(decls, []string{"reg", "", g.Design.Clock + ";"})
	}
	for _, port := range ins {
		decls = append(decls, []string{"reg", declText(port.Width()), port.Name + ";"})
	}
	for _, port := range outs {
		decls = append(decls, []string{"wire", declText(port.Width()), port.Name + ";"})
		if expected {
			decls = append(decls, []string{"reg", declText(port.Width()), port.Name + ExpectedSuffix + ";"})
		}
	}
	return decls
}

// dutInstance is the testbench's instance of the module under test (the
// macro DUT), every port on the testbench's signal of the same name.
func dutInstance(g *GoldenSet, ins, outs []*netlist.Port) string {
	var conns []string
	if g.Clocked {
		conns = append(conns, g.Design.Clock)
	}
	for _, port := range ins {
		conns = append(conns, port.Name)
	}
	for _, port := range outs {
		conns = append(conns, port.Name)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "    `%s dut (\n", DUTMacro)
	for i, c := range conns {
		sep := ","
		if i == len(conns)-1 {
			sep = ""
		}
		fmt.Fprintf(&b, "        .%s(%s)%s\n", c, c, sep)
	}
	b.WriteString("    );\n")
	return b.String()
}

// resetCycle is the testbench's first stimulus: every input 0, and for a
// clocked unit rst 1 over one clock edge; prologue comes first in a
// clocked unit's reset cycle.
func resetCycle(g *GoldenSet, ins []*netlist.Port, prologue string) string {
	var b strings.Builder
	if g.Clocked {
		b.WriteString("        // The reset cycle.\n")
		b.WriteString(prologue)
		fmt.Fprintf(&b, "        %s = 1'b0;\n", g.Design.Clock)
	}
	for _, port := range ins {
		v := "0"
		if g.Clocked && port.Name == ResetPort {
			v = "1"
		}
		fmt.Fprintf(&b, "        %s = %d'd%s;\n", port.Name, port.Width(), v)
	}
	if g.Clocked {
		fmt.Fprintf(&b, "        #1;\n        %s = 1'b1;\n        #1;\n        %s = 1'b0;\n", g.Design.Clock, g.Design.Clock)
	}
	return b.String()
}
