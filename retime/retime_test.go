package retime_test

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/gen"
	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/retime"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/timing"
)

// designs are combinational units of several shapes: wide and shallow,
// deep (subtractor chains), and a pure permutation.
func designs(t *testing.T) []*netlist.Design {
	t.Helper()
	var ds []*netlist.Design
	add := func(d *netlist.Design, diags error) {
		t.Helper()
		if diags != nil {
			t.Fatal(diags)
		}
		ds = append(ds, d)
	}
	d, diags := gen.Coalescer(&specs.Coalescer{Name: "a2a", Structure: specs.AllToAll, Lanes: 8, AddrBits: 16, BlockBits: 2})
	add(d, errOf(diags))
	d, diags = gen.MonotonicityDetector(&specs.MonotonicityDetector{Name: "mono", Lanes: 8, AddrBits: 16, Adder: specs.AdderRipple})
	add(d, errOf(diags))
	d, diags = gen.Coalescer(&specs.Coalescer{Name: "spec", Structure: specs.Speculative, Lanes: 4, AddrBits: 12, Adder: specs.AdderCLA4, Requests: true, ActiveMask: true})
	add(d, errOf(diags))
	return ds
}

func errOf(d interface{ HasErrors() bool }) error {
	if d.HasErrors() {
		return d.(error)
	}
	return nil
}

// TestPipeline_MatchesCombinationalWithLatency runs each pipelined design
// in 64 lanes of random inputs, valid_i and reset for 200 cycles and
// checks every cycle's outputs against the combinational design on the
// inputs of L cycles before (0 where no operation is due), and every
// stage against the period.
func TestPipeline_MatchesCombinationalWithLatency(t *testing.T) {
	for _, d := range designs(t) {
		for _, period := range []float64{12, 20, 40} {
			for _, mode := range []timing.Mode{timing.Unsized, timing.Sized} {
				opt := timing.DefaultOptions()
				opt.Mode = mode
				r, err := retime.Pipeline(d, retime.Options{PeriodFO4: period, Timing: opt})
				if errors.Is(err, retime.ErrPeriod) && period <= 20 && mode == timing.Unsized {
					// An unsized gate with a wide fanout alone can take
					// more than a short period.
					t.Logf("%s at %v (%s): %v", d.Name, period, mode, err)
					continue
				}
				if err != nil {
					t.Fatalf("%s at %v (%s): %v", d.Name, period, mode, err)
				}
				if len(r.StageFO4) != r.Latency || r.Latency < 1 {
					t.Fatalf("%s: %d stage delays for latency %d", d.Name, len(r.StageFO4), r.Latency)
				}
				for i, s := range r.StageFO4 {
					if s > period {
						t.Errorf("%s at %v (%s): stage %d takes %v FO4", d.Name, period, mode, i+1, s)
					}
				}
				t.Logf("%s at %v FO4 (%s): latency %d, stages %v, %d registers %v", d.Name, period, mode, r.Latency, r.StageFO4, r.Registers, r.StageRegisters)
				checkLockstep(t, d, r)
			}
		}
	}
}

