// Package formal proves that a unit's readable RTL module (NAME, in
// NAME.v) is equivalent to its gate netlist, with Yosys and ABC.
//
// Yosys reads the RTL file and writes the module as a JSON netlist with
// its cells' and-inverter models, from which lsugen builds its graph with
// the names of its port bits and flip-flops (yosysjson.go); lsugen builds
// the gate side's graph from the netlist (netlistSide), or, with
// Options.GatesFile, has a second Yosys run read the gate-level file
// (NAME_gates, in NAME_gates.v) at the same time. lsugen joins the two
// graphs into a miter: both modules on the same inputs, and one output
// that is 1 when any output bit differs. ABC (yosys-abc, the copy of ABC
// that ships with Yosys) proves that output constant 0 (&fraig -y -C 1000, dc2,
// then iprove: SAT sweeping and SAT), or finds inputs that set it.
//
// A sequential unit (a design with a clock) is proved by induction over
// the register correspondence: every RTL register bit has one gate-level
// flip-flop, named after it, and lsugen pairs them. In the miter each pair
// reads one common state input, and the output is also 1 when a pair's
// next values differ. Its proof is the induction step: from any state the
// two modules share, under any inputs, they give the same outputs and
// again share the next state; so modules started in corresponding states
// (after the shared synchronous reset, registers it does not clear holding
// the same values in both) agree on every cycle.
//
// A counterexample is replayed on the two graphs before it is reported,
// so a reported difference is real. For a sequential unit a failed
// induction step may start from a state no run reaches, so ABC then also
// searches runs from the all-zero state (bmc3) for one on which the
// outputs differ, and the run is reported cycle by cycle. A proof that
// cannot be completed (a tool error, a timeout, ABC undecided, a
// flip-flop without its match, a net without a driver) is an error, never
// a pass.
//
// A memory macro (netlist.Memory) is matched, not proved: the scripts
// read the bank module as a black box and expose its instances (Yosys
// expose -evert; the netlist's graph names its memories alike), so that each bank's read data becomes an input of the
// graph, shared by the two modules in every cycle, and each of its inputs
// (clk, re_i, raddr_i, we_i, waddr_i, wdata_i, wmask_i) an output,
// compared like an output port and named INSTANCE.PORT in a
// counterexample. Banks given the same inputs hold the same words and
// read the same data, so the induction stays sound; the bank module
// itself is checked elsewhere (docs/verification.md).
//
// Completed proofs of equivalence are kept in a cache by content (see
// cacheSubdir), so that an unchanged unit is not proved again.
package formal

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/rtl"
	"github.com/lsugen/lsugen/toolchain"
)

// Unit is one generated unit and its two Verilog files.
type Unit struct {
	Design *netlist.Design // ports, clock and registers: the names in the files
	RTL    string          // the file with module Design.Name
	Gates  string          // the file with module Design.Name + "_gates"
	// RTLLibs and GateLibs are the files of the modules Design
	// instantiates (rtl.Sources), read before RTL and Gates; the proof
	// is on the flattened designs.
	RTLLibs, GateLibs []string
}

// absAll makes every path absolute.
func absAll(paths []string) ([]string, error) {
	out := make([]string, len(paths))
	for i, p := range paths {
		a, err := filepath.Abs(p)
		if err != nil {
			return nil, err
		}
		out[i] = a
	}
	return out, nil
}

// Options control a proof.
type Options struct {
	// Dir receives the scripts, logs, netlists, miters and counterexamples,
	// one set per unit named after it; it is created if missing.
	Dir string
	// Timeout bounds all tool runs of one unit together; 0: no limit.
	Timeout time.Duration
	// BMCFrames is how many cycles from the all-zero state the search for
	// a differing run explores when a sequential proof fails; 0: 24.
	BMCFrames int
	// NoCache proves even when the proof cache holds the result, and
	// stores nothing. CacheDir is the cache root; "": lsugen's
	// (toolchain.CacheRoot, which LSUGEN_CACHE_DIR=off turns off).
	NoCache  bool
	CacheDir string
	// GatesFile proves the gate-level Verilog file as Yosys reads it,
	// instead of the gate netlist it is written from (netlistSide): that
	// also proves the gate writer, at several times the cost on large
	// units, so `verify formal --gates-file` and the test suite's small
	// units use it.
	GatesFile bool
}

// Result is the outcome of a completed proof: equivalent, or a
// counterexample.
type Result struct {
	Unit       string
	Method     string // e.g. "miter, SAT (ABC &fraig -y -C 1000; dc2; iprove)"
	Equivalent bool
	Cex        *Counterexample // when not equivalent
	Inputs     int             // miter inputs: the unit's input bits, its memories' read data bits, then one per register pair
	AndGates   int             // AND gates of the miter
	Elapsed    time.Duration
	// Yosys and ABC are the wall-clock times of the tool runs: reading
	// both modules, and the proof (with the bounded search, if any).
	Yosys, ABC time.Duration
	// Cached is set when the result was taken from the proof cache: the
	// same files, tools and method were proved equivalent before, and no
	// tool ran now.
	Cached bool
}

