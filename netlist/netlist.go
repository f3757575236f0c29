// Package netlist is lsugen's gate-level IR: a flat, deterministic list of
// library gates over one-bit nets, the builder that generators use to make
// it, a combinational-cycle check and a bit-parallel simulator.
//
// A Design also carries a word-level view (RTL) written by the same
// generator: the readable Verilog is printed from it, the structural
// Verilog from the gates, and the verifier checks both.
package netlist

import (
	"fmt"
	"strings"
)

// Net is a one-bit signal. Nets 0 and 1 are the constants.
type Net int32

const (
	Const0 Net = 0
	Const1 Net = 1
	// firstFree is the first net number the builder hands out.
	firstFree Net = 2
)

// Bus is an ordered group of nets, bit 0 first.
type Bus []Net

// Kind is a library gate type. Pin order for each kind is given by KindInfo.
type Kind uint8

const (
	INV Kind = iota
	BUF
	NAND2
	NAND3
	NAND4
	NOR2
	NOR3
	NOR4
	AND2
	AND3
	AND4
	OR2
	OR3
	OR4
	XOR2
	XNOR2
	AOI21
	OAI21
	MUX2
	DFF
	numKinds
)

// KindInfo describes a gate kind's interface; the electrical data lives in
// package timing, which is the only consumer of it.
type KindInfo struct {
	Name string   // library name, also the comment in gate-level Verilog
	Pins []string // input pin names in netlist order
	// Fn is the kind's Boolean function over its pins: the simulator, the
	// Verilog writers and the readable views all derive theirs from it.
	// Its Op is FnNone for DFF.
	Fn Fn
	// Truth is the truth table, stated apart from Fn so that a test can
	// check each row against itself: bit m is the output when pin i
	// carries bit i of m (0 for DFF). Timing and library matching compare
	// functions by it.
	Truth uint16
}

// Kinds is the gate library's logical interface, one row per kind.
var Kinds = [numKinds]KindInfo{
	INV:   {"INV", []string{"A"}, not(pin(0)), 0b01},
	BUF:   {"BUF", []string{"A"}, pin(0), 0b10},
	NAND2: {"NAND2", []string{"A", "B"}, not(and(pins(2)...)), 0b0111},
	NAND3: {"NAND3", []string{"A", "B", "C"}, not(and(pins(3)...)), 0x7f},
	NAND4: {"NAND4", []string{"A", "B", "C", "D"}, not(and(pins(4)...)), 0x7fff},
	NOR2:  {"NOR2", []string{"A", "B"}, not(or(pins(2)...)), 0b0001},
	NOR3:  {"NOR3", []string{"A", "B", "C"}, not(or(pins(3)...)), 0x01},
	NOR4:  {"NOR4", []string{"A", "B", "C", "D"}, not(or(pins(4)...)), 0x0001},
	AND2:  {"AND2", []string{"A", "B"}, and(pins(2)...), 0b1000},
	AND3:  {"AND3", []string{"A", "B", "C"}, and(pins(3)...), 0x80},
	AND4:  {"AND4", []string{"A", "B", "C", "D"}, and(pins(4)...), 0x8000},
	OR2:   {"OR2", []string{"A", "B"}, or(pins(2)...), 0b1110},
	OR3:   {"OR3", []string{"A", "B", "C"}, or(pins(3)...), 0xfe},
	OR4:   {"OR4", []string{"A", "B", "C", "D"}, or(pins(4)...), 0xfffe},
	XOR2:  {"XOR2", []string{"A", "B"}, xor(pins(2)...), 0b0110},
	XNOR2: {"XNOR2", []string{"A", "B"}, not(xor(pins(2)...)), 0b1001},
	AOI21: {"AOI21", []string{"A1", "A2", "B"}, not(or(and(pin(0), pin(1)), pin(2))), 0x07},
	OAI21: {"OAI21", []string{"A1", "A2", "B"}, not(and(or(pin(0), pin(1)), pin(2))), 0x1f},
	MUX2:  {"MUX2", []string{"S", "A0", "A1"}, mux(pin(0), pin(2), pin(1)), 0xe4},
	DFF:   {"DFF", []string{"D"}, Fn{}, 0},
}

