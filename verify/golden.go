package verify

import (
	"fmt"
	"strings"

	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/rtl"
)

// Golden vectors: a unit's inputs and its behavioural model's expected
// outputs, written to a text file that a self-checking Verilog testbench
// (Testbench) reads, so that any Verilog module with the unit's ports can
// be checked without lsugen. `lsugen gen --tb` writes both files, `lsugen
// verify --rtl` runs them, and golden/vectors keeps the files of every
// example spec; all three get them from Golden, so they are the same.

// The size of the golden vectors of one unit. Inputs that number at most
// what `lsugen verify` enumerates by default (DefaultPlan's MaxVectors,
// 2^20: all input bits together, a configurable unit's cfg_* inputs
// included) are all enumerated, in counting order with the first input
// port in the least significant bits, whatever the file's size: a 20-bit
// hash gets all 1,048,576 addresses (9 MiB), so a module wrong at one
// address fails its testbench as it fails `lsugen verify`. Larger input
// spaces get random vectors (or cycles): a line holds every port's value
// in hex, so wide units (2048-bit coalescer warps) get fewer lines, about
// goldenBudget bytes, at least goldenMinLines and at most goldenMaxLines.
// A configurable unit's data inputs are enumerated under each of its
// configurations where that takes at most goldenDataLines lines and twice
// the budget. Coalescers get their directed warps on top.
const (
	goldenBudget    = 128 << 10
	goldenMinLines  = 256
	goldenMaxLines  = 4096
	goldenDataLines = 1 << 14
	goldenConfigs   = 16 // random configurations of a configurable unit, the first all zeros
	goldenSeed      = 1
)

// goldenExhaustive reports whether the golden vectors of a unit with these
// inputs enumerate them all: exactly when `lsugen verify` does by default.
func goldenExhaustive(ins []*netlist.Port) bool {
	bits := 0
	for _, p := range ins {
		bits += p.Width()
	}
	return bits < 63 && 1<<uint(bits) <= DefaultPlan().MaxVectors
}

// GoldenSet is one unit's golden vectors, in the order the testbench
// applies them: for a combinational unit one vector per line, for a clocked
// unit one clock cycle per line after the reset cycle.
type GoldenSet struct {
	Design *netlist.Design
	// Clocked is set for a unit with a clock: the testbench drives
	// Design.Clock, applies one reset cycle (rst = 1, every other input 0,
	// outputs not checked), then one line per cycle.
	Clocked bool
	// Coverage says how the vectors were chosen, e.g. "exhaustive" or
	// "66 directed + random", or what a clocked unit's stream holds.
	Coverage string
	s        *stream // the inputs and expected outputs, without the clock
}

// Len is the number of vectors (cycles).
func (g *GoldenSet) Len() int { return g.s.cycles }

// Inputs and Outputs are the ports in the file's column order: the
// design's inputs (the clock left out) and then its outputs.
func (g *GoldenSet) Inputs() []*netlist.Port  { return g.s.ins }
func (g *GoldenSet) Outputs() []*netlist.Port { return g.s.outs }

// Golden computes the golden vectors of job.Design with its behavioural
// model (job.Model, or job.Seq for a clocked design) and its directed
// vectors or stimulus. The result depends only on the job.
func Golden(job Job) (*GoldenSet, error) { return golden(job, 0, false) }

// GoldenDrawn is Golden's vectors followed by as many more drawn at
// random with seed, which the caller draws anew for each run (verify
// --rtl): Verilog that holds a table of the fixed golden vectors' answers
// cannot pass them. A unit whose golden vectors are exhaustive gains none
// (they hold every input already), nor does a clocked unit (its golden
// stream is one recording of its model).
func GoldenDrawn(job Job, seed uint64) (*GoldenSet, error) { return golden(job, seed, true) }

