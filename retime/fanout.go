package retime

import "github.com/lsugen/lsugen/netlist"

// maxUnsizedFanout is the largest fanout a net keeps when the unsized
// model places the cuts: beyond it the net drives a tree of buffers, as a
// designer (or a synthesis tool's buffering) would. The unsized model
// charges a gate its whole load, so one unbuffered net of a few hundred
// readers (the all-to-all coalescer's address bits) would take more than
// any stage: no register can shorten a net.
const maxUnsizedFanout = MaxBufferFanout

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
	buffer := func(n netlist.Net) {
		if n >= 2 && int(readers[n]) > maxUnsizedFanout {
			leaves[n] = BufferTree(n, int(readers[n]), func(in netlist.Net) netlist.Net { return out.AddGate(netlist.BUF, in) })
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

// MaxBufferFanout is the fanout of each buffer of a BufferTree.
const MaxBufferFanout = 6

// BufferTree drives loads loads from net through a tree of buffers made
// by buf, each driving at most MaxBufferFanout, and returns the net each
// load reads, in order: net itself for a constant or a small fanout.
func BufferTree(net netlist.Net, loads int, buf func(netlist.Net) netlist.Net) []netlist.Net {
	if loads <= MaxBufferFanout || net == netlist.Const0 || net == netlist.Const1 {
		return repeatNet(net, loads)
	}
	// One level of buffers, each serving a share of the loads.
	groups := min(MaxBufferFanout, (loads+MaxBufferFanout-1)/MaxBufferFanout)
	var out []netlist.Net
	for i := 0; i < groups; i++ {
		share := loads / groups
		if i < loads%groups {
			share++
		}
		out = append(out, BufferTree(buf(net), share, buf)...)
	}
	return out
}

// repeatNet is n loads all reading net.
func repeatNet(net netlist.Net, n int) []netlist.Net {
	out := make([]netlist.Net, n)
	for i := range out {
		out[i] = net
	}
	return out
}