// Prove proves u's two modules equivalent or finds a counterexample. An
// error means the proof could not be completed.
func Prove(ctx context.Context, u Unit, opt Options) (*Result, error) {
	start := time.Now()
	d := u.Design
	if d == nil {
		return nil, errors.New("formal: no design")
	}
	if opt.Dir == "" {
		return nil, fmt.Errorf("formal: %s: no work directory", d.Name)
	}
	for _, f := range append(append([]string{u.RTL, u.Gates}, u.RTLLibs...), u.GateLibs...) {
		if strings.ContainsAny(f, "\"\n") {
			return nil, fmt.Errorf("formal: %s: file name %q has a quote or a newline, which a Yosys script cannot hold", d.Name, f)
		}
		if _, err := os.Stat(f); err != nil {
			return nil, fmt.Errorf("formal: %s: %w", d.Name, err)
		}
	}
	if err := checkMemories(d); err != nil {
		return nil, fmt.Errorf("formal: %s: %w", d.Name, err)
	}
	rtlFile, err := filepath.Abs(u.RTL)
	if err != nil {
		return nil, err
	}
	gatesFile, err := filepath.Abs(u.Gates)
	if err != nil {
		return nil, err
	}
	yosys, abc, err := proofTools(opt.Dir)
	if err != nil {
		return nil, err
	}
	ctx, cancel := withTimeout(ctx, opt.Timeout)
	defer cancel()
	rtlLibs, err := absAll(u.RTLLibs)
	if err != nil {
		return nil, err
	}
	gateLibs, err := absAll(u.GateLibs)
	if err != nil {
		return nil, err
	}
	p := &prover{d: d, dir: opt.Dir, yosys: yosys, abc: abc, rtl: append(rtlLibs, rtlFile), gates: append(gateLibs, gatesFile), frames: opt.BMCFrames, gatesFile: opt.GatesFile}
	if p.frames <= 0 {
		p.frames = 24
	}
	cache, key := openCache(opt), ""
	if cache.dir != "" {
		if key, err = p.cacheKey(ctx); err != nil {
			return nil, fmt.Errorf("formal: %s: %w", d.Name, err)
		}
		if res := cache.load(key, d.Name); res != nil {
			res.Elapsed = time.Since(start)
			return res, nil
		}
	}
	res, err := p.prove(ctx)
	if err == nil && key != "" {
		cache.store(key, res)
	}
	if err != nil {
		if ctx.Err() != nil && opt.Timeout > 0 && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, fmt.Errorf("formal: %s: not proven within the timeout of %s: %w", d.Name, opt.Timeout, err)
		}
		return nil, fmt.Errorf("formal: %s: %w", d.Name, err)
	}
	res.Elapsed, res.Yosys, res.ABC = time.Since(start), p.yosysTime, p.abcTime
	return res, nil
}

// checkMemories checks what the proof takes from d's memories: a clock
// to clock them, one bank module, distinct instance names that a Yosys
// script can name.
func checkMemories(d *netlist.Design) error {
	seen := map[string]bool{}
	for _, m := range d.Memories {
		if d.Clock == "" {
			return fmt.Errorf("memory %s in a design without a clock", m.Name)
		}
		if m.Module != d.Memories[0].Module {
			return fmt.Errorf("memories %s and %s have different bank modules (%s, %s)", d.Memories[0].Name, m.Name, d.Memories[0].Module, m.Module)
		}
		if !verilogIdent.MatchString(m.Name) || !verilogIdent.MatchString(m.Module) || seen[m.Name] {
			return fmt.Errorf("memory %q (module %q): not a plain Verilog name, or named twice", m.Name, m.Module)
		}
		seen[m.Name] = true
	}
	return nil
}

var verilogIdent = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// proofTools finds Yosys and its ABC and makes the work directory dir.
func proofTools(dir string) (yosys, abc *toolchain.Tool, err error) {
	if yosys, err = toolchain.Find("yosys"); err != nil {
		return nil, nil, err
	}
	if abc, err = findABC(yosys); err != nil {
		return nil, nil, err
	}
	return yosys, abc, os.MkdirAll(dir, 0o755)
}

// withTimeout bounds ctx by d; 0 is no bound.
func withTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d > 0 {
		return context.WithTimeout(ctx, d)
	}
	return ctx, func() {}
}

