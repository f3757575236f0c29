package formal

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lsugen/lsugen/flow"
	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/verify"
)

// TestCutWires_Choice: a wire is an equivalence point only when each of
// its bits is a gate net of its name, named once, driven by a cell other
// than a buffer and no output port's bit, and the RTL writer prints it as
// its own signal (not a copy or select of another name, nor copied as a
// part of a concatenation).
func TestCutWires_Choice(t *testing.T) {
	b := netlist.NewBuilder("cuts")
	x := b.Input("x_i", 2, "")
	y := b.Input("y_i", 2, "")
	and := netlist.Bus{b.And(x[0], y[0]), b.And(x[1], y[1])}
	xor := netlist.Bus{b.Xor(x[0], y[0]), b.Xor(x[1], y[1])}
	or := b.Or(x[0], y[1])
	buf := b.Buf(or)
	nor := b.Nor(x[1], y[0])
	b.Name("p", and) // a point
	b.Name("q", xor) // copied by q_copy: no point
	b.Name("r", netlist.Bus{or})
	b.Name("r_buf", netlist.Bus{buf}) // a buffer's output: no point
	b.Name("m_0", netlist.Bus{nor})   // claimed by m[0] and by the one-bit m_0: neither
	u := b.Nand(x[0], y[1])
	b.Name("u", netlist.Bus{u})                                                            // an output port's bit: one signal with the port, no point
	b.Output("o", netlist.Bus{b.Not(and[0]), b.Not(and[1]), xor[0], xor[1], buf, nor}, "") // every gate used: Build drops the others
	b.Output("u_o", netlist.Bus{u}, "")
	xe, ye := netlist.Ref("x_i", 2), netlist.Ref("y_i", 2)
	b.SetRTL(&netlist.RTL{Assigns: []netlist.Assign{
		{Name: "p", Wire: true, Expr: netlist.AndE(xe, ye)},
		{Name: "q", Wire: true, Expr: netlist.XorE(xe, ye)},
		{Name: "q_copy", Wire: true, Expr: netlist.Ref("q", 2)},
		{Name: "r", Wire: true, Expr: netlist.OrE(netlist.Slice(xe, 0, 0), netlist.Slice(ye, 1, 1))},
		{Name: "r_buf", Wire: true, Expr: netlist.Ref("r", 1)},
		{Name: "s", Wire: true, Expr: netlist.Slice(netlist.AddE(xe, ye), 1, 1)},
		{Name: "m", Wire: true, Expr: netlist.Concat(netlist.NotE(netlist.OrE(netlist.Slice(xe, 1, 1), netlist.Slice(ye, 0, 0))), netlist.ConstExpr(0, 1))},
		{Name: "m_0", Wire: true, Expr: netlist.NotE(netlist.OrE(netlist.Slice(xe, 1, 1), netlist.Slice(ye, 0, 0)))},
		// Not a copy of its names (which would make them no points): the
		// test reads only the choice of points.
		{Name: "o", Expr: netlist.NotE(netlist.Concat(netlist.Ref("p", 2), netlist.Ref("q", 2), netlist.Ref("r", 1), netlist.Ref("m_0", 1)))},
		{Name: "u", Wire: true, Expr: netlist.NotE(netlist.AndE(netlist.Slice(xe, 0, 0), netlist.Slice(ye, 1, 1)))},
		{Name: "u_o", Expr: netlist.Ref("u", 1)},
	}})
	d, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cutWires(d) {
		got = append(got, c.rtl+"="+strings.Join(c.gates, ","))
	}
	// r is copied by r_buf: no point either.
	if want := []string{"p=p_0,p_1"}; !slices.Equal(got, want) {
		t.Errorf("points %v, want %v", got, want)
	}
}

// TestCopyInTied: tying a graph's cut input back to its driver gives the
// uncut function, and a tie that feeds a driver its own input is a loop,
// an error.
func TestCopyInTied(t *testing.T) {
	// Inputs 0 (a), 1 (b), 2 (the cut input c.i); AND 4 = a & b drives
	// output 0 (c); AND 5 = c.i & ~a is output 1.
	g := &aig{maxVar: 5, inputs: 3, outputs: []uint32{8, 10}, ands: [][2]uint32{{4, 2}, {6, 3}}}
	s := &side{what: "test", a: g}
	for _, tc := range []struct {
		a, b, want bool
	}{{false, false, false}, {true, true, false}} {
		bld := &aigBuilder{inputs: 2}
		tr, err := bld.copyInTied(s, func(i int) uint32 { return uint32(2 * (1 + i)) }, nil, map[int]int{2: 0})
		if err != nil {
			t.Fatal(err)
		}
		bld.outputs = []uint32{tr(g.outputs[1])}
		st := bld.aig().newState()
		st.eval([]bool{tc.a, tc.b})
		if st.output(0) != tc.want {
			t.Errorf("a=%v b=%v: (a & b) & ~a = %v, want %v", tc.a, tc.b, st.output(0), tc.want)
		}
	}
	// Output 1 = c.i & ~a read back into c.i: a loop.
	bld := &aigBuilder{inputs: 2}
	if _, err := bld.copyInTied(s, func(i int) uint32 { return uint32(2 * (1 + i)) }, nil, map[int]int{2: 1}); err == nil || !strings.Contains(err.Error(), "loop") {
		t.Errorf("a tie onto its own driver: err %v, want a loop", err)
	}
}