func golden(job Job, seed uint64, drawn bool) (*GoldenSet, error) {
	d := job.Design
	if err := checkTestbenchNames(d); err != nil {
		return nil, err
	}
	if d.Clock != "" {
		return goldenSequential(job)
	}
	m := job.Model
	if m == nil {
		return nil, fmt.Errorf("%s: no behavioural model", d.Name)
	}
	ins, outs, err := matchInterface(d, m)
	if err != nil {
		return nil, err
	}
	plan := Plan{
		MaxVectors: min(goldenDataLines, 2*goldenBudget/lineBytes(ins, outs)),
		Configs:    goldenConfigs,
		Random:     goldenLines(ins, outs),
		Seed:       goldenSeed,
	}
	if goldenExhaustive(ins) {
		plan.MaxVectors = DefaultPlan().MaxVectors
	}
	vs, coverage := plan.Vectors(ins, 0)
	exhaustive := coverage == "exhaustive"
	vs, coverage = withDirected(job.Directed, ins, goldenSeed, vs, coverage)
	if drawn && !exhaustive {
		p := plan
		p.Seed = seed
		more, _ := p.Vectors(ins, 0)
		vs = append(vs, more...)
		coverage += fmt.Sprintf(" + %d drawn for this run (seed %#x)", len(more), seed)
	}
	want := expected(m, outs, vs)
	s := newStream(ins, outs, len(vs))
	in := make([][]uint64, len(ins))
	out := make([][]uint64, len(outs))
	for v := range vs {
		s.inView(in, v)
		s.outView(out, v)
		for j := range ins {
			copy(in[j], vs[v][j])
		}
		for j := range outs {
			copy(out[j], want[v][j])
		}
	}
	return &GoldenSet{Design: d, Coverage: coverage, s: s}, nil
}

// checkTestbenchNames refuses port names that the testbench's own names
// (tb_*, the instance dut, the macro DUT, the flag mismatch, an output's
// expected value NAME_expected) would clash with: the testbench writer's
// own check.
func checkTestbenchNames(d *netlist.Design) error {
	t := testbenchOf(d, false, true, false, "")
	t.Reset = "" // checked by the sequential harness, with its own message
	if err := t.Check(); err != nil {
		return fmt.Errorf("%s: the standalone testbench: %w", d.Name, err)
	}
	return nil
}

// goldenSequential records the unit's stimulus (the one the lockstep runs
// use, with the same seed) through its sequential model, as one uncut
// stream: the stimulus's own rare resets are its resets in mid-stream.
func goldenSequential(job Job) (*GoldenSet, error) {
	d, m := job.Design, job.Seq
	if m == nil {
		return nil, fmt.Errorf("%s: no sequential model", d.Name)
	}
	ins, outs, err := matchSeqInterface(d, m)
	if err != nil {
		return nil, err
	}
	stim, err := job.stimulus(m.Ports(), goldenSeed)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.Name, err)
	}
	cycles := goldenLines(ins, outs)
	s := record(m, stim, ins, outs, cycles, []segment{{0, cycles}})
	return &GoldenSet{Design: d, Clocked: true, Coverage: stim.Coverage(), s: s}, nil
}

// goldenLines is the number of random vectors (cycles) for ports whose
// lines take the given room.
func goldenLines(ins, outs []*netlist.Port) int {
	return max(goldenMinLines, min(goldenMaxLines, goldenBudget/lineBytes(ins, outs)))
}

// lineBytes is the length of one line of the vector file, newline included.
func lineBytes(ins, outs []*netlist.Port) int {
	n := 0
	for _, p := range append(append([]*netlist.Port(nil), ins...), outs...) {
		n += hexDigits(p.Width()) + 1
	}
	return n
}

func hexDigits(width int) int { return (width + 3) / 4 }

// VectorFileName and TestbenchFileName are the files `lsugen gen --tb`
// writes for design d beside its Verilog; TestbenchModule is the
// testbench's module.
func VectorFileName(d *netlist.Design) string    { return d.Name + ".vec" }
func TestbenchFileName(d *netlist.Design) string { return TestbenchModule(d) + ".v" }
func TestbenchModule(d *netlist.Design) string   { return d.Name + "_tb" }

