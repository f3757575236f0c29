package formal

import (
	"context"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lsugen/lsugen/flow"
	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/rtl"
	"github.com/lsugen/lsugen/toolchain"
)

// requireYosys fails the test when Yosys (and its ABC) is missing: in
// make test a missing tool is a failure, not a skip.
func requireYosys(t testing.TB) {
	t.Helper()
	y, err := toolchain.Find("yosys")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := findABC(y); err != nil {
		t.Fatal(err)
	}
}

// exampleDesigns are the designs of every example spec's units
// (flow.ExampleUnits), shared by the tests of the binary: read, never
// modified (breakDriver copies).
func exampleDesigns(t testing.TB) []*netlist.Design {
	t.Helper()
	us, err := flow.ExampleUnits()
	if err != nil {
		t.Fatal(err)
	}
	ds := make([]*netlist.Design, len(us))
	for i, u := range us {
		ds[i] = u.Design
	}
	return ds
}

// design is the example unit named name.
func design(t testing.TB, name string) *netlist.Design {
	t.Helper()
	for _, d := range exampleDesigns(t) {
		if d.Name == name {
			return d
		}
	}
	t.Fatalf("no example unit %s", name)
	return nil
}

// cutPointsRE finds the number of equivalence points a method names.
var cutPointsRE = regexp.MustCompile(`cut at (\d+) equivalence points`)

