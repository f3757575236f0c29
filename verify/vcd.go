package verify

import (
	"bufio"
	"fmt"
	"os"
	"strings"

	"github.com/lsugen/lsugen/netlist"
)

// vcdWindow is the most cycles a netlist VCD of a sequential run dumps.
const vcdWindow = 1000

// A netlist VCD is laid out like a run of the standalone testbench (see
// Testbench), so that the two read alike in a waveform viewer:
//
//	$version lsugen 0.1.0 $end
//	$scope module NAME_tb $end        the clock, the inputs, and for each
//	  ...                             output OUT the signals OUT and
//	  OUT_expected, mismatch          OUT_expected, and the flag mismatch
//	  $scope module dut $end          every port, as a bus with its range
//	    ...                           ([13:0]), and every gate output
//
// OUT_expected is the behavioural model's value (x where it is not known:
// the reset cycle), and mismatch is 1 where an output differs from it: for
// a clocked unit, between a cycle's inputs and its rising edge, where the
// outputs are compared.

// vcdWriter writes the nets of a netlist simulation as a VCD. It keeps
// the last values it wrote, so that each time stamp after the first lists
// only the changes.
type vcdWriter struct {
	f        *os.File
	w        *bufio.Writer
	sigs     []vcdSig // the design's ports and gate outputs
	outs     []vcdOut // the outputs' expected values
	mismatch string   // the flag's code
	last     []string // by code index: sigs, then outs, then mismatch
	buf      []byte
	begun    bool        // the first time stamp, with every value, is written
	clock    netlist.Net // the clock port's net, which the writer drives; -1 for none
}

type vcdSig struct {
	code string
	nets netlist.Bus
}

// vcdOut is an output's expected value: its code and the index of the
// output port's vcdSig.
type vcdOut struct {
	code string
	sig  int
	port *netlist.Port
}

// vcdVersion is the $version text: the lsugen version as the caller knows
// it (rtl.Info's Version, "lsugen 0.1.0"), "lsugen" when it does not.
func vcdVersion(version string) string {
	v := oneLine(version)
	if v == "" {
		return "lsugen"
	}
	return v
}

// vcdRef is the reference of a $var of the given width: the name, and for
// a bus its range, "bank_o [4:0]".
func vcdRef(name string, width int) string {
	if width == 1 {
		return name
	}
	return fmt.Sprintf("%s [%d:0]", name, width-1)
}

