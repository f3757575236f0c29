package verify

import (
	"bufio"
	"fmt"
	"os"
	"strings"

	"github.com/lsugen/lsugen/netlist"
)

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

	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	w := bufio.NewWriter(f)
	fmt.Fprintf(w, "$timescale 1ns $end\n$scope module %s $end\n", d.Name)
	id := 0
	code := func() string { id++; return vcdID(id) }
	type sig struct {
		code string
		nets netlist.Bus
	}
	var sigs []sig
	for _, p := range d.Ports {
		c := code()
		fmt.Fprintf(w, "$var wire %d %s %s $end\n", p.Width(), c, p.Name)
		sigs = append(sigs, sig{c, p.Bits})
	}
	for _, g := range d.Gates {
		c := code()
		name := strings.NewReplacer("[", "_", "]", "").Replace(d.NetName(g.Out))
		fmt.Fprintf(w, "$var wire 1 %s %s $end\n", c, name)
		sigs = append(sigs, sig{c, netlist.Bus{g.Out}})
	}
	fmt.Fprintf(w, "$upscope $end\n$enddefinitions $end\n#0\n$dumpvars\n")
	for _, s := range sigs {
		if len(s.nets) == 1 {
			fmt.Fprintf(w, "%d%s\n", sim.Net(s.nets[0])&1, s.code)
			continue
		}
		var sb strings.Builder
		for i := len(s.nets) - 1; i >= 0; i-- {
			sb.WriteByte(byte('0' + sim.Net(s.nets[i])&1))
		}
		fmt.Fprintf(w, "b%s %s\n", sb.String(), s.code)
	}
	fmt.Fprintf(w, "$end\n#1\n")
	if err := w.Flush(); err != nil {
		f.Close()
		return "", err
	}
	return path, f.Close()
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
