package hdl

import (
	"errors"
	"fmt"
	"strings"

	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/rtl"
)

// TopModule is the name of the cross-check testbench's module (Bench); its
// file is TopModule+".v" in the Bench's Dir (Verilator's DECLFILENAME wants
// the two to match).
const TopModule = "lsugen_tb"

// ExpectedSuffix ends the name of the testbench's register that holds an
// output's expected value (bank_o_expected beside bank_o), and
// MismatchSignal is its one-bit flag that an output differs from its
// expected value: signals of every testbench's VCD and of lsugen's own.
const (
	ExpectedSuffix = "_expected"
	MismatchSignal = "mismatch"
)

// The plusargs of a testbench's waveform: +DumpPlusarg writes a VCD to the
// testbench's Module+".vcd", +DumpPlusarg=FILE to FILE; +DumpFromPlusarg=N
// starts it at vector (cycle) N, so that a failure deep in a long run
// leaves a small VCD.
const (
	DumpPlusarg     = "dump"
	DumpFromPlusarg = "vcdfrom"
)

// The plusargs of a harness testbench (Testbench.Golden false): the vector
// file, the output file, the number of vectors and the nonce. They carry
// lsugen_ so that they cannot be a module under test's own.
const (
	InPlusarg    = "lsugen_in"
	OutPlusarg   = "lsugen_out"
	CountPlusarg = "lsugen_n"
	NoncePlusarg = "lsugen_nonce"
	ExpPlusarg   = "lsugen_exp"
)

// Harness messages: an error of the testbench itself starts with TBError;
// a harness run that applied every vector ends with TBDone and the count.
const (
	TBError = "LSUGEN_TB_ERROR"
	TBDone  = "LSUGEN_TB_DONE"
)

// maxPathChars is the length of the testbench's file-name registers.
const maxPathChars = 1024

// Testbench is lsugen's one Verilog-2005 testbench writer (plus $fatal,
// which Icarus takes under -g2005 and Verilator everywhere): the
// self-checking testbench of `lsugen gen --tb`, the harness of `lsugen
// verify --rtl` and the simulators' cross-check harness (Bench) are each a
// set of its options.
//
// Every testbench names its signals after the ports: an input (a reg,
// or in a harness a wire sliced from the one register tb_in, so that a
// vector's inputs change in one assignment) and each module's outputs
// (wires). It applies a vector's inputs to every module at once and, 1 ns
// later, reads the modules' outputs. A
// clocked testbench (Clock) drives the clock: first a reset cycle (Reset
// = 1, every other input 0, outputs not read; without Reset two idle
// nanoseconds), then one vector per cycle, its inputs at 2v+2 ns, its
// outputs read at 2v+3, the rising edge at 2v+3 and the clock low at
// 2v+4. A combinational testbench applies vector v at v ns.
//
// The vectors stream from a file with $fscanf, a line at a time, each
// port a column of hex digits: one build serves every vector count, and
// memory stays flat for a million vectors.
//
//   - Golden (self-checking): the file is the golden vector file (lines
//     starting with # and blank lines skipped; each line the inputs, then
//     the expected outputs), VectorFile by default or +vectors=FILE, read
//     to its end. The testbench compares every output with === and prints
//     "PASS <n> vectors" ("cycles"), or the first failing vector and stops
//     with $fatal(1).
//   - Harness (Golden false): +lsugen_in=FILE holds exactly +lsugen_n=N
//     lines, each the inputs (then, with Expected and +lsugen_exp, the
//     expected outputs, for the waveform only). For each vector the
//     testbench writes one line per module under test to
//     +lsugen_out=FILE: its outputs, in hex, separated by spaces; lsugen
//     compares them. With Nonce the
//     output file begins and ends with +lsugen_nonce=HEX (128 bits). The
//     end prints LSUGEN_TB_DONE <n>; an error, a line starting with
//     LSUGEN_TB_ERROR, and $finish. A harness is plain Verilog-2005.
//
// With VCD, +dump (+dump=FILE) writes a waveform of the run (from
// +vcdfrom=N on): the inputs, the modules' outputs, with expected values
// each output's <port>_expected and the flag mismatch, and the modules'
// own signals.
type Testbench struct {
	Module    string // the testbench's module name
	Comment   string // its header comment: whole lines, each starting with //
	Timescale bool   // begin with `timescale 1ns / 1ps

	Ports []netlist.Port // the modules' shared interface (Name, Dir and width)
	Clock string         // the one-bit input the testbench drives as the clock; "" for combinational
	Reset string         // the one-bit reset input, 1 in the reset cycle; "" for none

	// Modules are the modules under test. With Macro, there is one: the
	// testbench instantiates `Macro as dut (Macro defaults to Modules[0])
	// and names its outputs after the ports; without, module k is the
	// instance dut<k> with outputs m<k>_<port>.
	Modules []string
	Macro   string

	Golden     bool   // self-checking: the golden vector file, === compare, PASS/FAIL
	VectorFile string // Golden: the vector file read without +vectors
	Expected   bool   // harness: with +lsugen_exp the vector lines end with the expected outputs (for the waveform)
	Nonce      bool   // harness: frame the output file with +lsugen_nonce
	VCD        bool   // +dump and +vcdfrom write a waveform
}

