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

// TestPipeline_UnsizedBuffersResetAndValid: placed by the unsized model, a
// pipeline of more than MaxBufferFanout stages (the detector at 9 FO4)
// drives its reset, and one of more than MaxBufferFanout output bits (the
// all-to-all) its valid mask, through buffer trees: no net of either tree
// is read by more than MaxBufferFanout pins, and the pipeline still
// answers as its original in lockstep.
func TestPipeline_UnsizedBuffersResetAndValid(t *testing.T) {
	ds := designs(t)
	for _, c := range []struct {
		d    *netlist.Design
		rst  bool // the reset's tree (else the valid mask's) must have buffers
		want string
	}{{ds[1], true, "reset"}, {ds[0], false, "valid mask"}} {
		opt := timing.DefaultOptions()
		opt.Mode = timing.Unsized
		r, err := retime.Pipeline(c.d, retime.Options{PeriodFO4: 9, Timing: opt})
		if err != nil {
			t.Fatal(err)
		}
		p := r.Design
		readers := make([]int, p.NumNets)
		driver := map[netlist.Net]netlist.Gate{}
		for _, g := range p.Gates {
			driver[g.Out] = g
			for _, n := range g.In {
				readers[n]++
			}
		}
		// The roots: rst's inverter, and the last valid register's D (the
		// mask of the output registers).
		rst := p.Port("rst").Bits[0]
		var rstRoot netlist.Net = -1
		for _, g := range p.Gates {
			if g.Kind == netlist.INV && len(g.In) == 1 && g.In[0] == rst {
				rstRoot = g.Out
			}
		}
		maskRoot := driver[p.Port("valid_o").Bits[0]].In[0]
		tree := func(root netlist.Net) (bufs int) {
			for todo := []netlist.Net{root}; len(todo) > 0; todo = todo[1:] {
				n := todo[0]
				if readers[n] > retime.MaxBufferFanout {
					t.Errorf("%s: net %s has %d readers, more than %d", c.d.Name, p.NetName(n), readers[n], retime.MaxBufferFanout)
				}
				for _, g := range p.Gates {
					if g.Kind == netlist.BUF && g.In[0] == n {
						todo = append(todo, g.Out)
						bufs++
					}
				}
			}
			return bufs
		}
		if rstRoot < 0 {
			t.Fatalf("%s: no inverter of rst", c.d.Name)
		}
		rb, mb := tree(rstRoot), tree(maskRoot)
		if (c.rst && rb == 0) || (!c.rst && mb == 0) {
			t.Errorf("%s: latency %d: no buffers in the %s's tree (reset %d, mask %d)", c.d.Name, r.Latency, c.want, rb, mb)
		}
		t.Logf("%s: latency %d; buffers: reset %d, valid mask %d", c.d.Name, r.Latency, rb, mb)
		checkLockstep(t, c.d, r)
	}
}