// writeUnit writes d's RTL, and the gate-level Verilog of gates (d itself,
// or a corrupted copy), into dir.
func writeUnit(t testing.TB, dir string, d, gates *netlist.Design) Unit {
	t.Helper()
	info := rtl.Info{Version: "lsugen test", Source: "formal_test.go"}
	var r, g strings.Builder
	if err := rtl.WriteRTL(&r, d, info); err != nil {
		t.Fatal(err)
	}
	if err := rtl.WriteGates(&g, gates, info); err != nil {
		t.Fatal(err)
	}
	// The gate side is gates: the netlist proved (netlistSide), and the
	// file Options.GatesFile proves.
	u := Unit{Design: gates, RTL: filepath.Join(dir, rtl.RTLFileName(d)), Gates: filepath.Join(dir, rtl.GatesFileName(d))}
	// The bank module of d's memories, then the units d instantiates,
	// read before d's files (rtl.Sources's order).
	if name := rtl.BankFileName(d); name != "" {
		var bank strings.Builder
		if err := rtl.WriteBank(&bank, d, info); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(bank.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		u.RTLLibs = append(u.RTLLibs, filepath.Join(dir, name))
		u.GateLibs = append(u.GateLibs, filepath.Join(dir, name))
	}
	for _, sub := range d.Submodules() {
		files, err := rtl.Files(sub, info)
		if err != nil {
			t.Fatal(err)
		}
		for name, b := range files {
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		u.RTLLibs = append(u.RTLLibs, filepath.Join(dir, rtl.RTLFileName(sub)))
		u.GateLibs = append(u.GateLibs, filepath.Join(dir, rtl.GatesFileName(sub)))
	}
	if err := os.WriteFile(u.RTL, []byte(r.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(u.Gates, []byte(g.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return u
}

// TestFormal_EverySpecUnitEquivalent proves, for every unit of every
// example spec, that the RTL and the gate-level Verilog are equivalent:
// combinational units by a miter, clocked ones by induction over all
// their registers. Two units at a time, through lsugen's proof cache (as
// the Verilator builds go through theirs: LSUGEN_CACHE_DIR, "off" for
// none), so that a unit whose Verilog, tools and scripts are unchanged
// since a proof is not proved again; the cache's own tests check that a
// change misses it. A design that appears under two names (the same two
// texts but for the module name) is proved once.
func TestFormal_EverySpecUnitEquivalent(t *testing.T) {
	requireYosys(t)
	// One proof per distinct design (flow.DistinctExamples: the Verilog
	// with the unit's name replaced).
	us, same, err := flow.DistinctExamples()
	if err != nil {
		t.Fatal(err)
	}
	if len(same) > 0 {
		var shared []string
		for name, first := range same {
			shared = append(shared, fmt.Sprintf("%s = %s", name, first))
		}
		sort.Strings(shared)
		t.Logf("proved once for several units (the same design under another name): %s", strings.Join(shared, ", "))
	}
	root := t.TempDir()
	type job struct {
		d *netlist.Design
		u Unit
	}
	var jobs []job
	for _, fu := range us {
		d := fu.Design
		dir := filepath.Join(root, d.Name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, job{d, writeUnit(t, dir, d, d)})
	}
	// The largest first, so that the last proofs to start are short ones
	// and the parallel proofs end together.
	sort.SliceStable(jobs, func(i, j int) bool { return len(jobs[i].d.Gates) > len(jobs[j].d.Gates) })
	var (
		mu     sync.Mutex
		times  []string
		cached int
	)
	start := time.Now()
	t.Run("unit", func(t *testing.T) {
		for _, j := range jobs {
			d, u := j.d, j.u
			t.Run(d.Name, func(t *testing.T) {
				t.Parallel()
				// The netlist's graph for every unit; the gate-level file, as
				// Yosys reads it, for the smaller ones, which between them
				// use every cell kind and the writer's every form.
				for _, gatesFile := range []bool{false, true} {
					if gatesFile && len(d.Gates) > gatesFileMaxGates {
						continue
					}
					// The limit only ends a hang: a proof takes minutes at most.
					res, err := Prove(context.Background(), u, Options{Dir: filepath.Dir(u.RTL), Timeout: 30 * time.Minute, GatesFile: gatesFile})
					if err != nil {
						t.Fatal(err)
					}
					checkProof(t, d, res)
					if gatesFile {
						continue
					}
					mu.Lock()
					if res.Cached {
						cached++
					} else {
						times = append(times, fmt.Sprintf("%8.1fs  %s (%d gates; Yosys %.1fs, ABC %.1fs, miter %d ANDs)", res.Elapsed.Seconds(), d.Name, len(d.Gates), res.Yosys.Seconds(), res.ABC.Seconds(), res.AndGates))
					}
					mu.Unlock()
				}
			})
		}
	})
	sort.Strings(times)
	proved := len(times)
	if proved > 8 {
		times = times[proved-8:]
	}
	t.Logf("%d units, %d distinct designs; %d from the proof cache, %d proved in %s; the slowest:\n%s", len(us)+len(same), len(jobs), cached, proved, time.Since(start).Round(time.Second), strings.Join(times, "\n"))
}

// gatesFileMaxGates is the largest unit whose gate-level file
// TestFormal_EverySpecUnitEquivalent also proves as Yosys reads it
// (Options.GatesFile); larger files take Yosys tens of seconds each.
const gatesFileMaxGates = 5000

// checkProof checks a proof of d that passed: equivalent, by a miter over
// its inputs or by induction over its registers as well.
func checkProof(t *testing.T, d *netlist.Design, res *Result) {
	t.Helper()
	if !res.Equivalent || res.Cex != nil {
		t.Fatalf("%s: not equivalent:\n%s", d.Name, res.Cex)
	}
	inputs := inputBits(d)
	for _, m := range d.Memories {
		inputs += len(m.RData) // each bank's read data: a free input
	}
	if m := cutPointsRE.FindStringSubmatch(res.Method); m != nil {
		n, _ := strconv.Atoi(m[1])
		inputs += n // each equivalence point: a free input
	}
	if d.Clock != "" {
		// Induction over every register bit: each is a miter input.
		if !strings.HasPrefix(res.Method, "induction") || res.Inputs != inputs+d.Stats()[netlist.DFF] {
			t.Errorf("%s: method %q with %d inputs, want induction with %d + %d", d.Name, res.Method, res.Inputs, inputs, d.Stats()[netlist.DFF])
		}
	} else if !strings.HasPrefix(res.Method, "miter") || res.Inputs != inputs {
		t.Errorf("%s: method %q with %d inputs, want a miter with %d", d.Name, res.Method, res.Inputs, inputs)
	}
}

// swapped gives each cell kind another of the same arity.
var swapped = map[netlist.Kind]netlist.Kind{
	netlist.AND2: netlist.OR2, netlist.OR2: netlist.AND2,
	netlist.NAND2: netlist.NOR2, netlist.NOR2: netlist.NAND2,
	netlist.AND3: netlist.OR3, netlist.OR3: netlist.AND3,
	netlist.NAND3: netlist.NOR3, netlist.NOR3: netlist.NAND3,
	netlist.AND4: netlist.OR4, netlist.OR4: netlist.AND4,
	netlist.NAND4: netlist.NOR4, netlist.NOR4: netlist.NAND4,
	netlist.XOR2: netlist.XNOR2, netlist.XNOR2: netlist.XOR2,
	netlist.INV: netlist.BUF, netlist.BUF: netlist.INV,
	netlist.AOI21: netlist.OAI21, netlist.OAI21: netlist.AOI21,
}

// breakDriver returns a copy of d in which the cell driving net n is
// swapped for another kind of the same arity.
func breakDriver(t testing.TB, d *netlist.Design, n netlist.Net) *netlist.Design {
	t.Helper()
	for gi, g := range d.Gates {
		if g.Out != n {
			continue
		}
		k, ok := swapped[g.Kind]
		if !ok {
			t.Fatalf("%s: no swap for the %s cell g%d", d.Name, g.Kind, gi)
		}
		c := *d
		c.Gates = append([]netlist.Gate(nil), d.Gates...)
		c.Gates[gi].Kind = k
		t.Logf("%s: cell g%d %s -> %s", d.Name, gi, g.Kind, k)
		return &c
	}
	t.Fatalf("%s: net %d is driven by no cell", d.Name, n)
	return nil
}

// dffD returns the D net of the flip-flop named name (gate-level name).
func dffD(t testing.TB, d *netlist.Design, name string) netlist.Net {
	t.Helper()
	for _, g := range d.Gates {
		if g.Kind == netlist.DFF && d.NetNames[g.Out] == name {
			return g.In[0]
		}
	}
	t.Fatalf("%s: no flip-flop %s", d.Name, name)
	return 0
}

// simulate runs the netlist simulator one cycle: it sets the inputs
// (lane 0) and returns the output port values.
func simulate(s *netlist.Sim, d *netlist.Design, in []Value) map[string]*big.Int {
	byName := map[string]*big.Int{}
	for _, v := range in {
		byName[v.Name] = v.Bits
	}
	for pi, p := range d.Ports {
		if p.Dir != netlist.In {
			continue
		}
		words := make([]uint64, p.Width())
		if x := byName[p.Name]; x != nil {
			for i := range words {
				words[i] = uint64(x.Bit(i))
			}
		}
		s.SetInput(pi, words)
	}
	s.Eval()
	out := map[string]*big.Int{}
	for pi, p := range d.Ports {
		if p.Dir != netlist.Out {
			continue
		}
		words := make([]uint64, p.Width())
		s.Output(pi, words)
		x := new(big.Int)
		for i, w := range words {
			x.SetBit(x, i, uint(w&1))
		}
		out[p.Name] = x
	}
	return out
}

// TestFormal_BrokenCombinationalGateFails: one cell of a generated
// adder hash's gate netlist swapped (AND for OR, ...) makes the proof fail
// with a counterexample, which lsugen's own netlist simulator confirms:
// under its inputs the good and the broken netlists give the reported
// values.
func TestFormal_BrokenCombinationalGateFails(t *testing.T) {
	requireYosys(t)
	d := design(t, "atomic_add_cla")
	bad := breakDriver(t, d, d.Port("bank_o").Bits[2])
	eachGateSide(t, func(t *testing.T, gatesFile bool) {
		brokenCombinational(t, d, bad, gatesFile)
	})
}

func brokenCombinational(t *testing.T, d, bad *netlist.Design, gatesFile bool) {
	dir := t.TempDir()
	res, err := Prove(context.Background(), writeUnit(t, dir, d, bad), Options{Dir: dir, NoCache: true, GatesFile: gatesFile})
	if err != nil {
		t.Fatal(err)
	}
	if res.Equivalent || res.Cex == nil {
		t.Fatalf("the broken netlist was proved equivalent (%s)", res.Method)
	}
	cex := res.Cex
	t.Logf("counterexample:\n%s", cex)
	if len(cex.Diffs) != 1 || cex.Diffs[0].Name != "bank_o" || len(cex.State) != 0 || cex.Run != nil {
		t.Fatalf("want one differing output, bank_o, and no state: %+v", cex)
	}
	good := simulate(netlist.NewSim(d), d, cex.Inputs)["bank_o"]
	broken := simulate(netlist.NewSim(bad), bad, cex.Inputs)["bank_o"]
	if df := cex.Diffs[0]; good.Cmp(df.RTL) != 0 || broken.Cmp(df.Gates) != 0 || good.Cmp(broken) == 0 {
		t.Errorf("netlist simulator: good %s, broken %s; counterexample says RTL %s, gates %s", good, broken, df.RTL, df.Gates)
	}
	if !strings.Contains(cex.String(), "bank_o: RTL 5'h") {
		t.Errorf("the counterexample's text does not name bank_o's values:\n%s", cex)
	}
}

// TestFormal_BrokenSequentialGateFails: in the elastic pipeline, the cell
// that computes MEM0's valid bit for the next cycle is swapped. The
// induction step fails on that register's next value, and the bounded
// search finds a run from the all-zero state on which wb_valid_o or
// stall_o differ; lsugen's netlist simulator, run on the good and the
// broken netlists over the same inputs, agrees cycle by cycle.
func TestFormal_BrokenSequentialGateFails(t *testing.T) {
	requireYosys(t)
	d := design(t, "ep_elastic_m4")
	bad := breakDriver(t, d, dffD(t, d, "mem0_v"))
	eachGateSide(t, func(t *testing.T, gatesFile bool) {
		brokenSequential(t, d, bad, gatesFile)
	})
}

func brokenSequential(t *testing.T, d, bad *netlist.Design, gatesFile bool) {
	dir := t.TempDir()
	res, err := Prove(context.Background(), writeUnit(t, dir, d, bad), Options{Dir: dir, NoCache: true, GatesFile: gatesFile})
	if err != nil {
		t.Fatal(err)
	}
	if res.Equivalent || res.Cex == nil {
		t.Fatalf("the broken netlist was proved equivalent (%s)", res.Method)
	}
	cex := res.Cex
	t.Logf("counterexample:\n%s", cex)
	next := false
	for _, df := range cex.Diffs {
		next = next || df.Name == "next mem0_v"
	}
	if !next || len(cex.State) == 0 {
		t.Errorf("the induction step should fail on MEM0's next valid bit, from a stated state: %v", cex.Diffs)
	}
	if len(cex.Run) == 0 || cex.RunBound == 0 {
		t.Fatalf("no run from the all-zero state found within %d cycles", cex.RunBound)
	}
	sg, sb := netlist.NewSim(d), netlist.NewSim(bad) // all flip-flops 0
	for i, cy := range cex.Run {
		og, ob := simulate(sg, d, cy.Inputs), simulate(sb, bad, cy.Inputs)
		last := i == len(cex.Run)-1
		differ := map[string]bool{}
		for name := range og {
			if og[name].Cmp(ob[name]) != 0 {
				differ[name] = true
			}
		}
		if !last && len(differ) > 0 {
			t.Fatalf("cycle %d: the netlists already differ (%v) before the run's last cycle", i, differ)
		}
		if last {
			if len(cy.Diffs) == 0 || len(differ) != len(cy.Diffs) {
				t.Fatalf("last cycle %d: the netlists differ on %v, the run reports %v", i, differ, cy.Diffs)
			}
			for _, df := range cy.Diffs {
				if !differ[df.Name] || og[df.Name].Cmp(df.RTL) != 0 || ob[df.Name].Cmp(df.Gates) != 0 {
					t.Errorf("cycle %d: %s: netlists %s / %s, run says RTL %s, gates %s", i, df.Name, og[df.Name], ob[df.Name], df.RTL, df.Gates)
				}
			}
		}
		sg.Step()
		sb.Step()
	}
}

// TestFormal_CorrectSequentialUnitPasses: the warp ready mask with its
// 4-way history cache (memories, 162 flip-flops) is proved equivalent by
// induction over all of its registers.
func TestFormal_CorrectSequentialUnitPasses(t *testing.T) {
	requireYosys(t)
	d := design(t, "wrm_4way")
	eachGateSide(t, func(t *testing.T, gatesFile bool) {
		dir := t.TempDir()
		res, err := Prove(context.Background(), writeUnit(t, dir, d, d), Options{Dir: dir, NoCache: true, GatesFile: gatesFile})
		if err != nil {
			t.Fatal(err)
		}
		want := "induction, 162 register pairs, cut at 67 equivalence points, SAT (ABC &fraig -y -C 1000; dc2; iprove)"
		if !res.Equivalent || res.Method != want {
			t.Fatalf("equivalent %v, method %q, want %q", res.Equivalent, res.Method, want)
		}
	})
}

// eachGateSide runs f as a subtest for each gate side a proof takes: the
// netlist's graph and the gate-level file as Yosys reads it.
func eachGateSide(t *testing.T, f func(t *testing.T, gatesFile bool)) {
	t.Run("netlist", func(t *testing.T) { f(t, false) })
	t.Run("gates_file", func(t *testing.T) { f(t, true) })
}

// TestFormal_UnmatchedRegisterIsAnError: a gate netlist whose flip-flop
// is named after no RTL register bit cannot be proved: an error that
// names both sides, never a pass.
func TestFormal_UnmatchedRegisterIsAnError(t *testing.T) {
	requireYosys(t)
	d := design(t, "ep_elastic_fig6")
	c := *d
	c.NetNames = map[netlist.Net]string{}
	for n, s := range d.NetNames {
		if s == "mem1_v" {
			s = "stray_ff"
		}
		c.NetNames[n] = s
	}
	eachGateSide(t, func(t *testing.T, gatesFile bool) {
		dir := t.TempDir()
		res, err := Prove(context.Background(), writeUnit(t, dir, d, &c), Options{Dir: dir, NoCache: true, GatesFile: gatesFile})
		if err == nil {
			t.Fatalf("proved: %+v", res)
		}
		for _, want := range []string{"no register correspondence", "mem1_v[0] has no flip-flop mem1_v in the gate-level module", "stray_ff"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error lacks %q:\n%v", want, err)
			}
		}
	})
}

// TestFormal_BadNetDriversAreErrors: with the gate-level file proved
// (Options.GatesFile), a file with one assign
// deleted leaves a net without a driver, which Yosys would read as a free
// input; one with a second assign to a net has two drivers, which Yosys
// would merge into one net. lsugen refuses both (check -assert) instead
// of proving anything.
func TestFormal_BadNetDriversAreErrors(t *testing.T) {
	requireYosys(t)
	d := design(t, "atomic_add_cla")
	for _, c := range []struct {
		name string
		edit func(lines []string, i int) []string
		want string // in the error
	}{
		{"undriven", func(lines []string, i int) []string { return append(lines[:i:i], lines[i+1:]...) }, "check -assert"},
		{"two drivers", func(lines []string, i int) []string {
			f := strings.Fields(lines[i])
			extra := fmt.Sprintf("    assign %s = ~addr_i_0;  // a second cell on the net", f[1])
			return append(lines[:i+1:i+1], append([]string{extra}, lines[i+1:]...)...)
		}, "check -assert"},
		// The same function through a process: a combinational netlist
		// has none, and the script refuses it rather than run proc.
		{"a process", func(lines []string, i int) []string {
			f := strings.Fields(lines[i])
			expr := strings.TrimSuffix(strings.Join(f[3:], " "), ";")
			if k := strings.Index(expr, ";"); k >= 0 {
				expr = expr[:k]
			}
			repl := []string{
				fmt.Sprintf("    reg %s_r;", f[1]),
				fmt.Sprintf("    always @* %s_r = %s;", f[1], expr),
				fmt.Sprintf("    assign %s = %s_r;", f[1], f[1]),
			}
			return append(lines[:i:i], append(repl, lines[i+1:]...)...)
		}, "selection is not empty: p:*"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			u := writeUnit(t, dir, d, d)
			b, err := os.ReadFile(u.Gates)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(string(b), "\n")
			at := -1
			for i, l := range lines {
				if f := strings.Fields(l); len(f) > 2 && f[0] == "assign" && !strings.Contains(f[1], "[") {
					at = i // the first assign to an internal net
					break
				}
			}
			if at < 0 {
				t.Fatal("no assign to an internal net")
			}
			lines = c.edit(lines, at)
			if err := os.WriteFile(u.Gates, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
				t.Fatal(err)
			}
			res, err := Prove(context.Background(), u, Options{Dir: dir, NoCache: true, GatesFile: true})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("want an error naming %q, got %v (result %+v)", c.want, err, res)
			}
		})
	}
}

// TestFormal_TimeoutIsAnError: a proof cut short by its time limit is an
// error that says so.
func TestFormal_TimeoutIsAnError(t *testing.T) {
	requireYosys(t)
	d := design(t, "monotonic_8_cla")
	dir := t.TempDir()
	_, err := Prove(context.Background(), writeUnit(t, dir, d, d), Options{Dir: dir, Timeout: time.Millisecond, NoCache: true})
	if err == nil || !strings.Contains(err.Error(), "not proven within the timeout of 1ms") {
		t.Fatalf("want a timeout error, got %v", err)
	}
}

// TestAIGER_WriteReadRoundTrip: a graph written by writeAIGFile reads
// back the same and evaluates as built: out = (a AND NOT b) XOR latch.
func TestAIGER_WriteReadRoundTrip(t *testing.T) {
	b := &aigBuilder{inputs: 2, latches: make([]aigLatch, 1)}
	x := b.and(2, 4^1)
	y := b.xor(x, 6)
	b.latches[0] = aigLatch{next: y}
	b.outputs = []uint32{y, 1, 0}
	path := filepath.Join(t.TempDir(), "t.aig")
	if err := writeAIGFile(path, b.aig()); err != nil {
		t.Fatal(err)
	}
	a, err := readAIGFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if a.inputs != 2 || len(a.latches) != 1 || len(a.ands) != len(b.ands) || a.maxVar != 3+len(b.ands) {
		t.Fatalf("read back %d inputs, %d latches, %d ands, M %d", a.inputs, len(a.latches), len(a.ands), a.maxVar)
	}
	s := a.newState()
	latch := false
	for i, in := range [][2]bool{{true, false}, {true, false}, {false, false}, {true, true}} {
		s.eval([]bool{in[0], in[1]})
		want := (in[0] && !in[1]) != latch
		if s.output(0) != want || !s.output(1) || s.output(2) {
			t.Fatalf("step %d: outputs %v %v %v, want %v true false", i, s.output(0), s.output(1), s.output(2), want)
		}
		s.step()
		latch = want
	}
}