// field is one port's column.
type field struct {
	name  string
	width int
}

// tbPorts are a testbench's ports sorted by role.
type tbPorts struct {
	ins, outs []field
	reset     int // index into ins of the reset input, -1 for none
}

// ports checks the options and sorts the ports.
func (t *Testbench) ports() (*tbPorts, error) {
	if !isIdent(t.Module) {
		return nil, fmt.Errorf("testbench module %q is not a Verilog identifier", t.Module)
	}
	if len(t.Modules) == 0 {
		return nil, errors.New("no module under test")
	}
	if t.Macro != "" && (len(t.Modules) != 1 || !isIdent(t.Macro)) {
		return nil, fmt.Errorf("the macro %q names one module under test", t.Macro)
	}
	if t.Golden && t.Macro == "" {
		return nil, errors.New("a self-checking testbench checks one module, named by its macro")
	}
	for _, m := range t.Modules {
		if !isIdent(m) {
			return nil, fmt.Errorf("module name %q is not a Verilog identifier", m)
		}
		if m == t.Module {
			return nil, fmt.Errorf("module name %q is the testbench's", m)
		}
	}
	if t.Clock == "" && t.Reset != "" {
		return nil, fmt.Errorf("reset %s without a clock", t.Reset)
	}
	if t.Clock != "" && t.Clock == t.Reset {
		return nil, fmt.Errorf("%s is both the clock and the reset", t.Clock)
	}
	tp := &tbPorts{reset: -1}
	seen := map[string]bool{}
	for i := range t.Ports {
		p := &t.Ports[i]
		if !isIdent(p.Name) {
			return nil, fmt.Errorf("port %d: %q is not a Verilog identifier", i, p.Name)
		}
		if seen[p.Name] {
			return nil, fmt.Errorf("port %s listed twice", p.Name)
		}
		seen[p.Name] = true
		w := len(p.Bits)
		if w == 0 {
			return nil, fmt.Errorf("port %s has width 0", p.Name)
		}
		if (p.Name == t.Clock || p.Name == t.Reset) && (p.Dir != netlist.In || w != 1) {
			what := "clock"
			if p.Name == t.Reset {
				what = "reset"
			}
			return nil, fmt.Errorf("the %s %s is not a one-bit input", what, p.Name)
		}
		switch {
		case p.Name == t.Clock:
			// Driven by the testbench.
		case p.Dir == netlist.In:
			if p.Name == t.Reset {
				tp.reset = len(tp.ins)
			}
			tp.ins = append(tp.ins, field{p.Name, w})
		case p.Dir == netlist.Out:
			tp.outs = append(tp.outs, field{p.Name, w})
		default:
			return nil, fmt.Errorf("port %s: unknown direction %d", p.Name, p.Dir)
		}
	}
	if len(tp.outs) == 0 {
		return nil, errors.New("no output ports: nothing to compare")
	}
	if t.Clock != "" && !seen[t.Clock] {
		return nil, fmt.Errorf("no clock input %s", t.Clock)
	}
	if t.Reset != "" && tp.reset < 0 {
		return nil, fmt.Errorf("no reset input %s", t.Reset)
	}
	return tp, t.checkNames(tp)
}