// VectorFile renders the golden vector file: '#' comment lines that say
// what the columns are, then one line per vector (cycle), each port's value
// as hex digits, most significant first, zero-padded to the port's width,
// the columns separated by one space: the inputs, then the expected
// outputs, in port order.
func (g *GoldenSet) VectorFile(info rtl.Info) []byte {
	var b strings.Builder
	d := g.Design
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("# Golden vectors of %s: its inputs and the behavioural model's expected outputs.\n", d.Name)
	p("# %s. Do not edit; `lsugen gen --tb` rewrites it.\n", generatedBy(info))
	p("# Read by %s (see its header comment) and by `lsugen verify --rtl`.\n", TestbenchFileName(d))
	p("#\n")
	if g.Clocked {
		p("# Clocked: the clock %s is no column. After one reset cycle (%s = 1, every other\n", d.Clock, ResetPort)
		p("# input 0, outputs not checked) each line is one clock cycle: its inputs are\n")
		p("# applied after the falling edge, and just before the rising edge every output\n")
		p("# must equal its expected value. Cycles count from 0 after the reset cycle.\n")
	} else {
		p("# Combinational: each line is one vector: its inputs are applied, and every\n")
		p("# output must then equal its expected value. Vectors count from 0.\n")
	}
	p("# Lines starting with # and blank lines are skipped.\n")
	p("#\n")
	p("# Columns: hex, most significant digit first, separated by one space:\n")
	rows := [][]string{}
	col := 0
	for _, port := range g.s.ins {
		col++
		rows = append(rows, []string{fmt.Sprint(col), port.Name, "input", bitsText(port.Width())})
	}
	for _, port := range g.s.outs {
		col++
		rows = append(rows, []string{fmt.Sprint(col), port.Name, "output", bitsText(port.Width()) + ", expected"})
	}
	for _, l := range rtl.Table(rows) {
		p("#   %s\n", l)
	}
	what := "vectors"
	if g.Clocked {
		what = "cycles"
	}
	if g.Coverage == "" {
		p("# %d %s\n", g.s.cycles, what)
	} else {
		p("# %d %s: %s\n", g.s.cycles, what, g.Coverage)
	}
	line := make([]byte, 0, lineBytes(g.s.ins, g.s.outs))
	in := make([][]uint64, len(g.s.ins))
	out := make([][]uint64, len(g.s.outs))
	for c := 0; c < g.s.cycles; c++ {
		g.s.inView(in, c)
		g.s.outView(out, c)
		line = line[:0]
		for j, port := range g.s.ins {
			line = appendHexWords(line, in[j], port.Width())
			line = append(line, ' ')
		}
		for j, port := range g.s.outs {
			line = appendHexWords(line, out[j], port.Width())
			line = append(line, ' ')
		}
		line[len(line)-1] = '\n'
		b.Write(line)
	}
	return []byte(b.String())
}

func bitsText(w int) string {
	if w == 1 {
		return "1 bit"
	}
	return fmt.Sprintf("%d bits", w)
}

const hexChars = "0123456789abcdef"

// appendHexWords appends the value of a port of the given width as
// hexDigits(width) digits, most significant first.
func appendHexWords(b []byte, v []uint64, width int) []byte {
	for k := hexDigits(width) - 1; k >= 0; k-- {
		bit := 4 * k
		b = append(b, hexChars[v[bit/64]>>uint(bit%64)&15])
	}
	return b
}

// generatedBy is the provenance line of the generated files.
func generatedBy(info rtl.Info) string {
	s := "Generated by " + oneLine(info.Version)
	if strings.TrimSpace(info.Version) == "" {
		s = "Generated by lsugen"
	}
	if src := oneLine(info.Source); src != "" {
		s += " from " + src
	}
	return s
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
