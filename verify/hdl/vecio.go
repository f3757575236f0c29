package hdl

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
)

func words(w int) int { return (w + 63) / 64 }

// hexWidth is the number of hex digits of a w-bit value.
func hexWidth(w int) int { return (w + 3) / 4 }

// outWords is one vector's share of Run's result: the sum over the
// outputs of their words.
func (tp *tbPorts) outWords() int {
	n := 0
	for _, f := range tp.outs {
		n += words(f.width)
	}
	return n
}

// maxWidth is the widest port.
func (tp *tbPorts) maxWidth() int {
	w := 1
	for _, f := range append(tp.ins[:len(tp.ins):len(tp.ins)], tp.outs...) {
		w = max(w, f.width)
	}
	return w
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

// writeVectors writes the vector file of a harness testbench: one line
// per vector, each input port's value (vectors[v][i]) and then, with
// expected, each output's expected value (expected[v][o]), in hex,
// separated by spaces.
func writeVectors(path string, tp *tbPorts, vectors, expected [][][]uint64) (err error) {
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
	var line []byte
	var scratch []uint64
	for v, vals := range vectors {
		line, scratch, err = appendColumns(line[:0], scratch, tp.ins, vals, "input")
		if err != nil {
			return fmt.Errorf("vector %d%w", v, err)
		}
		if expected != nil {
			if len(tp.ins) > 0 {
				line = append(line, ' ')
			}
			line, scratch, err = appendColumns(line, scratch, tp.outs, expected[v], "output")
			if err != nil {
				return fmt.Errorf("expected outputs of vector %d%w", v, err)
			}
		}
		line = append(line, '\n')
		if _, err := w.Write(line); err != nil {
			return err
		}
	}
	return w.Flush()
}

// appendColumns appends the values of the fields' ports in hex, separated
// by spaces, with scratch for the masked words; an error continues the
// row's name (", input p: ..."), port naming the ports' direction.
func appendColumns(line []byte, scratch []uint64, fields []field, vals [][]uint64, port string) ([]byte, []uint64, error) {
	if len(vals) != len(fields) {
		return nil, nil, fmt.Errorf(" has %d %s values, want %d (one per %s port)", len(vals), port, len(fields), port)
	}
	for i, fd := range fields {
		n := words(fd.width)
		if len(vals[i]) < n {
			return nil, nil, fmt.Errorf(", %s %s: %d words for %d bits, want %d", port, fd.name, len(vals[i]), fd.width, n)
		}
		scratch = append(scratch[:0], vals[i][:n]...)
		if fd.width%64 != 0 {
			scratch[n-1] &= 1<<uint(fd.width%64) - 1
		}
		if i > 0 {
			line = append(line, ' ')
		}
		line = appendHex(line, scratch, hexWidth(fd.width))
	}
	return line, scratch, nil
}

// readOutputs parses the output file of nv vectors through nm modules: for
// each vector, one line per module, its outputs in hex separated by
// spaces. It returns outs[m][v][o]; all the words live in one allocation.
func readOutputs(path string, tp *tbPorts, nm, nv int) ([][][][]uint64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	lineLen := 0
	for _, fd := range tp.outs {
		lineLen += hexWidth(fd.width) + 1
	}
	r := bufio.NewReaderSize(f, max(1<<16, 2*lineLen+16))

	no := len(tp.outs)
	ow := tp.outWords()
	flat := make([]uint64, nm*nv*ow)
	slices := make([][]uint64, nm*nv*no)
	outs := make([][][][]uint64, nm)
	for m := range outs {
		outs[m] = make([][][]uint64, nv)
	}
	fw, fs := 0, 0 // next free word of flat, next free slice of slices
	for v := 0; v < nv; v++ {
		for m := 0; m < nm; m++ {
			n := v*nm + m + 1
			line, err := r.ReadSlice('\n')
			if err != nil {
				if err == io.EOF {
					return nil, fmt.Errorf("%s: %d lines, want %d (%d vectors x %d modules)",
						path, v*nm+m, nv*nm, nv, nm)
				}
				return nil, fmt.Errorf("%s: line %d: %v", path, n, err)
			}
			line = bytes.TrimRight(line, "\r\n")
			text := line
			ps := slices[fs : fs+no : fs+no]
			fs += no
			for o, fd := range tp.outs {
				col := line
				if o < no-1 {
					sp := bytes.IndexByte(line, ' ')
					if sp < 0 {
						return nil, &lineError{line: n, vector: v, module: m, text: string(text), err: fmt.Errorf("%d columns, want %d", o+1, no)}
					}
					col, line = line[:sp], line[sp+1:]
				}
				if len(col) != hexWidth(fd.width) {
					return nil, &lineError{line: n, vector: v, module: m, text: string(text),
						err: fmt.Errorf("output %s: %d hex digits, want %d", fd.name, len(col), hexWidth(fd.width))}
				}
				k := words(fd.width)
				ps[o] = flat[fw : fw+k : fw+k]
				fw += k
				if err := parseHex(ps[o], col); err != nil {
					return nil, &lineError{line: n, vector: v, module: m, port: fd.name, text: string(text), err: err}
				}
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
	port                 string // the output whose column is bad, "" for the line
	text                 string
	err                  error
}

func (e *lineError) Error() string {
	return fmt.Sprintf("line %d (vector %d, module %d): %v: %.80s", e.line, e.vector, e.module, e.err, e.text)
}

func (e *lineError) Unwrap() error { return e.err }
