// Package rapsim is a Monte Carlo model of the memory access congestion of
// the RAW, RAS and RAP address mappings of Nakano, Matsumae and Ito, "Random
// Address Permute-Shift Technique for the Shared Memory on GPUs" (Table II for
// a w×w matrix, Table IV for a w×w×w×w array).
//
// The model is the paper's Discrete Memory Machine: w banks, one warp of w
// threads, element a[...][l] of an array stored in bank (l + f) mod w where
// the shift f depends on the mapping. The congestion of one warp access is
// the largest number of distinct addresses sent to one bank: requests to the
// same address merge (the paper's definition). Only the random access can
// repeat an address: each thread draws an element uniformly and
// independently, and repeats merge. That is what reproduces Table II's random
// row; drawing w distinct elements instead gives 2.973 at w = 16 (exact),
// against the paper's 2.92. A cell's figure is the mean over trials, each
// trial drawing fresh random numbers for the mapping and for the access.
//
// The RAP convention is the one of the `rap` hash generator in package gen:
// row i = addr[2L-1:L], column j = addr[L-1:0], bank = (j + r_i) mod w with r
// a permutation. This package does not import gen: it is an independent
// model, so the two can check each other.
package rapsim

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"sync"
	"time"
)

// Array names the shape of the simulated array.
type Array string

const (
	// Matrix is the w×w matrix of the paper's Table II.
	Matrix Array = "w2"
	// Array4 is the w×w×w×w array of the paper's Table IV.
	Array4 Array = "w4"
)

// Mapping names an address mapping. RAW, RAS and RAP are Table II's; RAW,
// RAS and the five RAP variants 1P … 1Pw2R are Table IV's.
type Mapping string

const (
	// RAW stores a[..][l] in bank l: no shift.
	RAW Mapping = "RAW"
	// RAS shifts each row by an independent uniform random number: w of
	// them for a matrix, w³ (one per (i,j,k)) for a w⁴ array.
	RAS Mapping = "RAS"
	// RAP shifts row i of a matrix by r_i, r a random permutation.
	RAP Mapping = "RAP"
	// P1 (1P) shifts a[i][j][k][l] by r_k.
	P1 Mapping = "1P"
	// R1P shifts by r_i + r_j + r_k, one permutation used three times.
	R1P Mapping = "R1P"
	// P3 (3P) shifts by r_i + s_j + t_k, three independent permutations.
	P3 Mapping = "3P"
	// W2P shifts by r^(i·w+j)_k, one permutation per (i,j).
	W2P Mapping = "w2P"
	// P1W2R shifts by s_(i·w+j) + r_k: one permutation and w² numbers.
	P1W2R Mapping = "1Pw2R"
)

// Access names a warp access pattern.
type Access string

const (
	// Contiguous reads one row: a[k][0:w-1], or a[i][j][k][0:w-1].
	Contiguous Access = "contiguous"
	// Stride reads one column of a matrix: a[0:w-1][l].
	Stride Access = "stride"
	// Diagonal reads a[t][(t+d) mod w] for thread t.
	Diagonal Access = "diagonal"
	// Random: each thread reads a uniform random element; equal addresses
	// merge into one request.
	Random Access = "random"
	// Stride1 reads a[i][j][0:w-1][l].
	Stride1 Access = "stride1"
	// Stride2 reads a[i][0:w-1][k][l].
	Stride2 Access = "stride2"
	// Stride3 reads a[0:w-1][j][k][l].
	Stride3 Access = "stride3"
	// Permuted is the paper's malicious access for R1P: thread t reads
	// a[x][y][z][l] where (x,y,z) is the (t mod 6)-th ordering of the
	// triple (3g, 3g+1, 3g+2), g = t div 6. The six orderings of a triple
	// share r_x + r_y + r_z, so under R1P they all hit one bank.
	Permuted Access = "permuted"
	// Malicious is the worst mean congestion over the other w⁴ accesses
	// (Result.From names which). It is a lower bound on the true worst case.
	Malicious Access = "malicious"
)

