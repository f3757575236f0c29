package formal

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
)

// A module's graph from Yosys's JSON netlist. The scripts leave the module
// at Yosys's word level wherever Yosys has an and-inverter model of the
// cell (write_json -aig: the models aigmap itself uses, with Yosys's
// semantics of widths, signs and extension), map the other cells to gates
// (techmap), and write the netlist with its models; the graph is built
// here by instantiating each cell's model on its connections. It is the
// graph Yosys's aigmap and write_aiger would write, without their cost on
// large units: Yosys takes about 30 µs per bit-level cell, and the largest
// RTL has 600,000 of them, which here are AND gates in a slice.

// graphTail ends a script that reads a module: what has no model becomes
// gates, undefined bits 0, and the netlist is written as JSON with its
// models. The flip-flops stay $dff cells (a latch each bit here).
func graphTail(add func(string, ...any), out string) {
	add("# Cells with an AIG model in Yosys stay word-level; the others become gates.")
	add("# Twice: a mapping can make cells of other kinds (a multiplier full adders),")
	add("# which the first selection did not hold.")
	for range 2 {
		add("select -set modelled %s", modelledCells)
		add("techmap @modelled %%n")
	}
	add("# Don't-care bits (the data of a disabled memory write, a part select out of")
	add("# range) become 0: the gates must then match one choice of them, which is")
	add("# stricter, never looser.")
	add("setundef -zero")
	add("# Source locations are a third of the file and nothing here reads them.")
	add("setattr -unset src")
	add("write_json -aig %s", out)
}

// modelledCells selects the cells that Yosys 0.23's cellaigs models (its
// kernel/cellaigs.cc; later versions model more), and the flip-flops.
const modelledCells = "t:$not t:$pos t:$and t:$or t:$xor t:$xnor t:$mux " +
	"t:$reduce_and t:$reduce_or t:$reduce_xor t:$reduce_xnor t:$reduce_bool " +
	"t:$logic_not t:$logic_and t:$logic_or t:$add t:$sub t:$alu t:$eq t:$ne " +
	"t:$_*_ t:$dff"

// yjBits are a connection's bits: a signal number (2 and up), or a
// constant: yjZero, yjOne, yjUndef ("x" or "z", refused).
type yjBits []int32

const (
	yjZero  = 0
	yjOne   = 1
	yjUndef = -1
)

// UnmarshalJSON reads [2, 3, "0", "1"] without a reflection call per bit:
// the largest netlists have millions.
func (bs *yjBits) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) < 2 || b[0] != '[' || b[len(b)-1] != ']' {
		return fmt.Errorf("bits: want an array, got %.20q", b)
	}
	out := (*bs)[:0]
	for _, f := range bytes.Split(b[1:len(b)-1], []byte{','}) {
		f = bytes.TrimSpace(f)
		switch {
		case len(f) == 0:
			continue
		case f[0] == '"':
			switch string(f) {
			case `"0"`:
				out = append(out, yjZero)
			case `"1"`:
				out = append(out, yjOne)
			default:
				out = append(out, yjUndef)
			}
		default:
			n, err := strconv.ParseInt(string(f), 10, 32)
			if err != nil || n < 2 {
				return fmt.Errorf("bits: bad signal %q", f)
			}
			out = append(out, int32(n))
		}
	}
	*bs = out
	return nil
}

// yjFile, yjModule, yjPort, yjCell and yjNet are the parts of write_json's
// output read here; the rest (attributes, parameters) is skipped.
type yjFile struct {
	Modules map[string]yjModule `json:"modules"`
	Models  map[string][][]any  `json:"models"`
}

type yjModule struct {
	Ports    map[string]yjPort `json:"ports"`
	Cells    map[string]yjCell `json:"cells"`
	Netnames map[string]yjNet  `json:"netnames"`
}

type yjPort struct {
	Direction string `json:"direction"`
	Bits      yjBits `json:"bits"`
	Offset    int    `json:"offset"`
}

type yjCell struct {
	Type           string            `json:"type"`
	Model          string            `json:"model"`
	PortDirections map[string]string `json:"port_directions"`
	Connections    map[string]yjBits `json:"connections"`
}

