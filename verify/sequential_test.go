package verify

import (
	"context"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/toolchain"
)

// hdlEngines are the HDL engines whose tools are installed; the others are
// skipped with a log line.
func hdlEngines(t testing.TB) []Engine {
	var es []Engine
	for _, e := range []Engine{Icarus, Verilator} {
		tools := map[Engine][]string{Icarus: {"iverilog", "vvp"}, Verilator: {"verilator", "make", "g++"}}[e]
		ok := true
		for _, n := range tools {
			if _, err := toolchain.Find(n); err != nil {
				t.Logf("skipping %s: %v", e, err)
				ok = false
				break
			}
		}
		if ok {
			es = append(es, e)
		}
	}
	return es
}

func allSeqEngines(t testing.TB) []Engine { return append([]Engine{Netlist}, hdlEngines(t)...) }

// TestSequential_AllEnginesPass runs the hand-built accumulator for 20,000
// cycles on every engine, in 19 segments and uncut.
func TestSequential_AllEnginesPass(t *testing.T) {
	d := seqaccDesign(t)
	job := seqJob(t, d, seqaccV, &seqaccModel{})
	for _, segs := range []int{0, 1} {
		engines := allSeqEngines(t)
		if segs == 1 {
			engines = []Engine{Netlist}
		}
		res, err := RunSequential(context.Background(), job, SeqPlan{Cycles: 20_000, Seed: 3, Segments: segs}, engines)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Checks) != len(engines) || res.Vectors != 20_000 {
			t.Fatalf("%d checks of %d cycles", len(res.Checks), res.Vectors)
		}
		for _, c := range res.Checks {
			if c.Mismatch != nil {
				t.Errorf("segments %d, %s: %s", segs, c.Engine, c.Mismatch)
			}
			t.Logf("segments %d, %s: %d cycles in %v", segs, c.Engine, c.Vectors, c.Elapsed)
		}
		t.Logf("coverage: %s", res.Coverage)
		if segs == 0 && !strings.Contains(res.Coverage, "20000 cycles (reset every 1053)") {
			t.Errorf("coverage %q does not give the segments", res.Coverage)
		}
	}
}

// firstMismatch runs the stream of the plan through a single-lane netlist
// simulation of d, uncut, and returns the first cycle whose outputs differ
// from the model's, or -1: the reference for the harness's segmented run.
func firstMismatch(t *testing.T, d *netlist.Design, job Job, plan SeqPlan) int {
	ins, outs, err := matchSeqInterface(d, job.Seq)
	if err != nil {
		t.Fatal(err)
	}
	stim, err := RandomStimulus(job.Seq.Ports(), plan.Seed)
	if err != nil {
		t.Fatal(err)
	}
	s := record(job.Seq, stim, ins, outs, plan.Cycles, plan.segments())
	sim := netlist.NewSim(d)
	set := func(c int) {
		v := make([][]uint64, len(ins))
		if c >= 0 {
			s.inView(v, c)
		}
		for j, p := range ins {
			lanes := make([]uint64, p.Width())
			for b := range lanes {
				if c >= 0 {
					lanes[b] = v[j][b/64] >> uint(b%64) & 1
				} else if p.Name == ResetPort {
					lanes[b] = 1
				}
			}
			sim.SetInput(portIndices(d, []*netlist.Port{p})[0], lanes)
		}
	}
	set(-1)
	sim.Eval()
	sim.Step()
	want := make([][]uint64, len(outs))
	for c := 0; c < plan.Cycles; c++ {
		set(c)
		sim.Eval()
		s.outView(want, c)
		for o, p := range outs {
			got := make([]uint64, p.Width())
			sim.Output(portIndices(d, []*netlist.Port{p})[0], got)
			if !equalWords(gather(got, 0), want[o]) {
				return c
			}
		}
		sim.Step()
	}
	return -1
}

