package hdl

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/lsugen/lsugen/netlist"
)

// field is one port's place in a concatenated vector.
type field struct {
	name   string
	width  int
	offset int // bit offset of the port's bit 0 in the concatenation
}

// layout is the packing of a Bench's ports into the testbench's vector and
// output lines: the input (or output) ports in Ports order concatenated, the
// first port in the least significant bits. A side with no ports is one
// zero bit wide, so that the testbench never declares a zero-width reg.
// The clock of a clocked bench is driven by the testbench and is no part of
// the vectors; a clocked bench starts each output port at a multiple of 4
// bits (zeros between), so that a hex digit with x in it belongs to one
// port.
type layout struct {
	ins, outs  []field
	iw, ow     int // total widths, at least 1
	outWords   int // sum over outputs of (width+63)/64: one vector's share of Run's result
	iDig, oDig int // hex digits of an input / output line
	clock      string
	reset      int // index into ins of the reset input, -1 for none
}

func words(w int) int { return (w + 63) / 64 }

// newLayout is the layout of a combinational bench.
func newLayout(ports []netlist.Port) (*layout, error) { return newClockedLayout(ports, "", "") }

// newClockedLayout is the layout of a bench with the given clock and reset
// inputs; both "" for a combinational bench, reset "" for a clocked bench
// without a reset cycle.
func newClockedLayout(ports []netlist.Port, clock, reset string) (*layout, error) {
	l := &layout{clock: clock, reset: -1}
	if clock == "" && reset != "" {
		return nil, fmt.Errorf("reset %s without a clock", reset)
	}
	if clock != "" && clock == reset {
		return nil, fmt.Errorf("%s is both the clock and the reset", clock)
	}
	seen := map[string]bool{}
	for i := range ports {
		p := &ports[i]
		if !isIdent(p.Name) {
			return nil, fmt.Errorf("port %d: %q is not a Verilog identifier", i, p.Name)
		}
		if seen[p.Name] {
			return nil, fmt.Errorf("port %s listed twice", p.Name)
		}
		seen[p.Name] = true
		w := len(p.Bits)
		if w == 0 {
			return nil, fmt.Errorf("port %s has width 0", p.Name)
		}
		if (p.Name == clock || p.Name == reset) && (p.Dir != netlist.In || w != 1) {
			what := "clock"
			if p.Name == reset {
				what = "reset"
			}
			return nil, fmt.Errorf("the %s %s is not a one-bit input", what, p.Name)
		}
		switch {
		case p.Name == clock:
			// Driven by the testbench.
		case p.Dir == netlist.In:
			if p.Name == reset {
				l.reset = len(l.ins)
			}
			l.ins = append(l.ins, field{p.Name, w, l.iw})
			l.iw += w
		case p.Dir == netlist.Out:
			if clock != "" {
				// Each output starts at a hex digit, so that an x
				// digit names its port.
				l.ow = (l.ow + 3) &^ 3
			}
			l.outs = append(l.outs, field{p.Name, w, l.ow})
			l.ow += w
			l.outWords += words(w)
		default:
			return nil, fmt.Errorf("port %s: unknown direction %d", p.Name, p.Dir)
		}
	}
	if len(l.outs) == 0 {
		return nil, errors.New("no output ports: nothing to compare")
	}
	for _, in := range l.ins {
		for _, out := range l.outs {
			if "i_"+in.name == out.name+ExpectedSuffix {
				return nil, fmt.Errorf("ports %s and %s: the testbench's signals i_%s and %s%s would clash", in.name, out.name, in.name, out.name, ExpectedSuffix)
			}
		}
	}
	if clock != "" && !seen[clock] {
		return nil, fmt.Errorf("no clock input %s", clock)
	}
	if reset != "" && l.reset < 0 {
		return nil, fmt.Errorf("no reset input %s", reset)
	}
	l.iw = max(l.iw, 1)
	l.iDig, l.oDig = (l.iw+3)/4, (l.ow+3)/4
	return l, nil
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_':
		case (c >= '0' && c <= '9' || c == '$') && i > 0:
		default:
			return false
		}
	}
	return true
}

