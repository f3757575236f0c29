package netlist

import (
	"math/rand/v2"
	"testing"
)

// TestSim_MuxTreesFused: multiplexer trees (one of 32 leaves, one whose
// inner node is also an output, one whose inner node feeds a second gate)
// are evaluated in fused pairs, and every net, absorbed ones included
// (Net evaluates those), and every output match the gate-by-gate
// interpreter in each of 64 random lanes.
func TestSim_MuxTreesFused(t *testing.T) {
	bd := NewBuilder("trees")
	sel := bd.Input("sel", 5, "")
	data := bd.Input("data", 32, "")
	tree := func(leaves Bus) (Net, []Net) {
		var inner []Net
		for lvl := 0; len(leaves) > 1; lvl++ {
			var next Bus
			for i := 0; i < len(leaves); i += 2 {
				next = append(next, bd.Mux(sel[lvl], leaves[i], leaves[i+1]))
			}
			inner = append(inner, next...)
			leaves = next
		}
		return leaves[0], inner
	}
	full, _ := tree(data)
	half, inner := tree(data[8:24])
	shared, inner2 := tree(data[:8])
	bd.Output("full", Bus{full, half, shared}, "")
	bd.Output("inner", Bus{inner[3]}, "")                   // an inner node seen outside
	bd.Output("both", Bus{bd.Xor(inner2[1], data[31])}, "") // an inner node read twice
	d := mustBuild(t, bd)

	s := NewSim(d)
	if len(s.absorbed) < 10 {
		t.Fatalf("%d multiplexers absorbed, want the trees paired", len(s.absorbed))
	}
	r := rand.New(rand.NewPCG(3, 4))
	in := map[int][]uint64{}
	for p, port := range d.Ports {
		if port.Dir == In {
			w := make([]uint64, port.Width())
			for i := range w {
				w[i] = r.Uint64()
			}
			in[p] = w
			s.SetInput(p, w)
		}
	}
	s.Eval()
	for l := range 64 {
		inputs := map[Net]bool{}
		for p, w := range in {
			for i, n := range d.Ports[p].Bits {
				inputs[n] = w[i]>>l&1 == 1
			}
		}
		want := evalGates(d, inputs)
		for n := range Net(d.NumNets) {
			if got := s.Net(n)>>l&1 == 1; got != want[n] {
				t.Fatalf("lane %d: net %d = %v, want %v", l, n, got, want[n])
			}
		}
		for p, port := range d.Ports {
			if port.Dir != Out {
				continue
			}
			got := make([]uint64, port.Width())
			s.Output(p, got)
			for i, n := range port.Bits {
				if got[i]>>l&1 == 1 != want[n] {
					t.Errorf("lane %d: %s[%d] = %v, want %v", l, port.Name, i, !want[n], want[n])
				}
			}
		}
	}
}