type yjNet struct {
	HideName int    `json:"hide_name"`
	Bits     yjBits `json:"bits"`
	Offset   int    `json:"offset"`
}

// yjNode is one node of a cell's model: a port bit (inverted or not), the
// AND of two earlier nodes (inverted or not), or a constant; outs are the
// output port bits it drives.
type yjNode struct {
	kind      byte // 'p' port, 'a' and, 'c' constant
	inv       bool
	port      string
	bit, l, r int
	outs      []yjPortBit
}

type yjPortBit struct {
	port string
	bit  int
}

// stripComments removes the /* N */ comments Yosys writes before each
// model node, which JSON does not allow (strings are left as they are).
func stripComments(b []byte) []byte {
	out := make([]byte, 0, len(b))
	inString := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case inString:
			if c == '\\' && i+1 < len(b) {
				out = append(out, c, b[i+1])
				i++
				continue
			}
			inString = c != '"'
		case c == '"':
			inString = true
		case c == '/' && i+1 < len(b) && b[i+1] == '*':
			end := bytes.Index(b[i+2:], []byte("*/"))
			if end < 0 {
				return out
			}
			i += end + 3
			continue
		}
		out = append(out, c)
	}
	return out
}

// parseModels reads the models' node lists.
func parseModels(raw map[string][][]any) (map[string][]yjNode, error) {
	models := map[string][]yjNode{}
	for name, nodes := range raw {
		ns := make([]yjNode, len(nodes))
		for i, f := range nodes {
			bad := fmt.Errorf("model %s: bad node %d %v", name, i, f)
			if len(f) == 0 {
				return nil, bad
			}
			kind, _ := f[0].(string)
			n := &ns[i]
			var rest []any
			num := func(v any, below int) (int, bool) {
				x, ok := v.(float64)
				return int(x), ok && x >= 0 && (below < 0 || int(x) < below) && x == float64(int(x))
			}
			switch kind {
			case "port", "nport":
				if len(f) < 3 {
					return nil, bad
				}
				port, ok1 := f[1].(string)
				bit, ok2 := num(f[2], -1)
				if !ok1 || !ok2 {
					return nil, bad
				}
				n.kind, n.inv, n.port, n.bit, rest = 'p', kind == "nport", port, bit, f[3:]
			case "and", "nand":
				if len(f) < 3 {
					return nil, bad
				}
				l, ok1 := num(f[1], i)
				r, ok2 := num(f[2], i)
				if !ok1 || !ok2 {
					return nil, bad
				}
				n.kind, n.inv, n.l, n.r, rest = 'a', kind == "nand", l, r, f[3:]
			case "true", "false":
				n.kind, n.inv, rest = 'c', kind == "true", f[1:]
			default:
				return nil, bad
			}
			if len(rest)%2 != 0 {
				return nil, bad
			}
			for j := 0; j < len(rest); j += 2 {
				port, ok1 := rest[j].(string)
				bit, ok2 := num(rest[j+1], -1)
				if !ok1 || !ok2 {
					return nil, bad
				}
				n.outs = append(n.outs, yjPortBit{port, bit})
			}
		}
		models[name] = ns
	}
	return models, nil
}