// checkNames refuses ports whose names clash with the testbench's own:
// tb_*, the instances, the macro, mismatch, the outputs' signals and their
// expected values.
func (t *Testbench) checkNames(tp *tbPorts) error {
	own := map[string]string{t.Module: "the testbench module", MismatchSignal: "the flag " + MismatchSignal}
	if t.Macro != "" {
		own["dut"] = "the instance dut"
		own[t.Macro] = "the macro " + t.Macro
	}
	for k, m := range t.Modules {
		if t.Macro == "" {
			own[fmt.Sprintf("dut%d", k)] = fmt.Sprintf("the instance dut%d", k)
		}
		own[m] = "the module " + m
	}
	for _, p := range t.Ports {
		if strings.HasPrefix(p.Name, "tb_") {
			return fmt.Errorf("port %s clashes with the testbench's names tb_*", p.Name)
		}
		if what, ok := own[p.Name]; ok {
			return fmt.Errorf("port %s clashes with the testbench's name of %s", p.Name, what)
		}
	}
	sig := map[string]string{}
	add := func(name, what string) error {
		if other, ok := sig[name]; ok {
			return fmt.Errorf("the testbench's signal %s would be both %s and %s", name, other, what)
		}
		if what2, ok := own[name]; ok {
			return fmt.Errorf("the testbench's signal %s of %s clashes with %s", name, what, what2)
		}
		sig[name] = what
		return nil
	}
	for _, p := range t.Ports {
		if p.Dir == netlist.In {
			if err := add(p.Name, "input "+p.Name); err != nil {
				return err
			}
		}
	}
	for k := range t.Modules {
		for _, f := range tp.outs {
			if err := add(t.outName(k, f.name), "output "+f.name); err != nil {
				return err
			}
		}
	}
	if t.Golden || t.Expected {
		for _, f := range tp.outs {
			if err := add(f.name+ExpectedSuffix, "the expected value of output "+f.name); err != nil {
				return err
			}
		}
	}
	return nil
}

// Check reports whether the options and the ports make a testbench: the
// errors of Write.
func (t *Testbench) Check() error {
	_, err := t.ports()
	return err
}

// outName is the testbench's wire of module k's output port.
func (t *Testbench) outName(k int, port string) string {
	if t.Macro != "" {
		return port
	}
	return fmt.Sprintf("m%d_%s", k, port)
}

// instName is module k's instance.
func (t *Testbench) instName(k int) string {
	if t.Macro != "" {
		return "dut"
	}
	return fmt.Sprintf("dut%d", k)
}

// Write renders the testbench.
func (t *Testbench) Write() ([]byte, error) {
	tp, err := t.ports()
	if err != nil {
		return nil, err
	}
	w := &tbWriter{t: t, tp: tp, clocked: t.Clock != "", expected: t.Golden || t.Expected}
	w.what, w.whats = "vector", "vectors"
	if w.clocked {
		w.what, w.whats = "cycle", "cycles"
	}
	w.write()
	return []byte(rtl.WrapText(w.b.String())), nil
}

type tbWriter struct {
	t           *Testbench
	tp          *tbPorts
	b           strings.Builder
	clocked     bool
	expected    bool // the expected registers and mismatch
	what, whats string
}

func (w *tbWriter) p(format string, args ...any) { fmt.Fprintf(&w.b, format, args...) }

// check is whether the testbench has tb_check: a clocked one with
// expected values, where mismatch holds only between a cycle's inputs and
// its rising edge.
func (w *tbWriter) check() bool { return w.clocked && w.expected }

// fatal stops the simulation on an error of the testbench itself: the
// message line, then $fatal(1) in a self-checking testbench (its exit
// status is its verdict) or $finish in a harness, which stays within
// Verilog-2005 (the cross-check's Verilator reads 1364-2005, without
// $fatal) and whose runner reads the message.
func (w *tbWriter) fatal(ind, msg, args, why string) {
	if w.t.Golden {
		w.p("%s$display(\"FAIL %s\"%s);\n", ind, msg, args)
		w.p("%s$fatal(1, \"%s: %s\");\n", ind, w.t.Module, why)
		return
	}
	w.p("%s$display(\"%s: %s\"%s);\n", ind, TBError, msg, args)
	w.p("%s$finish;\n", ind)
}

func (w *tbWriter) write() {
	t := w.t
	if t.Timescale {
		w.p("`timescale 1ns / 1ps\n")
		w.p("\n")
	}
	w.p("%s", t.Comment)
	w.p("\n")
	if t.Macro != "" {
		w.p("`ifndef %s\n", t.Macro)
		w.p("`define %s %s\n", t.Macro, t.Modules[0])
		w.p("`endif\n")
		w.p("\n")
	}
	w.p("module %s;\n", t.Module)
	w.p("\n")
	w.declarations()
	w.instances()
	w.registers()
	w.p("    initial begin\n")
	if t.Golden {
		w.goldenBody()
	} else {
		w.harnessBody()
	}
	w.p("    end\n")
	w.p("\n")
	w.p("endmodule\n")
}

