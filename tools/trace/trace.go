// Package trace reads warp memory-access traces: one warp access per line,
// the word addresses of its active lanes in lane order.
//
// Format:
//
//	# comment (also after addresses on a line)
//	@transpose_store        # following accesses belong to this instruction
//	0 16 32 0x30            # one access: decimal or 0x-hex word addresses
//
// Blank lines are ignored. A line holds at most MaxLanes addresses and at
// most MaxLineBytes bytes; a trace at most MaxFileBytes bytes, and one held
// whole at most MaxAccesses accesses and MaxHeldAddrs addresses, so that a
// hostile file cannot exhaust memory. The reader streams line by line.
package trace

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Limits on one trace. They bound memory, not what a real GPU trace needs:
// a warp has at most 64 lanes on any current GPU.
const (
	MaxLanes     = 1024    // addresses on one line
	MaxLineBytes = 1 << 20 // bytes on one line
	MaxFileBytes = 1 << 30 // bytes in one trace

	// A trace held whole (Parse, Holder): at most this many accesses and
	// addresses, about 600 MiB at most. Scan holds one line.
	MaxAccesses  = 1 << 22
	MaxHeldAddrs = 1 << 26
)

// countingReader stops a trace at MaxFileBytes.
type countingReader struct {
	r io.Reader
	n int64
}

var errTooBig = fmt.Errorf("trace longer than %d bytes", MaxFileBytes)

func (c *countingReader) Read(p []byte) (int, error) {
	if c.n >= MaxFileBytes {
		return 0, errTooBig
	}
	if rest := MaxFileBytes - c.n; int64(len(p)) > rest {
		p = p[:rest]
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// Access is one warp memory access: the word addresses of its active lanes,
// in lane order.
type Access struct {
	Instr  string // name of the memory instruction from the last "@name" line, "" if none
	Line   int    // 1-based source line
	Addrs  []uint64
	Kernel string // kernel the access belongs to (Accel-Sim inputs), "" otherwise
	Kind   Kind   // what the access does: KindAny for lsugen traces and patterns
	// Phase is the access's place among the phases of one warp
	// instruction (Accel-Sim: accelsim.Phases): 0 starts a new request,
	// as every access of an lsugen trace or pattern does.
	Phase int
}

// Kind is what an access does, where the input says so.
type Kind uint8

const (
	KindAny    Kind = iota // not given (lsugen traces, patterns)
	KindLoad               // a load (Accel-Sim LDS, LDSM)
	KindStore              // a store (STS)
	KindAtomic             // an atomic (ATOMS)
)

// Trace is the accesses of one file, in file order.
type Trace struct {
	File     string
	Accesses []Access
}

// Parse reads a trace from r and holds it whole, at most MaxAccesses
// accesses and MaxHeldAddrs addresses (see [Trace.Hold]); file names it in
// errors, which read "FILE:LINE: message". A command that needs one access
// at a time calls [Scan] instead and holds nothing.
func Parse(r io.Reader, file string) (*Trace, error) {
	t := &Trace{File: file}
	if err := Scan(r, file, Holder(t)); err != nil {
		return nil, err
	}
	return t, nil
}

// Scan reads a trace from r and calls fn for every access in file order,
// holding one line at a time: the *Access and its Addrs are reused, valid
// only during the call. An error of fn stops the scan and is returned as
// it is; read and syntax errors read "FILE:LINE: message".
func Scan(r io.Reader, file string, fn func(*Access) error) error {
	sc := bufio.NewScanner(&countingReader{r: r})
	sc.Buffer(make([]byte, 0, 64*1024), MaxLineBytes)
	var a Access
	line := 0
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if i := bytes.IndexByte(b, '#'); i >= 0 {
			b = b[:i]
		}
		if !isASCII(b) {
			// Unicode white space and its trimming: the general path.
			if err := scanText(strings.TrimSpace(string(b)), file, line, &a, fn); err != nil {
				return err
			}
			continue
		}
		b = trimASCII(b)
		if len(b) == 0 {
			continue
		}
		if b[0] == '@' {
			if err := scanText(string(b), file, line, &a, fn); err != nil {
				return err
			}
			continue
		}
		// The common line, addresses in ASCII, read without a string or a
		// slice of fields; errors as the general path gives them (too
		// many addresses first).
		tooMany := func(n int) error {
			return fmt.Errorf("%s:%d: %d addresses in one access, at most %d lanes allowed", file, line, n, MaxLanes)
		}
		a.Addrs = a.Addrs[:0]
		for i, rest := 0, b; len(rest) > 0; i++ {
			k := 0
			for k < len(rest) && !asciiSpace(rest[k]) {
				k++
			}
			v, ok := quickNumber(rest[:k])
			if !ok {
				var err error
				if v, err = parseAddr(string(rest[:k])); err != nil {
					if n := countFields(b); n > MaxLanes {
						return tooMany(n)
					}
					return fmt.Errorf("%s:%d: address %d: %v", file, line, i+1, err)
				}
			}
			a.Addrs = append(a.Addrs, v)
			rest = trimASCII(rest[k:])
		}
		if len(a.Addrs) > MaxLanes {
			return tooMany(len(a.Addrs))
		}
		a.Line = line
		if err := fn(&a); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return fmt.Errorf("%s:%d: line longer than %d bytes", file, line+1, MaxLineBytes)
		}
		return fmt.Errorf("%s:%d: %v", file, line+1, err)
	}
	return nil
}

