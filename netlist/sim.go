package netlist

import (
	"fmt"
	"slices"
)

// Sim is a bit-parallel simulator: every net holds a 64-bit word whose bit
// l is the net's value in vector (lane) l, so one pass over the gates
// evaluates 64 input vectors.
type Sim struct {
	d    *Design
	vals []uint64
	// code holds the combinational gates as net numbers, inputs then
	// output, grouped into runs of one kind.
	code []int32
	runs []run
	dffs []dffState
	dTmp []uint64 // Step's sample of the D inputs
	mems []simMem // the memories, in Design.Memories order
	// gateByGate is set when a kind of the design has no loop in Eval.
	gateByGate bool
}

// run is code[start:end]: gates of one kind, Arity()+1 numbers each.
type run struct {
	kind       Kind
	kernel     kernel
	start, end int
}

type dffState struct{ d, q int32 }

// NewSim compiles d for simulation. All DFFs start at 0, and so do the
// memories' words and read data (see simMem).
//
// The gates are regrouped by logic level (1 + the deepest input; inputs,
// constants and DFF outputs are level 0) and, within a level, by kind. A
// gate reads only nets of lower levels, so the order stays topological,
// and Eval runs each stretch of one kind as a tight loop instead of
// dispatching on the kind of every gate.
func NewSim(d *Design) *Sim {
	s := &Sim{d: d, vals: make([]uint64, d.NumNets)}
	s.vals[Const1] = ^uint64(0)
	for i := range d.Memories {
		s.mems = append(s.mems, newSimMem(&d.Memories[i]))
	}
	level := make([]int32, d.NumNets) // memory read data are level 0, as inputs
	maxLevel := int32(0)
	for _, g := range d.Gates {
		if g.Kind == DFF {
			s.dffs = append(s.dffs, dffState{d: int32(g.In[0]), q: int32(g.Out)})
			continue
		}
		if len(g.In) != g.Kind.Arity() {
			panic(fmt.Sprintf("netlist: %s gate with %d inputs", g.Kind, len(g.In)))
		}
		l := int32(0)
		for _, n := range g.In {
			l = max(l, level[n])
		}
		level[g.Out] = l + 1
		maxLevel = max(maxLevel, l+1)
	}

	// A stable counting sort into buckets level*NumKinds + kind: start[b]
	// is where bucket b's code begins.
	bucket := func(g Gate) int { return int(level[g.Out])*NumKinds + int(g.Kind) }
	start := make([]int, (int(maxLevel)+1)*NumKinds+1)
	for _, g := range d.Gates {
		if g.Kind != DFF {
			start[bucket(g)+1] += len(g.In) + 1
		}
	}
	for b := 1; b < len(start); b++ {
		start[b] += start[b-1]
	}
	s.code = make([]int32, start[len(start)-1])
	next := slices.Clone(start)
	for _, g := range d.Gates {
		if g.Kind == DFF {
			continue
		}
		c := s.code[next[bucket(g)]:]
		for i, n := range g.In {
			c[i] = int32(n)
		}
		c[len(g.In)] = int32(g.Out)
		next[bucket(g)] += len(g.In) + 1
	}
	for b := range len(start) - 1 {
		if start[b] == start[b+1] {
			continue
		}
		k := Kind(b % NumKinds)
		if n := len(s.runs); n > 0 && s.runs[n-1].kind == k {
			s.runs[n-1].end = start[b+1]
		} else {
			s.runs = append(s.runs, run{kind: k, kernel: kernels[k], start: start[b], end: start[b+1]})
			s.gateByGate = s.gateByGate || kernels[k] == kernelGeneric
		}
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
	if s.gateByGate {
		s.evalGateByGate()
		return
	}
	s.evalLoops()
}

// evalLoops is Eval by the loops of each kind's kernel; apart from Eval,
// so that the gate-by-gate call does not burden its loops.
func (s *Sim) evalLoops() {
	v := s.vals
	for _, r := range s.runs {
		c := s.code[r.start:r.end]
		switch r.kernel {
		case kernelPin:
			for ; len(c) >= 2; c = c[2:] {
				v[c[1]] = v[c[0]]
			}
		case kernelPin | kernelNot:
			for ; len(c) >= 2; c = c[2:] {
				v[c[1]] = ^(v[c[0]])
			}
		case kernelAnd2:
			for ; len(c) >= 3; c = c[3:] {
				v[c[2]] = v[c[0]] & v[c[1]]
			}
		case kernelAnd2 | kernelNot:
			for ; len(c) >= 3; c = c[3:] {
				v[c[2]] = ^(v[c[0]] & v[c[1]])
			}
		case kernelAnd3:
			for ; len(c) >= 4; c = c[4:] {
				v[c[3]] = v[c[0]] & v[c[1]] & v[c[2]]
			}
		case kernelAnd3 | kernelNot:
			for ; len(c) >= 4; c = c[4:] {
				v[c[3]] = ^(v[c[0]] & v[c[1]] & v[c[2]])
			}
		case kernelAnd4:
			for ; len(c) >= 5; c = c[5:] {
				v[c[4]] = v[c[0]] & v[c[1]] & v[c[2]] & v[c[3]]
			}
		case kernelAnd4 | kernelNot:
			for ; len(c) >= 5; c = c[5:] {
				v[c[4]] = ^(v[c[0]] & v[c[1]] & v[c[2]] & v[c[3]])
			}
		case kernelOr2:
			for ; len(c) >= 3; c = c[3:] {
				v[c[2]] = v[c[0]] | v[c[1]]
			}
		case kernelOr2 | kernelNot:
			for ; len(c) >= 3; c = c[3:] {
				v[c[2]] = ^(v[c[0]] | v[c[1]])
			}
		case kernelOr3:
			for ; len(c) >= 4; c = c[4:] {
				v[c[3]] = v[c[0]] | v[c[1]] | v[c[2]]
			}
		case kernelOr3 | kernelNot:
			for ; len(c) >= 4; c = c[4:] {
				v[c[3]] = ^(v[c[0]] | v[c[1]] | v[c[2]])
			}
		case kernelOr4:
			for ; len(c) >= 5; c = c[5:] {
				v[c[4]] = v[c[0]] | v[c[1]] | v[c[2]] | v[c[3]]
			}
		case kernelOr4 | kernelNot:
			for ; len(c) >= 5; c = c[5:] {
				v[c[4]] = ^(v[c[0]] | v[c[1]] | v[c[2]] | v[c[3]])
			}
		case kernelXor2:
			for ; len(c) >= 3; c = c[3:] {
				v[c[2]] = v[c[0]] ^ v[c[1]]
			}
		case kernelXor2 | kernelNot:
			for ; len(c) >= 3; c = c[3:] {
				v[c[2]] = ^(v[c[0]] ^ v[c[1]])
			}
		case kernelAndOr21:
			for ; len(c) >= 4; c = c[4:] {
				v[c[3]] = (v[c[0]] & v[c[1]]) | v[c[2]]
			}
		case kernelAndOr21 | kernelNot:
			for ; len(c) >= 4; c = c[4:] {
				v[c[3]] = ^((v[c[0]] & v[c[1]]) | v[c[2]])
			}
		case kernelOrAnd21:
			for ; len(c) >= 4; c = c[4:] {
				v[c[3]] = (v[c[0]] | v[c[1]]) & v[c[2]]
			}
		case kernelOrAnd21 | kernelNot:
			for ; len(c) >= 4; c = c[4:] {
				v[c[3]] = ^((v[c[0]] | v[c[1]]) & v[c[2]])
			}
		case kernelMux:
			for ; len(c) >= 4; c = c[4:] {
				v[c[3]] = (v[c[1]] &^ v[c[0]]) | (v[c[2]] & v[c[0]])
			}
		case kernelMux | kernelNot:
			for ; len(c) >= 4; c = c[4:] {
				v[c[3]] = ^((v[c[1]] &^ v[c[0]]) | (v[c[2]] & v[c[0]]))
			}
		default:
			panic("netlist: a run without a loop") // NewSim sets gateByGate instead
		}
	}
}

// evalGateByGate is Eval for a design with a kind no loop of evalLoops
// matches: every gate evaluated from its kind's function.
func (s *Sim) evalGateByGate() {
	for _, r := range s.runs {
		evalGeneric(s.vals, s.code[r.start:r.end], r.kind)
	}
}

// evalGeneric runs gates of kind k, evaluating its function from the
// table gate by gate: the path of a kind whose function no kernel matches.
func evalGeneric(v []uint64, c []int32, k Kind) {
	f, n := Kinds[k].Fn, k.Arity()
	in := make([]uint64, n)
	for ; len(c) >= n+1; c = c[n+1:] {
		for i := range n {
			in[i] = v[c[i]]
		}
		v[c[n]] = f.Eval(in)
	}
}

// Step is one rising clock edge: every DFF loads its D input and every
// memory reads and writes (Memory states how) as the last Eval computed
// their inputs. Call Eval again to see the new outputs.
func (s *Sim) Step() {
	// Sample all D values first: a DFF's D may be another DFF's Q.
	if len(s.dTmp) != len(s.dffs) {
		s.dTmp = make([]uint64, len(s.dffs))
	}
	tmp := s.dTmp
	for i, f := range s.dffs {
		tmp[i] = s.vals[f.d]
	}
	// The memories read their inputs before any Q or read data changes.
	for i := range s.mems {
		s.mems[i].edge(s.vals)
	}
	for i, f := range s.dffs {
		s.vals[f.q] = tmp[i]
	}
	for i := range s.mems {
		m := &s.mems[i]
		for b, n := range m.rdata {
			s.vals[n] = m.next[b]
		}
	}
}

// kernel is a loop of Eval: the shape of a function, found in the Kinds
// table, that Eval runs word-wide over a stretch of gates without reading
// the table per gate, possibly complemented (kernelNot). The pins are in
// order (pin i is operand i).
type kernel uint8

const (
	kernelGeneric kernel = iota // any other function: evalGeneric
	kernelPin                   // A
	kernelAnd2                  // A&B
	kernelAnd3
	kernelAnd4
	kernelOr2 // A|B
	kernelOr3
	kernelOr4
	kernelXor2    // A^B
	kernelAndOr21 // (A&B)|C
	kernelOrAnd21 // (A|B)&C
	kernelMux     // A?C:B
	// kernelNot marks the complement of a shape (NAND is kernelAnd2 |
	// kernelNot): a loop of its own, as an inversion mask per run slows
	// small designs.
	kernelNot kernel = 0x10
)

// kernels is each kind's loop.
var kernels = func() (ks [numKinds]kernel) {
	for k := range numKinds {
		f := Kinds[k].Fn
		inv := kernel(0)
		if f.Op == FnNot {
			f, inv = f.Args[0], kernelNot
		}
		// A loop steps over its own number of pins: a function that
		// ignores a pin of its kind runs gate by gate.
		if kn := kernelOf(f); kn != kernelGeneric && kernelPins[kn] == len(Kinds[k].Pins) {
			ks[k] = kn | inv
		}
	}
	return ks
}()

// kernelPins is the number of pins each kernel reads.
var kernelPins = [...]int{kernelPin: 1, kernelAnd2: 2, kernelAnd3: 3, kernelAnd4: 4, kernelOr2: 2, kernelOr3: 3, kernelOr4: 4,
	kernelXor2: 2, kernelAndOr21: 3, kernelOrAnd21: 3, kernelMux: 3}

// kernelOf matches f against the kernels' shapes.
func kernelOf(f Fn) kernel {
	isPin := func(a Fn, i int) bool { return a.Op == FnPin && a.Pin == i }
	inOrder := func(args []Fn) bool {
		for i, a := range args {
			if !isPin(a, i) {
				return false
			}
		}
		return true
	}
	n := len(f.Args)
	switch {
	case isPin(f, 0):
		return kernelPin
	case f.Op == FnAnd && n >= 2 && n <= 4 && inOrder(f.Args):
		return kernelAnd2 + kernel(n-2)
	case f.Op == FnOr && n >= 2 && n <= 4 && inOrder(f.Args):
		return kernelOr2 + kernel(n-2)
	case f.Op == FnXor && n == 2 && inOrder(f.Args):
		return kernelXor2
	case f.Op == FnOr && n == 2 && f.Args[0].Op == FnAnd && inOrder(f.Args[0].Args) && len(f.Args[0].Args) == 2 && isPin(f.Args[1], 2):
		return kernelAndOr21
	case f.Op == FnAnd && n == 2 && f.Args[0].Op == FnOr && inOrder(f.Args[0].Args) && len(f.Args[0].Args) == 2 && isPin(f.Args[1], 2):
		return kernelOrAnd21
	case f.Op == FnMux && isPin(f.Args[0], 0) && isPin(f.Args[1], 2) && isPin(f.Args[2], 1):
		return kernelMux
	}
	return kernelGeneric
}