// declarations declares the signals of the modules under test and, with
// expected values, mismatch.
func (w *tbWriter) declarations() {
	t, tp := w.t, w.tp
	one := len(t.Modules) == 1
	if w.packed() {
		// Icarus propagates each assignment at once: one register for
		// every input evaluates the modules once per vector, not once
		// per input port (a third of the run time of a small module).
		w.p("    // The inputs, one register sliced into a wire per port, so that a vector's\n")
		w.p("    // inputs change in one assignment; tb_in_<port> read them from the file.\n")
		rows := [][]string{{"reg", declRange(w.inWidth()), "tb_in;"}}
		for _, f := range tp.ins {
			rows = append(rows, []string{"reg", declRange(f.width), "tb_in_" + f.name + ";"})
		}
		for _, l := range rtl.Table(rows) {
			w.p("    %s\n", l)
		}
		w.p("\n")
	}
	if w.expected && one {
		w.p("    // The module under test: inputs, outputs and the expected outputs.\n")
	} else if w.expected {
		w.p("    // The modules under test: inputs, outputs, and the expected outputs.\n")
	}
	var decls [][]string
	if w.clocked {
		decls = append(decls, []string{"reg", "", t.Clock + ";"})
	}
	off := 0
	for _, f := range tp.ins {
		if w.packed() {
			decls = append(decls, []string{"wire", declRange(f.width), fmt.Sprintf("%s = tb_in%s;", f.name, partSelect(off, f.width))})
			off += f.width
			continue
		}
		decls = append(decls, []string{"reg", declRange(f.width), f.name + ";"})
	}
	for k := range t.Modules {
		for _, f := range tp.outs {
			decls = append(decls, []string{"wire", declRange(f.width), t.outName(k, f.name) + ";"})
			if w.expected && one {
				decls = append(decls, []string{"reg", declRange(f.width), f.name + ExpectedSuffix + ";"})
			}
		}
	}
	for _, f := range tp.outs {
		if w.expected && !one {
			decls = append(decls, []string{"reg", declRange(f.width), f.name + ExpectedSuffix + ";"})
		}
	}
	for _, l := range rtl.Table(decls) {
		w.p("    %s\n", l)
	}
	w.p("\n")
	if !w.expected {
		return
	}
	var differs []string
	for k := range t.Modules {
		for _, f := range tp.outs {
			differs = append(differs, fmt.Sprintf("%s !== %s%s", t.outName(k, f.name), f.name, ExpectedSuffix))
		}
	}
	gate := ""
	if !t.Golden {
		w.p("    reg tb_exp; // 1 when the vector lines carry the expected outputs (+%s)\n", ExpPlusarg)
		// The harness reads no mismatch: it is for the waveform.
		w.p("    /* verilator lint_off UNUSEDSIGNAL */\n")
		gate = "tb_exp && "
	}
	if w.check() {
		w.p("    // 1 from the time a cycle's inputs are applied to the rising edge, where\n")
		w.p("    // the outputs are compared; 0 in the reset cycle.\n")
		w.p("    reg tb_check;\n")
		w.p("    // 1 while an output differs from its expected value (x or z bits differ).\n")
		w.p("    wire %s = %stb_check && (%s);\n", MismatchSignal, gate, strings.Join(differs, " || "))
	} else {
		w.p("    // 1 while an output differs from its expected value (x or z bits differ).\n")
		if gate != "" {
			w.p("    wire %s = %s(%s);\n", MismatchSignal, gate, strings.Join(differs, " || "))
		} else {
			w.p("    wire %s = %s;\n", MismatchSignal, strings.Join(differs, " || "))
		}
	}
	if !t.Golden {
		w.p("    /* verilator lint_on UNUSEDSIGNAL */\n")
	}
	w.p("\n")
}

// instances instantiates the modules under test, every port on the
// testbench's signal of its name.
func (w *tbWriter) instances() {
	t, tp := w.t, w.tp
	for k, m := range t.Modules {
		type conn struct{ port, sig string }
		var conns []conn
		if w.clocked {
			conns = append(conns, conn{t.Clock, t.Clock})
		}
		for _, f := range tp.ins {
			conns = append(conns, conn{f.name, f.name})
		}
		for _, f := range tp.outs {
			conns = append(conns, conn{f.name, t.outName(k, f.name)})
		}
		if t.Macro != "" {
			w.p("    `%s dut (\n", t.Macro)
		} else {
			w.p("    %s %s (\n", m, w.t.instName(k))
		}
		for i, c := range conns {
			sep := ","
			if i == len(conns)-1 {
				sep = ""
			}
			w.p("        .%s(%s)%s\n", c.port, c.sig, sep)
		}
		w.p("    );\n")
		w.p("\n")
	}
}

