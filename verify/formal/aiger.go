package formal

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// aig is an and-inverter graph read from a binary AIGER file (the format
// Yosys's write_aiger writes and ABC reads): inputs, latches with their
// next-state literals and initial values, outputs, and AND gates in
// topological order. It is read back so that a counterexample ABC reports
// can be replayed here: the replay names the differing outputs and
// confirms that the counterexample is real.
type aig struct {
	maxVar  int
	inputs  int
	latches []aigLatch
	outputs []uint32 // literals
	ands    [][2]uint32
	// symbols is the symbol table: "o3" -> the names of output 3.
	symbols map[string][]string
}

type aigLatch struct {
	next uint32
	init uint8 // 0, 1, or 2 for uninitialized (its own literal in AIGER)
}

func readAIGFile(path string) (*aig, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	a, err := parseAIG(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return a, nil
}

// parseAIG reads the binary AIGER format "aig M I L O A [B C J F]". Bad
// states, constraints, justice and fairness properties are refused: the
// miters here have plain outputs.
func parseAIG(b []byte) (*aig, error) {
	r := bufio.NewReader(bytes.NewReader(b))
	line, err := readLine(r)
	if err != nil {
		return nil, fmt.Errorf("aiger: no header: %w", err)
	}
	f := strings.Fields(line)
	if len(f) < 6 || f[0] != "aig" {
		return nil, fmt.Errorf("aiger: header %q is not a binary AIGER header", line)
	}
	var h [9]int
	for i, s := range f[1:] {
		if i >= len(h) {
			return nil, fmt.Errorf("aiger: header %q has too many fields", line)
		}
		v, err := strconv.Atoi(s)
		if err != nil || v < 0 {
			return nil, fmt.Errorf("aiger: header %q: bad number %q", line, s)
		}
		h[i] = v
	}
	m, ni, nl, no, na := h[0], h[1], h[2], h[3], h[4]
	if h[5]+h[6]+h[7]+h[8] != 0 {
		return nil, fmt.Errorf("aiger: header %q: bad-state, constraint, justice or fairness sections are not supported", line)
	}
	if ni+nl+na != m {
		return nil, fmt.Errorf("aiger: header %q: M != I + L + A", line)
	}
	a := &aig{maxVar: m, inputs: ni}
	maxLit := uint32(2*m + 1)
	lit := func(s string) (uint32, error) {
		v, err := strconv.ParseUint(s, 10, 32)
		if err != nil || uint32(v) > maxLit {
			return 0, fmt.Errorf("aiger: bad literal %q", s)
		}
		return uint32(v), nil
	}
	for i := 0; i < nl; i++ {
		line, err := readLine(r)
		if err != nil {
			return nil, fmt.Errorf("aiger: latch %d: %w", i, err)
		}
		f := strings.Fields(line)
		if len(f) < 1 || len(f) > 2 {
			return nil, fmt.Errorf("aiger: latch line %q", line)
		}
		next, err := lit(f[0])
		if err != nil {
			return nil, err
		}
		l := aigLatch{next: next}
		if len(f) == 2 {
			init, err := lit(f[1])
			if err != nil {
				return nil, err
			}
			switch init {
			case 0, 1:
				l.init = uint8(init)
			default:
				l.init = 2
			}
		}
		a.latches = append(a.latches, l)
	}
	for i := 0; i < no; i++ {
		line, err := readLine(r)
		if err != nil {
			return nil, fmt.Errorf("aiger: output %d: %w", i, err)
		}
		o, err := lit(strings.TrimSpace(line))
		if err != nil {
			return nil, err
		}
		a.outputs = append(a.outputs, o)
	}
	a.ands = make([][2]uint32, na)
	for i := range a.ands {
		lhs := uint32(2 * (ni + nl + 1 + i))
		d0, err := readDelta(r)
		if err != nil {
			return nil, fmt.Errorf("aiger: and gate %d: %w", i, err)
		}
		d1, err := readDelta(r)
		if err != nil {
			return nil, fmt.Errorf("aiger: and gate %d: %w", i, err)
		}
		if d0 == 0 || d0 > lhs {
			return nil, fmt.Errorf("aiger: and gate %d: bad first delta %d", i, d0)
		}
		rhs0 := lhs - d0
		if d1 > rhs0 {
			return nil, fmt.Errorf("aiger: and gate %d: bad second delta %d", i, d1)
		}
		a.ands[i] = [2]uint32{rhs0, rhs0 - d1}
	}
	// The symbol table, up to the comment section.
	a.symbols = map[string][]string{}
	for {
		line, err := readLine(r)
		if err != nil || line == "c" {
			break
		}
		f := strings.Fields(line)
		if len(f) < 2 || !strings.ContainsRune("ilobcjf", rune(f[0][0])) {
			return nil, fmt.Errorf("aiger: bad symbol line %q", line)
		}
		a.symbols[f[0]] = f[1:]
	}
	return a, nil
}

func readLine(r *bufio.Reader) (string, error) {
	s, err := r.ReadString('\n')
	if err != nil && !(errors.Is(err, io.EOF) && s != "") {
		return "", err
	}
	return strings.TrimRight(s, "\r\n"), nil
}

// readDelta reads one AIGER varint: 7 bits per byte, low bits first.
func readDelta(r *bufio.Reader) (uint32, error) {
	var x uint32
	for shift := 0; ; shift += 7 {
		c, err := r.ReadByte()
		if err != nil {
			return 0, err
		}
		if shift > 28 {
			return 0, errors.New("varint too long")
		}
		x |= uint32(c&0x7f) << shift
		if c&0x80 == 0 {
			return x, nil
		}
	}
}

// aigState is one evaluation of the graph: a value per variable.
type aigState struct {
	a    *aig
	vals []bool
}

func (a *aig) newState() *aigState {
	s := &aigState{a: a, vals: make([]bool, a.maxVar+1)}
	for i, l := range a.latches {
		s.vals[a.inputs+1+i] = l.init == 1 // uninitialized latches start 0 here
	}
	return s
}

func (s *aigState) lit(l uint32) bool { return s.vals[l>>1] != (l&1 == 1) }

// eval sets the inputs and computes every AND gate (the latches keep
// their current values).
func (s *aigState) eval(inputs []bool) {
	for i := 0; i < s.a.inputs; i++ {
		s.vals[1+i] = i < len(inputs) && inputs[i]
	}
	base := s.a.inputs + len(s.a.latches) + 1
	for i, g := range s.a.ands {
		s.vals[base+i] = s.lit(g[0]) && s.lit(g[1])
	}
}

// step clocks the latches: each takes its next-state value.
func (s *aigState) step() {
	next := make([]bool, len(s.a.latches))
	for i, l := range s.a.latches {
		next[i] = s.lit(l.next)
	}
	for i, v := range next {
		s.vals[s.a.inputs+1+i] = v
	}
}

func (s *aigState) output(i int) bool { return s.lit(s.a.outputs[i]) }

// aigMap names a module graph's inputs and latches: which port bit each
// input is, and which wire bits each latch drives (every name of it).
type aigMap struct {
	inputs  []mapBit   // by AIGER index
	latches [][]mapBit // by AIGER index: every name of the latch's wire bit
}

type mapBit struct {
	name string
	bit  int
}
