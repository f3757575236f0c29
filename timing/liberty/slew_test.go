package liberty

import (
	"math"
	"os"
	"testing"

	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/timing"
)

// TestSlew_Sky130HighFanout: in sky130 one inv_1 driving 64 inv_1 makes a
// transition of about a nanosecond, and each receiving inverter's delay,
// read at it, is far above its delay at the FO4 chain's transition (the
// model before slew propagation); the arrival at the output is what the
// liberty's own tables give, edge by edge, within 5%.
func TestSlew_Sky130HighFanout(t *testing.T) {
	if _, err := os.Stat(sky130); err != nil {
		t.Skipf("no sky130 liberty: %v", err)
	}
	l, err := Load(sky130)
	if err != nil {
		t.Fatal(err)
	}
	ch, err := Characterize(l, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if ch.FixedSlew != "" || ch.Tech.Cells[netlist.INV].Slew == nil {
		t.Fatalf("no transition model: %s", ch.FixedSlew)
	}
	// a -> INV g0 -> 64 INVs -> y[63:0].
	const n = 64
	d := &netlist.Design{Name: "fanout64", NumNets: 4 + n, Gates: []netlist.Gate{{Kind: netlist.INV, In: []netlist.Net{2}, Out: 3}}}
	var ys []netlist.Net
	for i := range n {
		y := netlist.Net(4 + i)
		d.Gates = append(d.Gates, netlist.Gate{Kind: netlist.INV, In: []netlist.Net{3}, Out: y})
		ys = append(ys, y)
	}
	d.Ports = []netlist.Port{{Name: "a", Dir: netlist.In, Bits: []netlist.Net{2}}, {Name: "y", Dir: netlist.Out, Bits: ys}}

	opt := timing.OptionsFor(ch.Tech)
	fixed := opt
	fixed.FixedSlew = true
	r, err := timing.Analyze(d, opt)
	if err != nil {
		t.Fatal(err)
	}
	rf, err := timing.Analyze(d, fixed)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.CriticalPath) != 3 || len(rf.CriticalPath) != 3 {
		t.Fatalf("critical paths %+v, %+v", r.CriticalPath, rf.CriticalPath)
	}
	ps := func(fo4 float64) float64 { return fo4 * r.TauPerFO4 * ch.TauPS }
	recv, recvFixed := ps(r.CriticalPath[2].Delay), ps(rf.CriticalPath[2].Delay)
	t.Logf("receiving inverter: %.1f ps (%.1f ps at the %.1f ps reference transition)", recv, recvFixed, ch.SlewPS)
	if !(recv > 1.5*recvFixed) {
		t.Errorf("receiving inverter %.1f ps, at the reference transition %.1f ps: want far slower", recv, recvFixed)
	}

	// The liberty's own reading, edge by edge: the input driver (an
	// ideal input) into g0, g0 at its load from the driver's opposite
	// edge, g1 at the output port's load from g0's opposite edge.
	inv := l.Cells[ch.Inverter]
	a := arcRef{inv.Outputs[0], inv.Inputs[0].Name, "combinational", ""}
	ref := inv.Inputs[0].Cap
	wire := func(f int) float64 { return ch.Tech.Wire.FanoutCapAt(f) * ref }
	stage := func(aR, aF, sR, sF, load float64) (float64, float64, float64, float64) {
		fromFall, _ := a.edges(sF, load)
		fromRise, _ := a.edges(sR, load)
		return aF + fromFall.dRise, aR + fromRise.dFall, fromFall.tRise, fromRise.tFall
	}
	drv, _ := a.edges(0, ref+wire(1))
	aR, aF, sR, sF := stage(drv.dRise, drv.dFall, drv.tRise, drv.tFall, n*ref+wire(n))
	t.Logf("g0's transitions: %.1f ps rising, %.1f ps falling", sR*l.TimeUnitPS, sF*l.TimeUnitPS)
	aR, aF, _, _ = stage(aR, aF, sR, sF, opt.OutputLoad*ref+wire(1))
	want := math.Max(aR, aF) * l.TimeUnitPS
	if got := ps(r.CriticalPath[2].Arrival); math.Abs(got-want) > 0.05*want {
		t.Errorf("arrival at the output %.1f ps, the tables give %.1f ps", got, want)
	}
}