// loadJSONSide reads module top of Yosys's JSON netlist at path (written
// by graphTail) as an and-inverter graph: an input per input port bit,
// an output per output port bit, and a latch per flip-flop bit, named
// after every public wire that carries it (the names write_aiger's map
// gives).
func loadJSONSide(what, path, top string) (*side, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s, err := parseJSONSide(what, raw, top)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// parseJSONSide is loadJSONSide on the file's text.
func parseJSONSide(what string, raw []byte, top string) (*side, error) {
	var f yjFile
	if err := json.Unmarshal(stripComments(raw), &f); err != nil {
		return nil, err
	}
	mod, ok := f.Modules[top]
	if !ok {
		return nil, fmt.Errorf("no module %s", top)
	}
	models, err := parseModels(f.Models)
	if err != nil {
		return nil, err
	}
	s, err := buildJSONSide(what, mod, models)
	if err != nil {
		return nil, fmt.Errorf("module %s: %w", top, err)
	}
	return s, nil
}

// isFlipFlop says whether a cell is a flip-flop the graph keeps as
// latches: D to Q at the clock, no reset or enable (the scripts' proc
// writes resets and enables as logic before D).
func isFlipFlop(typ string) bool {
	return typ == "$dff" || typ == "$_DFF_P_" || typ == "$_DFF_N_"
}

func buildJSONSide(what string, mod yjModule, models map[string][]yjNode) (*side, error) {
	maxSig := int32(1)
	for _, c := range mod.Cells {
		for _, bs := range c.Connections {
			for _, x := range bs {
				maxSig = max(maxSig, x)
			}
		}
	}
	for _, p := range mod.Ports {
		for _, x := range p.Bits {
			maxSig = max(maxSig, x)
		}
	}
	// Yosys numbers the signals it writes from 2 up, so the largest is
	// about the count of bits in the file.
	if maxSig > 1<<26 {
		return nil, fmt.Errorf("signal number %d: more than lsugen's graphs hold", maxSig)
	}
	const unset = ^uint32(0)
	lit := make([]uint32, maxSig+1)
	for i := range lit {
		lit[i] = unset
	}
	lit[yjZero], lit[yjOne] = 0, 1

	s := &side{what: what, m: &aigMap{}, in: map[mapBit]int{}, out: map[mapBit]int{}, latch: map[mapBit]int{}}
	b := &aigBuilder{}
	portNames := slices.Sorted(maps.Keys(mod.Ports))
	for _, name := range portNames {
		p := mod.Ports[name]
		if p.Direction == "inout" {
			return nil, fmt.Errorf("inout port %s", name)
		}
		if p.Direction != "input" {
			continue
		}
		for i, x := range p.Bits {
			if x < 2 || lit[x] != unset {
				return nil, fmt.Errorf("input port %s bit %d is a constant or another input's", name, i)
			}
			k := mapBit{name, p.Offset + i}
			s.in[k] = b.inputs
			s.m.inputs = append(s.m.inputs, k)
			b.inputs++
			lit[x] = uint32(2 * b.inputs)
		}
	}

	// The flip-flops in name order (deterministic), a latch per Q bit.
	cellNames := slices.Sorted(maps.Keys(mod.Cells))
	var nexts []int32 // each latch's D bit
	latchOf := map[int32]int{}
	driver := make([]int32, maxSig+1) // cell index + 1 of each signal's driver
	cells := make([]*yjCell, len(cellNames))
	for ci, name := range cellNames {
		c := mod.Cells[name]
		cells[ci] = &c
		if isFlipFlop(c.Type) {
			d, q := c.Connections["D"], c.Connections["Q"]
			if len(d) != len(q) {
				return nil, fmt.Errorf("flip-flop %s: D and Q differ in width", name)
			}
			for i, x := range q {
				if x < 2 || lit[x] != unset {
					return nil, fmt.Errorf("flip-flop %s: Q bit %d is driven twice", name, i)
				}
				latchOf[x] = len(nexts)
				nexts = append(nexts, d[i])
				lit[x] = uint32(2 * (b.inputs + len(nexts)))
			}
			continue
		}
		if _, ok := models[c.Model]; !ok || c.Model == "" {
			return nil, fmt.Errorf("cell %s of type %s has no AIG model", name, c.Type)
		}
		for port, dir := range c.PortDirections {
			if dir != "output" {
				continue
			}
			for _, x := range c.Connections[port] {
				if x < 2 || driver[x] != 0 || lit[x] != unset {
					return nil, fmt.Errorf("cell %s drives a constant, an input or a signal another cell drives", name)
				}
				driver[x] = int32(ci + 1)
			}
		}
	}
	b.latches = make([]aigLatch, len(nexts))
	for i := range b.latches {
		b.latches[i].init = 2
	}

	// Latch names: every public wire bit on a latch's Q.
	netNames := make([]string, 0, len(mod.Netnames))
	for n, w := range mod.Netnames {
		if w.HideName == 0 {
			netNames = append(netNames, n)
		}
	}
	slices.Sort(netNames)
	s.m.latches = make([][]mapBit, len(nexts))
	for _, n := range netNames {
		w := mod.Netnames[n]
		for i, x := range w.Bits {
			if l, ok := latchOf[x]; ok {
				k := mapBit{n, w.Offset + i}
				s.m.latches[l] = append(s.m.latches[l], k)
				s.latch[k] = l
			}
		}
	}

	// Each signal's literal, cells first needed first; an explicit stack,
	// since a path can be thousands of cells deep.
	var nodes []uint32
	evalCell := func(c *yjCell) error {
		ms := models[c.Model]
		nodes = nodes[:0]
		for _, n := range ms {
			var l uint32
			switch n.kind {
			case 'p':
				bs := c.Connections[n.port]
				if n.bit >= len(bs) {
					return fmt.Errorf("a %s cell's model reads %s[%d], which it lacks", c.Type, n.port, n.bit)
				}
				if bs[n.bit] < 0 || lit[bs[n.bit]] == unset {
					return fmt.Errorf("a %s cell's model reads %s[%d] before it has a value", c.Type, n.port, n.bit)
				}
				l = lit[bs[n.bit]]
				if n.inv {
					l ^= 1
				}
			case 'a':
				l = b.and(nodes[n.l], nodes[n.r])
				if n.inv {
					l ^= 1
				}
			default:
				l = 0
				if n.inv {
					l = 1
				}
			}
			nodes = append(nodes, l)
			for _, o := range n.outs {
				bs := c.Connections[o.port]
				if o.bit >= len(bs) || c.PortDirections[o.port] != "output" {
					return fmt.Errorf("a %s cell's model drives %s[%d], which is no output bit of it", c.Type, o.port, o.bit)
				}
				lit[bs[o.bit]] = l
			}
		}
		return nil
	}
	// state: 0 not seen, 1 waiting for its inputs' drivers (which are
	// above it on the stack), 2 evaluated. A driver found waiting is one
	// the cell depends on through itself: a combinational loop.
	state := make([]uint8, len(cells))
	var stack []int32
	sigLit := func(root int32) (uint32, error) {
		if root == yjUndef {
			return 0, fmt.Errorf("an undefined bit (x or z) is read")
		}
		if lit[root] != unset {
			return lit[root], nil
		}
		if driver[root] == 0 {
			return 0, fmt.Errorf("signal %d has no driver", root)
		}
		stack = append(stack[:0], driver[root]-1)
		for len(stack) > 0 {
			ci := stack[len(stack)-1]
			if state[ci] == 2 {
				stack = stack[:len(stack)-1]
				continue
			}
			c := cells[ci]
			ready := true
			for port, dir := range c.PortDirections {
				if dir == "output" {
					continue
				}
				for _, x := range c.Connections[port] {
					switch {
					case x == yjUndef:
						return 0, fmt.Errorf("a %s cell reads an undefined bit (x or z)", c.Type)
					case lit[x] != unset:
					case driver[x] == 0:
						return 0, fmt.Errorf("signal %d, which a %s cell reads, has no driver", x, c.Type)
					case state[driver[x]-1] == 1:
						return 0, fmt.Errorf("a combinational loop through a %s cell", c.Type)
					default:
						stack = append(stack, driver[x]-1)
						ready = false
					}
				}
			}
			if !ready {
				state[ci] = 1
				continue
			}
			if err := evalCell(c); err != nil {
				return 0, err
			}
			state[ci] = 2
			stack = stack[:len(stack)-1]
		}
		if lit[root] == unset {
			return 0, fmt.Errorf("signal %d: its driver's model leaves it undriven", root)
		}
		return lit[root], nil
	}

	for _, name := range portNames {
		p := mod.Ports[name]
		if p.Direction != "output" {
			continue
		}
		for i, x := range p.Bits {
			l, err := sigLit(x)
			if err != nil {
				return nil, fmt.Errorf("output %s[%d]: %w", name, i, err)
			}
			s.out[mapBit{name, p.Offset + i}] = len(b.outputs)
			b.outputs = append(b.outputs, l)
		}
	}
	for i, d := range nexts {
		l, err := sigLit(d)
		if err != nil {
			return nil, fmt.Errorf("flip-flop input: %w", err)
		}
		b.latches[i].next = l
	}
	s.a = b.aig()
	return s, nil
}
