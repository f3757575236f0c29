package netlist

import "fmt"

// Sim is a bit-parallel simulator: every net holds a 64-bit word whose bit
// l is the net's value in vector (lane) l, so one pass over the gates
// evaluates 64 input vectors.
type Sim struct {
	d    *Design
	vals []uint64
	prog []instr
	dffs []dffState
}

// instr is a gate compiled to fixed fields, to keep the hot loop free of
// slice headers and bounds checks on In.
type instr struct {
	op         Kind
	a, b, c, e int32
	out        int32
}

type dffState struct{ d, q int32 }

// NewSim compiles d for simulation. All DFFs start at 0.
func NewSim(d *Design) *Sim {
	s := &Sim{d: d, vals: make([]uint64, d.NumNets)}
	s.vals[Const1] = ^uint64(0)
	for _, g := range d.Gates {
		if g.Kind == DFF {
			s.dffs = append(s.dffs, dffState{d: int32(g.In[0]), q: int32(g.Out)})
			continue
		}
		in := [4]int32{}
		for i, n := range g.In {
			in[i] = int32(n)
		}
		s.prog = append(s.prog, instr{op: g.Kind, a: in[0], b: in[1], c: in[2], e: in[3], out: int32(g.Out)})
	}
	return s
}

// SetInput sets input port p (an index into Design.Ports) from words:
// words[i] holds bit i of the port across the 64 lanes.
func (s *Sim) SetInput(p int, words []uint64) {
	for i, n := range s.d.Ports[p].Bits {
		s.vals[n] = words[i]
	}
}

// Output copies output port p into words, in the layout of SetInput.
func (s *Sim) Output(p int, words []uint64) {
	for i, n := range s.d.Ports[p].Bits {
		words[i] = s.vals[n]
	}
}

// Net returns the lanes of one net after Eval.
func (s *Sim) Net(n Net) uint64 { return s.vals[n] }

// Eval propagates the inputs and DFF states through the combinational logic.
func (s *Sim) Eval() {
	v := s.vals
	for _, g := range s.prog {
		var r uint64
		switch g.op {
		case INV:
			r = ^v[g.a]
		case BUF:
			r = v[g.a]
		case NAND2:
			r = ^(v[g.a] & v[g.b])
		case NAND3:
			r = ^(v[g.a] & v[g.b] & v[g.c])
		case NAND4:
			r = ^(v[g.a] & v[g.b] & v[g.c] & v[g.e])
		case NOR2:
			r = ^(v[g.a] | v[g.b])
		case NOR3:
			r = ^(v[g.a] | v[g.b] | v[g.c])
		case NOR4:
			r = ^(v[g.a] | v[g.b] | v[g.c] | v[g.e])
		case AND2:
			r = v[g.a] & v[g.b]
		case AND3:
			r = v[g.a] & v[g.b] & v[g.c]
		case AND4:
			r = v[g.a] & v[g.b] & v[g.c] & v[g.e]
		case OR2:
			r = v[g.a] | v[g.b]
		case OR3:
			r = v[g.a] | v[g.b] | v[g.c]
		case OR4:
			r = v[g.a] | v[g.b] | v[g.c] | v[g.e]
		case XOR2:
			r = v[g.a] ^ v[g.b]
		case XNOR2:
			r = ^(v[g.a] ^ v[g.b])
		case AOI21:
			r = ^((v[g.a] & v[g.b]) | v[g.c])
		case OAI21:
			r = ^((v[g.a] | v[g.b]) & v[g.c])
		case MUX2:
			r = (v[g.b] &^ v[g.a]) | (v[g.c] & v[g.a])
		default:
			panic(fmt.Sprintf("netlist: cannot simulate %s", g.op))
		}
		v[g.out] = r
	}
}

// Step is one rising clock edge: every DFF loads its D input as computed by
// the last Eval. Call Eval again to see the new outputs.
func (s *Sim) Step() {
	// Sample all D values first: a DFF's D may be another DFF's Q.
	tmp := make([]uint64, len(s.dffs))
	for i, f := range s.dffs {
		tmp[i] = s.vals[f.d]
	}
	for i, f := range s.dffs {
		s.vals[f.q] = tmp[i]
	}
}
