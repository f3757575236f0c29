package formal

import (
	"bufio"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/lsugen/lsugen/netlist"
)

// side is one module as an and-inverter graph, with its bits by name.
type side struct {
	what  string // "RTL" or "gate-level"
	a     *aig
	m     *aigMap
	in    map[mapBit]int // input port bit -> graph input index
	out   map[mapBit]int // output port bit -> graph output index
	latch map[mapBit]int // flip-flop bit (every name of it) -> latch index
}

// ioPort is a port of a module's graph as the miter sees it: a port of
// the unit, or a port of a memory bank that `expose -evert` turned into
// one (see bankPorts).
type ioPort struct {
	name  string
	width int
}

// bankPorts are memory m's bank ports as the graph has them once the
// instance is exposed: its read data an input (ins) and each of its
// inputs an output (outs), named INSTANCE.PORT.
func bankPorts(m netlist.Memory) (ins, outs []ioPort) {
	n := func(port string, w int) ioPort { return ioPort{m.Name + "." + port, w} }
	ins = []ioPort{n(netlist.BankRData, len(m.RData))}
	outs = []ioPort{n(netlist.BankClk, 1), n(netlist.BankRE, 1), n(netlist.BankRAddr, len(m.RAddr)), n(netlist.BankWE, 1),
		n(netlist.BankWAddr, len(m.WAddr)), n(netlist.BankWData, len(m.WData)), n(netlist.BankWMask, len(m.WMask))}
	return ins, outs
}

// inPorts are the inputs of a module's graph: the unit's input ports,
// then every memory's read data.
func inPorts(d *netlist.Design) []ioPort {
	var ps []ioPort
	for _, p := range d.Inputs() {
		ps = append(ps, ioPort{p.Name, p.Width()})
	}
	for _, m := range d.Memories {
		ins, _ := bankPorts(m)
		ps = append(ps, ins...)
	}
	return ps
}

// outPorts are the outputs of a module's graph: the unit's output ports,
// then every memory's inputs, which are compared like outputs.
func outPorts(d *netlist.Design) []ioPort {
	var ps []ioPort
	for _, p := range d.Outputs() {
		ps = append(ps, ioPort{p.Name, p.Width()})
	}
	for _, m := range d.Memories {
		_, outs := bankPorts(m)
		ps = append(ps, outs...)
	}
	return ps
}

// checkPorts checks that the module's graph has exactly the unit's ports
// and its memories' bank ports: one graph input per input bit, an output
// for every output bit, and no other output. cut holds the bits of the
// equivalence points the module was cut at (inputs and outputs), which
// it may also have.
func (s *side) checkPorts(d *netlist.Design, cut map[mapBit]bool) error {
	n := 0
	for _, p := range inPorts(d) {
		for i := 0; i < p.width; i++ {
			if _, ok := s.in[mapBit{p.name, i}]; !ok {
				return fmt.Errorf("the %s module has no input bit %s[%d]", s.what, p.name, i)
			}
			n++
		}
	}
	for b := range s.in {
		if cut[b] {
			n++
		}
	}
	if s.a.inputs != n || len(s.m.inputs) != n || len(s.in) != n {
		var extra []string
		for _, b := range s.m.inputs {
			if !hasBit(inPorts(d), b) && !cut[b] {
				extra = append(extra, fmt.Sprintf("%s[%d]", b.name, b.bit))
			}
		}
		return fmt.Errorf("the %s module's graph has %d inputs, want the unit's %d input bits (and its memories' read data); not the unit's: %s", s.what, s.a.inputs, n, strings.Join(extra, ", "))
	}
	want := outPorts(d)
	for _, p := range want {
		for i := 0; i < p.width; i++ {
			if o, ok := s.out[mapBit{p.name, i}]; !ok || o >= len(s.a.outputs) {
				return fmt.Errorf("the %s module has no output bit %s[%d]", s.what, p.name, i)
			}
		}
	}
	for b := range s.out {
		if !hasBit(want, b) && !cut[b] {
			return fmt.Errorf("the %s module has output bit %s[%d], which is no output of the unit nor an input of one of its memories", s.what, b.name, b.bit)
		}
	}
	return nil
}

// hasBit says whether bit b is one of ps's.
func hasBit(ps []ioPort, b mapBit) bool {
	for _, p := range ps {
		if p.name == b.name && b.bit >= 0 && b.bit < p.width {
			return true
		}
	}
	return false
}

