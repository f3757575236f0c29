package formal

// The proof that a pipelined unit (package retime's output, with
// clock_fo4 set) equals its combinational original followed by the
// pipeline's protocol.
//
// The reference is a Verilog wrapper lsugen writes (NAME_pipeline_ref.v):
// the original's gate-level module, and behind it L stages of output
// registers with the valid chain of package retime:
//
//	valid_q[0] <= valid_i & ~rst;   valid_q[k] <= valid_q[k-1] & ~rst
//	d1 <= comb(inputs);  d[k] <= d[k-1]                 (no reset)
//	out_q <= d[L-1] & {valid_q[L-2] & ~rst}             (d0 = comb, valid_q[-1] = valid_i)
//	outputs = out_q;  valid_o = valid_q[L-1]
//
// Yosys writes the wrapper and the pipelined module NAME_gates as graphs,
// each in a session of its own (both files define NAME_gates); lsugen
// unrolls the two graphs and joins them into one combinational miter that
// ABC proves constant 0 (&fraig -y -C 1000; dc2; iprove), as Prove does.
//
// What is proved. The miter checks two windows, each from a free state
// (every register of both modules an input of the miter, as at power-up;
// the data registers are never reset):
//
//   - latency: L+1 cycles from any state; the outputs agree in the last.
//     Applied to every window of a run, the outputs agree in every cycle
//     from cycle L on, whatever the state the run started in.
//   - reset: L cycles from any state, rst set in the first; the outputs
//     agree in cycles 1..L-1 (none to check when L = 1).
//
// Together: on every run from any state, the outputs (valid_o included)
// agree in every cycle after the first cycle with rst set, and in every
// cycle from cycle L on. That holds whatever the modules' structure; it is
// k-induction with k = L whose step needs no hypothesis. It is also
// complete for pipelines: in both modules every path from an input to an
// output crosses exactly L registers and no register feeds back (the
// valid chain is a shift register, the data registers load every cycle),
// so the outputs of cycle t are a function of the inputs of cycles
// t-L..t-1 alone. A correct pipeline passes both windows from every
// state, so no invariant is needed and the proof cannot be undecided but
// for lack of time; and a failed window is a real run, from a state the
// registers may hold at power-up. (A pipeline whose garbage only a reset
// flushes would fail the latency window: stricter, never looser.)
//
// A counterexample of the miter is replayed on the two graphs, cycle by
// cycle. ABC's bounded model checker (bmc3) then also searches for a run
// from the all-zero state with rst set in cycle 0 on which the outputs
// differ, which is reported first.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/rtl"
	"github.com/lsugen/lsugen/verilog"
)

// The protocol ports package retime adds to a pipelined unit besides its
// clock (Design.Clock).
const (
	PipelineReset  = "rst"     // synchronous, active high
	PipelineValidI = "valid_i" // the inputs of this cycle are an operation
	PipelineValidO = "valid_o" // the outputs hold the operation of L cycles before
)

// PipelinedResult is the outcome of a completed pipeline proof:
// equivalent, or a counterexample.
type PipelinedResult struct {
	Unit       string
	Latency    int
	Method     string
	Equivalent bool
	Cex        *PipelineCounterexample // when not equivalent
	Inputs     int                     // miter inputs: per window, the input bits of each cycle and both modules' registers
	AndGates   int                     // AND gates of the miter
	Elapsed    time.Duration
	Cached     bool // taken from the proof cache: no tool ran
}

// PipelineCycle is one clock cycle of a run: the inputs applied and both
// modules' outputs (valid_o included).
type PipelineCycle struct {
	Inputs               []Value // the clock left out
	Reference, Pipelined []Value // by output port, in port order
	// Differ names the outputs on which the modules differ, in the cycles
	// the claim covers (outputs before a reset takes effect, or within L
	// cycles of an arbitrary state, may differ without breaking it).
	Differ []string
}

// PipelineRun is a run of both modules from a stated state.
type PipelineRun struct {
	// Claim is the claim the run breaks: "reset" (the outputs agree in
	// every cycle after a cycle with rst set) or "latency" (the outputs
	// agree in every cycle from cycle L on, whatever the starting state).
	Claim string
	// Start names the registers that hold 1 in cycle 0 ("reference R[b]",
	// "pipelined R[b]", by the names of the graphs' latches); every other
	// register holds 0.
	Start  []string
	Cycles []PipelineCycle
}