// orBits ORs the low w bits of src into dst at bit offset off.
func orBits(dst []uint64, off int, src []uint64, w int) {
	n := words(w)
	for j := 0; j < n; j++ {
		x := src[j]
		if j == n-1 && w%64 != 0 {
			x &= 1<<uint(w%64) - 1
		}
		bit := off + 64*j
		wi, s := bit>>6, uint(bit&63)
		dst[wi] |= x << s
		if s != 0 && wi+1 < len(dst) {
			dst[wi+1] |= x >> (64 - s)
		}
	}
}

// extractBits sets dst, words(w) words, to bits off..off+w-1 of src.
func extractBits(dst, src []uint64, off, w int) {
	n := words(w)
	for j := 0; j < n; j++ {
		bit := off + 64*j
		wi, s := bit>>6, uint(bit&63)
		x := src[wi] >> s
		if s != 0 && wi+1 < len(src) {
			x |= src[wi+1] << (64 - s)
		}
		if j == n-1 && w%64 != 0 {
			x &= 1<<uint(w%64) - 1
		}
		dst[j] = x
	}
}

const hexDigits = "0123456789abcdef"

// appendHex appends the nd low hex digits of the little-endian words v, most
// significant first.
func appendHex(b []byte, v []uint64, nd int) []byte {
	for k := nd - 1; k >= 0; k-- {
		bit := 4 * k
		b = append(b, hexDigits[v[bit>>6]>>uint(bit&63)&15])
	}
	return b
}

// Hex digit values; xzDigit marks the four-state digits x and z.
const (
	badDigit = 0xff
	xzDigit  = 0xfe
)

var hexValue = func() (t [256]byte) {
	for i := range t {
		t[i] = badDigit
	}
	for i := 0; i < 16; i++ {
		t[hexDigits[i]] = byte(i)
	}
	for c := 'A'; c <= 'F'; c++ {
		t[c] = byte(c - 'A' + 10)
	}
	for _, c := range "xXzZ" {
		t[c] = xzDigit
	}
	return
}()

// parseHex sets v to the hex number s, which has len(s) <= 16*len(v) digits.
// It fails on any character that is not a hex digit; x and z (four-state
// values from Icarus) get errXZ.
func parseHex(v []uint64, s []byte) error {
	clear(v)
	nd := len(s)
	for i, c := range s {
		d := hexValue[c]
		if d > 15 {
			if d == xzDigit {
				return errXZ
			}
			return fmt.Errorf("bad hex digit %q", c)
		}
		bit := 4 * (nd - 1 - i)
		v[bit>>6] |= uint64(d) << uint(bit&63)
	}
	return nil
}

var errXZ = errors.New("output has x or z bits")

// xzPort names the first output port (in Ports order) with an x or z digit
// in the output line text, "" when there is none. In a combinational
// layout a digit may hold bits of two ports, and the first is named.
func (l *layout) xzPort(text string) string {
	nd := len(text)
	for _, f := range l.outs {
		for bit := f.offset; bit < f.offset+f.width; bit++ {
			if k := nd - 1 - bit/4; k >= 0 && k < nd && hexValue[text[k]] == xzDigit {
				return f.name
			}
		}
	}
	return ""
}

// writeVectors writes the vector file: one line per vector, the inputs
// packed by l, as l.iDig hex digits.
func writeVectors(path string, l *layout, vectors [][][]uint64) error {
	return writePacked(path, l.ins, l.iw, l.iDig, vectors, "vector %d", "input")
}

