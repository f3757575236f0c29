package formal

import (
	"context"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lsugen/lsugen/gen"
	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/retime"
	"github.com/lsugen/lsugen/rtl"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/timing"
	"github.com/lsugen/lsugen/units"
)

// pipelined builds a small combinational unit and pipelines it at
// periodFO4 under the sized timing model.
func pipelined(t testing.TB, comb *netlist.Design, periodFO4 float64) *retime.Result {
	t.Helper()
	opt := timing.DefaultOptions()
	opt.Mode = timing.Sized
	r, err := retime.Pipeline(comb, retime.Options{PeriodFO4: periodFO4, Timing: opt})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s at %v FO4: latency %d, stages %v, %d registers", comb.Name, periodFO4, r.Latency, r.StageFO4, r.Registers)
	return r
}

func monoDetector(t testing.TB) *netlist.Design {
	t.Helper()
	d, diags := gen.MonotonicityDetector(&specs.MonotonicityDetector{Name: "mono", Lanes: 4, AddrBits: 8, Adder: specs.AdderRipple})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return d
}

func smallCoalescer(t testing.TB) *netlist.Design {
	t.Helper()
	d, diags := gen.Coalescer(&specs.Coalescer{Name: "spec", Structure: specs.Speculative, Lanes: 4, AddrBits: 8, Adder: specs.AdderCLA4, Requests: true, ActiveMask: true})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return d
}

