package sta

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/timing/liberty"
)

// MappedVerilog writes lsugen's own gate netlist of d as a structural
// netlist of the library cells ch chose for each gate kind (a composite
// kind as its core and the inverter): module NAME_mapped with d's ports.
// Timing it shows what the model's arithmetic is worth apart from
// synthesis, which restructures: the very gates the model times, in real
// cells, under a real timer.
func MappedVerilog(d *netlist.Design, ch *liberty.Characterization) (top, text string, err error) {
	if len(ch.Kinds) != netlist.NumKinds {
		return "", "", fmt.Errorf("sta: characterization of %d kinds, want %d", len(ch.Kinds), netlist.NumKinds)
	}
	top = d.Name + "_mapped"
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	// Net names: port bits by port, other nets n<number>.
	name := make([]string, d.NumNets)
	name[netlist.Const0], name[netlist.Const1] = "1'b0", "1'b1"
	for _, pt := range d.Inputs() {
		for i, n := range pt.Bits {
			name[n] = portBit(pt, i)
		}
	}
	var ports []string
	for _, pt := range d.Ports {
		ports = append(ports, pt.Name)
	}
	p("// lsugen's gate netlist of %s in the cells of %s, one cell (or core +\n", d.Name, ch.Library)
	p("// inverter) per gate, for static timing. Generated; do not edit.\n")
	p("module %s (%s);\n", top, strings.Join(ports, ", "))
	for _, pt := range d.Ports {
		dir := "input"
		if pt.Dir == netlist.Out {
			dir = "output"
		}
		if pt.Width() == 1 {
			p("  %s %s;\n", dir, pt.Name)
		} else {
			p("  %s [%d:0] %s;\n", dir, pt.Width()-1, pt.Name)
		}
	}
	if d.Clock != "" && d.Port(d.Clock) == nil {
		return "", "", fmt.Errorf("sta: design %s: clock %s is no port", d.Name, d.Clock)
	}
	if len(d.Memories) > 0 && d.Clock == "" {
		return "", "", fmt.Errorf("sta: design %s: memories without a clock", d.Name)
	}
	for _, m := range d.Memories {
		for _, n := range m.RData {
			name[n] = fmt.Sprintf("n%d", n)
			p("  wire %s;\n", name[n])
		}
	}
	for gi, g := range d.Gates {
		if name[g.Out] == "" {
			name[g.Out] = fmt.Sprintf("n%d", g.Out)
			p("  wire %s;\n", name[g.Out])
		}
		if kf := &ch.Kinds[g.Kind]; kf.Inverter != "" {
			p("  wire g%d_core;\n", gi)
		}
	}
	for gi, g := range d.Gates {
		kf := &ch.Kinds[g.Kind]
		var pins []string
		if g.Kind == netlist.DFF {
			pins = append(pins, fmt.Sprintf(".%s(%s)", kf.Clock, d.Clock))
		}
		for i, in := range g.In {
			pins = append(pins, fmt.Sprintf(".%s(%s)", kf.Pins[i].Pin, name[in]))
		}
		out := name[g.Out]
		if kf.Inverter != "" {
			out = fmt.Sprintf("g%d_core", gi)
		}
		pins = append(pins, fmt.Sprintf(".%s(%s)", kf.Output, out))
		p("  %s g%d (%s);\n", kf.Core, gi, strings.Join(pins, ", "))
		if kf.Inverter != "" {
			p("  %s g%d_inv (.%s(%s), .%s(%s));\n", kf.Inverter, gi, kf.InvIn, out, kf.InvOut, name[g.Out])
		}
	}
	// The memory macros, instances of the bank module (its liberty
	// model beside the library's).
	for mi := range d.Memories {
		m := &d.Memories[mi]
		ps, nets := bankPorts(m)
		var pins []string
		for i, pt := range ps {
			if pt.name == "clk" {
				pins = append(pins, fmt.Sprintf(".clk(%s)", d.Clock))
				continue
			}
			bits := make([]string, len(nets[i]))
			for j, n := range nets[i] {
				bits[len(bits)-1-j] = name[n]
			}
			pins = append(pins, fmt.Sprintf(".%s({%s})", pt.name, strings.Join(bits, ", ")))
		}
		p("  %s %s (%s);\n", m.Module, m.Name, strings.Join(pins, ", "))
	}
	for _, pt := range d.Outputs() {
		for i, n := range pt.Bits {
			p("  assign %s = %s;\n", portBit(pt, i), name[n])
		}
	}
	p("endmodule\n")
	return top, b.String(), nil
}

func portBit(p *netlist.Port, i int) string {
	if p.Width() == 1 {
		return p.Name
	}
	return fmt.Sprintf("%s[%d]", p.Name, i)
}

// RunMapped writes d's gates in the library's cells (MappedVerilog) into
// WorkDir/NAME and times them with OpenSTA under the flow's conditions.
func (f *Flow) RunMapped(ctx context.Context, d *netlist.Design, ch *liberty.Characterization) (*Timing, error) {
	dir, n, err := f.writeMapped(d, ch)
	if err != nil {
		return nil, err
	}
	mc, err := f.writeMacros(dir, d)
	if err != nil {
		return nil, err
	}
	n.macros = mc
	return f.Time(ctx, dir, n, d.Clock, "mapped")
}

// writeMapped writes d's gates in the library's cells (MappedVerilog) to
// WorkDir/NAME/mapped_netlist.v.
func (f *Flow) writeMapped(d *netlist.Design, ch *liberty.Characterization) (dir string, n *Netlist, err error) {
	dir = filepath.Join(f.cfg.WorkDir, safeFileName(d.Name))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", nil, err
	}
	top, text, err := MappedVerilog(d, ch)
	if err != nil {
		return "", nil, err
	}
	path := filepath.Join(dir, "mapped_netlist.v")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		return "", nil, err
	}
	return dir, &Netlist{Path: path, Top: top}, nil
}