// PipelineCounterexample is what disproves a pipeline's equivalence.
type PipelineCounterexample struct {
	// Proof is the run that breaks the proof's miter: from a free state
	// (a state the registers may hold at power-up), with rst set in cycle
	// 0 for the reset claim.
	Proof PipelineRun
	// Reset is a run from the all-zero state, rst set in cycle 0, on
	// which the outputs differ in its last cycle; nil when ABC's bounded
	// search found none within ResetBound cycles.
	Reset      *PipelineRun
	ResetBound int
}

// String writes the counterexample for a person, cycle by cycle.
func (c *PipelineCounterexample) String() string {
	var b strings.Builder
	if c.Reset != nil {
		fmt.Fprintf(&b, "a run from the all-zero state (every register of both modules 0), rst set in cycle 0, on which the outputs differ in cycle %d:\n", len(c.Reset.Cycles)-1)
		c.Reset.write(&b)
	} else if c.ResetBound > 0 {
		fmt.Fprintf(&b, "no run from the all-zero state with rst set in cycle 0 makes the outputs differ within %d cycles\n", c.ResetBound)
	}
	last := len(c.Proof.Cycles) - 1
	switch c.Proof.Claim {
	case "reset":
		fmt.Fprintf(&b, "the proof's counterexample: rst set in cycle 0, the outputs differ in cycle %d (compared from cycle 1 on):\n", last)
	default:
		fmt.Fprintf(&b, "the proof's counterexample: the outputs differ in cycle %d (compared in that cycle only, %d cycles after any state):\n", last, last)
	}
	if len(c.Proof.Start) == 0 {
		b.WriteString("  start: every register 0\n")
	} else {
		fmt.Fprintf(&b, "  start: %s at 1, every other register 0\n", strings.Join(c.Proof.Start, ", "))
	}
	c.Proof.write(&b)
	return strings.TrimRight(b.String(), "\n")
}

func (r *PipelineRun) write(b *strings.Builder) {
	join := func(vs []Value) string {
		parts := make([]string, len(vs))
		for i, v := range vs {
			parts[i] = v.String()
		}
		return strings.Join(parts, ", ")
	}
	for i, cy := range r.Cycles {
		fmt.Fprintf(b, "  cycle %d: %s\n", i, join(cy.Inputs))
		fmt.Fprintf(b, "    reference: %s\n", join(cy.Reference))
		fmt.Fprintf(b, "    pipelined: %s\n", join(cy.Pipelined))
		if len(cy.Differ) > 0 {
			fmt.Fprintf(b, "    differ: %s\n", strings.Join(cy.Differ, ", "))
		}
	}
}