func checkLockstep(t *testing.T, comb *netlist.Design, r *retime.Result) {
	t.Helper()
	p := r.Design
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	rnd := rand.New(rand.NewPCG(1, 2))
	cs, ps := netlist.NewSim(comb), netlist.NewSim(p)
	portIdx := func(d *netlist.Design, name string) int {
		for i := range d.Ports {
			if d.Ports[i].Name == name {
				return i
			}
		}
		t.Fatalf("%s: no port %s", d.Name, name)
		return -1
	}
	type cycle struct {
		due  uint64              // lanes whose operation is valid L cycles later
		outs map[string][]uint64 // the combinational outputs of its inputs
	}
	var hist []cycle
	L := r.Latency
	for c := 0; c < 200; c++ {
		valid, rst := rnd.Uint64(), uint64(0)
		if c%37 == 5 {
			rst = rnd.Uint64()
		}
		for i, pt := range comb.Ports {
			if pt.Dir != netlist.In {
				continue
			}
			w := make([]uint64, pt.Width())
			for j := range w {
				w[j] = rnd.Uint64()
			}
			cs.SetInput(i, w)
			ps.SetInput(portIdx(p, pt.Name), w)
		}
		ps.SetInput(portIdx(p, "valid_i"), []uint64{valid})
		ps.SetInput(portIdx(p, "rst"), []uint64{rst})
		cs.Eval()
		ps.Eval()
		cy := cycle{due: valid &^ rst, outs: map[string][]uint64{}}
		for i, pt := range comb.Ports {
			if pt.Dir == netlist.Out {
				w := make([]uint64, pt.Width())
				cs.Output(i, w)
				cy.outs[pt.Name] = w
			}
		}
		// rst drops what is in flight: the operations of the last L-1
		// cycles lose the lanes it is set in.
		for k := max(0, len(hist)-(L-1)); k < len(hist); k++ {
			hist[k].due &^= rst
		}
		want := cycle{}
		if len(hist) >= L {
			want = hist[len(hist)-L]
		}
		got := make([]uint64, 1)
		ps.Output(portIdx(p, "valid_o"), got)
		if got[0] != want.due {
			t.Fatalf("%s: cycle %d: valid_o %x, want %x", p.Name, c, got[0], want.due)
		}
		for i, pt := range p.Ports {
			if pt.Dir != netlist.Out || pt.Name == "valid_o" {
				continue
			}
			w := make([]uint64, pt.Width())
			ps.Output(i, w)
			for j := range w {
				exp := uint64(0)
				if want.outs != nil {
					exp = want.outs[pt.Name][j] & want.due
				}
				if w[j] != exp {
					t.Fatalf("%s: cycle %d: %s bit %d = %x, want %x", p.Name, c, pt.Name, j, w[j], exp)
				}
			}
		}
		hist = append(hist, cy)
		ps.Step()
	}
}

// TestPipeline_RefusesShortPeriod: a period no register placement can
// meet is an error that says so.
func TestPipeline_RefusesShortPeriod(t *testing.T) {
	d := designs(t)[0]
	for _, period := range []float64{0.5, 1, 2.5} {
		if _, err := retime.Pipeline(d, retime.Options{PeriodFO4: period, Timing: timing.DefaultOptions()}); err == nil {
			t.Errorf("period %v: accepted", period)
		}
	}
}

// BenchmarkPipeline_AllToAll64 pipelines the thesis's 64-lane all-to-all
// coalescer (87,000 gates) at 8 FO4 under the sized model.
func BenchmarkPipeline_AllToAll64(b *testing.B) {
	d, diags := gen.Coalescer(&specs.Coalescer{Name: "a2a64", Structure: specs.AllToAll, Lanes: 64, AddrBits: 32})
	if diags.HasErrors() {
		b.Fatal(diags)
	}
	opt := timing.DefaultOptions()
	opt.Mode = timing.Sized
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := retime.Pipeline(d, retime.Options{PeriodFO4: 8, Timing: opt})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(r.Registers), "registers")
	}
}

// TestPipeline_RefusesMemories: a design with memory macros is refused
// with a message that says why, not as "already clocked".
func TestPipeline_RefusesMemories(t *testing.T) {
	b := netlist.NewBuilder("mem")
	b.Clock("clk", "")
	q := b.Memory("m", "bank", 2, 1, 1, "")
	b.MemoryPorts("m", netlist.Const1, netlist.Bus{netlist.Const0}, netlist.Const0, netlist.Bus{netlist.Const0}, netlist.Bus{netlist.Const0}, netlist.Bus{netlist.Const1})
	b.Output("q", q, "")
	d, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := retime.Pipeline(d, retime.Options{PeriodFO4: 20}); err == nil || !strings.Contains(err.Error(), "memory macros") {
		t.Errorf("Pipeline of a design with memories: %v", err)
	}
}