// Table II and Table IV rows and columns, in the paper's order.
var (
	MatrixMappings = []Mapping{RAW, RAS, RAP}
	MatrixAccesses = []Access{Contiguous, Stride, Diagonal, Random}
	Array4Mappings = []Mapping{RAW, RAS, P1, R1P, P3, W2P, P1W2R}
	Array4Accesses = []Access{Contiguous, Stride1, Stride2, Stride3, Random, Permuted, Malicious}
)

// Limits of the options.
const (
	MinW          = 2
	MaxW          = 1024
	MaxTrials     = 10_000_000
	DefaultSeed   = 1
	DefaultTrials = 20_000
)

// DefaultW is the paper's range of w.
var DefaultW = []int{16, 32, 64, 128, 256}

// Options selects what to simulate.
type Options struct {
	W      []int  // bank counts: powers of two in MinW..MaxW
	Trials int    // trials per cell, 1..MaxTrials
	Seed   uint64 // the same seed gives the same results
	Matrix bool   // simulate Table II (w×w matrix)
	Array4 bool   // simulate Table IV (w⁴ array)
	// Progress, if not nil, is called as the run goes with the steps
	// (see Work) done since its last call, from the worker goroutines:
	// it must be safe for concurrent use.
	Progress func(steps int64)
}

// DefaultOptions reproduces both tables at the paper's w.
func DefaultOptions() Options {
	return Options{W: append([]int(nil), DefaultW...), Trials: DefaultTrials, Seed: DefaultSeed, Matrix: true, Array4: true}
}

// Result is the congestion of one (array, w, mapping, access) cell.
type Result struct {
	W          int     `json:"w"`
	Array      Array   `json:"array"`
	Mapping    Mapping `json:"mapping"`
	Access     Access  `json:"access"`
	Congestion float64 `json:"congestion"` // mean over trials
	Min        int     `json:"min"`        // smallest congestion of a trial
	Max        int     `json:"max"`        // largest congestion of a trial
	From       Access  `json:"from,omitempty"`
}

// Report is the outcome of Run.
type Report struct {
	Trials  int      `json:"trials"`
	Seed    uint64   `json:"seed"`
	Results []Result `json:"results"`
}

// Validate checks the options, reporting every problem at once, so that no
// work starts on a bad request.
func (o Options) Validate() error {
	var errs []error
	if len(o.W) == 0 {
		errs = append(errs, errors.New("no w given"))
	}
	seen := map[int]bool{}
	for _, w := range o.W {
		switch {
		case w < MinW || w > MaxW || w&(w-1) != 0:
			errs = append(errs, fmt.Errorf("w = %d: want a power of two in %d..%d", w, MinW, MaxW))
		case seen[w]:
			errs = append(errs, fmt.Errorf("w = %d given twice", w))
		}
		seen[w] = true
	}
	if o.Trials < 1 || o.Trials > MaxTrials {
		errs = append(errs, fmt.Errorf("trials = %d: want 1..%d", o.Trials, MaxTrials))
	}
	if !o.Matrix && !o.Array4 {
		errs = append(errs, errors.New("neither table selected"))
	}
	return errors.Join(errs...)
}

// cell is one simulated (array, w, mapping, access) combination.
type cell struct {
	array   Array
	w       int
	mapping Mapping
	access  Access
}

// Run simulates every selected cell. Cells run in parallel, each with its
// own PCG stream seeded from the seed and the cell's name, so the result
// does not depend on the worker count or on which other cells were asked.
//
// Run polls ctx as it goes and returns its error soon (a few milliseconds
// of work) after ctx is cancelled.
func Run(ctx context.Context, o Options) (*Report, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	cells := o.cells()
	res := make([]Result, len(cells))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(cells)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				res[i] = simulate(ctx, cells[i], o.Trials, o.Seed, o.Progress)
			}
		}()
	}