func (k Kind) String() string {
	if k < numKinds {
		return Kinds[k].Name
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// NumKinds is the number of gate kinds in the library.
const NumKinds = int(numKinds)

// Arity is the number of inputs of kind k.
func (k Kind) Arity() int { return len(Kinds[k].Pins) }

// Gate is one library cell instance driving exactly one net.
type Gate struct {
	Kind Kind
	In   []Net
	Out  Net
}

// Dir is a port direction.
type Dir uint8

const (
	In Dir = iota
	Out
)

// Port is a module port; Bits[0] is the least significant bit.
type Port struct {
	Name string
	Dir  Dir
	Bits Bus
	Doc  string // one line for the header comment
}

// Width is the number of bits of the port.
func (p *Port) Width() int { return len(p.Bits) }

// Design is one generated unit: its interface, its gates and its word-level
// view. Gates are in topological order (DFF outputs and memory read data
// count as sources).
type Design struct {
	Name  string
	Ports []Port
	Gates []Gate
	// NumNets counts nets including the two constants.
	NumNets int
	// NetNames gives readable names to some internal nets (bus name and
	// bit); other nets are printed as n<number>.
	NetNames map[Net]string
	// Clock names the clock input for designs with DFFs, else "".
	Clock string

	// Header is the documentation the Verilog writers put in the module
	// header comment: what the unit computes, its protocol, its config.
	Header []string

	// RTL is the readable word-level description of the same function.
	RTL *RTL

	// Storage groups the design's DFFs for area reports, as the generator
	// sees them (e.g. a cache's tag bits); empty for combinational units.
	Storage []Storage
	// Instances are the other units' designs placed in this one, their
	// gates copied into Gates (see Instance).
	Instances []Instance
	// Memories are the memory macros of the design (see Memory), clocked
	// by Clock; their read data are sources, like flip-flop outputs.
	Memories []Memory

	// Pipeline describes a unit pipelined at a clock period (package
	// retime); nil for other designs.
	Pipeline *Pipeline
	// Protocol is what a clocked unit with a protocol of its own (the
	// shared memory) states about its timing; nil for others.
	Protocol *Protocol

	// Paths are named timing paths of interest (e.g. one multiplexer's
	// added delay), reported beside the critical path.
	Paths []Path
}

// Pipeline is the protocol and register placement of a pipelined unit.
type Pipeline struct {
	// PeriodFO4 is the clock period the stages were cut for, and Mode the
	// timing model that cut them ("sized" or "unsized", or "liberty":
	// the characterized model of cell library Library).
	PeriodFO4 float64
	Mode      string
	Library   string
	// Latency is L: an input presented with valid_i in cycle t is on the
	// outputs with valid_o in cycle t+L.
	Latency int
	// RegStage gives, for each gate index, the stage (0-based) that a DFF
	// ends, i.e. the stage whose logic its D input closes; -1 for other
	// gates. Nil for a variable-latency unit (package compose), whose
	// stages are not one chain: Latency is then its slow answers', and
	// the composer's results (the fast latency) travel beside the design.
	RegStage []int32
}

// Protocol is the timing a clocked unit with a protocol of its own
// states in its header.
type Protocol struct {
	// Latency is its response latency in cycles (the shared memory's L).
	Latency int
	// PeriodFO4 is the clock period its paths must fit (clock_fo4) and
	// Mode the timing model ("sized", "unsized" or "liberty", that of
	// cell library Library) that checks them; 0 and "" when none was
	// asked for.
	PeriodFO4 float64
	Mode      string
	Library   string
}

// Path names a timing path the generator wants reported on its own: the
// worst delay from any net of From to any net of To (To may be DFF D
// inputs or output port bits).
type Path struct {
	Name     string
	Doc      string
	From, To Bus
}

// Storage is a named group of state bits.
type Storage struct {
	Name string `json:"name"`
	Bits int    `json:"bits"`
	Doc  string `json:"doc,omitempty"`
}

// Port returns the named port, or nil.
func (d *Design) Port(name string) *Port {
	for i := range d.Ports {
		if d.Ports[i].Name == name {
			return &d.Ports[i]
		}
	}
	return nil
}

// Inputs returns the input ports in declaration order.
func (d *Design) Inputs() []*Port { return d.portsOf(In) }

// Outputs returns the output ports in declaration order.
func (d *Design) Outputs() []*Port { return d.portsOf(Out) }

func (d *Design) portsOf(dir Dir) []*Port {
	var ps []*Port
	for i := range d.Ports {
		if d.Ports[i].Dir == dir {
			ps = append(ps, &d.Ports[i])
		}
	}
	return ps
}

// NewNet adds a net to the design, for transforms of a built design (the
// Builder makes nets while a generator builds one).
func (d *Design) NewNet() Net {
	n := Net(d.NumNets)
	d.NumNets++
	return n
}

// AddGate appends a gate of kind k reading in, driving a new net, which
// it returns.
func (d *Design) AddGate(k Kind, in ...Net) Net {
	o := d.NewNet()
	d.Gates = append(d.Gates, Gate{Kind: k, In: in, Out: o})
	return o
}

// Stats counts gates by kind.
func (d *Design) Stats() [NumKinds]int {
	var s [NumKinds]int
	for _, g := range d.Gates {
		s[g.Kind]++
	}
	return s
}

// Check verifies the design's structure: every gate has its kind's arity,
// drives a net no one else drives, and reads only nets that are defined;
// the memories are well formed (see checkMemories), their read data
// driven by nothing else and their inputs driven; and there is no
// combinational cycle (DFF outputs and memory read data are sources). A
// cycle is reported with the gates on it.
func (d *Design) Check() error {
	driver := make([]int32, d.NumNets) // gate index+1, -1 for inputs/consts, memoryDriven for read data
	for i := range driver {
		driver[i] = 0
	}
	driver[Const0], driver[Const1] = -1, -1
	for _, p := range d.Ports {
		if p.Dir != In {
			continue
		}
		for _, n := range p.Bits {
			if n < 0 || int(n) >= d.NumNets {
				return fmt.Errorf("port %s: net %d out of range", p.Name, n)
			}
			driver[n] = -1
		}
	}
	if err := d.checkMemories(); err != nil {
		return err
	}
	for _, m := range d.Memories {
		for _, n := range m.RData {
			if n < firstFree || int(n) >= d.NumNets || driver[n] != 0 {
				return fmt.Errorf("memory %s: read data net %d is out of range, a constant, an input or read data twice", m.Name, n)
			}
			driver[n] = memoryDriven
		}
	}
	for i, g := range d.Gates {
		if g.Kind >= numKinds {
			return fmt.Errorf("gate %d: unknown kind %d", i, g.Kind)
		}
		if len(g.In) != g.Kind.Arity() {
			return fmt.Errorf("gate %d (%s): %d inputs, want %d", i, g.Kind, len(g.In), g.Kind.Arity())
		}
		if g.Out < firstFree || int(g.Out) >= d.NumNets {
			return fmt.Errorf("gate %d (%s): output net %d out of range", i, g.Kind, g.Out)
		}
		if driver[g.Out] != 0 {
			return fmt.Errorf("gate %d (%s): net %s has more than one driver", i, g.Kind, d.NetName(g.Out))
		}
		driver[g.Out] = int32(i + 1)
	}
	for i, g := range d.Gates {
		for _, n := range g.In {
			if n < 0 || int(n) >= d.NumNets || driver[n] == 0 {
				return fmt.Errorf("gate %d (%s): input net %d is undriven", i, g.Kind, n)
			}
		}
	}
	for _, p := range d.Ports {
		for _, n := range p.Bits {
			if n < 0 || int(n) >= d.NumNets || driver[n] == 0 {
				return fmt.Errorf("port %s: net %d is undriven", p.Name, n)
			}
		}
	}
	for _, m := range d.Memories {
		for _, n := range m.memoryInputs() {
			if n < 0 || int(n) >= d.NumNets || driver[n] == 0 {
				return fmt.Errorf("memory %s: input net %d is undriven", m.Name, n)
			}
		}
	}
	if cyc := d.findCycle(driver); cyc != nil {
		var names []string
		for _, gi := range cyc {
			g := d.Gates[gi]
			names = append(names, fmt.Sprintf("%s g%d -> %s", g.Kind, gi, d.NetName(g.Out)))
		}
		return fmt.Errorf("combinational cycle through %d gates: %s", len(cyc), strings.Join(names, ", "))
	}
	return nil
}

// memoryDriven marks a memory's read data net in Check's driver table: a
// source, like an input.
const memoryDriven = -2

// findCycle returns the gate indices of one combinational cycle, or nil.
// DFFs and memories break cycles: their outputs are sources.
func (d *Design) findCycle(driver []int32) []int {
	const (
		white = iota
		grey
		black
	)
	state := make([]uint8, len(d.Gates))
	// Iterative DFS over "gate reads net driven by gate" edges.
	type frame struct{ gate, pin int }
	for start := range d.Gates {
		if state[start] != white {
			continue
		}
		stack := []frame{{start, 0}}
		state[start] = grey
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			g := d.Gates[top.gate]
			if g.Kind == DFF || top.pin >= len(g.In) {
				state[top.gate] = black
				stack = stack[:len(stack)-1]
				continue
			}
			n := g.In[top.pin]
			top.pin++
			src := int(driver[n]) - 1
			if src < 0 || d.Gates[src].Kind == DFF {
				continue
			}
			switch state[src] {
			case grey:
				// The cycle is the stack from src to the top.
				var cyc []int
				for i := len(stack) - 1; i >= 0; i-- {
					cyc = append(cyc, stack[i].gate)
					if stack[i].gate == src {
						break
					}
				}
				for i, j := 0, len(cyc)-1; i < j; i, j = i+1, j-1 {
					cyc[i], cyc[j] = cyc[j], cyc[i]
				}
				return cyc
			case white:
				state[src] = grey
				stack = append(stack, frame{src, 0})
			}
		}
	}
	return nil
}

// NetName is the readable name of a net: a port bit, a named internal net
// or n<number>.
func (d *Design) NetName(n Net) string {
	switch n {
	case Const0:
		return "1'b0"
	case Const1:
		return "1'b1"
	}
	for _, p := range d.Ports {
		for i, b := range p.Bits {
			if b == n {
				if len(p.Bits) == 1 {
					return p.Name
				}
				return fmt.Sprintf("%s[%d]", p.Name, i)
			}
		}
	}
	if s, ok := d.NetNames[n]; ok {
		return s
	}
	return fmt.Sprintf("n%d", n)
}
