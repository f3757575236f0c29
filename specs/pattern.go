// The package documentation is in loader.go; this file holds the
// `pattern "NAME" { ... }` block.
//
// A pattern describes the scratchpad accesses of one memory instruction in
// the linearised notation of eq. (4) of "Configurable XOR hash functions
// for banked scratchpad memories in GPUs" (§3): thread (tx, ty) of a
// thread block, in iteration i of the loop around the instruction, reads
// or writes word address
//
//	s = (M00*ty + M01*tx + o0 + i*d0) * cols + M10*ty + M11*tx + o1 + i*d1
//
// Threads are numbered tid = ty*bdx + tx and grouped into warps of
// warp_size consecutive tids; each warp of each iteration is one access.
// Patterns generate no hardware: they are inputs to `lsugen conflicts` and
// `lsugen search`, so they live in File.Patterns, not File.Units.
//
// Arguments:
//
//	matrix     = [[M00, M01], [M10, M11]]  required; |Mij| <= MaxPatternCoef
//	cols       = COLS                      row length of the 2D array; default 1 (1D)
//	offset     = [o0, o1]                  default [0, 0]; |oj| <= MaxPatternOffset
//	block      = [bdx, bdy]                thread block size; required; bdx*bdy <= MaxPatternThreads
//	warp_size  = W                         lanes per access; default 32; 1..MaxPatternThreads
//	iterations = N                         loop trip count; default 1
//	step       = [d0, d1]                  added to offset per iteration; default [0, 0]
//	random_seed = SEED                     eq. (8): M00 and M11 become per-lane random
//	                                       numbers Zy in [0, M00], Zx in [0, M11]
//	                                       (M01 = M10 = 0 required), drawn from a PCG
//	                                       seeded with SEED, so the trace is reproducible
//
// Every address must be non-negative; this is checked on the corners of the
// index box before anything is expanded, as are the sizes (at most
// MaxPatternAccesses accesses and MaxPatternAddrs addresses in all).
package specs

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// Bounds of a pattern block. The coefficient bounds keep every address
// below 2^62, so expansion never overflows int64.
const (
	MaxPatternThreads  = 1024    // threads in one block, as on CUDA GPUs
	MaxPatternCoef     = 1 << 20 // |matrix entry|, cols, |step entry|
	MaxPatternOffset   = 1 << 30 // |offset entry|
	MaxPatternIters    = 1 << 20 // iterations
	MaxPatternAccesses = 1 << 20 // expanded warp accesses
	MaxPatternAddrs    = 1 << 22 // expanded addresses, all accesses together
)

// Access pattern classes of §3.1.
const (
	ClassLinear = "linear" // consecutive addresses across the warp
	ClassStride = "stride" // a constant stride S != 1 across the warp
	ClassBlock  = "block"  // a 2D pattern: the warp spans several ty with an unrelated stride
	ClassRandom = "random" // random per-lane coefficients (random_seed)
)

// Pattern is a decoded `pattern "NAME" { ... }` block.
type Pattern struct {
	Name       string
	Matrix     [2][2]int64 // [[M00, M01], [M10, M11]] on [ty, tx]
	Cols       int64
	Offset     [2]int64
	Block      [2]int // bdx, bdy
	WarpSize   int
	Iterations int
	Step       [2]int64
	RandomSeed uint64
	Random     bool

	Range      hcl.Range            // the block header
	AttrRanges map[string]hcl.Range // attribute name -> range of its expression
}

// patternDoc introduces the pattern block in the spec reference.
const patternDoc = `The scratchpad accesses of one memory instruction, in the linearised
notation of eq. (4) of 000_*. Thread (tx, ty) of a thread block, in
iteration i, accesses word address

    s = (M00*ty + M01*tx + o0 + i*d0) * cols + M10*ty + M11*tx + o1 + i*d1

Threads are numbered tid = ty*bdx + tx; each group of warp_size consecutive
tids in each iteration is one access. Patterns generate no hardware: they
are inputs to ` + "`lsugen conflicts`" + ` and ` + "`lsugen search`" + `, and share the name rules
of units. At most 2^20 accesses and 2^22 addresses; every address must be
non-negative. Each pattern is classified linear, stride, block or random
(§3.1) from its first warp.`