// TestSequential_BrokenGateIsCaught breaks one gate of the accumulator's
// counter (an AND2 becomes a NOR2): every engine reports the
// first failing cycle that an uncut single-lane simulation finds, and
// leaves a VCD of the cycles before it.
func TestSequential_BrokenGateIsCaught(t *testing.T) {
	d := seqaccDesign(t)
	// Break the first AND2 that reads cnt[1]: in the counter's adder,
	// the generate term of bit 1, whose carry into bit 2 goes wrong.
	cnt := d.Port("cnt_o").Bits
	broken := -1
	for i, g := range d.Gates {
		if g.Kind == netlist.AND2 && (g.In[0] == cnt[1] || g.In[1] == cnt[1]) {
			d.Gates[i].Kind = netlist.NOR2
			broken = i
			break
		}
	}
	if broken < 0 {
		t.Fatal("no gate to break")
	}
	job := seqJob(t, d, seqaccV, &seqaccModel{})
	plan := SeqPlan{Cycles: 20_000, Seed: 5}
	want := firstMismatch(t, d, job, plan)
	if want < 1 {
		t.Fatalf("the broken gate fails in cycle %d; want a later cycle", want)
	}
	engines := allSeqEngines(t)
	res, err := RunSequential(context.Background(), job, plan, engines)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Checks {
		m := c.Mismatch
		if m == nil {
			t.Errorf("%s did not report the broken gate", c.Engine)
			continue
		}
		t.Logf("%s: %s", c.Engine, m)
		if m.Vector != want || !m.Clocked || !strings.HasPrefix(m.Inputs, "rst=") {
			t.Errorf("%s: mismatch in cycle %d, want %d", c.Engine, m.Vector, want)
		}
		if c.Engine != Netlist && !strings.Contains(m.Module, "seqacc_gates") {
			t.Errorf("%s: mismatch blamed on %s, want the gate-level module", c.Engine, m.Module)
		}
		checkSeqVCD(t, c.Engine, m)
	}
}

// TestSequential_BrokenRTLIsCaught: the RTL module's toggle misses a flip
// in one rare state; the HDL engines report the first cycle the buggy Go
// model disagrees with the right one, blaming the RTL module, and the
// netlist is fine.
func TestSequential_BrokenRTLIsCaught(t *testing.T) {
	engines := hdlEngines(t)
	if len(engines) == 0 {
		t.Skip("no HDL simulator")
	}
	d := seqaccDesign(t)
	job := seqJob(t, d, seqaccBuggyV, &seqaccModel{})
	plan := SeqPlan{Cycles: 20_000, Seed: 6}

	// The reference: the first cycle where the buggy model differs.
	ins, outs, err := matchSeqInterface(d, job.Seq)
	if err != nil {
		t.Fatal(err)
	}
	stim, _ := RandomStimulus(job.Seq.Ports(), plan.Seed)
	s := record(&seqaccModel{}, stim, ins, outs, plan.Cycles, plan.segments())
	buggy := &seqaccModel{bug: true}
	buggy.Reset()
	want := -1
	in, exp := make([][]uint64, len(ins)), make([][]uint64, len(outs))
	got := [][]uint64{{0}, {0}, {0}, {0}}
	for c := 0; c < plan.Cycles && want < 0; c++ {
		s.inView(in, c)
		s.outView(exp, c)
		buggy.Cycle(in, got)
		for o := range outs {
			if got[o][0] != exp[o][0] {
				want = c
			}
		}
	}
	if want < 1 {
		t.Fatalf("the bug shows in cycle %d; want a later one", want)
	}

	res, err := RunSequential(context.Background(), job, plan, append([]Engine{Netlist}, engines...))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Checks {
		m := c.Mismatch
		if c.Engine == Netlist {
			if m != nil {
				t.Errorf("netlist: %s", m)
			}
			continue
		}
		if m == nil {
			t.Errorf("%s did not report the broken RTL", c.Engine)
			continue
		}
		t.Logf("%s: %s", c.Engine, m)
		if m.Vector != want || m.Port != "tog_o" || m.Module != "seqacc ("+string(c.Engine)+")" {
			t.Errorf("%s: %s; want cycle %d, tog_o, module seqacc", c.Engine, m, want)
		}
		checkSeqVCD(t, c.Engine, m)
	}
}

var vcdStampRE = regexp.MustCompile(`(?m)^#(\d+)$`)

// checkSeqVCD checks that a mismatch's VCD exists, ends with the failing
// cycle and spans at most 1000 cycles.
func checkSeqVCD(t *testing.T, e Engine, m *Mismatch) {
	t.Helper()
	data, err := os.ReadFile(m.VCD)
	if err != nil {
		t.Errorf("%s: no VCD: %v", e, err)
		return
	}
	stamps := vcdStampRE.FindAllSubmatch(data, -1)
	if len(stamps) == 0 || !strings.Contains(string(data), "$enddefinitions") {
		t.Errorf("%s: %s is no VCD", e, m.VCD)
		return
	}
	first, _ := strconv.Atoi(string(stamps[0][1]))
	last, _ := strconv.Atoi(string(stamps[len(stamps)-1][1]))
	unit := 1
	if strings.Contains(string(data), "1ps") {
		unit = 1000
	}
	first, last = first/unit, last/unit
	// Cycle c runs from 2c+2 to 2c+4 ns; the dump ends when the failing
	// cycle's clock falls.
	wantLast := 2*m.Vector + 4
	if last != wantLast || first < max(0, 2*(m.Vector-999)+2) || first > last {
		t.Errorf("%s: VCD %s spans %d..%d ns; want up to %d, at most 1000 cycles", e, m.VCD, first, last, wantLast)
	}
	t.Logf("%s: VCD %d bytes, %d..%d ns", e, len(data), first, last)
}