feed:
	for i := range cells {
		if ctx.Err() != nil {
			break // select below picks at random when both cases are ready
		}
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("rapsim: stopped: %w", err)
	}

	rep := &Report{Trials: o.Trials, Seed: o.Seed}
	for i := 0; i < len(res); {
		r := res[i]
		rep.Results = append(rep.Results, r)
		i++
		if r.Array != Array4 || (i < len(res) && res[i].Array == Array4 && res[i].Mapping == r.Mapping && res[i].W == r.W) {
			continue
		}
		// Last w⁴ access of this mapping: add the malicious row.
		worst := Result{Congestion: -1}
		for _, q := range rep.Results {
			if q.Array == Array4 && q.W == r.W && q.Mapping == r.Mapping && q.Congestion > worst.Congestion {
				worst = q
			}
		}
		worst.From, worst.Access = worst.Access, Malicious
		rep.Results = append(rep.Results, worst)
	}
	return rep, nil
}

// cells lists the simulated cells of o, in report order (the malicious
// rows are derived from the others).
func (o Options) cells() []cell {
	var cells []cell
	for _, w := range o.W {
		if o.Matrix {
			for _, m := range MatrixMappings {
				for _, a := range MatrixAccesses {
					cells = append(cells, cell{Matrix, w, m, a})
				}
			}
		}
		if o.Array4 {
			for _, m := range Array4Mappings {
				for _, a := range Array4Accesses {
					if a == Malicious || (a == Permuted && w < 3) {
						continue // derived below; a triple needs 3 indices
					}
					cells = append(cells, cell{Array4, w, m, a})
				}
			}
		}
	}
	return cells
}

// Calibration of Work: CPU time of one step (one thread of one trial of one
// cell) of a Table II and of a Table IV cell, measured with lsugen rapsim
// at w = 16 to 1024 on the 2-core AMD EPYC VM (10 to 11 ns and 15 to 17
// ns). A trial of width w costs about w steps whatever the mapping: the
// lazily drawn random numbers (memo) keep RAS and w2P linear in w.
const (
	StepNsMatrix = 11
	StepNsArray4 = 16
)

// Work is the size of a run, known from its options before it starts.
type Work struct {
	Steps   int64         // trials × w, summed over the cells
	Cells   int           // cells, simulated in parallel
	CPU     time.Duration // estimated CPU time, at the calibration above
	Longest time.Duration // estimated CPU time of the largest cell
}

// Work is the size of the run o asks for (o valid).
func (o Options) Work() Work {
	var wk Work
	for _, c := range o.cells() {
		steps := int64(o.Trials) * int64(c.w)
		ns := int64(StepNsMatrix)
		if c.array == Array4 {
			ns = StepNsArray4
		}
		d := time.Duration(steps * ns)
		wk.Steps += steps
		wk.Cells++
		wk.CPU += d
		wk.Longest = max(wk.Longest, d)
	}
	return wk
}

// Cell returns the result for one cell, if the report has it.
func (r *Report) Cell(a Array, w int, m Mapping, acc Access) (Result, bool) {
	for _, q := range r.Results {
		if q.Array == a && q.W == w && q.Mapping == m && q.Access == acc {
			return q, true
		}
	}
	return Result{}, false
}

// cellSeed names a cell's random stream.
func cellSeed(c cell) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s|%d|%s|%s", c.array, c.w, c.mapping, c.access)
	return h.Sum64()
}

// pollSteps is about how many steps a cell runs between two looks at its
// context (and two progress reports): well under a millisecond of work.
const pollSteps = 1 << 15

// simulate runs the trials of cell c; it stops early, its result unused,
// when ctx is cancelled.
func simulate(ctx context.Context, c cell, trials int, seed uint64, progress func(int64)) Result {
	s := newSim(c, seed)
	sum, lo, hi := 0, c.w+1, 0
	chunk := max(1, pollSteps/c.w)
	for done := 0; done < trials; {
		// Before every chunk, the first included: a worker handed a new
		// cell after the cancellation (the feed's select may still pick
		// it) runs none of it.
		if ctx.Err() != nil {
			return Result{}
		}
		n := min(chunk, trials-done)
		for range n {
			g := s.trial()
			sum += g
			lo = min(lo, g)
			hi = max(hi, g)
		}
		done += n
		if progress != nil {
			progress(int64(n) * int64(c.w))
		}
	}
	if ctx.Err() != nil {
		return Result{}
	}
	return Result{W: c.w, Array: c.array, Mapping: c.mapping, Access: c.access,
		Congestion: float64(sum) / float64(trials), Min: lo, Max: hi}
}