func findABC(yosys *toolchain.Tool) (*toolchain.Tool, error) {
	dirs := []string{filepath.Dir(yosys.Path)}
	if real, err := filepath.EvalSymlinks(yosys.Path); err == nil && filepath.Dir(real) != dirs[0] {
		dirs = append(dirs, filepath.Dir(real))
	}
	for _, dir := range dirs {
		path := filepath.Join(dir, "yosys-abc")
		if st, err := os.Stat(path); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return &toolchain.Tool{Name: "yosys-abc", Path: path, Version: yosys.Version}, nil
		}
	}
	return nil, fmt.Errorf("formal: yosys-abc not found beside %s (Debian's yosys package installs both): %s", yosys.Path, toolchain.InstallHint("yosys"))
}

type prover struct {
	d          *netlist.Design
	dir        string
	yosys, abc *toolchain.Tool
	rtl, gates []string // files to read, the unit's own last
	frames     int

	gatesFile  bool        // Options.GatesFile
	words      []stateWord // sequential units: the register correspondence
	gold, gate *side
	pairs      []pair

	yosysTime, abcTime time.Duration // spent in each tool so far
}

// iprove writes the miter a and has ABC prove its output constant 0
// (proveCmds): nil when it is, else the input values of ABC's
// counterexample; an undecided proof is an error.
func (p *prover) iprove(ctx context.Context, a *aig) ([]bool, error) {
	miterFile, cexFile := p.file("_miter.aig"), p.file(".cex")
	if err := writeAIGFile(filepath.Join(p.dir, miterFile), a); err != nil {
		return nil, err
	}
	os.Remove(filepath.Join(p.dir, cexFile))
	out, err := p.runABC(ctx, "prove", fmt.Sprintf(proveCmds, miterFile, cexFile), p.file(".abc.log"))
	if err != nil {
		return nil, err
	}
	switch verdict(out) {
	case "UNSATISFIABLE":
		return nil, nil
	case "SATISFIABLE":
	default:
		return nil, fmt.Errorf("ABC iprove did not decide (%s); its output:\n%s", verdictLine(out), tailLines(out, 12))
	}
	frames, err := readCex(filepath.Join(p.dir, cexFile), a.inputs)
	if err != nil {
		return nil, err
	}
	if len(frames) != 1 {
		return nil, fmt.Errorf("ABC's counterexample has %d frames, want 1", len(frames))
	}
	return frames[0], nil
}

// readSides runs the Yosys scripts that write the modules' graphs,
// at once (each reads one side on its own), and loads them as p.gold and
// p.gate, checking their ports against p.d. Each script's log is named
// after it. With one script (the RTL's), the gate side is the netlist's
// graph (netlistSide).
//
// cuts are the equivalence points the scripts cut at (nil for none), whose
// bits the graphs may have beside the unit's ports.
func (p *prover) readSides(ctx context.Context, scripts []string, goldWhat, gateWhat string, goldTop, gateTop, goldOut, gateOut string, cuts []cutWire) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu    sync.Mutex
		first error // the first side to fail; the other was then stopped
		wg    sync.WaitGroup
		times [2]time.Duration
	)
	for i, script := range scripts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			start := time.Now()
			err := p.runYosys(ctx, "read", script, strings.TrimSuffix(script, ".ys")+".yosys.log")
			times[i] = time.Since(start)
			if err != nil {
				mu.Lock()
				if first == nil {
					first = err
				}
				mu.Unlock()
				cancel()
			}
		}()
	}
	wg.Wait()
	p.yosysTime += max(times[0], times[1])
	if first != nil {
		return first
	}
	var err error
	if p.gold, err = loadJSONSide(goldWhat, filepath.Join(p.dir, goldOut), goldTop); err != nil {
		return err
	}
	if len(scripts) > 1 {
		p.gate, err = loadJSONSide(gateWhat, filepath.Join(p.dir, gateOut), gateTop)
	} else {
		p.gate, err = netlistSide(p.d, cuts)
	}
	if err != nil {
		return err
	}
	goldCut, gateCut := cutBits(cuts)
	if err := p.gold.checkPorts(p.d, goldCut); err != nil {
		return err
	}
	return p.gate.checkPorts(p.d, gateCut)
}