// ProvePipelined proves that piped, a pipelined unit of latency L, equals
// comb, the combinational unit it was made from, followed by L register
// stages with the valid protocol of package retime (see the comment at
// the top of this file): on every run, from any state, the two agree on
// every output (valid_o included) in every cycle after the first cycle
// with rst set, and in every cycle from cycle L on. It returns a
// counterexample when they do not, and an error when the proof could not
// be completed (a tool error, the time limit, ABC undecided, ports that
// do not match the protocol).
//
// comb.Design is the original (no clock) and comb.Gates (with
// comb.GateLibs) its gate-level file, whose module the reference
// instantiates; Prove shows the RTL equal to it. piped.Design is the
// pipelined design (clock, rst, valid_i, comb's inputs, comb's outputs,
// valid_o) and piped.Gates (with piped.GateLibs) its gate-level file. The
// RTL fields are not read. latency 0 takes piped's own
// (Design.Pipeline.Latency); another value is proved as given. opt.Dir
// receives the wrapper, the script, the netlists, the miter and ABC's
// logs, named NAME_pipeline*; opt.Timeout bounds all tool runs together;
// opt.BMCFrames bounds the search from reset after a failed proof (0:
// max(24, 2L+2)).
func ProvePipelined(ctx context.Context, comb, piped Unit, latency int, opt Options) (*PipelinedResult, error) {
	start := time.Now()
	if comb.Design == nil || piped.Design == nil {
		return nil, errors.New("formal: pipeline: no design")
	}
	name := piped.Design.Name
	fail := func(err error) (*PipelinedResult, error) {
		return nil, fmt.Errorf("formal: %s: pipeline: %w", name, err)
	}
	if opt.Dir == "" {
		return fail(errors.New("no work directory"))
	}
	if latency == 0 && piped.Design.Pipeline != nil {
		latency = piped.Design.Pipeline.Latency
	}
	if latency < 1 {
		return fail(fmt.Errorf("latency %d: a pipeline has at least one stage", latency))
	}
	if len(comb.Design.Memories)+len(piped.Design.Memories) > 0 {
		return fail(errors.New("a design with memory macros is not pipelined by package retime, so its pipeline proof does not handle them"))
	}
	if err := checkPipelinePorts(comb.Design, piped.Design); err != nil {
		return fail(err)
	}
	combFiles, err := unitFiles(comb.GateLibs, comb.Gates)
	if err != nil {
		return fail(err)
	}
	pipedFiles, err := unitFiles(piped.GateLibs, piped.Gates)
	if err != nil {
		return fail(err)
	}
	yosys, abc, err := proofTools(opt.Dir)
	if err != nil {
		return nil, err
	}
	ctx, cancel := withTimeout(ctx, opt.Timeout)
	defer cancel()
	frames := opt.BMCFrames
	if frames <= 0 {
		frames = max(24, 2*latency+2)
	}
	pp := &pipeProver{
		prover: prover{d: piped.Design, dir: opt.Dir, yosys: yosys, abc: abc, frames: frames},
		comb:   comb.Design, L: latency, combFiles: combFiles, pipedFiles: pipedFiles,
	}
	cache, key := openCache(opt), ""
	if cache.dir != "" {
		if key, err = pp.cacheKey(ctx); err != nil {
			return fail(err)
		}
		if r := cache.load(key, name); r != nil {
			return &PipelinedResult{Unit: name, Latency: latency, Method: r.Method, Equivalent: true, Inputs: r.Inputs, AndGates: r.AndGates, Elapsed: time.Since(start), Cached: true}, nil
		}
	}
	res, err := pp.prove(ctx)
	if err == nil && key != "" && res.Equivalent {
		cache.store(key, &Result{Unit: name, Method: res.Method, Equivalent: true, Inputs: res.Inputs, AndGates: res.AndGates})
	}
	if err != nil {
		if ctx.Err() != nil && opt.Timeout > 0 && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, fmt.Errorf("formal: %s: pipeline: not proven within the timeout of %s: %w", name, opt.Timeout, err)
		}
		return fail(err)
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

// unitFiles checks that the files exist and can be named in a Yosys
// script, and makes them absolute: the libraries, then the unit's own.
func unitFiles(libs []string, own string) ([]string, error) {
	if own == "" {
		return nil, errors.New("no gate-level file")
	}
	files := append(append([]string(nil), libs...), own)
	for _, f := range files {
		if strings.ContainsAny(f, "\"\n") {
			return nil, fmt.Errorf("file name %q has a quote or a newline, which a Yosys script cannot hold", f)
		}
		if _, err := os.Stat(f); err != nil {
			return nil, err
		}
	}
	return absAll(files)
}

// checkPipelinePorts checks that piped has comb's ports and the
// protocol's: clock, rst, valid_i, comb's inputs, comb's outputs and
// valid_o, each of the same direction and width, and no other.
func checkPipelinePorts(comb, piped *netlist.Design) error {
	if comb.Clock != "" {
		return fmt.Errorf("the original %s is clocked (clock %s), not combinational", comb.Name, comb.Clock)
	}
	if piped.Clock == "" {
		return fmt.Errorf("the pipelined design has no clock")
	}
	type want struct {
		dir   netlist.Dir
		width int
	}
	ws := map[string]want{}
	for _, n := range []string{piped.Clock, PipelineReset, PipelineValidI} {
		ws[n] = want{netlist.In, 1}
	}
	ws[PipelineValidO] = want{netlist.Out, 1}
	if len(ws) != 4 {
		return fmt.Errorf("the clock %q has a protocol port's name", piped.Clock)
	}
	for _, p := range comb.Ports {
		if _, ok := ws[p.Name]; ok {
			return fmt.Errorf("the original %s has a port %s, which the pipeline's protocol adds", comb.Name, p.Name)
		}
		ws[p.Name] = want{p.Dir, p.Width()}
	}
	dir := map[netlist.Dir]string{netlist.In: "input", netlist.Out: "output"}
	seen := map[string]bool{}
	for _, p := range piped.Ports {
		w, ok := ws[p.Name]
		switch {
		case !ok:
			return fmt.Errorf("the pipelined design has a port %s that is neither the original's nor the protocol's", p.Name)
		case seen[p.Name]:
			return fmt.Errorf("the pipelined design has two ports %s", p.Name)
		case p.Dir != w.dir || p.Width() != w.width:
			return fmt.Errorf("port %s: the pipelined design's is a %d-bit %s, want a %d-bit %s", p.Name, p.Width(), dir[p.Dir], w.width, dir[w.dir])
		}
		seen[p.Name] = true
	}
	var missing []string
	for n := range ws {
		if !seen[n] {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return fmt.Errorf("the pipelined design has no port %s", strings.Join(missing, ", "))
	}
	for _, p := range piped.Ports {
		if !plainIdent(p.Name) {
			return fmt.Errorf("port name %q is not a plain Verilog identifier", p.Name)
		}
	}
	return nil
}

var identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func plainIdent(s string) bool { return identRE.MatchString(s) && !verilog.IsReserved(s) }

type pipeProver struct {
	prover                // d: the pipelined design; gold: the reference; gate: the pipelined module
	comb                  *netlist.Design
	L                     int
	combFiles, pipedFiles []string
}

func (p *pipeProver) file(suffix string) string { return p.d.Name + "_pipeline" + suffix }

// refModule is the reference wrapper's module name: no module of the
// original's files ends in _pipeline_ref (theirs end in _gates).
func (p *pipeProver) refModule() string { return p.comb.Name + "_pipeline_ref" }

// cacheKey is the proof cache's key of the pipeline proof: as Prove's,
// with both designs, the latency, the reference wrapper and the scripts.
func (p *pipeProver) cacheKey(ctx context.Context) (string, error) {
	k, sum := newKey(fmt.Sprintf("pipeline latency %d", p.L))
	if err := k.addTools(ctx, p.yosys, p.abc); err != nil {
		return "", err
	}
	k.addDesign(p.comb, nil)
	k.addDesign(p.d, nil)
	k.add(p.refWrapper())
	names := func(what string, n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("%s%d", what, i)
		}
		return out
	}
	q := *p
	q.pipedFiles = names("piped", len(p.pipedFiles))
	for _, text := range q.scripts(names("comb", len(p.combFiles)+1), "ref.json", "gates.json") {
		k.add(text)
	}
	k.add(proveCmds)
	k.add(bmcCmds)
	if err := k.addFiles(p.combFiles); err != nil {
		return "", err
	}
	if err := k.addFiles(p.pipedFiles); err != nil {
		return "", err
	}
	return sum(), nil
}

func (p *pipeProver) prove(ctx context.Context) (*PipelinedResult, error) {
	d := p.d
	refFile := p.file("_ref.v")
	if err := p.write(refFile, p.refWrapper()); err != nil {
		return nil, err
	}
	refOut, gatesOut := p.file("_ref.json"), p.file("_gates.json")
	scripts := [2]string{p.file("_ref.ys"), p.file("_gates.ys")}
	files := append(append([]string(nil), p.combFiles...), filepath.Join(p.dir, refFile))
	if abs, err := filepath.Abs(files[len(files)-1]); err == nil {
		files[len(files)-1] = abs
	}
	texts := p.scripts(files, refOut, gatesOut)
	for i := range scripts {
		if err := p.write(scripts[i], texts[i]); err != nil {
			return nil, err
		}
	}
	if err := p.readSides(ctx, scripts[:], "reference", "pipelined", p.refModule(), rtl.GatesModuleName(p.d), refOut, gatesOut, nil); err != nil {
		return nil, err
	}
	m := p.windows()
	res := &PipelinedResult{Unit: d.Name, Latency: p.L, Inputs: m.a.inputs, AndGates: len(m.a.ands)}
	frame, err := p.iprove(ctx, m.a)
	if err != nil {
		return nil, err
	}
	res.Method = m.method()
	if frame == nil {
		res.Equivalent = true
		return res, nil
	}
	run, err := p.replayWindows(m, frame)
	if err != nil {
		return nil, err
	}
	res.Cex = &PipelineCounterexample{Proof: *run, ResetBound: p.frames}
	if res.Cex.Reset, err = p.searchFromReset(ctx); err != nil {
		return nil, err
	}
	return res, nil
}

// refWrapper writes the reference: the original's gate-level module and
// L stages of output registers with the valid protocol.
func (p *pipeProver) refWrapper() string {
	d, L := p.d, p.L
	// A prefix for the wrapper's own names that no port begins with.
	pre := "ref_"
	for i := 0; ; i++ {
		clash := false
		for _, pt := range d.Ports {
			clash = clash || strings.HasPrefix(pt.Name, pre)
		}
		if !clash {
			break
		}
		pre = fmt.Sprintf("ref%d_", i)
	}
	rng := func(w int) string {
		if w == 1 {
			return ""
		}
		return fmt.Sprintf("[%d:0] ", w-1)
	}
	var s []string
	add := func(f string, a ...any) { s = append(s, fmt.Sprintf(f, a...)) }
	add("// Written by lsugen verify: the reference for the pipelined %s: the", rtl.GatesModuleName(d))
	add("// combinational %s followed by %d register stages with the valid protocol", rtl.GatesModuleName(p.comb), L)
	add("// (valid_q[0] <= valid_i & ~rst; valid_q[k] <= valid_q[k-1] & ~rst; data registers")
	add("// not reset; the output registers load the data masked by the valid bit they load).")
	add("`timescale 1ns / 1ps")
	add("`default_nettype none")
	add("module %s (", p.refModule())
	for i, pt := range d.Ports {
		dir := "input "
		if pt.Dir == netlist.Out {
			dir = "output"
		}
		sep := ","
		if i == len(d.Ports)-1 {
			sep = ""
		}
		add("    %s wire %s%s%s", dir, rng(pt.Width()), pt.Name, sep)
	}
	add(");")
	outs := p.comb.Outputs()
	for i, pt := range outs {
		add("    wire %s%sy%d;  // %s", rng(pt.Width()), pre, i, pt.Name)
	}
	var conns []string
	for _, pt := range p.comb.Inputs() {
		conns = append(conns, fmt.Sprintf(".%s(%s)", pt.Name, pt.Name))
	}
	for i, pt := range outs {
		conns = append(conns, fmt.Sprintf(".%s(%sy%d)", pt.Name, pre, i))
	}
	add("    %s %scomb (%s);", rtl.GatesModuleName(p.comb), pre, strings.Join(conns, ", "))
	add("    reg [%d:0] %svalid_q;", L-1, pre)
	if L >= 2 {
		add("    wire %sload = %svalid_q[%d] & ~%s;", pre, pre, L-2, PipelineReset)
	} else {
		add("    wire %sload = %s & ~%s;", pre, PipelineValidI, PipelineReset)
	}
	for i, pt := range outs {
		for k := 1; k < L; k++ {
			add("    reg %s%sd%d_%d;", rng(pt.Width()), pre, k, i)
		}
		add("    reg %s%sq%d;", rng(pt.Width()), pre, i)
	}
	add("    always @(posedge %s) begin", d.Clock)
	add("        %svalid_q[0] <= %s & ~%s;", pre, PipelineValidI, PipelineReset)
	for k := 1; k < L; k++ {
		add("        %svalid_q[%d] <= %svalid_q[%d] & ~%s;", pre, k, pre, k-1, PipelineReset)
	}
	for i, pt := range outs {
		src := fmt.Sprintf("%sy%d", pre, i)
		for k := 1; k < L; k++ {
			add("        %sd%d_%d <= %s;", pre, k, i, src)
			src = fmt.Sprintf("%sd%d_%d", pre, k, i)
		}
		add("        %sq%d <= %s & {%d{%sload}};", pre, i, src, pt.Width(), pre)
	}
	add("    end")
	for i, pt := range outs {
		add("    assign %s = %sq%d;", pt.Name, pre, i)
	}
	add("    assign %s = %svalid_q[%d];", PipelineValidO, pre, L-1)
	add("endmodule")
	add("`default_nettype wire")
	return strings.Join(s, "\n") + "\n"
}

// scripts are the Yosys scripts that write the reference (the wrapper
// around the original's gate-level module, flattened) and the pipelined
// module as graphs (graphTail), each run on its own: both files define the module
// NAME_gates.
func (p *pipeProver) scripts(refFiles []string, refOut, gatesOut string) [2]string {
	var s []string
	add := func(f string, a ...any) { s = append(s, fmt.Sprintf(f, a...)) }
	add("# Written by lsugen verify --formal: the reference %s as a graph.", p.refModule())
	for _, f := range refFiles {
		add("read_verilog %s", quote(f))
	}
	add("hierarchy -check -top %s", p.refModule())
	add("proc")
	add("flatten")
	add("check -assert")
	add("select -assert-none t:$*latch* t:$*LATCH* t:$mem* t:$sr t:$_SR_*")
	graphTail(add, refOut)
	var out [2]string
	out[0] = strings.Join(s, "\n") + "\n"
	s = nil
	add("# Written by lsugen verify --formal: the pipelined %s as a graph.", rtl.GatesModuleName(p.d))
	for _, f := range p.pipedFiles {
		add("read_verilog %s", quote(f))
	}
	add("hierarchy -check -top %s", rtl.GatesModuleName(p.d))
	flatten(add, p.d)
	add("proc")
	add("check -assert")
	add("select -assert-none t:$*latch* t:$*LATCH* t:$mem* t:$sr t:$_SR_*")
	graphTail(add, gatesOut)
	out[1] = strings.Join(s, "\n") + "\n"
	return out
}

// window is one unrolled run of both modules inside the miter: frames
// cycles from a free state, the outputs compared in cycles check..frames-1.
type window struct {
	claim     string
	frames    int
	check     int
	reset     bool // rst is 1 in cycle 0
	inBase    int  // miter input of the first cycle's first port bit
	stateBase int  // miter input of the reference's first register; the pipelined's follow
}

type windowMiter struct {
	a       *aig
	windows []window
}

// method describes the proof: "latency 3: 4 cycles from any state, 3
// after a reset; SAT (ABC &fraig -y -C 1000; dc2; iprove)".
func (m *windowMiter) method() string {
	var ws []string
	for _, w := range m.windows {
		if w.reset {
			ws = append(ws, fmt.Sprintf("%d after a reset", w.frames))
		} else {
			ws = append(ws, fmt.Sprintf("%d cycles from any state", w.frames))
		}
	}
	return fmt.Sprintf("latency %d: %s; %s", m.windows[0].check, strings.Join(ws, ", "), satMethod)
}

// windows builds the miter of the two claims: the latency window (L+1
// cycles, the outputs compared in the last) and, for L >= 2, the reset
// window (L cycles, rst set in the first, the outputs compared in cycles
// 1..L-1). Its one output is 1 when any compared output differs.
func (p *pipeProver) windows() *windowMiter { return windows(p.d, p.L, p.gold, p.gate) }

// windows is the two claims' miter of sides gold and gate of d, two
// pipelines of latency L with d's ports, each from a free state of its
// own.
func windows(d *netlist.Design, L int, gold, gate *side) *windowMiter {
	ins := portInputs(d)
	nIn, nState := len(ins), len(gold.a.latches)+len(gate.a.latches)
	ws := []window{{claim: "latency", frames: L + 1, check: L}}
	if L >= 2 {
		ws = append(ws, window{claim: "reset", frames: L, check: 1, reset: true})
	}
	n := 0
	for i := range ws {
		ws[i].inBase = n
		ws[i].stateBase = n + ws[i].frames*nIn
		n = ws[i].stateBase + nState
	}
	b := &aigBuilder{inputs: n}
	input := func(k int) uint32 { return uint32(2 * (1 + k)) }
	pos := map[mapBit]int{}
	for i, k := range ins {
		pos[k] = i
	}
	rstPos := pos[mapBit{PipelineReset, 0}]
	diff := uint32(0)
	for _, w := range ws {
		cur := func(s *side, base int) []uint32 {
			l := make([]uint32, len(s.a.latches))
			for i := range l {
				l[i] = input(base + i)
			}
			return l
		}
		curGold := cur(gold, w.stateBase)
		curGate := cur(gate, w.stateBase+len(gold.a.latches))
		for f := 0; f < w.frames; f++ {
			lit := func(k int) uint32 {
				if w.reset && f == 0 && k == rstPos {
					return 1
				}
				return input(w.inBase + f*nIn + k)
			}
			trGold := b.copyIn(gold, func(i int) uint32 { return lit(pos[gold.m.inputs[i]]) }, func(i int) uint32 { return curGold[i] })
			trGate := b.copyIn(gate, func(i int) uint32 { return lit(pos[gate.m.inputs[i]]) }, func(i int) uint32 { return curGate[i] })
			if f >= w.check {
				diff = b.or(diff, outputsDiffer(b, d, gold, gate, trGold, trGate))
			}
			curGold = nextState(gold, trGold)
			curGate = nextState(gate, trGate)
		}
	}
	b.outputs = []uint32{diff}
	return &windowMiter{a: b.aig(), windows: ws}
}

func nextState(s *side, tr func(uint32) uint32) []uint32 {
	l := make([]uint32, len(s.a.latches))
	for i, lt := range s.a.latches {
		l[i] = tr(lt.next)
	}
	return l
}

// simulate runs both modules from the given latch values over the
// cycles' inputs (vals in portInputs order) and records every cycle; the
// outputs are compared from cycle check on, and the run ends at the first
// cycle where they differ (ok false when none does).
func (p *pipeProver) simulate(gold0, gate0 []bool, cycles [][]bool, check int) (run []PipelineCycle, ok bool) {
	d := p.d
	ins := portInputs(d)
	sg, st := p.gold.a.newState(), p.gate.a.newState()
	for i, v := range gold0 {
		sg.vals[p.gold.a.inputs+1+i] = v
	}
	for i, v := range gate0 {
		st.vals[p.gate.a.inputs+1+i] = v
	}
	for f, vals := range cycles {
		p.gold.eval(sg, ins, vals)
		p.gate.eval(st, ins, vals)
		og, ot := p.gold.outputs(d, sg), p.gate.outputs(d, st)
		cy := PipelineCycle{Inputs: inputValues(d, vals)}
		for i, pt := range d.Outputs() {
			cy.Reference = append(cy.Reference, Value{Name: pt.Name, Width: pt.Width(), Bits: og[i]})
			cy.Pipelined = append(cy.Pipelined, Value{Name: pt.Name, Width: pt.Width(), Bits: ot[i]})
			if f >= check && og[i].Cmp(ot[i]) != 0 {
				cy.Differ = append(cy.Differ, pt.Name)
			}
		}
		run = append(run, cy)
		if len(cy.Differ) > 0 {
			return run, true
		}
		sg.step()
		st.step()
	}
	return run, false
}

// replayWindows replays ABC's counterexample of the miter on the two
// graphs, window by window, and returns the first window's run on which
// the outputs differ.
func (p *pipeProver) replayWindows(m *windowMiter, vals []bool) (*PipelineRun, error) {
	ins := portInputs(p.d)
	nIn := len(ins)
	rstPos := -1
	for i, k := range ins {
		if k == (mapBit{PipelineReset, 0}) {
			rstPos = i
		}
	}
	ng, nt := len(p.gold.a.latches), len(p.gate.a.latches)
	for _, w := range m.windows {
		cycles := make([][]bool, w.frames)
		for f := range cycles {
			cycles[f] = append([]bool(nil), vals[w.inBase+f*nIn:w.inBase+(f+1)*nIn]...)
		}
		if w.reset {
			cycles[0][rstPos] = true
		}
		gold0 := vals[w.stateBase : w.stateBase+ng]
		gate0 := vals[w.stateBase+ng : w.stateBase+ng+nt]
		run, ok := p.simulate(gold0, gate0, cycles, w.check)
		if !ok {
			continue
		}
		r := &PipelineRun{Claim: w.claim, Cycles: run}
		r.Start = append(latchNames("reference", p.gold, gold0), latchNames("pipelined", p.gate, gate0)...)
		return r, nil
	}
	return nil, errors.New("ABC's counterexample, replayed, makes no output differ: not reported")
}

// latchNames names the latches of s that hold 1, by the first name the
// graph gives each: R for a one-bit register, R[b] for a bit of a
// wider one.
func latchNames(what string, s *side, vals []bool) []string {
	wide := map[string]bool{}
	for _, names := range s.m.latches {
		for _, b := range names {
			wide[b.name] = wide[b.name] || b.bit > 0
		}
	}
	var names []string
	for i, v := range vals {
		if !v {
			continue
		}
		n := fmt.Sprintf("latch %d", i)
		if i < len(s.m.latches) && len(s.m.latches[i]) > 0 {
			b := s.m.latches[i][0]
			n = b.name
			if wide[b.name] {
				n = fmt.Sprintf("%s[%d]", b.name, b.bit)
			}
		}
		names = append(names, what+" "+n)
	}
	return names
}

// resetMiter is the sequential miter of the search from reset: the unit's
// input bits, both modules' registers and one more (started), all
// starting at 0; rst is forced to 1 while started is 0 (cycle 0), and the
// output is 1 when an output differs in a later cycle.
func (p *pipeProver) resetMiter() *aig {
	d := p.d
	ins := portInputs(d)
	ng, nt := len(p.gold.a.latches), len(p.gate.a.latches)
	b := &aigBuilder{inputs: len(ins), latches: make([]aigLatch, ng+nt+1)}
	pos := map[mapBit]int{}
	for i, k := range ins {
		pos[k] = i
	}
	latchLit := func(k int) uint32 { return uint32(2 * (len(ins) + 1 + k)) }
	started := latchLit(ng + nt)
	rstPos := pos[mapBit{PipelineReset, 0}]
	rst := b.or(uint32(2*(1+rstPos)), started^1)
	lit := func(k int) uint32 {
		if k == rstPos {
			return rst
		}
		return uint32(2 * (1 + k))
	}
	trGold := b.copyIn(p.gold, func(i int) uint32 { return lit(pos[p.gold.m.inputs[i]]) }, latchLit)
	trGate := b.copyIn(p.gate, func(i int) uint32 { return lit(pos[p.gate.m.inputs[i]]) }, func(i int) uint32 { return latchLit(ng + i) })
	for i, l := range p.gold.a.latches {
		b.latches[i].next = trGold(l.next)
	}
	for i, l := range p.gate.a.latches {
		b.latches[ng+i].next = trGate(l.next)
	}
	b.latches[ng+nt].next = 1
	b.outputs = []uint32{b.and(started, outputsDiffer(b, d, p.gold, p.gate, trGold, trGate))}
	return b.aig()
}

// searchFromReset runs ABC's bounded model checker on resetMiter and
// replays the run it finds; nil when it finds none within p.frames cycles.
func (p *pipeProver) searchFromReset(ctx context.Context) (*PipelineRun, error) {
	m := p.resetMiter()
	aigFile, cexFile := p.file("_reset.aig"), p.file("_reset.cex")
	if err := writeAIGFile(filepath.Join(p.dir, aigFile), m); err != nil {
		return nil, err
	}
	os.Remove(filepath.Join(p.dir, cexFile))
	out, err := p.runABC(ctx, "bounded search", fmt.Sprintf(bmcCmds, aigFile, p.frames, cexFile), p.file("_reset.abc.log"))
	if err != nil {
		return nil, err
	}
	mf := bmcFoundRE.FindSubmatch(out)
	if mf == nil {
		if bmcNoneRE.Match(out) {
			return nil, nil
		}
		return nil, fmt.Errorf("ABC bmc3 gave no answer; its output:\n%s", tailLines(out, 12))
	}
	last, _ := strconv.Atoi(string(mf[1]))
	frames, err := readCex(filepath.Join(p.dir, cexFile), m.inputs)
	if err != nil {
		return nil, err
	}
	for len(frames) <= last {
		frames = append(frames, make([]bool, m.inputs))
	}
	frames = frames[:last+1]
	for i, k := range portInputs(p.d) {
		if k == (mapBit{PipelineReset, 0}) {
			frames[0][i] = true
		}
	}
	run, ok := p.simulate(make([]bool, len(p.gold.a.latches)), make([]bool, len(p.gate.a.latches)), frames, 1)
	if !ok {
		return nil, fmt.Errorf("ABC's run of %d cycles from reset, replayed, makes no output differ: not reported", last+1)
	}
	return &PipelineRun{Claim: "reset", Cycles: run}, nil
}