// writeGatesFile writes d's gate-level Verilog into dir/sub and returns
// the Unit (RTL left empty: ProvePipelined reads only the gates).
func writeGatesFile(t testing.TB, dir, sub string, d *netlist.Design) Unit {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
		t.Fatal(err)
	}
	var g strings.Builder
	if err := rtl.WriteGates(&g, d, rtl.Info{Version: "lsugen test", Source: "pipelined_test.go"}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, sub, rtl.GatesFileName(d))
	if err := os.WriteFile(path, []byte(g.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return Unit{Design: d, Gates: path}
}

// provePipelined writes both units and proves piped (latency L) against comb.
func provePipelined(t testing.TB, comb, piped *netlist.Design, L int) (*PipelinedResult, error) {
	t.Helper()
	dir := t.TempDir()
	c := writeGatesFile(t, dir, "comb", comb)
	p := writeGatesFile(t, dir, "piped", piped)
	return ProvePipelined(context.Background(), c, p, L, Options{Dir: filepath.Join(dir, "work"), Timeout: 30 * time.Minute, NoCache: true})
}

// TestProvePipelined_Proves: a 4-lane monotonicity detector and a 4-lane
// speculative coalescer, pipelined to two stages or more, are proved
// equal to their originals followed by the protocol's registers; so is a
// one-stage pipeline.
func TestProvePipelined_Proves(t *testing.T) {
	requireYosys(t)
	for _, c := range []struct {
		comb   func(testing.TB) *netlist.Design
		period float64
		minL   int
	}{
		{monoDetector, 12, 2},
		{smallCoalescer, 12, 2},
		{monoDetector, 1000, 1},
	} {
		comb := c.comb(t)
		r := pipelined(t, comb, c.period)
		if r.Latency < c.minL {
			t.Fatalf("%s at %v FO4: latency %d, want at least %d", comb.Name, c.period, r.Latency, c.minL)
		}
		res, err := provePipelined(t, comb, r.Design, r.Latency)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Equivalent || res.Cex != nil {
			t.Fatalf("%s: not equivalent:\n%s", comb.Name, res.Cex)
		}
		t.Logf("%s: %s; %d inputs, %d AND gates, %s", comb.Name, res.Method, res.Inputs, res.AndGates, res.Elapsed.Round(time.Millisecond))
	}
}

// checkRunOnSim replays a run from reset on lsugen's netlist simulator:
// the good pipelined netlist must give the reference's outputs and the
// broken one the pipelined module's, cycle by cycle.
func checkRunOnSim(t *testing.T, good, bad *netlist.Design, run *PipelineRun) {
	t.Helper()
	sg, sb := netlist.NewSim(good), netlist.NewSim(bad) // all flip-flops 0
	for i, cy := range run.Cycles {
		og, ob := simulate(sg, good, cy.Inputs), simulate(sb, bad, cy.Inputs)
		for j, v := range cy.Reference {
			if og[v.Name].Cmp(v.Bits) != 0 {
				t.Errorf("cycle %d: %s: good netlist %s, run's reference %s", i, v.Name, og[v.Name], v.Bits)
			}
			if w := cy.Pipelined[j]; ob[w.Name].Cmp(w.Bits) != 0 {
				t.Errorf("cycle %d: %s: broken netlist %s, run's pipelined %s", i, w.Name, ob[w.Name], w.Bits)
			}
		}
		sg.Step()
		sb.Step()
	}
}

// TestProvePipelined_BrokenFails: a pipelined detector with one cell of the
// original logic swapped, or one stage register bypassed (a path with L-1
// registers), fails with a counterexample; its run from reset, replayed
// on lsugen's netlist simulator, gives the reported outputs of both.
func TestProvePipelined_BrokenFails(t *testing.T) {
	requireYosys(t)
	comb := monoDetector(t)
	r := pipelined(t, comb, 12)
	good := r.Design
	t.Run("swapped cell", func(t *testing.T) {
		out := comb.Outputs()[0]
		bad := breakDriver(t, good, out.Bits[0]) // the original's gate keeps its net
		checkBroken(t, comb, good, bad, r.Latency)
	})
	t.Run("register bypassed", func(t *testing.T) {
		bad := bypassRegister(t, good, "stage1_q")
		checkBroken(t, comb, good, bad, r.Latency)
	})
	t.Run("wrong latency", func(t *testing.T) {
		res, err := provePipelined(t, comb, good, r.Latency+1)
		if err != nil {
			t.Fatal(err)
		}
		if res.Equivalent || res.Cex == nil || res.Cex.Reset == nil {
			t.Fatalf("proved with latency %d, the pipeline's is %d, or no run from reset: %+v", r.Latency+1, r.Latency, res.Cex)
		}
		t.Logf("counterexample:\n%s", res.Cex)
	})
}

func checkBroken(t *testing.T, comb, good, bad *netlist.Design, L int) {
	t.Helper()
	res, err := provePipelined(t, comb, bad, L)
	if err != nil {
		t.Fatal(err)
	}
	if res.Equivalent || res.Cex == nil {
		t.Fatalf("the broken pipeline was proved equivalent (%s)", res.Method)
	}
	cex := res.Cex
	t.Logf("counterexample:\n%s", cex)
	if len(cex.Proof.Cycles) == 0 || len(cex.Proof.Cycles[len(cex.Proof.Cycles)-1].Differ) == 0 {
		t.Fatalf("the proof's run ends in no difference: %+v", cex.Proof)
	}
	if cex.Reset == nil {
		t.Fatalf("no run from reset found within %d cycles", cex.ResetBound)
	}
	last := cex.Reset.Cycles[len(cex.Reset.Cycles)-1]
	if len(last.Differ) == 0 || len(cex.Reset.Cycles) < 2 {
		t.Fatalf("the run from reset ends in no difference: %+v", cex.Reset)
	}
	if rst := cex.Reset.Cycles[0].Inputs[0]; rst.Name != PipelineReset || rst.Bits.Cmp(big.NewInt(1)) != 0 {
		t.Errorf("cycle 0 of the run from reset: %s, want rst = 1", rst)
	}
	checkRunOnSim(t, good, bad, cex.Reset)
	if s := cex.String(); !strings.Contains(s, "reference: ") || !strings.Contains(s, "differ: ") {
		t.Errorf("the counterexample's text lacks the outputs:\n%s", s)
	}
}

// bypassRegister returns a copy of d in which the readers of the first
// flip-flop of register bus (bus, or bus_0 when it has several bits) read
// its D instead: one register fewer on the paths through it.
func bypassRegister(t testing.TB, d *netlist.Design, bus string) *netlist.Design {
	t.Helper()
	for gi, g := range d.Gates {
		if n := d.NetNames[g.Out]; g.Kind != netlist.DFF || n != bus && n != bus+"_0" {
			continue
		}
		c := *d
		c.Gates = nil
		for gj, h := range d.Gates {
			if gj == gi {
				continue
			}
			h.In = append([]netlist.Net(nil), h.In...)
			for k, n := range h.In {
				if n == g.Out {
					h.In[k] = g.In[0]
				}
			}
			c.Gates = append(c.Gates, h)
		}
		c.NetNames = map[netlist.Net]string{}
		for n, s := range d.NetNames {
			if n != g.Out {
				c.NetNames[n] = s
			}
		}
		// A reader of the register may come before the D's driver: put
		// the gates back in topological order (flip-flops are sources),
		// which the netlist simulator needs.
		c.Gates = topoSort(t, &c)
		return &c
	}
	t.Fatalf("%s: no flip-flop %s or %s_0", d.Name, bus, bus)
	return nil
}

// topoSort orders d's gates so that every gate comes after the drivers of
// its inputs, a flip-flop's output counting as a source.
func topoSort(t testing.TB, d *netlist.Design) []netlist.Gate {
	t.Helper()
	driver := make([]int, d.NumNets)
	for i := range driver {
		driver[i] = -1
	}
	for gi, g := range d.Gates {
		driver[g.Out] = gi
	}
	state := make([]int8, len(d.Gates)) // 0 new, 1 on the stack, 2 done
	var out []netlist.Gate
	var visit func(gi int)
	visit = func(gi int) {
		switch state[gi] {
		case 1:
			t.Fatalf("%s: a combinational cycle through gate %d", d.Name, gi)
		case 2:
			return
		}
		state[gi] = 1
		if g := d.Gates[gi]; g.Kind != netlist.DFF {
			for _, n := range g.In {
				if dr := driver[n]; dr >= 0 && d.Gates[dr].Kind != netlist.DFF {
					visit(dr)
				}
			}
		}
		state[gi] = 2
		out = append(out, d.Gates[gi])
	}
	for gi := range d.Gates {
		visit(gi)
	}
	return out
}

// TestProvePipelined_SpecUnits: units with clock_fo4, as units.Generate
// pipelines them, are proved against their family's combinational design,
// at the latency the design states.
func TestProvePipelined_SpecUnits(t *testing.T) {
	requireYosys(t)
	src := `
monotonicity_detector "mono_p" {
  lanes     = 4
  addr_bits = 8
  adder     = "cla4"
  clock_fo4 = 10
}
hash "add_p" {
  function  = "add"
  addr_bits = 14
  bank_bits = 5
  adder     = "ripple"
  clock_fo4 = 8
  timing_mode = "unsized"
}
`
	file, diags := specs.NewLoader().Parse([]byte(src), "pipelined.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	for _, u := range file.Units {
		f, diags := units.For(u)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		comb, diags := f.Generate(u)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		piped, diags := units.Generate(u)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		if piped.Pipeline == nil || piped.Pipeline.Latency < 2 {
			t.Fatalf("%s: pipeline %+v, want latency 2 or more", u.UnitName(), piped.Pipeline)
		}
		res, err := provePipelined(t, comb, piped, 0)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Equivalent || res.Latency != piped.Pipeline.Latency {
			t.Fatalf("%s: equivalent %v at latency %d:\n%s", u.UnitName(), res.Equivalent, res.Latency, res.Cex)
		}
		t.Logf("%s: %s, %s", u.UnitName(), res.Method, res.Elapsed.Round(time.Millisecond))
	}
}

// TestProvePipelined_GarbageAfterReset: a pipelined detector whose first
// output also ORs in a two-register chain fed by 0 and never reset agrees
// with the reference from cycle 2 on, whatever the state, but not in
// cycle 1 after a reset when the chain held a 1 at power-up. Only the
// reset window sees it, and no run from the all-zero state does: the
// proof's run, from a stated state, is the counterexample.
func TestProvePipelined_GarbageAfterReset(t *testing.T) {
	requireYosys(t)
	comb := monoDetector(t)
	r := pipelined(t, comb, 12)
	if r.Latency != 2 {
		t.Fatalf("latency %d, want 2", r.Latency)
	}
	good := r.Design
	bad := *good
	bad.Gates = append([]netlist.Gate(nil), good.Gates...)
	bad.NetNames = map[netlist.Net]string{}
	for n, s := range good.NetNames {
		bad.NetNames[n] = s
	}
	bad.Ports = append([]netlist.Port(nil), good.Ports...)
	g1, g2, o := netlist.Net(bad.NumNets), netlist.Net(bad.NumNets+1), netlist.Net(bad.NumNets+2)
	bad.NumNets += 3
	out := comb.Outputs()[0].Name
	var pi int
	for pi = range bad.Ports {
		if bad.Ports[pi].Name == out {
			break
		}
	}
	q := bad.Ports[pi].Bits[0]
	bad.Gates = append(bad.Gates,
		netlist.Gate{Kind: netlist.DFF, In: []netlist.Net{netlist.Const0}, Out: g1},
		netlist.Gate{Kind: netlist.DFF, In: []netlist.Net{g1}, Out: g2},
		netlist.Gate{Kind: netlist.OR2, In: []netlist.Net{q, g2}, Out: o})
	bad.NetNames[g1], bad.NetNames[g2] = "stray1", "stray2"
	bits := append(netlist.Bus(nil), bad.Ports[pi].Bits...)
	bits[0] = o
	bad.Ports[pi].Bits = bits
	res, err := provePipelined(t, comb, &bad, r.Latency)
	if err != nil {
		t.Fatal(err)
	}
	if res.Equivalent || res.Cex == nil {
		t.Fatalf("proved equivalent (%s)", res.Method)
	}
	cex := res.Cex
	t.Logf("counterexample:\n%s", cex)
	if cex.Proof.Claim != "reset" || len(cex.Proof.Cycles) != 2 || cex.Reset != nil || cex.ResetBound == 0 {
		t.Fatalf("want the reset claim broken in cycle 1 and no run from the all-zero state: claim %q, %d cycles, run from reset %v", cex.Proof.Claim, len(cex.Proof.Cycles), cex.Reset)
	}
	found := false
	for _, s := range cex.Proof.Start {
		found = found || s == "pipelined stray1"
	}
	if !found {
		t.Errorf("the start state does not name pipelined stray1: %v", cex.Proof.Start)
	}
	if d := cex.Proof.Cycles[1].Differ; len(d) != 1 || d[0] != out {
		t.Errorf("cycle 1 differs on %v, want %s", d, out)
	}
}

// TestProvePipelined_Errors: a proof that cannot be made is an error,
// never a pass: ports that are not the protocol's, a latency of 0 for a
// design that states none, the time limit.
func TestProvePipelined_Errors(t *testing.T) {
	requireYosys(t)
	comb := monoDetector(t)
	r := pipelined(t, comb, 12)
	noValid := *r.Design
	noValid.Ports = nil
	for _, p := range r.Design.Ports {
		if p.Name != PipelineValidO {
			noValid.Ports = append(noValid.Ports, p)
		}
	}
	noMeta := *r.Design
	noMeta.Pipeline = nil
	for _, c := range []struct {
		name        string
		comb, piped *netlist.Design
		L           int
		timeout     time.Duration
		want        string
	}{
		{"combinational as pipelined", comb, comb, 2, 0, "the pipelined design has no clock"},
		{"pipelined as original", r.Design, r.Design, 2, 0, "is clocked"},
		{"no valid_o", comb, &noValid, 2, 0, "has no port valid_o"},
		{"no latency", comb, &noMeta, 0, 0, "latency 0"},
		{"timeout", comb, r.Design, 2, time.Millisecond, "not proven within the timeout of 1ms"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			cu := writeGatesFile(t, dir, "comb", c.comb)
			pu := writeGatesFile(t, dir, "piped", c.piped)
			res, err := ProvePipelined(context.Background(), cu, pu, c.L, Options{Dir: filepath.Join(dir, "work"), Timeout: c.timeout, NoCache: true})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("want an error naming %q, got %v (result %+v)", c.want, err, res)
			}
		})
	}
}