// registers declares the testbench's own registers, one comment each.
func (w *tbWriter) registers() {
	t := w.t
	name := fmt.Sprintf("reg [8*%d-1:0]", maxPathChars)
	var rows [][2]string
	if t.Golden {
		rows = append(rows,
			[2]string{name + " tb_file;", "the vector file's name"},
			[2]string{"integer tb_fd;", "its descriptor"},
			[2]string{"integer tb_line;", "the line being read, from 1"},
			[2]string{"integer tb_n;", fmt.Sprintf("%s checked so far: the current %s's number", w.whats, w.what)},
			[2]string{"integer tb_c;", "the character read, -1 at the end of the file"},
			[2]string{"integer tb_r;", "a system function's result"})
	} else {
		rows = append(rows,
			[2]string{name + " tb_file;", "the vector file's name (+" + InPlusarg + ")"},
			[2]string{"integer tb_fd;", "its descriptor"},
			[2]string{name + " tb_out_file;", "the output file's name (+" + OutPlusarg + ")"},
			[2]string{"integer tb_fout;", "its descriptor"},
			[2]string{"integer tb_count;", fmt.Sprintf("the %s to apply (+%s)", w.whats, CountPlusarg)},
			[2]string{"integer tb_n;", fmt.Sprintf("%s applied so far: the current %s's number", w.whats, w.what)})
		if w.columns() > 0 || t.VCD {
			rows = append(rows, [2]string{"integer tb_r;", "a system function's result"})
		}
		if t.Nonce {
			rows = append(rows, [2]string{"reg [127:0] tb_nonce;", "the run's nonce (+" + NoncePlusarg + ")"})
		}
	}
	if t.VCD {
		rows = append(rows,
			[2]string{name + " tb_dump;", "the VCD's name (+" + DumpPlusarg + ")"},
			[2]string{"integer tb_dump_at;", fmt.Sprintf("the %s where the dump starts; -1: no dump", w.what)})
	}
	width := 0
	for _, r := range rows {
		width = max(width, len(r[0]))
	}
	for _, r := range rows {
		w.p("    %-*s // %s\n", width, r[0], r[1])
	}
	w.p("\n")
}

// columns is the number of hex columns of a vector line.
func (w *tbWriter) columns() int {
	n := len(w.tp.ins)
	if w.expected {
		n += len(w.tp.outs)
	}
	return n
}

// scanf is the $fscanf of a vector line's columns into the inputs and the
// expected outputs, format then targets.
func (w *tbWriter) scanf() (string, string) {
	var targets []string
	for _, f := range w.tp.ins {
		if w.packed() {
			targets = append(targets, "tb_in_"+f.name)
		} else {
			targets = append(targets, f.name)
		}
	}
	if w.expected {
		for _, f := range w.tp.outs {
			targets = append(targets, f.name+ExpectedSuffix)
		}
	}
	return strings.TrimSpace(strings.Repeat("%h ", len(targets))), strings.Join(targets, ", ")
}

// dumpSetup reads +dump and +vcdfrom and starts the dump at time 0 when
// it starts at the first vector. Verilator 5.006 ignores a $dumpfile in the
// block of a $value$plusargs, hence the plain statements.
func (w *tbWriter) dumpSetup() {
	if !w.t.VCD {
		return
	}
	t := w.t
	w.p("        tb_dump = %q;\n", t.Module+".vcd")
	w.p("        tb_r = $value$plusargs(\"%s=%%s\", tb_dump);\n", DumpPlusarg)
	w.p("        tb_dump_at = 0;\n")
	w.p("        tb_r = $value$plusargs(\"%s=%%d\", tb_dump_at);\n", DumpFromPlusarg)
	w.p("        if (tb_dump_at < 0)\n")
	w.p("            tb_dump_at = 0;\n")
	w.p("        if (!$test$plusargs(\"%s\"))\n", DumpPlusarg)
	w.p("            tb_dump_at = -1;\n")
	w.p("        if (tb_dump_at == 0) begin\n")
	w.p("            $dumpfile(tb_dump);\n")
	w.p("            $dumpvars(0, %s);\n", t.Module)
	w.p("        end\n")
}

// dumpStart starts a dump that begins at a later vector, at indent ind.
func (w *tbWriter) dumpStart(ind string) {
	if !w.t.VCD {
		return
	}
	w.p("%sif (tb_n == tb_dump_at && tb_n != 0) begin\n", ind)
	w.p("%s    $dumpfile(tb_dump);\n", ind)
	w.p("%s    $dumpvars(0, %s);\n", ind, w.t.Module)
	w.p("%send\n", ind)
}