// pair is one matched register bit: the latch of the RTL's flip-flop and
// the latch of the gate-level one, and where the bit sits in the register
// correspondence.
type pair struct {
	gold, gate int // latch indices
	word, bit  int // stateWord index and bit
}

// correspond matches the two modules' flip-flops through the register
// correspondence ws. Every flip-flop of each module must be matched
// exactly once; a register bit that neither module keeps (nothing reads
// it) has no pair.
func correspond(gold, gate *side, ws []stateWord) ([]pair, error) {
	usedGold := make([]bool, len(gold.a.latches))
	usedGate := make([]bool, len(gate.a.latches))
	var ps []pair
	var missing []string
	for wi, w := range ws {
		for b, g := range w.gates {
			lg, okGold := gold.latch[mapBit{w.gold, b}]
			lt, okGate := gate.latch[mapBit{g, 0}]
			if !okGold && !okGate {
				continue // read by nothing in either module, so Yosys dropped both
			}
			if !okGold {
				missing = append(missing, fmt.Sprintf("RTL register bit %s[%d] has no flip-flop in the RTL module", w.gold, b))
			}
			if !okGate {
				missing = append(missing, fmt.Sprintf("RTL register bit %s[%d] has no flip-flop %s in the gate-level module", w.gold, b, g))
			}
			if !okGold || !okGate {
				continue
			}
			if lg >= len(usedGold) || lt >= len(usedGate) || usedGold[lg] || usedGate[lt] {
				return nil, fmt.Errorf("register bit %s[%d] / flip-flop %s: a flip-flop matched twice", w.gold, b, g)
			}
			usedGold[lg], usedGate[lt] = true, true
			ps = append(ps, pair{gold: lg, gate: lt, word: wi, bit: b})
		}
	}
	unmatched := func(s *side, used []bool) {
		for i, u := range used {
			if !u {
				var names []string
				if i < len(s.m.latches) {
					for _, nb := range s.m.latches[i] {
						names = append(names, fmt.Sprintf("%s[%d]", nb.name, nb.bit))
					}
				}
				missing = append(missing, fmt.Sprintf("flip-flop %s of the %s module matches no register bit", strings.Join(names, " = "), s.what))
			}
		}
	}
	unmatched(gold, usedGold)
	unmatched(gate, usedGate)
	if len(missing) > 0 {
		sort.Strings(missing)
		if len(missing) > 10 {
			missing = append(missing[:10], fmt.Sprintf("... and %d more", len(missing)-10))
		}
		return nil, fmt.Errorf("no register correspondence:\n  %s", strings.Join(missing, "\n  "))
	}
	return ps, nil
}

// aigBuilder writes a new and-inverter graph: inputs and latches first
// (their count fixed before any gate), then AND gates appended in order.
type aigBuilder struct {
	inputs  int
	latches []aigLatch
	ands    [][2]uint32
	outputs []uint32
}

func (b *aigBuilder) and(x, y uint32) uint32 {
	switch {
	case x == 0 || y == 0 || x == y^1:
		return 0
	case x == 1:
		return y
	case y == 1 || x == y:
		return x
	}
	if x < y {
		x, y = y, x // AIGER wants rhs0 >= rhs1
	}
	lhs := uint32(2 * (b.inputs + len(b.latches) + 1 + len(b.ands)))
	b.ands = append(b.ands, [2]uint32{x, y})
	return lhs
}

func (b *aigBuilder) or(x, y uint32) uint32 { return b.and(x^1, y^1) ^ 1 }

func (b *aigBuilder) xor(x, y uint32) uint32 { return b.or(b.and(x, y^1), b.and(x^1, y)) }

func (b *aigBuilder) aig() *aig {
	return &aig{maxVar: b.inputs + len(b.latches) + len(b.ands), inputs: b.inputs, latches: b.latches, outputs: b.outputs, ands: b.ands}
}

// copyIn copies s's AND gates into b. leaf gives the literal in b of each
// of s's inputs (index) and latches (index); copyIn returns a function
// that translates any literal of s.
func (b *aigBuilder) copyIn(s *side, input, latch func(i int) uint32) func(uint32) uint32 {
	a := s.a
	lit := make([]uint32, a.maxVar+1) // variable -> literal in b
	for i := 0; i < a.inputs; i++ {
		lit[1+i] = input(i)
	}
	for i := range a.latches {
		lit[a.inputs+1+i] = latch(i)
	}
	tr := func(l uint32) uint32 { return lit[l>>1] ^ (l & 1) }
	base := a.inputs + len(a.latches) + 1
	for i, g := range a.ands {
		lit[base+i] = b.and(tr(g[0]), tr(g[1]))
	}
	return tr
}

