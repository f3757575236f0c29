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
	out, _ := bufferFanoutIn(d, nil, false)
	return out
}

// bufferFanoutIn is bufferFanout keeping instances whole: given
// (ranges of d's gates that are instances' copies), a net one of them
// drives is buffered after its instance's last gate, and the instances
// come back with their ranges in the result. With whole set, an
// instance is one reader of each net it reads, its gates reading one
// leaf (as its port is connected), and registers (DFF) read the root, so
// that each holds a net of d; else every gate takes a leaf of its own. It
// also returns each gate's index in the result.
func bufferFanoutIn(d *netlist.Design, instances []netlist.Instance, whole bool) (*netlist.Design, []int) {
	inInst := make([]int32, len(d.Gates)) // instance index + 1, 0 for none
	for k, inst := range instances {
		for gi := inst.First; gi < inst.Last; gi++ {
			inInst[gi] = int32(k + 1)
		}
	}
	type instNet struct {
		k int32
		n netlist.Net
	}
	instLeaf := map[instNet]netlist.Net{} // an instance's leaf of a net; -1 while counted
	drivenIn := make([]int32, d.NumNets)  // the instance (index + 1) whose gate drives each net
	for gi, g := range d.Gates {
		drivenIn[g.Out] = inInst[gi]
	}
	readers := make([]int32, d.NumNets)
	for gi, g := range d.Gates {
		for _, n := range g.In {
			switch k := inInst[gi]; {
			case whole && k > 0 && drivenIn[n] == k: // inside the instance
			case !whole:
				readers[n]++
			case g.Kind == netlist.DFF:
			case k == 0:
				readers[n]++
			default:
				if _, ok := instLeaf[instNet{k, n}]; !ok {
					instLeaf[instNet{k, n}] = -1
					readers[n]++
				}
			}
		}
	}
	index := make([]int, len(d.Gates))
	need := false
	for n, r := range readers {
		if n >= 2 && int(r) > maxUnsizedFanout {
			need = true
			break
		}
	}
	if !need {
		for i := range index {
			index[i] = i
		}
		return d, index
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
	var pending []netlist.Net // nets an instance drives, buffered after it
	for gi, g := range d.Gates {
		in := make([]netlist.Net, len(g.In))
		for i, n := range g.In {
			in[i] = n
			l := leaves[n]
			switch k := inInst[gi]; {
			case len(l) == 0 && leaves[n] == nil, whole && g.Kind == netlist.DFF:
			case whole && k > 0:
				if leaf := instLeaf[instNet{k, n}]; leaf >= 0 {
					in[i] = leaf
				} else if len(l) > 0 {
					in[i], leaves[n] = l[0], l[1:]
					instLeaf[instNet{k, n}] = in[i]
				}
			case len(l) > 0:
				in[i], leaves[n] = l[0], l[1:]
			}
		}
		index[gi] = len(out.Gates)
		out.Gates = append(out.Gates, netlist.Gate{Kind: g.Kind, In: in, Out: g.Out})
		k := inInst[gi]
		if k == 0 {
			buffer(g.Out)
			continue
		}
		pending = append(pending, g.Out)
		if gi == instances[k-1].Last-1 {
			for _, n := range pending {
				buffer(n)
			}
			pending = pending[:0]
		}
	}
	if instances != nil {
		out.Instances = make([]netlist.Instance, len(instances))
		for k, inst := range instances {
			inst.First, inst.Last = index[inst.First], index[inst.Last-1]+1
			out.Instances[k] = inst
		}
	}
	return &out, index
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