// writeExpected writes the expected file: one line per vector, the
// expected outputs expected[v][o] (outputs in Ports order) packed by l as
// in the output file, l.oDig hex digits.
func writeExpected(path string, l *layout, expected [][][]uint64) error {
	return writePacked(path, l.outs, l.ow, l.oDig, expected, "expected outputs of vector %d", "output")
}

// writePacked writes one line per row: the row's port values packed into
// width bits at the fields' offsets, as dig hex digits. row and port name
// a row and its ports in errors.
func writePacked(path string, fields []field, width, dig int, rows [][][]uint64, row, port string) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	w := bufio.NewWriterSize(f, 1<<20)
	packed := make([]uint64, words(width))
	line := make([]byte, 0, dig+1)
	for v, vals := range rows {
		if len(vals) != len(fields) {
			return fmt.Errorf("%s has %d %s values, want %d (one per %s port)", fmt.Sprintf(row, v), len(vals), port, len(fields), port)
		}
		clear(packed)
		for i, fd := range fields {
			if len(vals[i]) < words(fd.width) {
				return fmt.Errorf("%s, %s %s: %d words for %d bits, want %d",
					fmt.Sprintf(row, v), port, fd.name, len(vals[i]), fd.width, words(fd.width))
			}
			orBits(packed, fd.offset, vals[i], fd.width)
		}
		line = appendHex(line[:0], packed, dig)
		line = append(line, '\n')
		if _, err := w.Write(line); err != nil {
			return err
		}
	}
	return w.Flush()
}

// readOutputs parses the output file of nv vectors through nm modules: for
// each vector, one line per module, the outputs packed by l. It returns
// outs[m][v][o]; all the words live in one allocation.
func readOutputs(path string, l *layout, nm, nv int) ([][][][]uint64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, max(1<<16, 2*l.oDig+16))

	no := len(l.outs)
	flat := make([]uint64, nm*nv*l.outWords)
	slices := make([][]uint64, nm*nv*no)
	outs := make([][][][]uint64, nm)
	for m := range outs {
		outs[m] = make([][][]uint64, nv)
	}
	packed := make([]uint64, words(l.ow))
	fw, fs := 0, 0 // next free word of flat, next free slice of slices
	for v := 0; v < nv; v++ {
		for m := 0; m < nm; m++ {
			line, err := r.ReadSlice('\n')
			if err != nil {
				if err == io.EOF {
					return nil, fmt.Errorf("%s: %d lines, want %d (%d vectors x %d modules)",
						path, v*nm+m, nv*nm, nv, nm)
				}
				return nil, fmt.Errorf("%s: line %d: %v", path, v*nm+m+1, err)
			}
			line = bytes.TrimRight(line, "\r\n")
			if len(line) != l.oDig {
				return nil, fmt.Errorf("%s: line %d (vector %d, module %d): %d hex digits, want %d: %.80q",
					path, v*nm+m+1, v, m, len(line), l.oDig, line)
			}
			if err := parseHex(packed, line); err != nil {
				return nil, &lineError{line: v*nm + m + 1, vector: v, module: m, text: string(line), err: err}
			}
			ps := slices[fs : fs+no : fs+no]
			fs += no
			for o, fd := range l.outs {
				n := words(fd.width)
				ps[o] = flat[fw : fw+n : fw+n]
				fw += n
				extractBits(ps[o], packed, fd.offset, fd.width)
			}
			outs[m][v] = ps
		}
	}
	if extra, err := r.ReadSlice('\n'); len(bytes.TrimSpace(extra)) > 0 || err != io.EOF {
		return nil, fmt.Errorf("%s: more than %d lines", path, nv*nm)
	}
	return outs, nil
}

// lineError is a bad line in the output file; the caller names the module.
type lineError struct {
	line, vector, module int
	text                 string
	err                  error
}

func (e *lineError) Error() string {
	return fmt.Sprintf("line %d (vector %d, module %d): %v: %.80s", e.line, e.vector, e.module, e.err, e.text)
}

func (e *lineError) Unwrap() error { return e.err }