// cacheKey is the proof cache's key of p's proof (see cacheSubdir).
func (p *prover) cacheKey(ctx context.Context) (string, error) {
	k, sum := newKey("rtl=gates")
	if err := k.addTools(ctx, p.yosys, p.abc); err != nil {
		return "", err
	}
	var words []stateWord
	if p.d.Clock != "" {
		var err error
		if words, err = stateWords(p.d); err != nil {
			return "", err
		}
	}
	k.addDesign(p.d, words)
	// Which gate side is proved: a proof of the netlist's graph is no
	// proof of the file as Yosys reads it. The gate-level file, hashed
	// below in both cases, holds every gate and net of the netlist.
	if p.gatesFile {
		k.add("gate side: the gate-level Verilog file")
	} else {
		k.add("gate side: the netlist (netlistSide, version 1)")
	}
	// The script with the files named by their place: their texts follow.
	names := func(what string, fs []string) []string {
		out := make([]string, len(fs))
		for i := range fs {
			out[i] = fmt.Sprintf("%s%d", what, i)
		}
		return out
	}
	// Both methods' scripts: the cut proof's, with its selections, and the
	// whole design's it falls back to.
	sel := [2]string{"rtl.sel", "gates.sel"}
	for _, text := range cutSelections(p.d, cutWires(p.d)) {
		k.add(text)
	}
	for _, cs := range [][2]string{sel, {}} {
		for _, text := range graphScripts(p.d, names("rtl", p.rtl), names("gates", p.gates), "rtl.json", "gates.json", cs) {
			k.add(text)
		}
	}
	k.add(proveCmds)
	k.add(bmcCmds)
	if err := k.addFiles(p.rtl); err != nil {
		return "", err
	}
	if err := k.addFiles(p.gates); err != nil {
		return "", err
	}
	return sum(), nil
}

// The ABC command lines: the miter's proof, and the bounded search of a
// sequential unit that failed it (miter, frames, counterexample file).
//
// The proof first sweeps the miter with SAT (&fraig -y: nodes proved
// equal are merged, a sound simplification; at most 1,000 conflicts a
// node), which on lsugen's miters leaves little or nothing, then rewrites
// (dc2) and decides (iprove, with no limits). Measured on the 2-core VM:
// the Fermi shared memory's miter (682,000 ANDs) took 10.6 s, where dc2;
// iprove alone took 88 s; masked_a2a_32's (203,000 ANDs) 16.8 s, where
// dc2; iprove took 60 to 97 s, the sweep limited to 100 conflicts 112 s
// and with &fraig's default (1,000,000) more than 5 minutes. &cec -m
// took 12 s on the Fermi miter but fails in write_cex when it refutes a
// one-output miter (its counterexample names an inner output).
const (
	proveCmds = "read_aiger %s; &get -n; &fraig -y -C 1000; &put; dc2; iprove; write_cex -n %s"
	// satMethod names proveCmds in a result's method.
	satMethod = "SAT (ABC &fraig -y -C 1000; dc2; iprove)"
	bmcCmds   = "read_aiger %s; bmc3 -F %d; write_cex -n %s"
)

func (p *prover) file(suffix string) string { return p.d.Name + suffix }

func (p *prover) write(name, text string) error {
	return os.WriteFile(filepath.Join(p.dir, name), []byte(text), 0o644)
}

func (p *prover) prove(ctx context.Context) (*Result, error) {
	d := p.d
	if d.Clock != "" {
		ws, err := stateWords(d)
		if err != nil {
			return nil, err
		}
		p.words = ws
	}
	if cuts := cutWires(d); len(cuts) > 0 {
		res, err := p.proveCut(ctx, cuts)
		switch {
		case err == nil && res != nil:
			return res, nil
		case ctx.Err() != nil:
			return nil, err
		}
		// Not proved at the points (or they did not line up): the whole
		// design's miter decides.
	}
	return p.proveWhole(ctx)
}

// sides writes the two scripts (cut at cuts, nil for none), runs them and
// matches the flip-flops.
func (p *prover) sides(ctx context.Context, cuts []cutWire) error {
	at := "" // the cut attempt's files are kept apart
	if cuts != nil {
		at = "_cut"
	}
	rtlOut, gatesOut := p.file(at+"_rtl.json"), p.file(at+"_gates.json")
	scripts := [2]string{p.file(at + "_rtl.ys"), p.file(at + "_gates.ys")}
	var sel [2]string
	if cuts != nil {
		sel = [2]string{p.file(at + "_rtl.sel"), p.file(at + "_gates.sel")}
		for i, text := range cutSelections(p.d, cuts) {
			if err := p.write(sel[i], text); err != nil {
				return err
			}
		}
	}
	texts := graphScripts(p.d, p.rtl, p.gates, rtlOut, gatesOut, sel)
	run := scripts[:]
	if !p.gatesFile {
		run = run[:1] // the gate side is the netlist's graph
	}
	for i := range run {
		if err := p.write(scripts[i], texts[i]); err != nil {
			return err
		}
	}
	if err := p.readSides(ctx, run, "RTL", "gate-level", p.d.Name, rtl.GatesModuleName(p.d), rtlOut, gatesOut, cuts); err != nil {
		return err
	}
	for _, s := range []*side{p.gold, p.gate} {
		if p.d.Clock == "" && len(s.a.latches) > 0 {
			return fmt.Errorf("a combinational unit, but its %s module has %d flip-flops", s.what, len(s.a.latches))
		}
	}
	var err error
	p.pairs, err = correspond(p.gold, p.gate, p.words)
	return err
}

