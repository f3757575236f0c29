package pipesim

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/lsugen/lsugen/tools/trace"
)

// Limits on one trace file, checked while reading, before the work they
// bound.
const (
	MaxLineBytes = 4096    // bytes on one line
	MaxFileBytes = 1 << 28 // bytes in one trace
)

// Shape is what a trace is checked against: the pipeline's subwarps per
// warp and SIMD width, and the ready mask's PC width and warp contexts.
type Shape struct {
	Subwarps  int // S: a shmem line holds 1 or S degrees
	SIMDWidth int // degrees are 1..SIMDWidth
	PCBits    int // PCs are below 2^PCBits; 0 means 32
	Warps     int // warp ids are below Warps; 0 means MaxWarps
}

func (s Shape) check() error {
	if s.Subwarps < 1 || s.Subwarps > 1024 || s.SIMDWidth < 1 || s.SIMDWidth > 1024 {
		return fmt.Errorf("pipesim: bad trace shape %+v", s)
	}
	if s.PCBits < 0 || s.PCBits > 32 || s.Warps < 0 || s.Warps > MaxWarps {
		return fmt.Errorf("pipesim: bad trace shape %+v", s)
	}
	return nil
}

type limitReader struct {
	r io.Reader
	n int64
}

var errTooBig = fmt.Errorf("trace longer than %d bytes", MaxFileBytes)

func (c *limitReader) Read(p []byte) (int, error) {
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

// Parse reads a pipeline trace from r (see the package documentation for
// the format) and checks it against shape. file names it in errors, which
// read "FILE:LINE: message".
func Parse(r io.Reader, file string, shape Shape) (*Workload, error) {
	if err := shape.check(); err != nil {
		return nil, err
	}
	pcBits, warps := shape.PCBits, shape.Warps
	if pcBits == 0 {
		pcBits = 32
	}
	if warps == 0 {
		warps = MaxWarps
	}
	wl := NewWorkload(shape.Subwarps, shape.SIMDWidth)
	sc := bufio.NewScanner(&limitReader{r: r})
	sc.Buffer(make([]byte, 0, MaxLineBytes), MaxLineBytes)
	line := 0
	var degs []int
	for sc.Scan() {
		line++
		text := sc.Text()
		if i := strings.IndexByte(text, '#'); i >= 0 {
			text = text[:i]
		}
		f := strings.Fields(text)
		if len(f) == 0 {
			continue
		}
		errorf := func(format string, a ...any) error {
			return fmt.Errorf("%s:%d: %s", file, line, fmt.Sprintf(format, a...))
		}
		if len(f) < 3 {
			return nil, errorf("want WARP KIND PC [DEGREE...], got %d field(s)", len(f))
		}
		w, err := strconv.ParseUint(f[0], 10, 8)
		if err != nil || w >= uint64(warps) {
			return nil, errorf("warp id %q: want a decimal number 0..%d", f[0], warps-1)
		}
		var k Kind
		switch f[1] {
		case "alu":
			k = ALU
		case "shmem":
			k = Shmem
		case "mem":
			k = Mem
		default:
			return nil, errorf("kind %q: want alu, shmem or mem", f[1])
		}
		pc, err := parseNumber(f[2])
		if err != nil {
			return nil, errorf("pc: %v", err)
		}
		if pcBits < 64 && pc>>uint(pcBits) != 0 {
			return nil, errorf("pc %s does not fit in %d bits (the ready mask's pc_bits)", f[2], pcBits)
		}
		degs = degs[:0]
		if k != Shmem {
			if len(f) > 3 {
				return nil, errorf("%s takes no conflict degree, got %d extra field(s)", f[1], len(f)-3)
			}
		} else {
			n := len(f) - 3
			if n != 1 && n != shape.Subwarps {
				if shape.Subwarps == 1 {
					return nil, errorf("shmem wants one conflict degree (1 subwarp per warp), got %d", n)
				}
				return nil, errorf("shmem wants one conflict degree for all %d subwarps or exactly %d, got %d", shape.Subwarps, shape.Subwarps, n)
			}
			for i, s := range f[3:] {
				d, err := strconv.ParseUint(s, 10, 16)
				if err != nil || d < 1 || d > uint64(shape.SIMDWidth) {
					which := ""
					if n > 1 {
						which = fmt.Sprintf(" of subwarp %d", i)
					}
					return nil, errorf("conflict degree %q%s: want a decimal number 1..%d (simd_width)", s, which, shape.SIMDWidth)
				}
				degs = append(degs, int(d))
			}
		}
		if wl.Instructions() >= MaxInstructions {
			return nil, errorf("more than %d warp instructions in one trace", MaxInstructions)
		}
		if err := wl.Add(int(w), k, pc, degs); err != nil {
			return nil, errorf("%v", err)
		}
		wl.Programs[w][len(wl.Programs[w])-1].Line = int32(line)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("%s:%d: line longer than %d bytes", file, line+1, MaxLineBytes)
		}
		return nil, fmt.Errorf("%s:%d: %v", file, line+1, err)
	}
	if wl.Instructions() == 0 {
		return nil, fmt.Errorf("%s:%d: the trace holds no instructions", file, max(line, 1))
	}
	return wl, nil
}

// parseNumber reads a decimal or 0x-hex unsigned number.
func parseNumber(s string) (uint64, error) { return trace.ParseNumber(s, "number") }

// ParseFile reads the trace in the named file.
func ParseFile(path string, shape Shape) (*Workload, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Parse(f, path, shape)
}