func TestSequential_InterfaceErrors(t *testing.T) {
	d := seqaccDesign(t)
	ctx := context.Background()
	plan := SeqPlan{Cycles: 10, Seed: 1}
	run := func(d *netlist.Design, m *seqaccModel) error {
		_, err := RunSequential(ctx, Job{Design: d, Seq: m}, plan, []Engine{Netlist})
		return err
	}
	noClock := *d
	noClock.Clock = ""
	if err := run(&noClock, &seqaccModel{}); err == nil || !strings.Contains(err.Error(), "no clock") {
		t.Errorf("no clock: %v", err)
	}
	renamed := *d
	renamed.Ports = append([]netlist.Port(nil), d.Ports...)
	renamed.Ports[2].Name = "enable_i"
	if err := run(&renamed, &seqaccModel{}); err == nil || !strings.Contains(err.Error(), "interface mismatch") {
		t.Errorf("renamed port: %v", err)
	}
	if _, err := RunSequential(ctx, Job{Design: d}, plan, []Engine{Netlist}); err == nil {
		t.Error("no model: no error")
	}
	if _, err := Run(ctx, Job{Design: d, Model: nil}, DefaultPlan(), []Engine{Netlist}); err == nil || !strings.Contains(err.Error(), "RunSequential") {
		t.Errorf("Run of a sequential design: %v", err)
	}
}

func TestSeqPlan_Segments(t *testing.T) {
	cases := []struct {
		plan        SeqPlan
		n, length   int
		lastPartial int
	}{
		{SeqPlan{Cycles: 100_000}, 64, 1563, 100_000 - 63*1563},
		{SeqPlan{Cycles: 10_000}, 9, 1112, 10_000 - 8*1112},
		{SeqPlan{Cycles: 500}, 1, 500, 500},
		{SeqPlan{Cycles: 500, Segments: 1}, 1, 500, 500},
		{SeqPlan{Cycles: 3, Segments: 64}, 3, 1, 1},
		{SeqPlan{Cycles: 1000, Segments: 100}, 63, 16, 1000 - 62*16},
	}
	for _, c := range cases {
		segs := c.plan.segments()
		if len(segs) != c.n || segs[0].end-segs[0].start != c.length || segs[len(segs)-1].end-segs[len(segs)-1].start != c.lastPartial {
			t.Errorf("%+v: %d segments %v", c.plan, len(segs), segs[:min(3, len(segs))])
			continue
		}
		if segs[0].start != 0 || segs[len(segs)-1].end != c.plan.Cycles {
			t.Errorf("%+v: segments do not tile the stream", c.plan)
		}
	}
}

// corruptAt wraps a model and flips bit 0 of output 0 in the listed cycles
// (counted over the whole stream, not reset), so that a correct design
// fails exactly there.
type corruptAt struct {
	*seqaccModel
	at map[int]bool
	c  int
}

func (m *corruptAt) Cycle(in, out [][]uint64) {
	m.seqaccModel.Cycle(in, out)
	if m.at[m.c] {
		out[0][0] ^= 1
	}
	m.c++
}