// TestFormal_PipelineNotInductive: the hash mod 17 pipelined at 20 FO4
// has a readable module whose whole entries read registers that its gates
// decode differently (a threshold compare the RTL writes as a priority
// of thermometer bits), so the register pairs are not an induction
// invariant; the two modules are proved equal as pipelines instead, L+1
// cycles from any state and L after a reset. A broken gate still fails.
func TestFormal_PipelineNotInductive(t *testing.T) {
	requireYosys(t)
	comb := design(t, "mod17")
	opt := timing.DefaultOptions()
	opt.Mode = timing.Sized
	r, err := retime.PipelineWords(comb, retime.Options{PeriodFO4: 20, Timing: opt})
	if err != nil {
		t.Fatal(err)
	}
	d := r.Design
	dir := t.TempDir()
	res, err := Prove(context.Background(), writeUnit(t, dir, d, d), Options{Dir: dir, NoCache: true})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Equivalent || !strings.Contains(res.Method, "not inductive") {
		t.Fatalf("latency %d: equivalent %v by %q, want equivalent with the pairs not inductive", r.Latency, res.Equivalent, res.Method)
	}
	t.Logf("latency %d: %s", r.Latency, res.Method)

	// The output register's data, its valid mask broken (AND to OR).
	var out *netlist.Port
	for _, p := range d.Outputs() {
		if p.Name != "valid_o" {
			out = p
			break
		}
	}
	name := out.Name + "_q"
	if out.Width() > 1 {
		name += "_0"
	}
	bad := breakDriver(t, d, dffD(t, d, name))
	dir = t.TempDir()
	res, err = Prove(context.Background(), writeUnit(t, dir, d, bad), Options{Dir: dir, NoCache: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Equivalent || res.Cex == nil {
		t.Fatalf("a broken output mask was proved equivalent (%s)", res.Method)
	}
}