var patternAttrs = []Attr{
	{Name: "matrix", Required: true, Type: "list", Doc: "`[[M00, M01], [M10, M11]]`; entries at most 2^20 in magnitude."},
	{Name: "cols", Type: "number", Doc: "Row length of the 2D array (default 1)."},
	{Name: "offset", Type: "list", Doc: "`[o0, o1]`, row and column offset (default [0, 0])."},
	{Name: "block", Required: true, Type: "list", Doc: "`[bdx, bdy]`, the thread block, at most 1024 threads."},
	{Name: "warp_size", Type: "number", Doc: "Lanes per access, 1..1024 (default 32)."},
	{Name: "iterations", Type: "number", Doc: "Loop trip count (default 1)."},
	{Name: "step", Type: "list", Doc: "`[d0, d1]`, added to the offset each iteration (default [0, 0])."},
	{Name: "random_seed", Type: "number", Doc: "Eq. (8): per-lane random Zy in [0, M00] and Zx in [0, M11] (M01 = M10 = 0), reproducible from the seed; unset by default."},
}

var patternBlockSchema = schemaOf(patternAttrs)

// decodePatternBlock decodes and validates a `pattern "NAME"` block. It
// returns nil when the block has errors.
func (d *decoder) decodePatternBlock(block *hcl.Block) (*Pattern, hcl.Diagnostics) {
	pd, ranges := d.newBlockDecoder(block, patternBlockSchema)
	p := &Pattern{Name: block.Labels[0], Cols: 1, WarpSize: 32, Iterations: 1, Range: block.DefRange, AttrRanges: ranges}
	if v, ok := pd.value("matrix"); ok {
		rows, ok := pd.list(v, pd.rng("matrix"), "matrix", 2)
		if ok && len(rows) != 2 {
			pd.errorf(pd.rng("matrix"), "Invalid matrix", "matrix must be [[M00, M01], [M10, M11]]; got %d rows.", len(rows))
		} else if ok {
			for r, row := range rows {
				if xs, ok := pd.intPair(row, pd.rng("matrix"), "matrix row", MaxPatternCoef); ok {
					p.Matrix[r] = xs
				}
			}
		}
	}
	if pd.has("cols") {
		if c, ok := pd.int("cols"); ok {
			if c < 1 || c > MaxPatternCoef {
				pd.errorf(pd.rng("cols"), "Invalid cols", "cols must be between 1 and %d; got %d.", MaxPatternCoef, c)
			} else {
				p.Cols = c
			}
		}
	}
	if v, ok := pd.value("offset"); ok {
		p.Offset, _ = pd.intPair(v, pd.rng("offset"), "offset", MaxPatternOffset)
	}
	if v, ok := pd.value("step"); ok {
		p.Step, _ = pd.intPair(v, pd.rng("step"), "step", MaxPatternCoef)
	}
	if v, ok := pd.value("block"); ok {
		if b, ok := pd.intPair(v, pd.rng("block"), "block", MaxPatternCoef); ok {
			if b[0] < 1 || b[1] < 1 || b[0]*b[1] > MaxPatternThreads {
				pd.errorf(pd.rng("block"), "Invalid block", "block = [bdx, bdy] needs bdx, bdy >= 1 and bdx*bdy <= %d threads; got [%d, %d].", MaxPatternThreads, b[0], b[1])
			} else {
				p.Block = [2]int{int(b[0]), int(b[1])}
			}
		}
	}
	if pd.has("warp_size") {
		if w, ok := pd.int("warp_size"); ok {
			if w < 1 || w > MaxPatternThreads {
				pd.errorf(pd.rng("warp_size"), "Invalid warp_size", "warp_size must be between 1 and %d; got %d.", MaxPatternThreads, w)
			} else {
				p.WarpSize = int(w)
			}
		}
	}
	if pd.has("iterations") {
		if n, ok := pd.int("iterations"); ok {
			if n < 1 || n > MaxPatternIters {
				pd.errorf(pd.rng("iterations"), "Invalid iterations", "iterations must be between 1 and %d; got %d.", MaxPatternIters, n)
			} else {
				p.Iterations = int(n)
			}
		}
	}
	if pd.has("random_seed") {
		if s, ok := pd.int("random_seed"); ok {
			if s < 0 {
				pd.errorf(pd.rng("random_seed"), "Invalid random_seed", "random_seed must not be negative; got %d.", s)
			} else {
				p.RandomSeed, p.Random = uint64(s), true
			}
		}
	}
	if pd.failed {
		return nil, pd.diags
	}
	if p.Random && (p.Matrix[0][1] != 0 || p.Matrix[1][0] != 0 || p.Matrix[0][0] < 0 || p.Matrix[1][1] < 0) {
		pd.errorf(pd.rng("random_seed"), "Invalid random pattern",
			"With random_seed the matrix must be [[Zy_max, 0], [0, Zx_max]] with non-negative entries (eq. (8)); got [[%d, %d], [%d, %d]].",
			p.Matrix[0][0], p.Matrix[0][1], p.Matrix[1][0], p.Matrix[1][1])
		return nil, pd.diags
	}
	threads := p.Block[0] * p.Block[1]
	warps := (threads + p.WarpSize - 1) / p.WarpSize
	if int64(warps)*int64(p.Iterations) > MaxPatternAccesses || int64(threads)*int64(p.Iterations) > MaxPatternAddrs {
		pd.errorf(block.DefRange, "Pattern too large",
			"%d iterations of %d warps (%d addresses) exceed the limits of %d accesses and %d addresses.",
			p.Iterations, warps, int64(threads)*int64(p.Iterations), MaxPatternAccesses, MaxPatternAddrs)
		return nil, pd.diags
	}
	if lo := p.minAddr(); lo < 0 {
		rng := block.DefRange
		if pd.has("offset") {
			rng = pd.rng("offset")
		}
		pd.errorf(rng, "Negative address", "The pattern reaches word address %d; every address must be non-negative.", lo)
		return nil, pd.diags
	}
	return p, pd.diags
}