// cutRounds bounds the SAT proofs at the equivalence points: each round
// that fails undoes the points its failing obligations read, and after
// the last the whole design's miter decides. Before each, random vectors
// undo the points that they already show to differ, many per pass, for up
// to simRounds passes.
const (
	cutRounds = 4
	simRounds = 64
	simWords  = 16 // 1,024 vectors a pass
)

// proveCut proves the modules equivalent at the equivalence points cuts
// (see cutWires), or, when the points' miter still has a counterexample
// after cutRounds rounds (which need not be one of the whole design), by
// the whole design's miter made from the same graphs: the result when
// they are equivalent, nil when not.
func (p *prover) proveCut(ctx context.Context, cuts []cutWire) (*Result, error) {
	if err := p.sides(ctx, cuts); err != nil {
		return nil, err
	}
	cs := matchCuts(p.gold, p.gate, cuts)
	rng := rand.New(rand.NewPCG(1, uint64(len(cs.points))))
	sims, rounds := 0, 0
	for rounds < cutRounds && cs.activeCount() > 0 {
		m, err := cutMiter(p.d, p.gold, p.gate, p.pairs, cs)
		if err != nil {
			return nil, err
		}
		var failing []int
		if sims < simRounds {
			sims++
			failing = m.failingRandom(rng, simWords)
		}
		if len(failing) == 0 {
			rounds++
			frame, err := p.iprove(ctx, m.aig)
			if err != nil {
				return nil, err
			}
			if frame == nil {
				return p.cutResult(m, cs, sims, rounds), nil
			}
			st := m.aig.newState()
			st.eval(frame)
			failing = m.failingAt(st)
		}
		bad := cs.culprits(m, failing, p.gold, p.gate)
		if len(bad) == 0 {
			break // no point to undo: the whole design decides
		}
		for _, i := range bad {
			cs.active[i] = false
		}
	}
	// The whole design's miter from the same graphs, every point undone:
	// no second Yosys run unless it fails, when proveWhole reads the
	// modules uncut for the counterexample's report.
	for i := range cs.active {
		cs.active[i] = false
	}
	m, err := cutMiter(p.d, p.gold, p.gate, p.pairs, cs)
	if err != nil {
		return nil, err
	}
	frame, err := p.iprove(ctx, m.aig)
	if err != nil || frame != nil {
		return nil, err
	}
	return p.wholeResult(m.aig, true), nil
}

// plural is "n thing" with the right form.
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// wholeResult is the result of the whole design's miter a.
func (p *prover) wholeResult(a *aig, equivalent bool) *Result {
	res := &Result{Unit: p.d.Name, Inputs: a.inputs, AndGates: len(a.ands), Equivalent: equivalent, Method: "miter, " + satMethod}
	if p.d.Clock != "" {
		res.Method = fmt.Sprintf("induction, %d register pairs, %s", len(p.pairs), satMethod)
	}
	return res
}

// cutResult is the result of a proof at cs's active points.
func (p *prover) cutResult(m *miter, cs *cutSet, sims, rounds int) *Result {
	points := fmt.Sprintf("cut at %d equivalence points", cs.activeCount())
	if n := len(cs.points) - cs.activeCount(); n > 0 {
		points += fmt.Sprintf(" (%d undone after %s and %s)", n, plural(sims, "random pass", "random passes"), plural(rounds, "SAT round", "SAT rounds"))
	}
	res := &Result{Unit: p.d.Name, Inputs: m.aig.inputs, AndGates: len(m.aig.ands), Equivalent: true,
		Method: "miter " + points + ", " + satMethod}
	if p.d.Clock != "" {
		res.Method = fmt.Sprintf("induction, %d register pairs, %s, %s", len(p.pairs), points, satMethod)
	}
	return res
}