// portInputs lists the unit's input bits in port order, then its
// memories' read data bits (inPorts): the inputs of every miter built
// here. Both modules read the same read data, free in every cycle.
func portInputs(d *netlist.Design) []mapBit {
	var bs []mapBit
	for _, p := range inPorts(d) {
		for i := 0; i < p.width; i++ {
			bs = append(bs, mapBit{p.name, i})
		}
	}
	return bs
}

// outputsDiffer ORs together, over every output bit (outPorts: memory
// inputs included), whether the two modules' values differ.
func outputsDiffer(b *aigBuilder, d *netlist.Design, gold, gate *side, trGold, trGate func(uint32) uint32) uint32 {
	diff := uint32(0)
	for _, p := range outPorts(d) {
		for i := 0; i < p.width; i++ {
			k := mapBit{p.name, i}
			og := trGold(gold.a.outputs[gold.out[k]])
			ot := trGate(gate.a.outputs[gate.out[k]])
			diff = b.or(diff, b.xor(og, ot))
		}
	}
	return diff
}

// stepMiter is the combinational miter of the two modules, and for a
// sequential unit the induction step of the proof: its inputs are the
// unit's input bits and then one bit per matched pair of flip-flops (the
// state both modules hold), and its one output is 1 when an output, or a
// pair's next value, differs.
func stepMiter(d *netlist.Design, gold, gate *side, ps []pair) *aig {
	m, err := cutMiter(d, gold, gate, ps, nil)
	if err != nil {
		panic("formal: a miter without ties: " + err.Error()) // copyInTied fails on ties only
	}
	return m.aig
}

// runMiter is the sequential miter of the two modules for a bounded
// search: the unit's input bits as inputs, both modules' flip-flops as
// latches starting at 0, and one output, 1 when an output differs.
func runMiter(d *netlist.Design, gold, gate *side) *aig {
	ins := portInputs(d)
	ng, nt := len(gold.a.latches), len(gate.a.latches)
	b := &aigBuilder{inputs: len(ins), latches: make([]aigLatch, ng+nt)}
	pos := map[mapBit]int{}
	for i, k := range ins {
		pos[k] = i
	}
	latchLit := func(k int) uint32 { return uint32(2 * (len(ins) + 1 + k)) }
	trGold := b.copyIn(gold, func(i int) uint32 { return uint32(2 * (1 + pos[gold.m.inputs[i]])) }, func(i int) uint32 { return latchLit(i) })
	trGate := b.copyIn(gate, func(i int) uint32 { return uint32(2 * (1 + pos[gate.m.inputs[i]])) }, func(i int) uint32 { return latchLit(ng + i) })
	for i, l := range gold.a.latches {
		b.latches[i].next = trGold(l.next)
	}
	for i, l := range gate.a.latches {
		b.latches[ng+i].next = trGate(l.next)
	}
	b.outputs = []uint32{outputsDiffer(b, d, gold, gate, trGold, trGate)}
	return b.aig()
}

// writeAIGFile writes a in the binary AIGER format.
func writeAIGFile(path string, a *aig) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	fmt.Fprintf(w, "aig %d %d %d %d %d\n", a.maxVar, a.inputs, len(a.latches), len(a.outputs), len(a.ands))
	for _, l := range a.latches {
		if l.init == 1 {
			fmt.Fprintf(w, "%d 1\n", l.next)
		} else {
			fmt.Fprintf(w, "%d\n", l.next) // starts at 0
		}
	}
	for _, o := range a.outputs {
		fmt.Fprintf(w, "%d\n", o)
	}
	base := a.inputs + len(a.latches) + 1
	for i, g := range a.ands {
		lhs := uint32(2 * (base + i))
		writeDelta(w, lhs-g[0])
		writeDelta(w, g[0]-g[1])
	}
	fmt.Fprintf(w, "c\nwritten by lsugen verify --formal\n")
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func writeDelta(w *bufio.Writer, x uint32) {
	for x >= 0x80 {
		w.WriteByte(byte(x&0x7f) | 0x80)
		x >>= 7
	}
	w.WriteByte(byte(x))
}