// TestSequential_FirstFailingCycleOverLanes: with wrong expectations in
// segment 9 (early in it) and segment 3 (late in it), the netlist engine,
// which sees segment 9's first, and the HDL engines all report the earlier
// cycle, in segment 3.
func TestSequential_FirstFailingCycleOverLanes(t *testing.T) {
	d := seqaccDesign(t)
	plan := SeqPlan{Cycles: 20_000, Seed: 7}
	segs := plan.segments()
	early, late := segs[3].start+900, segs[9].start+10
	job := seqJob(t, d, seqaccV, &corruptAt{seqaccModel: &seqaccModel{}, at: map[int]bool{early: true, late: true}})
	res, err := RunSequential(context.Background(), job, plan, allSeqEngines(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Checks {
		m := c.Mismatch
		if m == nil || m.Vector != early || m.Port != "sum_o" {
			t.Errorf("%s: %v; want sum_o in cycle %d", c.Engine, m, early)
			continue
		}
		// The design is right; the expectation is off by one in bit 0.
		exp, _ := strconv.ParseUint(strings.TrimPrefix(m.Expected, "6'h"), 16, 64)
		got, _ := strconv.ParseUint(strings.TrimPrefix(m.Actual, "6'h"), 16, 64)
		if exp^got != 1 {
			t.Errorf("%s: expected %s, got %s: want a difference in bit 0", c.Engine, m.Expected, m.Actual)
		}
		checkSeqVCD(t, c.Engine, m)
	}
}

// TestSequential_RegisterFile runs the hand-built register file (16 x 8
// bits, not reset, valid bits reset) on every engine: its memory starts as
// x under Icarus and holds stale data across resets, which the outputs must
// never show.
func TestSequential_RegisterFile(t *testing.T) {
	d := regfileDesign(t, 4, 8)
	job := seqJob(t, d, regfileV(d.Name, 4, 8), newRegfileModel(4, 8))
	res, err := RunSequential(context.Background(), job, SeqPlan{Cycles: 20_000, Seed: 9}, allSeqEngines(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Checks {
		if c.Mismatch != nil {
			t.Errorf("%s: %s", c.Engine, c.Mismatch)
		}
		t.Logf("%s: %d cycles in %v", c.Engine, c.Vectors, c.Elapsed)
	}
}

// The speed figures: go test -run '^$' -bench Sequential -benchtime 1x ./verify
// (the 256 x 20-bit register file, about 22,000 gates).

func benchRegfile(b testing.TB) Job {
	d := regfileDesign(b, 8, 20)
	b.Logf("%s: %d gates", d.Name, len(d.Gates))
	return seqJob(b, d, regfileV(d.Name, 8, 20), newRegfileModel(8, 20))
}

// BenchmarkSequentialNetlist times the netlist engine alone on 100,000
// cycles (the stream recorded once), in 64 lanes and in one.
func BenchmarkSequentialNetlist(b *testing.B) {
	job := benchRegfile(b)
	for _, segs := range []int{0, 1} {
		b.Run(map[int]string{0: "lanes64", 1: "lane1"}[segs], func(b *testing.B) {
			plan := SeqPlan{Cycles: 100_000, Seed: 1, Segments: segs}
			ins, outs, err := matchSeqInterface(job.Design, job.Seq)
			if err != nil {
				b.Fatal(err)
			}
			stim, _ := RandomStimulus(job.Seq.Ports(), plan.Seed)
			s := record(job.Seq, stim, ins, outs, plan.Cycles, plan.segments())
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if mm, err := checkNetlistSeq(job.Design, s, plan.segments(), "", ""); err != nil || mm != nil {
					b.Fatal(mm, err)
				}
			}
			b.ReportMetric(float64(plan.Cycles)*float64(b.N)/b.Elapsed().Seconds(), "cycles/s")
		})
	}
}

func BenchmarkSequentialIcarus(b *testing.B)    { benchSeqHDL(b, Icarus, 10_000) }
func BenchmarkSequentialVerilator(b *testing.B) { benchSeqHDL(b, Verilator, 100_000) }

// benchSeqHDL times a run of cycles through the RTL and gate-level modules
// (both in one bench), the build done beforehand.
func benchSeqHDL(b *testing.B, e Engine, cycles int) {
	job := benchRegfile(b)
	plan := SeqPlan{Cycles: cycles, Seed: 1}
	start := time.Now()
	if _, err := RunSequential(context.Background(), job, SeqPlan{Cycles: 10, Seed: 1}, []Engine{e}); err != nil {
		b.Fatal(err)
	}
	b.Logf("%s: build and 10 cycles: %v", e, time.Since(start))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := RunSequential(context.Background(), job, plan, []Engine{e})
		if err != nil {
			b.Fatal(err)
		}
		if res.Failed() {
			b.Fatal(res.Checks[0].Mismatch)
		}
	}
	b.ReportMetric(float64(cycles)*float64(b.N)/b.Elapsed().Seconds(), "cycles/s")
}

// TestSequential_UnresetStateLeaks: an RTL module that shows its unreset
// register last_q without the cnt != 0 guard leaks x under Icarus in cycle
// 0, reported as a mismatch with a VCD; Verilator, whose registers start
// at 0, sees the stale value after a later reset instead.
func TestSequential_UnresetStateLeaks(t *testing.T) {
	engines := hdlEngines(t)
	if len(engines) == 0 {
		t.Skip("no HDL simulator")
	}
	leaky := strings.Replace(seqaccV, "assign last_o = (cnt_q != 3'd0) ? last_q : 4'd0;", "assign last_o = last_q;", 1)
	d := seqaccDesign(t)
	job := seqJob(t, d, leaky, &seqaccModel{})
	res, err := RunSequential(context.Background(), job, SeqPlan{Cycles: 5000, Seed: 4}, engines)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Checks {
		m := c.Mismatch
		if m == nil || m.Port != "last_o" || !strings.HasPrefix(m.Module, "seqacc (") {
			t.Errorf("%s: %v; want a last_o mismatch in module seqacc", c.Engine, m)
			continue
		}
		t.Logf("%s: %s", c.Engine, m)
		if c.Engine == Icarus && (m.Vector != 0 || m.Actual != "x or z bits") {
			t.Errorf("icarus: %s; want x in cycle 0", m)
		}
		checkSeqVCD(t, c.Engine, m)
	}
}