// scanText handles one line given as trimmed text, without its comment:
// an instruction name, an access or nothing.
func scanText(text, file string, line int, a *Access, fn func(*Access) error) error {
	if text == "" {
		return nil
	}
	if text[0] == '@' {
		name := strings.TrimSpace(text[1:])
		if name == "" {
			return fmt.Errorf("%s:%d: \"@\" without an instruction name", file, line)
		}
		if strings.ContainsAny(name, " \t\v\f\r") {
			return fmt.Errorf("%s:%d: instruction name %q contains white space", file, line, name)
		}
		a.Instr = name
		return nil
	}
	fields := strings.Fields(text)
	if len(fields) > MaxLanes {
		return fmt.Errorf("%s:%d: %d addresses in one access, at most %d lanes allowed", file, line, len(fields), MaxLanes)
	}
	a.Addrs = a.Addrs[:0]
	for i, f := range fields {
		v, err := parseAddr(f)
		if err != nil {
			return fmt.Errorf("%s:%d: address %d: %v", file, line, i+1, err)
		}
		a.Addrs = append(a.Addrs, v)
	}
	a.Line = line
	return fn(a)
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// asciiSpace is unicode.IsSpace below utf8.RuneSelf.
func asciiSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// trimASCII is strings.TrimSpace of an ASCII line.
func trimASCII(b []byte) []byte {
	for len(b) > 0 && asciiSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && asciiSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

// countFields is len(strings.Fields) of an ASCII line.
func countFields(b []byte) int {
	n := 0
	in := false
	for _, c := range b {
		sp := asciiSpace(c)
		if !sp && !in {
			n++
		}
		in = !sp
	}
	return n
}

// quickNumber reads the common address, up to 19 decimal digits or 0x and
// up to 16 hex digits, whose value ParseNumber gives too; ok is false for
// anything else, which ParseNumber then reads or refuses.
func quickNumber(f []byte) (v uint64, ok bool) {
	if len(f) > 2 && f[0] == '0' && (f[1] == 'x' || f[1] == 'X') {
		h := f[2:]
		if len(h) > 16 {
			return 0, false
		}
		for _, c := range h {
			var d byte
			switch {
			case '0' <= c && c <= '9':
				d = c - '0'
			case 'a' <= c && c <= 'f':
				d = c - 'a' + 10
			case 'A' <= c && c <= 'F':
				d = c - 'A' + 10
			default:
				return 0, false
			}
			v = v<<4 | uint64(d)
		}
		return v, true
	}
	if len(f) == 0 || len(f) > 19 {
		return 0, false
	}
	for _, c := range f {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	return v, true
}

// Holder returns the function that appends a copy of each access it is
// given to t, refusing past MaxAccesses accesses or MaxHeldAddrs addresses
// in all, so that a trace held whole stays within a few hundred MiB
// however its lines are shaped.
func Holder(t *Trace) func(*Access) error { return holder(t, MaxAccesses, MaxHeldAddrs) }

func holder(t *Trace, maxAccesses, maxAddrs int) func(*Access) error {
	held := 0
	for _, a := range t.Accesses {
		held += len(a.Addrs)
	}
	return func(a *Access) error {
		if len(t.Accesses) >= maxAccesses {
			return fmt.Errorf("%s:%d: more than %d accesses to hold at once", t.File, a.Line, maxAccesses)
		}
		if held+len(a.Addrs) > maxAddrs {
			return fmt.Errorf("%s:%d: more than %d addresses to hold at once", t.File, a.Line, maxAddrs)
		}
		held += len(a.Addrs)
		c := *a
		c.Addrs = append([]uint64(nil), a.Addrs...)
		t.Accesses = append(t.Accesses, c)
		return nil
	}
}

// parseAddr reads one decimal or 0x-hex word address.
func parseAddr(s string) (uint64, error) { return ParseNumber(s, "word address") }

// ParseNumber reads a decimal or 0x-hex unsigned 64-bit number; what names
// it in errors ("word address"). Signs, underscores and empty digits are
// refused.
func ParseNumber(s, what string) (uint64, error) {
	base, digits := 10, s
	if len(s) > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		base, digits = 16, s[2:]
	}
	if digits == "" || digits[0] == '+' || digits[0] == '-' || strings.IndexByte(digits, '_') >= 0 {
		return 0, fmt.Errorf("%q is not a decimal or 0x-hex %s", s, what)
	}
	v, err := strconv.ParseUint(digits, base, 64)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return 0, fmt.Errorf("%q does not fit in 64 bits", s)
		}
		return 0, fmt.Errorf("%q is not a decimal or 0x-hex %s", s, what)
	}
	return v, nil
}

// ParseFile reads and holds the trace in the named file.
func ParseFile(path string) (*Trace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Parse(f, path)
}

// ScanFile streams the trace in the named file through fn (see [Scan]).
func ScanFile(path string, fn func(*Access) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return Scan(f, path, fn)
}