// newVCDWriter creates path and writes the header of a VCD of design d
// whose outputs outs get expected values (nil for none: no OUT_expected
// and no mismatch). version is rtl.Info's Version.
func newVCDWriter(d *netlist.Design, outs []*netlist.Port, version, path string) (*vcdWriter, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	v := &vcdWriter{f: f, w: bufio.NewWriter(f), clock: -1}
	p := func(format string, args ...any) { fmt.Fprintf(v.w, format, args...) }
	p("$version %s $end\n", vcdVersion(version))
	if len(outs) > 0 {
		p("$comment lsugen's netlist simulation of %s. %s_tb holds the inputs, each output OUT beside "+
			"OUT%s, the behavioural model's value (x: not known), and %s, 1 where an output differs from it; "+
			"dut holds every port and gate output of the design. $end\n", d.Name, d.Name, ExpectedSuffix, MismatchSignal)
	} else {
		p("$comment lsugen's netlist simulation of %s: every port and gate output of the design in dut. $end\n", d.Name)
	}
	p("$timescale 1ns $end\n")
	p("$scope module %s $end\n", TestbenchModule(d))
	id := 0
	code := func() string { id++; return vcdID(id) }
	var inner strings.Builder
	sigOf := map[*netlist.Port]int{}
	for i := range d.Ports {
		port := &d.Ports[i]
		c := code()
		ref := vcdRef(port.Name, port.Width())
		fmt.Fprintf(&inner, "$var wire %d %s %s $end\n", port.Width(), c, ref)
		// The testbench's own signal for the port: the same values.
		p("$var wire %d %s %s $end\n", port.Width(), c, ref)
		sigOf[port] = len(v.sigs)
		v.sigs = append(v.sigs, vcdSig{c, port.Bits})
		if d.Clock != "" && port.Name == d.Clock && port.Width() == 1 {
			v.clock = port.Bits[0]
		}
	}
	for _, o := range outs {
		s, ok := sigOf[o]
		if !ok {
			f.Close()
			return nil, fmt.Errorf("%s: output %s is not a port of the design", d.Name, o.Name)
		}
		c := code()
		p("$var wire %d %s %s $end\n", o.Width(), c, vcdRef(o.Name+ExpectedSuffix, o.Width()))
		v.outs = append(v.outs, vcdOut{code: c, sig: s, port: o})
	}
	if len(outs) > 0 {
		v.mismatch = code()
		p("$var wire 1 %s %s $end\n", v.mismatch, MismatchSignal)
	}
	for _, g := range d.Gates {
		c := code()
		name := strings.NewReplacer("[", "_", "]", "").Replace(d.NetName(g.Out))
		fmt.Fprintf(&inner, "$var wire 1 %s %s $end\n", c, name)
		v.sigs = append(v.sigs, vcdSig{c, netlist.Bus{g.Out}})
	}
	for _, m := range d.Memories { // read data: sources, as DFF outputs
		c := code()
		fmt.Fprintf(&inner, "$var wire %d %s %s $end\n", len(m.RData), c, vcdRef(m.Name+"_rdata", len(m.RData)))
		v.sigs = append(v.sigs, vcdSig{c, m.RData})
	}
	p("$scope module dut $end\n%s$upscope $end\n", inner.String())
	p("$upscope $end\n$enddefinitions $end\n")
	v.last = make([]string, len(v.sigs)+len(v.outs)+1)
	return v, nil
}

// dump writes time t with the values of lane 0 of sim; the clock, if the
// design has one, reads clk. want holds the expected value of each output
// given to newVCDWriter (nil: not known, x), and check says whether the
// outputs are compared with them now (the mismatch flag is 0 otherwise).
// The first call writes every signal.
func (v *vcdWriter) dump(t int, sim *netlist.Sim, clk uint64, want [][]uint64, check bool) {
	fmt.Fprintf(v.w, "#%d\n", t)
	first := !v.begun
	v.begun = true
	if first {
		fmt.Fprintf(v.w, "$dumpvars\n")
	}
	net := func(n netlist.Net) byte {
		if n == v.clock {
			return byte('0' + clk&1)
		}
		return byte('0' + sim.Net(n)&1)
	}
	emit := func(i int, code string, b []byte) {
		if string(b) == v.last[i] {
			return
		}
		v.last[i] = string(b)
		v.w.Write(b)
		v.w.WriteString(code)
		v.w.WriteByte('\n')
	}
	for i, s := range v.sigs {
		b := v.buf[:0]
		if len(s.nets) == 1 {
			b = append(b, net(s.nets[0]))
		} else {
			b = append(b, 'b')
			for k := len(s.nets) - 1; k >= 0; k-- {
				b = append(b, net(s.nets[k]))
			}
			b = append(b, ' ')
		}
		v.buf = b
		emit(i, s.code, b)
	}
	differs := false
	for k, o := range v.outs {
		b := v.buf[:0]
		w := o.port.Width()
		if w > 1 {
			b = append(b, 'b')
		}
		for bit := w - 1; bit >= 0; bit-- {
			switch {
			case want == nil:
				b = append(b, 'x')
			default:
				b = append(b, byte('0'+want[k][bit/64]>>uint(bit%64)&1))
			}
		}
		if w > 1 {
			b = append(b, ' ')
		}
		v.buf = b
		// v.last holds every signal's value now.
		differs = differs || want != nil && v.last[o.sig] != string(b)
		emit(len(v.sigs)+k, o.code, b)
	}
	if v.mismatch != "" {
		flag := []byte{'0'}
		if check && differs {
			flag[0] = '1'
		}
		emit(len(v.last)-1, v.mismatch, flag)
	}
	if first {
		fmt.Fprintf(v.w, "$end\n")
	}
}