// sim holds the state of one cell; trial allocates nothing.
type sim struct {
	cell
	mask   int
	logW   uint
	rng    bitSource
	counts []int32    // requests per bank
	perm   [3][]int32 // r, s, t permutations
	memo   memo       // lazily drawn random numbers and distinctness
}

func newSim(c cell, seed uint64) *sim {
	s := &sim{cell: c, mask: c.w - 1, logW: uint(bits.TrailingZeros(uint(c.w))),
		rng: bitSource{pcg: rand.NewPCG(seed, cellSeed(c))}, counts: make([]int32, c.w)}
	for p := range s.perm {
		s.perm[p] = make([]int32, c.w)
		for i := range s.perm[p] {
			s.perm[p][i] = int32(i)
		}
	}
	s.memo.init(c.w)
	return s
}

// shuffle turns p into a fresh uniform random permutation (Fisher–Yates;
// any starting permutation will do).
func (s *sim) shuffle(p []int32) {
	for i := len(p) - 1; i > 0; i-- {
		j := s.rng.below(uint32(i + 1))
		p[i], p[j] = p[j], p[i]
	}
}

// index draws a uniform index in 0..w-1 (w is a power of two).
func (s *sim) index() int { return int(s.rng.take(s.logW)) }

// bitSource hands out a PCG's output a few bits at a time: an index needs
// only log2 w ≤ 10 bits, and drawing a whole 64-bit word for each was the
// largest cost of a trial.
type bitSource struct {
	pcg *rand.PCG
	buf uint64
	n   uint // valid low bits left in buf
}

// take returns k ≤ 32 uniform random bits.
func (b *bitSource) take(k uint) uint64 {
	if b.n < k {
		b.buf, b.n = b.pcg.Uint64(), 64
	}
	v := b.buf & (1<<k - 1)
	b.buf >>= k
	b.n -= k
	return v
}

// below returns a uniform number in 0..n-1, n ≥ 1, by Lemire's
// multiply-and-reject method (exact, no modulo bias).
func (b *bitSource) below(n uint32) int {
	m := b.take(32) * uint64(n)
	if uint32(m) < n {
		t := -n % n
		for uint32(m) < t {
			m = b.take(32) * uint64(n)
		}
	}
	return int(m >> 32)
}

// trial draws the mapping's random numbers and the access, and returns the
// access's congestion.
func (s *sim) trial() int {
	s.memo.reset()
	switch s.mapping {
	case RAP, P1, R1P, P1W2R:
		s.shuffle(s.perm[0])
	case P3:
		s.shuffle(s.perm[0])
		s.shuffle(s.perm[1])
		s.shuffle(s.perm[2])
	}
	clear(s.counts)
	w, worst := s.w, int32(0)
	// A matrix is the (0,0) plane of a w⁴ array: a[k][l] = a[0][0][k][l].
	var i0, j0, k0, l0 int
	switch s.access {
	case Contiguous, Stride1, Stride2, Stride3, Stride, Diagonal, Permuted:
		l0, k0 = s.index(), s.index()
		if s.array == Array4 {
			i0, j0 = s.index(), s.index()
		}
	}
	for t := range w {
		i, j, k, l := i0, j0, k0, l0
		switch s.access {
		case Contiguous:
			l = t
		case Stride, Stride1:
			k = t
		case Stride2:
			j = t
		case Stride3:
			i = t
		case Diagonal:
			k, l = t, (t+l0)&s.mask
		case Permuted:
			i, j, k = ordering(t)
		case Random:
			var fresh bool
			if i, j, k, l, fresh = s.pick(); !fresh {
				continue // same address as an earlier thread: merged
			}
		}
		b := s.bank(i, j, k, l)
		s.counts[b]++
		worst = max(worst, s.counts[b])
	}
	return int(worst)
}

// orderings lists the six orderings of a triple.
var orderings = [6][3]int{{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}}

// ordering is the (i,j,k) thread t reads in the Permuted access.
func ordering(t int) (int, int, int) {
	o, base := orderings[t%6], 3*(t/6)
	return base + o[0], base + o[1], base + o[2]
}

