package retime

import "github.com/lsugen/lsugen/netlist"

// maxUnsizedFanout is the largest fanout a net keeps when the unsized
// model places the cuts: beyond it the net drives a tree of buffers, as a
// designer (or a synthesis tool's buffering) would. The unsized model
// charges a gate its whole load, so one unbuffered net of a few hundred
// readers (the all-to-all coalescer's address bits) would take more than
// any stage: no register can shorten a net.
const maxUnsizedFanout = 6

// bufferFanout returns d with every net read by more than
// maxUnsizedFanout gate pins driving a tree of BUFs of that fanout, the
// readers spread over the tree's leaves in gate order; d itself when no
// net needs it. Output port bits keep their nets.
func bufferFanout(d *netlist.Design) *netlist.Design {
	readers := make([]int32, d.NumNets)
	for _, g := range d.Gates {
		for _, n := range g.In {
			readers[n]++
		}
	}
	need := false
	for n, r := range readers {
		if n >= 2 && int(r) > maxUnsizedFanout {
			need = true
			break
		}
	}
	if !need {
		return d
	}
	out := *d
	out.Gates = make([]netlist.Gate, 0, len(d.Gates)+len(d.Gates)/4)
	out.NetNames = make(map[netlist.Net]string, len(d.NetNames))
	for n, s := range d.NetNames {
		out.NetNames[n] = s
	}
	leaves := map[netlist.Net][]netlist.Net{} // net -> the nets its readers take, in turn
	newNet := func() netlist.Net {
		n := netlist.Net(out.NumNets)
		out.NumNets++
		return n
	}
	// tree drives k loads from n through BUFs and returns the k nets.
	var tree func(n netlist.Net, k int) []netlist.Net
	tree = func(n netlist.Net, k int) []netlist.Net {
		if k <= maxUnsizedFanout {
			l := make([]netlist.Net, k)
			for i := range l {
				l[i] = n
			}
			return l
		}
		groups := min(maxUnsizedFanout, (k+maxUnsizedFanout-1)/maxUnsizedFanout)
		var l []netlist.Net
		for i := 0; i < groups; i++ {
			b := newNet()
			out.Gates = append(out.Gates, netlist.Gate{Kind: netlist.BUF, In: []netlist.Net{n}, Out: b})
			share := k / groups
			if i < k%groups {
				share++
			}
			l = append(l, tree(b, share)...)
		}
		return l
	}
	buffer := func(n netlist.Net) {
		if n >= 2 && int(readers[n]) > maxUnsizedFanout {
			leaves[n] = tree(n, int(readers[n]))
		}
	}
	for _, p := range d.Inputs() {
		for _, n := range p.Bits {
			buffer(n)
		}
	}
	for _, g := range d.Gates {
		in := make([]netlist.Net, len(g.In))
		for i, n := range g.In {
			in[i] = n
			if l := leaves[n]; len(l) > 0 {
				in[i], leaves[n] = l[0], l[1:]
			}
		}
		out.Gates = append(out.Gates, netlist.Gate{Kind: g.Kind, In: in, Out: g.Out})
		buffer(g.Out)
	}
	return &out
}