// proveWhole proves the modules equivalent by the whole design's miter,
// or finds a counterexample.
func (p *prover) proveWhole(ctx context.Context) (*Result, error) {
	d := p.d
	if err := p.sides(ctx, nil); err != nil {
		return nil, err
	}
	step := stepMiter(d, p.gold, p.gate, p.pairs)
	res := p.wholeResult(step, false)
	frame, err := p.iprove(ctx, step)
	if err != nil {
		return nil, err
	}
	if frame == nil {
		res.Equivalent = true
		return res, nil
	}
	if r, err := p.proveWindows(ctx); err != nil || r != nil {
		return r, err
	}
	if res.Cex, err = p.replayStep(frame); err != nil {
		return nil, err
	}
	if d.Clock != "" {
		if err := p.bmc(ctx, res.Cex); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// proveWindows proves a pipeline's two modules equivalent where the
// register pairs are not an induction invariant: a value the gates hold
// in a register may stand for a don't-care of the RTL (a thermometer code
// that the gates decode more simply), so the two may differ from a state
// no input reaches. Both are pipelines of latency L, their state set by
// their last L inputs, so equal outputs in cycle L+1 from any two states
// (and in cycles 1..L-1 after a reset) prove them equivalent. It returns
// nil for a design that is not such a pipeline or that this does not
// prove.
func (p *prover) proveWindows(ctx context.Context) (*Result, error) {
	d := p.d
	if d.Pipeline == nil || d.Pipeline.Latency < 1 || len(d.Memories) > 0 || d.Port(PipelineReset) == nil {
		return nil, nil
	}
	m := windows(d, d.Pipeline.Latency, p.gold, p.gate)
	frame, err := p.iprove(ctx, m.a)
	if err != nil || frame != nil {
		return nil, err
	}
	return &Result{Unit: d.Name, Inputs: m.a.inputs, AndGates: len(m.a.ands), Equivalent: true,
		Method: fmt.Sprintf("%d register pairs not inductive; %s", len(p.pairs), m.method())}, nil
}

// inputBits counts the unit's input port bits (the clock included).
func inputBits(d *netlist.Design) int {
	n := 0
	for _, pt := range d.Inputs() {
		n += pt.Width()
	}
	return n
}

func (p *prover) runYosys(ctx context.Context, step, script, log string) error {
	_, err := p.run(ctx, p.yosys, step, "-q", "-l", log, "-s", script)
	if err != nil {
		return fmt.Errorf("%w\n  (script %s, log %s)", err, filepath.Join(p.dir, script), filepath.Join(p.dir, log))
	}
	return nil
}

// runABC runs an ABC command line and keeps its output in log. ABC exits
// 0 even when a command fails, so callers check the output.
func (p *prover) runABC(ctx context.Context, step, cmds, log string) ([]byte, error) {
	start := time.Now()
	out, err := p.run(ctx, p.abc, step, "-c", cmds)
	p.abcTime += time.Since(start)
	if werr := os.WriteFile(filepath.Join(p.dir, log), out, 0o644); werr != nil && err == nil {
		err = werr
	}
	return out, err
}

// run runs tool t with args in the work directory and returns its combined
// output; a failure names the tool and the step.
func (p *prover) run(ctx context.Context, t *toolchain.Tool, step string, args ...string) ([]byte, error) {
	toolRuns.Add(1)
	res, err := t.Command(p.dir, args...).Run(ctx)
	if err != nil {
		return res.Output, fmt.Errorf("%s %s: %w", t.Name, step, err)
	}
	return res.Output, nil
}

var verdictRE = regexp.MustCompile(`(?m)^(UNSATISFIABLE|SATISFIABLE|UNDECIDED)\b.*$`)

// verdict is iprove's answer: UNSATISFIABLE (trigger is constant 0: the
// modules are equivalent), SATISFIABLE (a counterexample), UNDECIDED, or
// "" when ABC printed none (an error).
func verdict(out []byte) string {
	m := verdictRE.FindAllSubmatch(out, -1)
	if len(m) != 1 {
		return ""
	}
	return string(m[0][1])
}

func verdictLine(out []byte) string {
	if m := verdictRE.Find(out); m != nil {
		return string(m)
	}
	return "no verdict"
}

func tailLines(out []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return "    " + strings.Join(lines, "\n    ")
}

var cexLineRE = regexp.MustCompile(`^pi(\d+)@(\d+)=([01])$`)

// readCex reads ABC's write_cex -n file: one line pi<INDEX>@<FRAME>=<0|1>
// per input that matters (the others are free; they are taken as 0).
func readCex(path string, inputs int) ([][]bool, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("ABC wrote no counterexample: %w", err)
	}
	var frames [][]bool
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		m := cexLineRE.FindStringSubmatch(line)
		if m == nil {
			continue // latch values (lo...@0) are the initial state: all 0 here
		}
		idx, _ := strconv.Atoi(m[1])
		frame, _ := strconv.Atoi(m[2])
		if idx >= inputs || frame > 1<<16 {
			return nil, fmt.Errorf("%s: %q is out of range (%d inputs)", path, line, inputs)
		}
		for len(frames) <= frame {
			frames = append(frames, make([]bool, inputs))
		}
		frames[frame][idx] = m[3] == "1"
	}
	if len(frames) == 0 {
		frames = append(frames, make([]bool, inputs))
	}
	return frames, nil
}

// Value is a named word of a counterexample.
type Value struct {
	Name  string
	Width int
	Bits  *big.Int
}

func (v Value) String() string { return fmt.Sprintf("%s = %s", v.Name, verilogHex(v.Bits, v.Width)) }