// resetCycle is the first stimulus: every input 0 and, in a clocked
// testbench, the reset cycle (reset 1 over one rising edge) or, without a
// reset, two idle nanoseconds.
func (w *tbWriter) resetCycle() {
	t, tp := w.t, w.tp
	if w.clocked {
		if tp.reset >= 0 {
			w.p("        // The reset cycle.\n")
		} else {
			w.p("        // No reset input: two idle nanoseconds instead of a reset cycle.\n")
		}
		if w.check() {
			w.p("        tb_check = 1'b0;\n")
		}
		w.p("        %s = 1'b0;\n", t.Clock)
	}
	if w.packed() {
		w.p("        tb_in = %s;\n", w.resetValue())
	} else {
		for i, f := range tp.ins {
			v := "0"
			if i == tp.reset {
				v = "1"
			}
			w.p("        %s = %d'd%s;\n", f.name, f.width, v)
		}
	}
	if w.clocked {
		if tp.reset >= 0 {
			w.p("        #1;\n        %s = 1'b1;\n        #1;\n        %s = 1'b0;\n", t.Clock, t.Clock)
		} else {
			w.p("        #2;\n")
		}
	}
}

// packed is whether the inputs are wires sliced from one register, tb_in:
// in a harness with inputs. The standalone testbench keeps a register per
// input, which its header documents.
func (w *tbWriter) packed() bool { return !w.t.Golden && len(w.tp.ins) > 0 }

// inWidth is the width of tb_in: the inputs' widths summed.
func (w *tbWriter) inWidth() int {
	n := 0
	for _, f := range w.tp.ins {
		n += f.width
	}
	return n
}

// partSelect is the select of w bits at off.
func partSelect(off, w int) string {
	if w == 1 {
		return fmt.Sprintf("[%d]", off)
	}
	return fmt.Sprintf("[%d:%d]", off+w-1, off)
}

