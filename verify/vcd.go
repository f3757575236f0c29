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

// vcdWriter writes the nets of a netlist simulation as a VCD: every port
// and every gate output, the ports first. It keeps the last values it
// wrote, so that each time stamp after the first lists only the changes.
type vcdWriter struct {
	f     *os.File
	w     *bufio.Writer
	sigs  []vcdSig
	last  []string
	buf   []byte
	begun bool        // the first time stamp, with every value, is written
	clock netlist.Net // the clock port's net, which the writer drives; -1 for none
}

type vcdSig struct {
	code string
	nets netlist.Bus
}

func newVCDWriter(d *netlist.Design, path string) (*vcdWriter, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	v := &vcdWriter{f: f, w: bufio.NewWriter(f), clock: -1}
	fmt.Fprintf(v.w, "$timescale 1ns $end\n$scope module %s $end\n", d.Name)
	id := 0
	code := func() string { id++; return vcdID(id) }
	for _, p := range d.Ports {
		c := code()
		fmt.Fprintf(v.w, "$var wire %d %s %s $end\n", p.Width(), c, p.Name)
		v.sigs = append(v.sigs, vcdSig{c, p.Bits})
		if d.Clock != "" && p.Name == d.Clock && p.Width() == 1 {
			v.clock = p.Bits[0]
		}
	}
	for _, g := range d.Gates {
		c := code()
		name := strings.NewReplacer("[", "_", "]", "").Replace(d.NetName(g.Out))
		fmt.Fprintf(v.w, "$var wire 1 %s %s $end\n", c, name)
		v.sigs = append(v.sigs, vcdSig{c, netlist.Bus{g.Out}})
	}
	fmt.Fprintf(v.w, "$upscope $end\n$enddefinitions $end\n")
	v.last = make([]string, len(v.sigs))
	return v, nil
}

// dump writes time t with the values of lane 0 of sim; the clock, if the
// design has one, reads clk. The first call writes every signal.
func (v *vcdWriter) dump(t int, sim *netlist.Sim, clk uint64) {
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
		if string(b) == v.last[i] {
			continue
		}
		v.last[i] = string(b)
		v.w.Write(b)
		v.w.WriteString(s.code)
		v.w.WriteByte('\n')
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

// writeNetlistVCD simulates one vector on the netlist and writes every
// port and net at time 0 as a VCD, so a failing vector can be inspected in
// a waveform viewer gate by gate.
func writeNetlistVCD(d *netlist.Design, ins []*netlist.Port, vec Vector, path string) (string, error) {
	sim := netlist.NewSim(d)
	for j, p := range ins {
		lanes := make([]uint64, p.Width())
		for bit := range lanes {
			lanes[bit] = vec[j][bit/64] >> uint(bit%64) & 1
		}
		sim.SetInput(portIndices(d, []*netlist.Port{p})[0], lanes)
	}
	sim.Eval()
	v, err := newVCDWriter(d, path)
	if err != nil {
		return "", err
	}
	v.dump(0, sim, 0)
	if err := v.close(1); err != nil {
		return "", err
	}
	return path, nil
}

// writeNetlistSeqVCD replays cycles start..fail of a sequential stream on
// the netlist, after a reset cycle (which stands for cycle start-1, where
// the stream has rst = 1, or for the reset cycle before cycle 0), and
// dumps the last vcdWindow cycles up to and including the rising edge
// that ends cycle fail. Times follow the clocked testbench of verify/hdl:
// cycle c's inputs are applied at 2c+2 ns, the clock rises at 2c+3 ns and
// falls at 2c+4 ns, and the reset cycle before cycle 0 spans 0..2 ns.
func writeNetlistSeqVCD(d *netlist.Design, s *stream, start, fail int, path string) (string, error) {
	sim := netlist.NewSim(d)
	inIdx := portIndices(d, s.ins)
	from := max(start-1, fail-vcdWindow+1)
	v, err := newVCDWriter(d, path)
	if err != nil {
		return "", err
	}
	lanes := make([][]uint64, len(s.ins))
	for j, p := range s.ins {
		lanes[j] = make([]uint64, p.Width())
	}
	vals := make([][]uint64, len(s.ins))
	for c := start - 1; c <= fail; c++ {
		if c == start-1 {
			for j := range s.ins {
				clear(lanes[j])
				if j == s.rst {
					lanes[j][0] = 1
				}
			}
		} else {
			s.inView(vals, c)
			for j := range s.ins {
				for b := range lanes[j] {
					lanes[j][b] = vals[j][b/64] >> uint(b%64) & 1
				}
			}
		}
		for j := range s.ins {
			sim.SetInput(inIdx[j], lanes[j])
		}
		sim.Eval()
		if c >= from {
			v.dump(2*c+2, sim, 0)
		}
		sim.Step()
		sim.Eval()
		if c >= from {
			v.dump(2*c+3, sim, 1)
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