// verilogHex writes x as a sized Verilog literal: 10'h2a3, 1'b1.
func verilogHex(x *big.Int, w int) string {
	if w == 1 {
		return "1'b" + x.Text(2)
	}
	return fmt.Sprintf("%d'h%s", w, x.Text(16))
}

// Diff is an output (or a memory's input, or a register's next value) on
// which the modules differ.
type Diff struct {
	Name       string // output port, INSTANCE.PORT for a memory's input (bank3.raddr_i), or "next REG" for a register's next value
	Width      int
	RTL, Gates *big.Int
}

func (d Diff) String() string {
	return fmt.Sprintf("%s: RTL %s, gates %s", d.Name, verilogHex(d.RTL, d.Width), verilogHex(d.Gates, d.Width))
}

// Cycle is one clock cycle of a run: the inputs applied and the outputs
// on which the modules then differ (none before the last cycle).
type Cycle struct {
	Inputs []Value
	Diffs  []Diff
}

// Counterexample is what disproves the equivalence.
type Counterexample struct {
	// Inputs and State are the failing step: the input values and, for a
	// sequential unit, the register values both modules hold.
	Inputs []Value
	State  []Value
	// Diffs are the outputs, and for a sequential unit the next register
	// values, on which the two modules then differ.
	Diffs []Diff
	// Run, for a sequential unit, is a run from the all-zero state on
	// which the modules' outputs differ in the last cycle; nil when none
	// was found within RunBound cycles (then the failing step may start
	// from a state no run reaches, and the proof still fails).
	Run      []Cycle
	RunBound int
}