// TestFormal_CutProofFindsBrokenGates: the example arbiter, its gate-level
// file read by Yosys, is proved at its equivalence points; a swapped cell that drives a point, and one
// inside a point's logic that is no point, each still give a
// counterexample that lsugen's netlist simulator confirms.
func TestFormal_CutProofFindsBrokenGates(t *testing.T) {
	requireYosys(t)
	d := design(t, "arb_mod_8")
	dir := t.TempDir()
	res, err := Prove(context.Background(), writeUnit(t, dir, d, d), Options{Dir: dir, NoCache: true, GatesFile: true})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Equivalent || !strings.Contains(res.Method, "equivalence points") {
		t.Fatalf("equivalent %v, method %q: want a proof at the points", res.Equivalent, res.Method)
	}
	cuts := cutWires(d)
	netOf := map[string]netlist.Net{}
	for n, s := range d.NetNames {
		netOf[s] = n
	}
	point := map[netlist.Net]bool{}
	for _, c := range cuts {
		for _, g := range c.gates {
			point[netOf[g]] = true
		}
	}
	driver := map[netlist.Net]netlist.Gate{}
	for _, g := range d.Gates {
		driver[g.Out] = g
	}
	p := netOf[cuts[len(cuts)/2].gates[0]]
	inner := netlist.Net(-1)
	for _, in := range driver[p].In {
		if g, ok := driver[in]; ok && !point[in] && swapped[g.Kind] != 0 {
			inner = in
			break
		}
	}
	if inner < 0 {
		t.Fatalf("%s: point net %d reads no gate that is not a point", d.Name, p)
	}
	for _, n := range []netlist.Net{p, inner} {
		bad := breakDriver(t, d, n)
		dir := t.TempDir()
		res, err := Prove(context.Background(), writeUnit(t, dir, d, bad), Options{Dir: dir, NoCache: true, GatesFile: true})
		if err != nil {
			t.Fatal(err)
		}
		if res.Equivalent || res.Cex == nil {
			t.Fatalf("net %d broken: proved equivalent (%s)", n, res.Method)
		}
		good, broken := simulate(netlist.NewSim(d), d, res.Cex.Inputs), simulate(netlist.NewSim(bad), bad, res.Cex.Inputs)
		for _, df := range res.Cex.Diffs {
			if good[df.Name].Cmp(df.RTL) != 0 || broken[df.Name].Cmp(df.Gates) != 0 || good[df.Name].Cmp(broken[df.Name]) == 0 {
				t.Errorf("net %d broken: %s: netlists %s / %s, counterexample RTL %s, gates %s", n, df.Name, good[df.Name], broken[df.Name], df.RTL, df.Gates)
			}
		}
	}
}

// BenchmarkProve_FermiSharedMemory proves the 48 KB Fermi-like shared
// memory of specs/large (256,551 gates, the largest clocked unit --formal
// takes) RTL = gate netlist, without the proof cache: 1 min 51 s on the
// 2-core VM (Yosys 73 s, ABC 36 s), where reading the gate-level file
// with Yosys, cut at equivalence points, and ABC's dc2; iprove took
// 8 min 51 s (ABC 5 min 56 s). A benchmark (make bench), not a test: it
// checks that the proof scales, which is a matter of time, and every
// example memory's proof is in TestFormal_EverySpecUnitEquivalent.
func BenchmarkProve_FermiSharedMemory(b *testing.B) {
	requireYosys(b)
	root, err := flow.ModuleRoot()
	if err != nil {
		b.Fatal(err)
	}
	s, err := flow.Load([]string{filepath.Join(root, "specs", "large", "shared_memory_fermi.hcl")}, flow.Options{Unit: "shmem_fermi"})
	if err != nil {
		b.Fatal(err)
	}
	d := s.Units[0].Design
	if err := verify.DefaultLimits().CheckProofs([]*netlist.Design{d}); err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	u := writeUnit(b, dir, d, d)
	var res *Result
	for b.Loop() {
		if res, err = Prove(context.Background(), u, Options{Dir: dir, Timeout: 60 * time.Minute, NoCache: true}); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("%s: %s in %s (Yosys %s, ABC %s)", d.Name, res.Method, res.Elapsed, res.Yosys, res.ABC)
	if !res.Equivalent || !strings.HasPrefix(res.Method, "induction") {
		b.Fatalf("equivalent %v, method %q: want a proof by induction", res.Equivalent, res.Method)
	}
	b.ReportMetric(res.Yosys.Seconds(), "yosys-s")
	b.ReportMetric(res.ABC.Seconds(), "abc-s")
}

// TestCutWires_ConcatCopy: a wire whose bits a concatenation copies as
// some of its parts (the rest computed) is no point: Yosys joins each
// copied bit with the bit it becomes, and cutting the wire would leave
// that bit its own driver.
func TestCutWires_ConcatCopy(t *testing.T) {
	b := netlist.NewBuilder("cuts")
	x := b.Input("x_i", 2, "")
	y := b.Input("y_i", 2, "")
	p := netlist.Bus{b.And(x[0], y[0]), b.And(x[1], y[1])}
	b.Name("p", p)
	b.Output("o", netlist.Bus{b.Or(p[0], p[1]), b.Not(p[1])}, "")
	pe := netlist.Ref("p", 2)
	b.SetRTL(&netlist.RTL{Assigns: []netlist.Assign{
		{Name: "p", Wire: true, Expr: netlist.AndE(netlist.Ref("x_i", 2), netlist.Ref("y_i", 2))},
		{Name: "o", Expr: netlist.Concat(netlist.OrE(netlist.Slice(pe, 0, 0), netlist.Slice(pe, 1, 1)), netlist.Slice(pe, 1, 1))},
	}})
	d, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	if got := cutWires(d); len(got) != 0 {
		t.Errorf("points %v, want none: o copies p[1]", got)
	}
}