// close ends the dump at time t.
func (v *vcdWriter) close(t int) error {
	fmt.Fprintf(v.w, "#%d\n", t)
	err := v.w.Flush()
	if cerr := v.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// writeNetlistVCDExpected simulates one vector on the netlist and writes
// every port and net at time 0 as a VCD, so a failing vector can be
// inspected in a waveform viewer gate by gate, with each output of outs
// beside its expected value in want (outs nil: none). version is the
// $version (rtl.Info's Version).
func writeNetlistVCDExpected(d *netlist.Design, ins, outs []*netlist.Port, vec Vector, want [][]uint64, version, path string) (string, error) {
	sim := netlist.NewSim(d)
	for j, p := range ins {
		lanes := make([]uint64, p.Width())
		for bit := range lanes {
			lanes[bit] = vec[j][bit/64] >> uint(bit%64) & 1
		}
		sim.SetInput(portIndices(d, []*netlist.Port{p})[0], lanes)
	}
	sim.Eval()
	v, err := newVCDWriter(d, outs, version, path)
	if err != nil {
		return "", err
	}
	v.dump(0, sim, 0, want, true)
	if err := v.close(1); err != nil {
		return "", err
	}
	return path, nil
}

// writeNetlistSeqVCDVersion replays cycles start..fail of a sequential
// stream on the netlist, after a reset cycle (which stands for cycle
// start-1, where the stream has rst = 1, or for the reset cycle before
// cycle 0), and dumps the last vcdWindow cycles up to and including the
// rising edge that ends cycle fail, each output beside its expected value
// from the stream. Times follow the clocked testbench of verify/hdl: cycle
// c's inputs are applied at 2c+2 ns, the clock rises at 2c+3 ns and falls
// at 2c+4 ns, and the reset cycle before cycle 0 spans 0..2 ns. version is
// the $version (rtl.Info's Version).
func writeNetlistSeqVCDVersion(d *netlist.Design, s *stream, start, fail int, version, path string) (string, error) {
	sim := netlist.NewSim(d)
	inIdx := portIndices(d, s.ins)
	from := max(start-1, fail-vcdWindow+1)
	v, err := newVCDWriter(d, s.outs, version, path)
	if err != nil {
		return "", err
	}
	lanes := make([][]uint64, len(s.ins))
	for j, p := range s.ins {
		lanes[j] = make([]uint64, p.Width())
	}
	vals := make([][]uint64, len(s.ins))
	want := make([][]uint64, len(s.outs))
	for c := start - 1; c <= fail; c++ {
		reset := c == start-1
		if reset {
			for j := range s.ins {
				clear(lanes[j])
				if j == s.rst {
					lanes[j][0] = 1
				}
			}
		} else {
			s.inView(vals, c)
			s.outView(want, c)
			for j := range s.ins {
				for b := range lanes[j] {
					lanes[j][b] = vals[j][b/64] >> uint(b%64) & 1
				}
			}
		}
		exp := want
		if reset {
			exp = nil // the reset cycle's outputs are not checked
		}
		for j := range s.ins {
			sim.SetInput(inIdx[j], lanes[j])
		}
		sim.Eval()
		if c >= from {
			v.dump(2*c+2, sim, 0, exp, !reset)
		}
		sim.Step()
		sim.Eval()
		if c >= from {
			v.dump(2*c+3, sim, 1, exp, false)
		}
	}
	if err := v.close(2*fail + 4); err != nil {
		return "", err
	}
	return path, nil
}

// vcdID encodes n in VCD's printable identifier alphabet.
func vcdID(n int) string {
	var b []byte
	for {
		b = append(b, byte('!'+n%94))
		n /= 94
		if n == 0 {
			return string(b)
		}
	}
}
