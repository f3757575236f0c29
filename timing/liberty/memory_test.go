package liberty

import (
	"math"
	"os"
	"testing"

	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/timing"
)

// TestMemory_Sky130Figures: in a characterized library a memory macro's
// stated figures are converted by the library's FO4: the path from
// bank0's read data through two inverters to bank1's read address starts
// at AccessFO4 × the FO4 in ps and ends with SetupFO4 × the FO4 in ps,
// with transitions propagated and without.
func TestMemory_Sky130Figures(t *testing.T) {
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
	// a -> bank0 (read address); bank0.rdata[0] -> INV -> INV -> bank1's
	// read address bit 0; bank1's read data -> q.
	const a0, a1 = 3, 4
	d0, d1 := netlist.Bus{5, 6}, netlist.Bus{7, 8}
	bank := func(name string, raddr, rdata netlist.Bus) netlist.Memory {
		return netlist.Memory{Name: name, Module: "tbank", Words: 4, Width: 2, AccessFO4: 10, SetupFO4: 3, AreaPerBit: 2,
			RE: netlist.Const1, RAddr: raddr, RData: rdata, WE: netlist.Const0, WAddr: netlist.Bus{a0, a1},
			WData: netlist.Bus{a0, a1}, WMask: netlist.Bus{netlist.Const1}}
	}
	d := &netlist.Design{Name: "memsky", Clock: "clk", NumNets: 11,
		Gates: []netlist.Gate{{Kind: netlist.INV, In: []netlist.Net{d0[0]}, Out: 9}, {Kind: netlist.INV, In: []netlist.Net{9}, Out: 10}},
		Ports: []netlist.Port{{Name: "clk", Dir: netlist.In, Bits: netlist.Bus{2}}, {Name: "a", Dir: netlist.In, Bits: netlist.Bus{a0, a1}},
			{Name: "q", Dir: netlist.Out, Bits: d1}},
		Memories: []netlist.Memory{bank("bank0", netlist.Bus{a0, a1}, d0), bank("bank1", netlist.Bus{10, a1}, d1)},
	}
	for _, fixed := range []bool{false, true} {
		opt := timing.OptionsFor(ch.Tech)
		opt.FixedSlew = fixed
		r, err := timing.Analyze(d, opt)
		if err != nil {
			t.Fatal(err)
		}
		fo4 := opt.FO4PS()
		p := r.CriticalPath
		if r.Endpoint != "bank1.raddr_i[0]" || len(p) != 4 || p[0].Gate != "bank0.rdata_o[0]" {
			t.Fatalf("fixed slew %v: path %+v to %s, want bank0's read data through 2 inverters to bank1.raddr_i[0]", fixed, p, r.Endpoint)
		}
		if math.Abs(p[0].Delay*fo4-10*fo4) > 1e-3*fo4 || math.Abs(p[3].Delay*fo4-3*fo4) > 1e-3*fo4 {
			t.Errorf("fixed slew %v: access %v ps, setup %v ps; want 10 and 3 FO4 of %v ps", fixed, p[0].Delay*fo4, p[3].Delay*fo4, fo4)
		}
		gates := p[1].Delay + p[2].Delay
		if !(gates > 0) || math.Abs(r.FO4-(10+gates+3)) > 1e-3 || math.Abs(r.DelayPS-r.FO4*fo4) > 1e-2*fo4 {
			t.Errorf("fixed slew %v: %v FO4 = %v ps, want 10 + %v + 3 FO4 at %v ps each", fixed, r.FO4, r.DelayPS, gates, fo4)
		}
		if r.MemoryBits != 16 || math.Abs(r.MemoryAreaGE-32) > 1e-9 {
			t.Errorf("memories %d bits, %v GE; want 16, 32", r.MemoryBits, r.MemoryAreaGE)
		}
		t.Logf("fixed slew %v: FO4 %.1f ps; access %.1f ps, inverters %.1f ps, setup %.1f ps, %.1f ps in all", fixed, fo4, p[0].Delay*fo4, gates*fo4, p[3].Delay*fo4, r.DelayPS)
	}
}
