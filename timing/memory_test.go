package timing

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/netlist"
)

// memChainDesign is a hand-built design with two 4x4 memory macros:
// bank0 is read at input a, and bit 0 of its read data runs through n
// inverters to bit 0 of bank1's read address; bank1's read data is the
// output q.
func memChainDesign(n int) *netlist.Design {
	const clk, a0, a1 = 2, 3, 4
	d0, d1 := netlist.Bus{5, 6, 7, 8}, netlist.Bus{9, 10, 11, 12}
	next := netlist.Net(13)
	d := &netlist.Design{Name: "memchain", Clock: "clk"}
	x := d0[0]
	for range n {
		d.Gates = append(d.Gates, netlist.Gate{Kind: netlist.INV, In: []netlist.Net{x}, Out: next})
		x, next = next, next+1
	}
	d.NumNets = int(next)
	bank := func(name string, raddr, rdata netlist.Bus) netlist.Memory {
		return netlist.Memory{Name: name, Module: "tbank", Words: 4, Width: 4, AccessFO4: 8, SetupFO4: 2, AreaPerBit: 1.25,
			RE: netlist.Const1, RAddr: raddr, RData: rdata, WE: netlist.Const0, WAddr: netlist.Bus{a0, a1},
			WData: netlist.Bus{a0, a1, a0, a1}, WMask: netlist.Bus{netlist.Const1}}
	}
	d.Memories = []netlist.Memory{bank("bank0", netlist.Bus{a0, a1}, d0), bank("bank1", netlist.Bus{x, a1}, d1)}
	d.Paths = []netlist.Path{{Name: "bank to bank", From: d0, To: netlist.Bus{x}}}
	d.Ports = []netlist.Port{port("clk", netlist.In, clk), port("a", netlist.In, a0, a1), port("q", netlist.Out, d1...)}
	return d
}

// TestAnalyze_MemoryToMemoryPath: the critical path starts at bank0's read
// data at the macro's access time, runs through the inverters, and ends
// at bank1's read address with the macro's setup: arrival = access +
// the gates' stage delays + setup. The area adds each macro's bits times
// its area per bit, and the transistors six per bit.
func TestAnalyze_MemoryToMemoryPath(t *testing.T) {
	const n = 3
	d := memChainDesign(n)
	for _, mode := range []Mode{Unsized, Sized} {
		opt := DefaultOptions()
		opt.Mode = mode
		r := analyze(t, d, opt)
		checkPath(t, r, "bank0.rdata_o[0]", "g0", "g1", "g2", "bank1.raddr_i[0]")
		if r.Endpoint != "bank1.raddr_i[0]" || r.Depth != n {
			t.Errorf("%s: endpoint %s, depth %d", mode, r.Endpoint, r.Depth)
		}
		first, last := r.CriticalPath[0], r.CriticalPath[len(r.CriticalPath)-1]
		if first.Cell != "tbank" || first.From != "clk" || !near(first.Delay, 8) || !near(first.Arrival, 8) {
			t.Errorf("%s: start %+v, want tbank's read data at 8 FO4 after clk", mode, first)
		}
		if !near(last.Delay, 2) {
			t.Errorf("%s: last stage %+v, want bank1's setup of 2 FO4", mode, last)
		}
		// The inverters' delays as the model gives them: each drives
		// the next inverter, the last bank1's address pin (a DFF D
		// input's load), each net with its wire.
		area := float64(n) * Cells[netlist.INV].Area
		tau := opt.TauPerFO4()
		gates := 0.0
		for i := range n {
			k := netlist.INV
			if i == n-1 {
				k = netlist.DFF
			}
			gates += opt.CellDelay(netlist.INV, 0, opt.PinLoad(k, 0, area))
		}
		if want := round4(8 + gates/tau + 2); !near(r.FO4, want) || !near(last.Arrival, want) {
			t.Errorf("%s: %v FO4 (last arrival %v), want access 8 + gates %v + setup 2 = %v", mode, r.FO4, last.Arrival, gates/tau, want)
		}
		// The same path as a named one starts at the access time and
		// has no setup.
		if len(r.Paths) != 1 || strings.Join(r.Paths[0].Cells, " ") != "tbank INV INV INV" || !near(r.Paths[0].FO4, round4(8+gates/tau)) {
			t.Errorf("%s: named path %+v, want tbank and 3 INVs at %v FO4", mode, r.Paths, round4(8+gates/tau))
		}
		if mode == Unsized {
			mem := 2 * 16 * 1.25
			if !near(r.AreaGE, round4(area+mem)) || !near(r.MemoryAreaGE, mem) || r.MemoryBits != 32 || len(r.Memories) != 2 {
				t.Errorf("area %v GE (memories %v GE, %d bits, %d macros), want %v + %v", r.AreaGE, r.MemoryAreaGE, r.MemoryBits, len(r.Memories), area, mem)
			}
			if want := n*Cells[netlist.INV].Transistors + 32*6; r.Transistors != want {
				t.Errorf("%d transistors, want %d", r.Transistors, want)
			}
			if r.StorageBits != 0 {
				t.Errorf("storage bits %d: memory bits are no flip-flops", r.StorageBits)
			}
			if !strings.Contains(r.String(), "memories: 2 macros, 32 bits, 40 GE") {
				t.Errorf("report without the memories:\n%s", r)
			}
		}
	}
}

// TestAnalyze_MemoryReadDataToOutput: with bank1's address from the
// inputs and small setups, the worst endpoint is the output q, read data
// at the access time: a path of the macro's one stage.
func TestAnalyze_MemoryReadDataToOutput(t *testing.T) {
	d := memChainDesign(0)
	d.Memories[1].RAddr = netlist.Bus{3, 4}
	d.Memories[1].SetupFO4 = 0.5
	d.Memories[0].SetupFO4 = 0.5
	r := analyze(t, d, DefaultOptions())
	checkPath(t, r, "bank1.rdata_o[0]")
	if r.Endpoint != "q[0]" || !near(r.FO4, 8) {
		t.Errorf("endpoint %s at %v FO4, want q[0] at the access time 8", r.Endpoint, r.FO4)
	}
}

// TestAnalyze_NoMemoryNoMemoryJSON: a design without memories reports
// no memory field, so existing reports are unchanged.
func TestAnalyze_NoMemoryNoMemoryJSON(t *testing.T) {
	d := memChainDesign(2)
	with := analyze(t, d, DefaultOptions())
	b, err := json.Marshal(with)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"memory_bits":32`) || !strings.Contains(string(b), `"memory_area_ge":40`) {
		t.Errorf("JSON of a design with memories: %s", b)
	}
	d = &netlist.Design{Name: "inv", NumNets: 4, Gates: []netlist.Gate{gate(netlist.INV, 3, 2)},
		Ports: []netlist.Port{port("a", netlist.In, 2), port("y", netlist.Out, 3)}}
	b, err = json.Marshal(analyze(t, d, DefaultOptions()))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "memor") {
		t.Errorf("JSON of a design without memories names them: %s", b)
	}
}

// TestAnalyze_MemoryFiguresChecked: a negative access time is refused.
func TestAnalyze_MemoryFiguresChecked(t *testing.T) {
	d := memChainDesign(1)
	d.Memories[0].AccessFO4 = -1
	if _, err := Analyze(d, DefaultOptions()); err == nil || !strings.Contains(err.Error(), "bank0") {
		t.Fatalf("err %v, want bank0's figures refused", err)
	}
}