// String writes the counterexample for a person, one item a line.
func (c *Counterexample) String() string {
	var b strings.Builder
	if len(c.State) > 0 {
		b.WriteString("a step from a state both modules hold:\n  state (registers before the clock edge):\n")
		zero := 0
		for _, v := range c.State {
			if v.Bits.Sign() == 0 {
				zero++
				continue
			}
			fmt.Fprintf(&b, "    %s\n", v)
		}
		if zero > 0 {
			fmt.Fprintf(&b, "    %d other registers and memory words 0\n", zero)
		}
		b.WriteString("  inputs:\n")
	} else {
		b.WriteString("inputs:\n")
	}
	for _, v := range c.Inputs {
		fmt.Fprintf(&b, "    %s\n", v)
	}
	b.WriteString("  differ:\n")
	for _, df := range c.Diffs {
		fmt.Fprintf(&b, "    %s\n", df)
	}
	if c.RunBound > 0 {
		if c.Run == nil {
			fmt.Fprintf(&b, "no run from the all-zero state makes the outputs differ within %d cycles\n", c.RunBound)
		} else {
			fmt.Fprintf(&b, "a run from the all-zero state (every register 0) on which the outputs differ in cycle %d:\n", len(c.Run)-1)
			for i, cy := range c.Run {
				parts := make([]string, len(cy.Inputs))
				for j, v := range cy.Inputs {
					parts[j] = v.String()
				}
				fmt.Fprintf(&b, "  cycle %d: %s\n", i, strings.Join(parts, ", "))
				for _, df := range cy.Diffs {
					fmt.Fprintf(&b, "    differ: %s\n", df)
				}
			}
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// eval evaluates one module's graph: inputs by port bit (vals in
// portInputs order), latches as given.
func (s *side) eval(st *aigState, ins []mapBit, vals []bool) {
	in := make([]bool, s.a.inputs)
	pos := map[mapBit]int{}
	for i, k := range ins {
		pos[k] = i
	}
	for i, k := range s.m.inputs {
		in[i] = vals[pos[k]]
	}
	st.eval(in)
}

// outputs reads one module's output ports, then its memories' inputs
// (outPorts), after eval.
func (s *side) outputs(d *netlist.Design, st *aigState) []*big.Int {
	var vs []*big.Int
	for _, p := range outPorts(d) {
		x := new(big.Int)
		for i := 0; i < p.width; i++ {
			if st.output(s.out[mapBit{p.name, i}]) {
				x.SetBit(x, i, 1)
			}
		}
		vs = append(vs, x)
	}
	return vs
}

// replayStep evaluates both modules under the counterexample of the
// miter: the unit's inputs, and for a sequential unit the state both hold.
// It checks that the modules really differ and names the values.
func (p *prover) replayStep(vals []bool) (*Counterexample, error) {
	d := p.d
	ins := portInputs(d)
	sg, st := p.gold.a.newState(), p.gate.a.newState()
	for i, pr := range p.pairs {
		v := vals[len(ins)+i]
		sg.vals[p.gold.a.inputs+1+pr.gold] = v
		st.vals[p.gate.a.inputs+1+pr.gate] = v
	}
	p.gold.eval(sg, ins, vals)
	p.gate.eval(st, ins, vals)
	cex := &Counterexample{Inputs: inputValues(d, vals)}
	cex.Diffs = outputDiffs(d, p.gold.outputs(d, sg), p.gate.outputs(d, st))
	word := func() []*big.Int {
		w := make([]*big.Int, len(p.words))
		for i := range w {
			w[i] = new(big.Int)
		}
		return w
	}
	state, nextGold, nextGate := word(), word(), word()
	for i, pr := range p.pairs {
		set := func(x *big.Int, v bool) {
			if v {
				x.SetBit(x, pr.bit, 1)
			}
		}
		set(state[pr.word], vals[len(ins)+i])
		set(nextGold[pr.word], sg.lit(p.gold.a.latches[pr.gold].next))
		set(nextGate[pr.word], st.lit(p.gate.a.latches[pr.gate].next))
	}
	for i, w := range p.words {
		cex.State = append(cex.State, Value{Name: w.gold, Width: len(w.gates), Bits: state[i]})
		if nextGold[i].Cmp(nextGate[i]) != 0 {
			cex.Diffs = append(cex.Diffs, Diff{Name: "next " + w.gold, Width: len(w.gates), RTL: nextGold[i], Gates: nextGate[i]})
		}
	}
	if len(cex.Diffs) == 0 {
		return nil, errors.New("ABC's counterexample, replayed, makes no output or next state differ: not reported")
	}
	return cex, nil
}

// inputValues names the unit's input values and its memories' read data
// (vals in portInputs order), the clock left out: it only clocks the
// flip-flops.
func inputValues(d *netlist.Design, vals []bool) []Value {
	var vs []Value
	k := 0
	for _, p := range inPorts(d) {
		x := new(big.Int)
		for i := 0; i < p.width; i++ {
			if vals[k] {
				x.SetBit(x, i, 1)
			}
			k++
		}
		if p.name != d.Clock {
			vs = append(vs, Value{Name: p.name, Width: p.width, Bits: x})
		}
	}
	return vs
}

// outputDiffs lists the output ports, and the memory inputs (named
// INSTANCE.PORT, e.g. bank3.raddr_i), whose values differ.
func outputDiffs(d *netlist.Design, gold, gate []*big.Int) []Diff {
	var ds []Diff
	for i, p := range outPorts(d) {
		if gold[i].Cmp(gate[i]) != 0 {
			ds = append(ds, Diff{Name: p.name, Width: p.width, RTL: gold[i], Gates: gate[i]})
		}
	}
	return ds
}

var (
	bmcFoundRE = regexp.MustCompile(`(?m)^Output \d+ of miter .* was asserted in frame (\d+)`)
	bmcNoneRE  = regexp.MustCompile(`(?m)^No output asserted in \d+ frames`)
)

// bmc searches for a run from the all-zero state on which the modules'
// outputs differ (ABC bmc3 on the sequential miter), replays it on both
// modules and adds it to cex.
func (p *prover) bmc(ctx context.Context, cex *Counterexample) error {
	d := p.d
	run := runMiter(d, p.gold, p.gate)
	aigFile, cexFile := p.file("_run.aig"), p.file("_run.cex")
	if err := writeAIGFile(filepath.Join(p.dir, aigFile), run); err != nil {
		return err
	}
	os.Remove(filepath.Join(p.dir, cexFile))
	out, err := p.runABC(ctx, "bounded search", fmt.Sprintf(bmcCmds, aigFile, p.frames, cexFile), p.file("_run.abc.log"))
	if err != nil {
		return err
	}
	cex.RunBound = p.frames
	mf := bmcFoundRE.FindSubmatch(out)
	if mf == nil {
		if bmcNoneRE.Match(out) {
			return nil
		}
		return fmt.Errorf("ABC bmc3 gave no answer; its output:\n%s", tailLines(out, 12))
	}
	last, _ := strconv.Atoi(string(mf[1]))
	frames, err := readCex(filepath.Join(p.dir, cexFile), run.inputs)
	if err != nil {
		return err
	}
	for len(frames) <= last {
		frames = append(frames, make([]bool, run.inputs))
	}
	ins := portInputs(d)
	sg, st := p.gold.a.newState(), p.gate.a.newState() // every flip-flop 0
	var cycles []Cycle
	for f := 0; f <= last; f++ {
		p.gold.eval(sg, ins, frames[f])
		p.gate.eval(st, ins, frames[f])
		cy := Cycle{Inputs: inputValues(d, frames[f])}
		cy.Diffs = outputDiffs(d, p.gold.outputs(d, sg), p.gate.outputs(d, st))
		cycles = append(cycles, cy)
		if len(cy.Diffs) > 0 {
			cex.Run = cycles
			return nil
		}
		sg.step()
		st.step()
	}
	return fmt.Errorf("ABC's run of %d cycles, replayed, makes no output differ: not reported", last+1)
}
