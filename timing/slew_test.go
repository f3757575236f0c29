package timing

import (
	"math"
	"testing"

	"github.com/lsugen/lsugen/netlist"
)

// fanoutDesign is a -> INV g0 -> n INVs g1..gn -> y[n-1:0]: g0 drives a
// net of fanout n.
func fanoutDesign(n int) *netlist.Design {
	d := &netlist.Design{Name: "fanout", NumNets: 4 + n}
	var ys []netlist.Net
	d.Gates = append(d.Gates, gate(netlist.INV, 3, 2))
	for i := range n {
		y := netlist.Net(4 + i)
		d.Gates = append(d.Gates, gate(netlist.INV, y, 3))
		ys = append(ys, y)
	}
	d.Ports = []netlist.Port{port("a", netlist.In, 2), port("y", netlist.Out, ys...)}
	return d
}

// linearSlewTech is the textbook table as a technology whose cells have
// a transition model, the same for both edges: the output transition is
// the stage effort f (τ), whatever the input's, and each τ of input
// transition beyond the reference of 5 τ (an FO4 stage's) adds 0.25 τ
// of delay.
func linearSlewTech() *Tech {
	const ref = 5.0
	t := &Tech{Name: "linear", TauPS: 10, RefCapFF: 1, SlewTau: ref, Cells: Cells}
	efforts := []float64{0.5, 1, 4, 16, 64}
	slews := []float64{0, ref, 4 * ref, 16 * ref}
	for k := range t.Cells {
		c := &t.Cells[k]
		m := &SlewModel{Effort: efforts, Slew: slews}
		for range c.G {
			dg := make([][]float64, len(slews))
			og := make([][]float64, len(slews))
			for i, s := range slews {
				for _, f := range efforts {
					dg[i] = append(dg[i], 0.25*(s-ref))
					og[i] = append(og[i], f)
				}
			}
			e := EdgeTables{Delay: dg, Out: og}
			m.Pins = append(m.Pins, PinSlew{Neg: &EdgePair{Rise: e, Fall: e}})
		}
		c.Slew = m
	}
	return t
}

// TestSlew_HighFanout: an inverter driving 64 inverters makes a slow
// transition, and each of its loads is the slower for it; with fanout 1
// the transition is faster than the reference and so is the load. With
// FixedSlew every stage is read at the reference transition.
func TestSlew_HighFanout(t *testing.T) {
	tech := linearSlewTech()
	for _, c := range []struct {
		fanout int
		slower bool
	}{{64, true}, {1, false}} {
		d := fanoutDesign(c.fanout)
		opt := OptionsFor(tech)
		opt.Wire = Wire{} // loads are the pins: g0's effort is the fanout
		fixed := opt
		fixed.FixedSlew = true
		nt, err := propagate(d, opt)
		if err != nil {
			t.Fatal(err)
		}
		if nt.slew == nil || nt.slew[3] != float64(c.fanout) {
			t.Fatalf("fanout %d: g0's transition %v, want %d τ (its effort)", c.fanout, nt.slew, c.fanout)
		}
		ntf, err := propagate(d, fixed)
		if err != nil {
			t.Fatal(err)
		}
		if ntf.slew != nil {
			t.Errorf("FixedSlew: transitions %v", ntf.slew)
		}
		// The receiving inverter (g1, load 1: 2 τ at the reference)
		// takes 0.25 τ more per τ of transition beyond 5 τ.
		y := netlist.Net(4)
		got, want := nt.arr[y]-nt.arr[3], 2+0.25*(float64(c.fanout)-5)
		if math.Abs(got-want) > 1e-12 {
			t.Errorf("fanout %d: receiving inverter %v τ, want %v", c.fanout, got, want)
		}
		if gotF := ntf.arr[y] - ntf.arr[3]; gotF != 2 {
			t.Errorf("fanout %d, FixedSlew: receiving inverter %v τ, want 2", c.fanout, gotF)
		}
		if (got > 2) != c.slower {
			t.Errorf("fanout %d: receiving inverter %v τ against 2 at the reference transition", c.fanout, got)
		}
		// The report's critical path shows the same stage delay.
		r := analyze(t, d, opt)
		if s := r.CriticalPath[2]; !near(s.Delay, round4(want/r.TauPerFO4)) {
			t.Errorf("fanout %d: critical path stage %+v, want delay %v FO4", c.fanout, s, round4(want/r.TauPerFO4))
		}
	}
}

// TestSlew_SizedChain: in Sized mode the 64-load net is driven through
// a buffer chain, and the net's transition is the last inverter's, at
// the chain's stage effort: far below the unbuffered 64 τ.
func TestSlew_SizedChain(t *testing.T) {
	opt := OptionsFor(linearSlewTech())
	opt.Wire = Wire{}
	opt.Mode = Sized
	nt, err := propagate(fanoutDesign(64), opt)
	if err != nil {
		t.Fatal(err)
	}
	_, bufs, _ := opt.stage(&opt.Tech.Cells[netlist.INV], 0, 64)
	rho := math.Pow(64, 1/float64(bufs+1))
	if bufs == 0 || math.Abs(nt.slew[3]-rho) > 1e-12 {
		t.Errorf("sized: %d buffers, transition %v τ, want the stage effort %v", bufs, nt.slew[3], rho)
	}
}

// TestSlew_TextbookUnchanged: the textbook table has no transitions, so
// the analysis keeps none and every figure is stage's.
func TestSlew_TextbookUnchanged(t *testing.T) {
	d := fanoutDesign(64)
	for _, mode := range []Mode{Unsized, Sized} {
		opt := DefaultOptions()
		opt.Mode = mode
		nt, err := propagate(d, opt)
		if err != nil {
			t.Fatal(err)
		}
		if nt.slew != nil || opt.slews() {
			t.Errorf("%s: transitions %v", mode, nt.slew)
		}
		dl, _, _ := opt.stage(&Cells[netlist.INV], 0, nt.load[3])
		in, _, _ := opt.stage(&nt.driver, 0, nt.load[2])
		if nt.arr[3] != in+dl {
			t.Errorf("%s: arrival %v, want %v", mode, nt.arr[3], in+dl)
		}
	}
}