// intPair decodes a two-element list of whole numbers with |x| <= limit.
func (hd *blockDecoder) intPair(v cty.Value, rng hcl.Range, what string, limit int64) ([2]int64, bool) {
	var out [2]int64
	xs, ok := hd.list(v, rng, what, 2)
	if !ok {
		return out, false
	}
	if len(xs) != 2 {
		hd.errorf(rng, "Invalid "+what, "%s must have two elements; got %d.", what, len(xs))
		return out, false
	}
	for i, x := range xs {
		n, ok := hd.toInt(x, rng, what)
		if !ok {
			return out, false
		}
		if n < -limit || n > limit {
			hd.errorf(rng, "Number out of range", "%s entries must be between %d and %d; got %d.", what, -limit, limit, n)
			return out, false
		}
		out[i] = n
	}
	return out, true
}

// Strides returns the address distance between lanes of consecutive tx
// (equal ty) and of consecutive ty (equal tx): M01*cols + M11 and
// M00*cols + M10 in §3 of the paper.
func (p *Pattern) Strides() (sx, sy int64) {
	return p.Matrix[0][1]*p.Cols + p.Matrix[1][1], p.Matrix[0][0]*p.Cols + p.Matrix[1][0]
}

// minAddr is the smallest address the pattern reaches. The address is
// affine in (ty, tx, i) (and in Zy*ty, Zx*tx for random patterns), so the
// minimum lies on a corner of the index box.
func (p *Pattern) minAddr() int64 {
	sx, sy := p.Strides()
	si := p.Step[0]*p.Cols + p.Step[1]
	lo := p.Offset[0]*p.Cols + p.Offset[1]
	for _, t := range [][2]int64{{sx, int64(p.Block[0] - 1)}, {sy, int64(p.Block[1] - 1)}, {si, int64(p.Iterations - 1)}} {
		if t[0] < 0 {
			lo += t[0] * t[1]
		}
	}
	return lo
}

// Class returns the §3.1 class of the warp-0 access: linear, stride, block
// or random. The warp is one-dimensional when its lanes share one ty, or
// one tx, or when rows follow on from each other (sy = bdx*sx); it is then
// linear for stride 1 and stride otherwise (a zero stride, a broadcast,
// counts as stride 0). Any other warp spanning several rows is block.
func (p *Pattern) Class() string {
	if p.Random {
		return ClassRandom
	}
	sx, sy := p.Strides()
	bdx := p.Block[0]
	lanes := min(p.WarpSize, bdx*p.Block[1])
	nx, ny := min(bdx, lanes), (lanes+bdx-1)/bdx
	var s int64
	switch {
	case ny == 1:
		s = sx
	case nx == 1:
		s = sy
	case sy == int64(bdx)*sx:
		s = sx
	default:
		return ClassBlock
	}
	if s == 1 || lanes == 1 {
		return ClassLinear
	}
	return ClassStride
}