// resetValue is tb_in in the reset cycle: every input 0, the reset 1.
func (w *tbWriter) resetValue() string {
	n := w.inWidth()
	if w.tp.reset < 0 {
		return fmt.Sprintf("%d'd0", n)
	}
	off := 0
	for _, f := range w.tp.ins[:w.tp.reset] {
		off += f.width
	}
	var parts []string
	if hi := n - off - 1; hi > 0 {
		parts = append(parts, fmt.Sprintf("%d'd0", hi))
	}
	parts = append(parts, "1'b1")
	if off > 0 {
		parts = append(parts, fmt.Sprintf("%d'd0", off))
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// inConcat is the concatenation of the tb_in_<port> registers, the first
// input in the least significant bits.
func (w *tbWriter) inConcat() string {
	var parts []string
	for i := len(w.tp.ins) - 1; i >= 0; i-- {
		parts = append(parts, "tb_in_"+w.tp.ins[i].name)
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// edge ends a cycle of a clocked testbench: the rising edge, then the
// clock low 1 ns later.
func (w *tbWriter) edge(ind string) {
	if !w.clocked {
		return
	}
	w.p("%s%s = 1'b1;\n", ind, w.t.Clock)
	if w.check() {
		w.p("%stb_check = 1'b0;\n", ind)
	}
	w.p("%s#1;\n", ind)
	w.p("%s%s = 1'b0;\n", ind, w.t.Clock)
}

// goldenBody is the initial block of the self-checking testbench: the
// golden vector file read to its end.
func (w *tbWriter) goldenBody() {
	t, tp := w.t, w.tp
	tb := t.Module
	w.p("        tb_file = %q;\n", t.VectorFile)
	w.p("        tb_r = $value$plusargs(\"vectors=%%s\", tb_file);\n")
	w.p("        tb_fd = $fopen(tb_file, \"r\");\n")
	w.p("        if (tb_fd == 0) begin\n")
	w.fatal("            ", "cannot open the vector file %0s", ", tb_file", "no vector file")
	w.p("        end\n")
	w.dumpSetup()
	w.resetCycle()
	w.p("        tb_n = 0;\n")
	w.p("        tb_line = 1;\n")
	w.p("        tb_c = $fgetc(tb_fd);\n")
	w.p("        while (tb_c != -1) begin\n")
	w.p("            if (tb_c == \"#\") begin\n")
	w.p("                // A comment: skip the rest of the line.\n")
	w.p("                while (tb_c != \"\\n\" && tb_c != -1)\n")
	w.p("                    tb_c = $fgetc(tb_fd);\n")
	// 13 is CR, which Verilog-2005 has no string escape for.
	w.p("            end else if (tb_c != \"\\n\" && tb_c != \" \" && tb_c != \"\\t\" && tb_c != 13) begin\n")
	w.dumpStart("                ")
	w.p("                // A %s: the inputs, then the expected outputs.\n", w.what)
	w.p("                tb_r = $ungetc(tb_c, tb_fd);\n")
	format, targets := w.scanf()
	n := w.columns()
	w.p("                tb_r = $fscanf(tb_fd, \"%s\", %s);\n", format, targets)
	w.p("                tb_c = $fgetc(tb_fd);\n")
	w.p("                while (tb_c == \" \" || tb_c == \"\\t\" || tb_c == 13)\n")
	w.p("                    tb_c = $fgetc(tb_fd);\n")
	w.p("                if (tb_r != %d || (tb_c != \"\\n\" && tb_c != -1)) begin\n", n)
	w.fatal("                    ", fmt.Sprintf("%%0s line %%0d: not %d hex columns", n), ", tb_file, tb_line", "bad vector file")
	w.p("                end\n")
	if w.check() {
		w.p("                tb_check = 1'b1;\n")
	}
	w.p("                #1;\n")
	ins := inputsText(tp.ins)
	w.p("                if (%s) begin\n", MismatchSignal)
	outs := tp.outs
	for k, f := range outs {
		exp := f.name + ExpectedSuffix
		switch {
		case len(outs) == 1:
		case k == 0:
			w.p("                    if (%s !== %s) begin\n", f.name, exp)
		case k == len(outs)-1:
			w.p("                    end else begin\n")
		default:
			w.p("                    end else if (%s !== %s) begin\n", f.name, exp)
		}
		ind := "                        "
		if len(outs) == 1 {
			ind = "                    "
		}
		w.failLine(ind, f, exp, ins)
	}
	if len(outs) > 1 {
		w.p("                    end\n")
	}
	if t.VCD {
		w.p("                    if (tb_dump_at >= 0 && tb_n >= tb_dump_at)\n")
		w.p("                        $dumpflush;\n")
	}
	w.p("                    $fatal(1, \"%s: %s %%0d failed\", tb_n);\n", tb, w.what)
	w.p("                end\n")
	w.edge("                ")
	w.p("                tb_n = tb_n + 1;\n")
	w.p("            end\n")
	w.p("            if (tb_c == \"\\n\")\n")
	w.p("                tb_line = tb_line + 1;\n")
	w.p("            if (tb_c != -1)\n")
	w.p("                tb_c = $fgetc(tb_fd);\n")
	w.p("        end\n")
	w.p("        $fclose(tb_fd);\n")
	w.p("        if (tb_n == 0) begin\n")
	w.fatal("            ", fmt.Sprintf("no %s in %%0s", w.whats), ", tb_file", "no "+w.whats)
	w.p("        end\n")
	w.p("        $display(\"PASS %%0d %s\", tb_n);\n", w.whats)
	w.p("        $finish;\n")
}

// harnessBody is the initial block of a harness testbench: +lsugen_n
// vectors in, every module's outputs out.
func (w *tbWriter) harnessBody() {
	t := w.t
	w.p("        tb_count = 0;\n")
	need := fmt.Sprintf("!$value$plusargs(\"%s=%%s\", tb_file) || !$value$plusargs(\"%s=%%s\", tb_out_file)\n"+
		"                || !$value$plusargs(\"%s=%%d\", tb_count)", InPlusarg, OutPlusarg, CountPlusarg)
	needs := fmt.Sprintf("+%s, +%s and +%s", InPlusarg, OutPlusarg, CountPlusarg)
	if t.Nonce {
		w.p("        tb_nonce = 128'd0;\n")
		need += fmt.Sprintf(" || !$value$plusargs(\"%s=%%h\", tb_nonce)", NoncePlusarg)
		needs = fmt.Sprintf("+%s, +%s, +%s and +%s", InPlusarg, OutPlusarg, CountPlusarg, NoncePlusarg)
	}
	w.p("        if (%s) begin\n", need)
	w.fatal("            ", "need "+needs, "", "plusargs")
	w.p("        end\n")
	if t.Expected {
		w.p("        tb_exp = $test$plusargs(\"%s\") != 0;\n", ExpPlusarg)
	}
	w.p("        tb_fd = $fopen(tb_file, \"r\");\n")
	w.p("        tb_fout = $fopen(tb_out_file, \"w\");\n")
	w.p("        if (tb_fd == 0 || tb_fout == 0) begin\n")
	w.fatal("            ", "cannot open the vector or the output file", "", "files")
	w.p("        end\n")
	if t.VCD {
		w.dumpSetup()
	}
	if t.Nonce {
		w.p("        $fwrite(tb_fout, \"%%h\\n\", tb_nonce);\n")
	}
	w.resetCycle()
	w.p("        for (tb_n = 0; tb_n < tb_count; tb_n = tb_n + 1) begin\n")
	w.dumpStart("            ")
	w.harnessRead()
	if w.check() {
		w.p("            tb_check = 1'b1;\n")
	}
	w.p("            #1;\n")
	for k := range t.Modules {
		var names []string
		for _, f := range w.tp.outs {
			names = append(names, t.outName(k, f.name))
		}
		w.p("            $fwrite(tb_fout, \"%s\\n\", %s);\n", strings.TrimSpace(strings.Repeat("%h ", len(names))), strings.Join(names, ", "))
	}
	w.edge("            ")
	w.p("        end\n")
	if t.Nonce {
		w.p("        $fwrite(tb_fout, \"%%h\\n\", tb_nonce);\n")
	}
	w.p("        $fclose(tb_fout);\n")
	w.p("        $fclose(tb_fd);\n")
	w.p("        $display(\"%s %%0d\", tb_n);\n", TBDone)
	w.p("        $finish;\n")
}

// harnessRead reads a harness's vector line: the inputs and, with
// +lsugen_exp, the expected outputs.
func (w *tbWriter) harnessRead() {
	ni, n := len(w.tp.ins), w.columns()
	format, targets := w.scanf()
	w.expected = false
	inFormat, inTargets := w.scanf()
	w.expected = w.t.Expected
	read := func(ind, format, targets string) {
		w.p("%stb_r = $fscanf(tb_fd, \"%s\\n\", %s);\n", ind, format, targets)
	}
	switch {
	case n == 0:
		return
	case !w.t.Expected:
		read("            ", format, targets)
		w.p("            if (tb_r != %d) begin\n", n)
	case ni == 0:
		w.p("            if (tb_exp) begin\n")
		read("                ", format, targets)
		w.p("            end\n")
		w.p("            if (tb_exp && tb_r != %d) begin\n", n)
	default:
		w.p("            if (tb_exp)\n")
		read("                ", format, targets)
		w.p("            else\n")
		read("                ", inFormat, inTargets)
		w.p("            if (tb_r != (tb_exp ? %d : %d)) begin\n", n, ni)
	}
	w.fatal("                ", "cannot read "+w.what+" %0d", ", tb_n", "vector file")
	w.p("            end\n")
	if w.packed() {
		w.p("            tb_in = %s;\n", w.inConcat())
	}
}

// inputsText is the $display format and arguments (each with a leading
// ", ") that print every input as name=W'hVALUE, in parts whose format
// strings fit a line (a Verilog-2005 string cannot be broken), each part's
// format starting with a space.
func inputsText(ins []field) []textPart {
	if len(ins) == 0 {
		return []textPart{{format: " (none)"}}
	}
	var parts []textPart
	var cur textPart
	for _, f := range ins {
		item := fmt.Sprintf(" %s=%d'h%%h", f.name, f.width)
		if cur.format != "" && len(cur.format)+len(item) > maxFormatLength {
			parts = append(parts, cur)
			cur = textPart{}
		}
		cur.format += item
		cur.args += ", " + f.name
	}
	return append(parts, cur)
}

// textPart is one $write or $display's format string and its arguments.
type textPart struct{ format, args string }

// maxFormatLength bounds a format string of the failure message, so that
// its statement stays within rtl.MaxLineLength at the deepest indent.
const maxFormatLength = 120

// failLine prints the failure of output f against its expected value exp:
// one line of output from a $write per part and a closing $display, so
// that no line of the testbench is longer than rtl.MaxLineLength.
func (w *tbWriter) failLine(ind string, f field, exp string, ins []textPart) {
	w.p("%s$write(\"FAIL %s %%0d (%%0s line %%0d): %s expected %d'h%%h, got %d'h%%h; inputs\",\n", ind, w.what, f.name, f.width, f.width)
	w.p("%s    tb_n, tb_file, tb_line, %s, %s);\n", ind, exp, f.name)
	for i, part := range ins {
		task := "$write"
		if i == len(ins)-1 {
			task = "$display"
		}
		w.p("%s%s(\"%s\"%s);\n", ind, task, part.format, part.args)
	}
}

// declRange is the range of a declaration of width w: "[w-1:0]", or "" for
// one bit.
func declRange(w int) string {
	if w == 1 {
		return ""
	}
	return fmt.Sprintf("[%d:0]", w-1)
}

// hasTimescale reports whether Verilog source text has a `timescale
// directive at the start of a line.
func hasTimescale(src []byte) bool {
	for _, line := range strings.Split(string(src), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "`timescale") {
			return true
		}
	}
	return false
}
