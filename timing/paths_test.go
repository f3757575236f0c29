package timing

import (
	"bytes"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/netlist"
)

// partsDesign has two named parts whose logic is known by hand:
//
//	g0 NAND2(a, b) -> n6     both parts (shared)
//	g1 INV(n6)     -> y      left
//	g2 INV(c)      -> n8     reaches right's end, not from its start
//	g3 XOR2(n6, n8) -> n9    right, into the DFF
//	g4 DFF(n9)     -> q      right's endpoint (its D input)
//	g5 INV(q)      -> w      reaches left's end, only through the DFF
//	g6 AND2(a, q)  -> z      from both starts, to neither end
//	g7 NOR2(e, c)  -> v      outside both
//
// left runs from a and b to y and w, right from a to q.
func partsDesign() *netlist.Design {
	return &netlist.Design{
		Name:    "parts",
		Clock:   "clk",
		NumNets: 14,
		Ports: []netlist.Port{
			port("a", netlist.In, 2), port("b", netlist.In, 3), port("c", netlist.In, 4), port("e", netlist.In, 5),
			port("y", netlist.Out, 7), port("q", netlist.Out, 10), port("w", netlist.Out, 11),
			port("z", netlist.Out, 12), port("v", netlist.Out, 13),
		},
		Gates: []netlist.Gate{
			gate(netlist.NAND2, 6, 2, 3),
			gate(netlist.INV, 7, 6),
			gate(netlist.INV, 8, 4),
			gate(netlist.XOR2, 9, 6, 8),
			gate(netlist.DFF, 10, 9),
			gate(netlist.INV, 11, 10),
			gate(netlist.AND2, 12, 2, 10),
			gate(netlist.NOR2, 13, 5, 4),
		},
		Paths: []netlist.Path{
			{Name: "left", From: netlist.Bus{2, 3}, To: netlist.Bus{7, 11}},
			{Name: "right", From: netlist.Bus{2}, To: netlist.Bus{10}},
		},
	}
}

// area sums the table's cell areas, rounded as reported.
func area(kinds ...netlist.Kind) float64 {
	a := 0.0
	for _, k := range kinds {
		a += Cells[k].Area
	}
	return round4(a)
}

// TestPaths_LogicOfEachPart: a part counts the gates between its start
// and end points, the shared NAND2 in both (once in the parts' total),
// and neither the DFF, nor the gates only one walk reaches, nor the gate
// outside both.
func TestPaths_LogicOfEachPart(t *testing.T) {
	for _, mode := range []Mode{Unsized, Sized} {
		opt := DefaultOptions()
		opt.Mode, opt.Wire = mode, Wire{} // free wires: loads of a pin or two
		r := analyze(t, partsDesign(), opt)
		want := []struct {
			name  string
			gates int
			area  float64
		}{
			{"left", 2, area(netlist.NAND2, netlist.INV)},
			{"right", 2, area(netlist.NAND2, netlist.XOR2)},
		}
		if len(r.Paths) != len(want) {
			t.Fatalf("%s: %d paths, want %d", mode, len(r.Paths), len(want))
		}
		for i, w := range want {
			p := r.Paths[i]
			// Loads of a pin or two: Sized adds no buffers.
			if p.Name != w.name || p.Gates != w.gates || !near(p.AreaGE, w.area) {
				t.Errorf("%s: path %s: %d gates, %v GE; want %s, %d gates, %v GE", mode, p.Name, p.Gates, p.AreaGE, w.name, w.gates, w.area)
			}
		}
		// Together: the shared NAND2 once.
		if all := area(netlist.NAND2, netlist.INV, netlist.XOR2); r.PathsGates != 3 || !near(r.PathsAreaGE, all) {
			t.Errorf("%s: paths together %d gates, %v GE; want 3, %v GE", mode, r.PathsGates, r.PathsAreaGE, all)
		}
		if r.Buffers != 0 {
			t.Errorf("%s: %d buffers, the figures above assume none", mode, r.Buffers)
		}
	}
}

// TestPaths_SizedAreaHasTheBuffers: in Sized mode a part's area holds
// the buffer trees of its gates, the same ones the unit's area counts.
// a drives an inverter whose output fans out to 64 XORs, each an output:
// every gate is on the part from a, so with free wires (no buffers on
// the inputs) the part is the whole area.
func TestPaths_SizedAreaHasTheBuffers(t *testing.T) {
	const n = 64
	d := &netlist.Design{Name: "fan", NumNets: 4 + 2*n}
	d.Ports = append(d.Ports, port("a", netlist.In, 2))
	d.Gates = append(d.Gates, gate(netlist.INV, 3, 2))
	var c, y netlist.Bus
	for i := range n {
		in, out := netlist.Net(4+i), netlist.Net(4+n+i)
		c, y = append(c, in), append(y, out)
		d.Gates = append(d.Gates, gate(netlist.XOR2, out, 3, in))
	}
	d.Ports = append(d.Ports, port("c", netlist.In, c...), port("y", netlist.Out, y...))
	d.Paths = []netlist.Path{{Name: "fan", From: netlist.Bus{2}, To: y}}
	opt := DefaultOptions()
	opt.Wire = Wire{}
	unsized := analyze(t, d, opt)
	opt.Mode = Sized
	sized := analyze(t, d, opt)
	xors := make([]netlist.Kind, n)
	for i := range xors {
		xors[i] = netlist.XOR2
	}
	u, s := unsized.Paths[0], sized.Paths[0]
	if u.Gates != n+1 || s.Gates != n+1 || !near(u.AreaGE, area(append(xors, netlist.INV)...)) {
		t.Errorf("unsized %d gates %v GE, sized %d gates; want %d gates, %v GE", u.Gates, u.AreaGE, s.Gates, n+1, area(append(xors, netlist.INV)...))
	}
	if sized.Buffers == 0 || !near(s.AreaGE, sized.AreaGE) || !near(sized.PathsAreaGE, sized.AreaGE) || !(s.AreaGE > u.AreaGE) {
		t.Errorf("sized: %d buffers, part %v GE, unit %v GE, unsized part %v GE; want the part to be the unit, buffers and all",
			sized.Buffers, s.AreaGE, sized.AreaGE, u.AreaGE)
	}
}

// TestPaths_ReportShowsGatesAndArea: the text report gives each part's
// gates and area, and all parts' together, saying that they may share
// gates.
func TestPaths_ReportShowsGatesAndArea(t *testing.T) {
	r := analyze(t, partsDesign(), DefaultOptions())
	rep := &Report{Units: []UnitReport{{Name: "parts", Kind: "test", Result: r}}}
	var b bytes.Buffer
	if err := rep.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, p := range r.Paths {
		var line string
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "path "+p.Name+" ") {
				line = l
			}
		}
		f := strings.Fields(line)
		if len(f) < 8 || f[4] != "2" || f[5] != "gates" || f[7] != "GE" {
			t.Errorf("path %s: line %q, want its gates (2) and area", p.Name, line)
		}
	}
	var total []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "paths together ") {
			total = strings.Fields(l)
		}
	}
	if len(total) < 6 || total[2] != "3" || total[3] != "gates" || !strings.Contains(out, "paths may share gates") {
		t.Errorf("report does not give the parts' logic together (3 gates) and say that parts may share gates:\n%s", out)
	}
}