// pick draws a uniform element for one thread of the Random access and
// says whether no earlier thread of the warp drew it.
func (s *sim) pick() (i, j, k, l int, fresh bool) {
	if s.array == Array4 {
		i, j = s.index(), s.index()
	}
	k, l = s.index(), s.index()
	key := uint64(((i<<s.logW|j)<<s.logW|k)<<s.logW | l)
	if _, seen := s.memo.get(nsElement, key); seen {
		return i, j, k, l, false
	}
	s.memo.put(nsElement, key, 0)
	return i, j, k, l, true
}

// bank is the bank of a[i][j][k][l] under the cell's mapping.
func (s *sim) bank(i, j, k, l int) int {
	var f int
	r := s.perm[0]
	switch s.mapping {
	case RAW:
	case RAS:
		f = s.uniform(nsRAS, uint64((i<<s.logW|j)<<s.logW|k))
	case RAP, P1:
		f = int(r[k])
	case R1P:
		f = int(r[i] + r[j] + r[k])
	case P3:
		f = int(r[i] + s.perm[1][j] + s.perm[2][k])
	case W2P:
		f = s.lazyPerm(i<<s.logW|j, k)
	case P1W2R:
		f = s.uniform(nsS, uint64(i<<s.logW|j)) + int(r[k])
	}
	return (l + f) & s.mask
}

// uniform is an independent uniform number per key, drawn on first use:
// RAS needs w³ of them for a w⁴ array but a warp touches at most w.
func (s *sim) uniform(ns, key uint64) int {
	if v, ok := s.memo.get(ns, key); ok {
		return int(v)
	}
	v := s.index()
	s.memo.put(ns, key, int32(v))
	return v
}

// lazyPerm is r^g_k for a random permutation r^g per group g, drawn on first
// use: each new k of group g gets a uniform value not yet taken in g, which
// is how the values of a uniform random permutation are distributed.
func (s *sim) lazyPerm(g, k int) int {
	key := uint64(g<<s.logW | k)
	if v, ok := s.memo.get(nsPermVal, key); ok {
		return int(v)
	}
	for {
		v := s.index()
		used := uint64(g<<s.logW | v)
		if _, taken := s.memo.get(nsPermUsed, used); !taken {
			s.memo.put(nsPermUsed, used, 0)
			s.memo.put(nsPermVal, key, int32(v))
			return v
		}
	}
}

// Namespaces of memo keys (top byte of the key; keys use at most 40 bits).
const (
	nsElement uint64 = iota + 1
	nsRAS
	nsS
	nsPermVal
	nsPermUsed
)

// memo is an open-addressing hash map from keys to int32, cleared in O(1)
// per trial by a generation stamp, so a trial allocates nothing.
type memo struct {
	keys  []uint64
	vals  []int32
	stamp []uint32
	gen   uint32
	shift uint
}

// init sizes the table for the at most 3w entries of one trial (w addresses
// of the random access, 2w for a lazy permutation) at a load of at most 3/8.
func (m *memo) init(w int) {
	n := 8 * w
	m.keys, m.vals, m.stamp = make([]uint64, n), make([]int32, n), make([]uint32, n)
	m.shift = uint(64 - bits.TrailingZeros(uint(n)))
}

func (m *memo) reset() {
	m.gen++
	if m.gen == 0 { // wrapped: old stamps could look current
		clear(m.stamp)
		m.gen = 1
	}
}

func (m *memo) slot(key uint64) int { return int((key * 0x9E3779B97F4A7C15) >> m.shift) }

func (m *memo) get(ns, key uint64) (int32, bool) {
	key |= ns << 56
	mask := len(m.keys) - 1
	for h := m.slot(key); m.stamp[h] == m.gen; h = (h + 1) & mask {
		if m.keys[h] == key {
			return m.vals[h], true
		}
	}
	return 0, false
}

func (m *memo) put(ns, key uint64, v int32) {
	key |= ns << 56
	mask := len(m.keys) - 1
	h := m.slot(key)
	for m.stamp[h] == m.gen && m.keys[h] != key {
		h = (h + 1) & mask
	}
	m.keys[h], m.vals[h], m.stamp[h] = key, v, m.gen
}
