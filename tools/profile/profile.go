// Package profile computes the coalescing profile of a kernel from its
// global loads and stores (LDG, STG) in Accel-Sim traces: per PC and per
// kernel, how many warp accesses are monotonic over their active lanes
// (003_*'s statistic), how many unique blocks each touches, and how many
// cycles each coalescer structure of 003_* needs to answer them at one
// clock. Accesses stream through Add one at a time; only per-PC
// aggregates are kept.
//
// The package is pure: the cycles of each structure come in with
// Options.Timing, measured by the caller on the generated units.
package profile

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"

	"github.com/lsugen/lsugen/tools/accelsim"
)

// Limits, checked before work (Options) or as accesses arrive (Add).
const (
	// MaxBlockBytes bounds the block size.
	MaxBlockBytes = 1 << 20
	// MaxWidth bounds the bytes one lane accesses (LDG.128 is 16; the
	// bound leaves room for wider vector accesses).
	MaxWidth = 256
	// MaxGroups bounds the (kernel, PC) groups a profile keeps.
	MaxGroups = 1 << 20
	// MaxClocks bounds the clocks one profile counts cycles at.
	MaxClocks = 16
)

// Options configure a profile.
type Options struct {
	// BlockBytes is the block size (a power of two, 1..MaxBlockBytes):
	// block = byte address / BlockBytes.
	BlockBytes uint64
	// Timing is the cycles each structure takes at the clock.
	Timing Timing
}

// Timing is the coalescer units and the cycles each needs at one clock.
type Timing struct {
	// ClocksFO4 are the clock periods in FO4; every list of cycles below
	// has one entry per clock, in this order.
	ClocksFO4 []float64 `json:"clocks_fo4"`
	// Mode is the timing model: "unsized" or "sized" (lsugen timing --timing-mode).
	Mode string `json:"mode"`
	// SpecTiming is how the speculative coalescer's paths were timed:
	// "combined" (inside the speculative unit) or "separate" (the
	// detector, neighbor and all-to-all units each on its own, 003_*'s
	// method).
	SpecTiming string `json:"spec_timing"`
	// Spec is the spec file the units were declared in.
	Spec string `json:"spec"`
	// Clocked is set when every unit's cycles are the latency of the unit
	// lsugen generates at the clock (clock_fo4: pipelined at the period,
	// the speculative coalescer a variable-latency unit answering fast
	// and slow warps); with combined timing. Otherwise they are
	// ⌈FO4 / clock⌉ of the combinational delays (separate, 003_*'s way).
	Clocked bool `json:"clocked"`
	// Tech names the characterized cell library that timed the units
	// (lsugen profile --liberty); FO4PS is its FO4 delay in ps, which
	// converts every *_ps figure, and ClocksPS are the clocks in ps.
	Tech     string    `json:"tech,omitempty"`
	FO4PS    float64   `json:"fo4_ps,omitempty"`
	ClocksPS []float64 `json:"clocks_ps,omitempty"`
	// AllToAll answers every access.
	AllToAll UnitTiming `json:"all_to_all"`
	// Neighbor is exact only on accesses whose lanes of one block are
	// contiguous among the active lanes.
	Neighbor UnitTiming `json:"neighbor"`
	// SpeculativeFast is the speculative coalescer when the warp is
	// monotonic: the detector and the neighbor result through the output
	// multiplexer.
	SpeculativeFast UnitTiming `json:"speculative_fast"`
	// SpeculativeSlow is the speculative coalescer when the warp is not
	// monotonic: the detector and the all-to-all result through the output
	// multiplexer.
	SpeculativeSlow UnitTiming `json:"speculative_slow"`
	// SpeculativeParts are, with combined timing, the arrivals inside the
	// speculative unit at its output multiplexers: "detector" (their
	// select), "all_to_all" and "neighbor" (their inputs).
	SpeculativeParts []PathTiming `json:"speculative_parts,omitempty"`
}

// SetLibrary records the cell library that timed the units, and sets
// every figure's ps beside its FO4 at the library's FO4 delay fo4PS.
func (t *Timing) SetLibrary(name string, fo4PS float64) {
	ps := func(fo4 float64) float64 { return round4(fo4 * fo4PS) }
	t.Tech, t.FO4PS, t.ClocksPS = name, round4(fo4PS), nil
	for _, c := range t.ClocksFO4 {
		t.ClocksPS = append(t.ClocksPS, ps(c))
	}
	for _, u := range []*UnitTiming{&t.AllToAll, &t.Neighbor, &t.SpeculativeFast, &t.SpeculativeSlow} {
		u.DelayPS = ps(u.FO4)
	}
	for i := range t.SpeculativeParts {
		t.SpeculativeParts[i].DelayPS = ps(t.SpeculativeParts[i].FO4)
	}
}

// PathTiming is the delay of one path inside a unit.
type PathTiming struct {
	// Name says which path.
	Name string `json:"name"`
	// FO4 is its delay in FO4; DelayPS the same in ps, with a library.
	FO4     float64 `json:"fo4"`
	DelayPS float64 `json:"delay_ps,omitempty"`
}

// UnitTiming is one generated unit's delay and cycles at the clock.
type UnitTiming struct {
	// Unit is the spec unit's name.
	Unit string `json:"unit"`
	// Lanes and AddrBits are the unit's; BlockBits its ignored low bits.
	Lanes     int `json:"lanes"`
	AddrBits  int `json:"addr_bits"`
	BlockBits int `json:"block_bits"`
	// FO4 is the path's delay in FO4; DelayPS the same in ps, with a
	// library.
	FO4     float64 `json:"fo4"`
	DelayPS float64 `json:"delay_ps,omitempty"`
	// Cycles is, at each clock, the latency of the unit generated at
	// that clock (Timing.Clocked), else ceil(FO4 / clock), at least 1.
	Cycles []int `json:"cycles"`
}

// Report is the profile of every kernel and the total.
type Report struct {
	// BlockBytes is the block size of the unique-block counts.
	BlockBytes uint64 `json:"block_bytes"`
	// Timing is the coalescers and their cycles.
	Timing Timing `json:"timing"`
	// Kernels in the order they first appear in the traces.
	Kernels []Kernel `json:"kernels"`
	// Total is over every profiled access of every kernel.
	Total Stats `json:"total"`
	// Skipped counts the memory instructions not profiled, over all kernels.
	Skipped Skipped `json:"skipped"`
}

// Kernel is the profile of one kernel.
type Kernel struct {
	// Trace is the trace argument the kernel was read from.
	Trace string `json:"trace"`
	// ID is the kernel's "-kernel id" and Name its "-kernel name".
	ID   int    `json:"id"`
	Name string `json:"name"`
	// Stats is over every LDG and STG of the kernel.
	Stats
	// Skipped counts its memory instructions that are not profiled.
	Skipped Skipped `json:"skipped"`
	// PCs are its LDG and STG instructions in PC order.
	PCs []PC `json:"pcs"`
}

// PC is the profile of one LDG or STG instruction of a kernel.
type PC struct {
	// PC is the instruction's address in hex, e.g. "0x0150".
	PC string `json:"pc"`
	// Opcode is as traced, e.g. "LDG.E.128".
	Opcode string `json:"opcode"`
	Stats
}

// Skipped counts memory instructions the profile leaves out.
type Skipped struct {
	// GlobalAtomics are ATOMG and RED: they go to the L2 atomic units, not
	// through the coalescer of loads and stores.
	GlobalAtomics int64 `json:"global_atomics"`
	// OtherGlobal are generic LD and ST whose addresses the reader
	// resolved to global memory: not the global path's LDG/STG.
	OtherGlobal int64 `json:"other_global"`
	// OtherSpaces are shared, local and other accesses (LDGSTS among them).
	OtherSpaces int64 `json:"other_spaces"`
	// NoActiveLanes are LDG and STG executed with no active lane: nothing
	// to coalesce.
	NoActiveLanes int64 `json:"no_active_lanes"`
}

// Stats are the profile figures of a set of warp accesses.
type Stats struct {
	// Accesses is the number of warp accesses (executed instructions).
	Accesses int64 `json:"accesses"`
	// ActiveLanes is the total of their active lanes.
	ActiveLanes int64 `json:"active_lanes"`
	// Monotonic counts accesses whose active lanes' byte addresses are
	// non-decreasing or non-increasing in lane order (003_*); it is
	// Increasing + Decreasing + Uniform.
	Monotonic int64 `json:"monotonic"`
	// Increasing: non-decreasing and not all equal.
	Increasing int64 `json:"increasing"`
	// Decreasing: non-increasing and not all equal.
	Decreasing int64 `json:"decreasing"`
	// Uniform: every active lane on one address (also a single lane).
	Uniform int64 `json:"uniform"`
	// MonotonicFraction is Monotonic / Accesses (0 without accesses).
	MonotonicFraction float64 `json:"monotonic_fraction"`
	// NeighborExact counts accesses on which the neighbor comparator alone
	// gives the all-to-all result: the active lanes of each block are
	// contiguous among the active lanes (every monotonic access is).
	NeighborExact int64 `json:"neighbor_exact"`
	// NeighborExtraRequests is what the neighbor comparator alone would
	// add on the other accesses: Σ (runs of equal blocks − unique blocks).
	NeighborExtraRequests int64 `json:"neighbor_extra_requests"`
	// UniqueBlocks is the histogram of unique blocks per access: the
	// distinct blocks the active lanes' bytes touch.
	UniqueBlocks []BlockCount `json:"unique_blocks"`
	// MeanUniqueBlocks is the mean of that histogram.
	MeanUniqueBlocks float64 `json:"mean_unique_blocks"`
	// Cycles is what the all-to-all and speculative coalescers take, at
	// each clock.
	Cycles []Cycles `json:"cycles"`
}

// BlockCount is one bar of the unique-blocks histogram.
type BlockCount struct {
	// Blocks is a number of unique blocks.
	Blocks int `json:"blocks"`
	// Accesses is how many accesses touch that many.
	Accesses int64 `json:"accesses"`
}

// Cycles are the coalescer cycles of a set of accesses at one clock.
type Cycles struct {
	// ClockFO4 is the clock period in FO4; ClockPS the same in ps, with
	// a library.
	ClockFO4 float64 `json:"clock_fo4"`
	ClockPS  float64 `json:"clock_ps,omitempty"`
	// AllToAll is Σ over accesses of the all-to-all unit's cycles.
	AllToAll int64 `json:"all_to_all"`
	// Speculative is Σ of the fast path's cycles on monotonic accesses and
	// the slow path's on the others.
	Speculative int64 `json:"speculative"`
	// MeanAllToAll and MeanSpeculative are per access.
	MeanAllToAll    float64 `json:"mean_all_to_all"`
	MeanSpeculative float64 `json:"mean_speculative"`
	// Speedup is AllToAll / Speculative (1 without accesses).
	Speedup float64 `json:"speedup"`
}

// Profiler accumulates a profile access by access.
type Profiler struct {
	opt     Options
	kernels []*kernelAgg
	byKey   map[kernelKey]*kernelAgg
	groups  int
	skipped Skipped
	// scratch, reused across accesses
	blocks []uint64
}

type kernelKey struct {
	trace string
	id    int
	name  string
}

type kernelAgg struct {
	key     kernelKey
	pcs     map[uint64]*pcAgg
	skipped Skipped
}

type pcAgg struct {
	pc     uint64
	opcode string
	agg
}

// agg is the running sums behind Stats.
type agg struct {
	accesses, activeLanes                int64
	increasing, decreasing, uniform      int64
	neighborExact, neighborExtraRequests int64
	hist                                 []int64 // accesses by unique blocks
}

// New checks opt and returns an empty profiler.
func New(opt Options) (*Profiler, error) {
	if err := opt.check(); err != nil {
		return nil, err
	}
	return &Profiler{opt: opt, byKey: map[kernelKey]*kernelAgg{}}, nil
}

func (o Options) check() error {
	b := o.BlockBytes
	if b < 1 || b > MaxBlockBytes || b&(b-1) != 0 {
		return fmt.Errorf("block bytes %d: want a power of two from 1 to %d", b, MaxBlockBytes)
	}
	t := o.Timing
	if len(t.ClocksFO4) == 0 || len(t.ClocksFO4) > MaxClocks {
		return fmt.Errorf("%d clocks: want 1 to %d", len(t.ClocksFO4), MaxClocks)
	}
	for _, c := range t.ClocksFO4 {
		if !(c > 0) || math.IsInf(c, 0) {
			return fmt.Errorf("clock %v FO4: want a positive number", c)
		}
	}
	for _, u := range []struct {
		name string
		u    UnitTiming
	}{{"all_to_all", t.AllToAll}, {"neighbor", t.Neighbor}, {"speculative fast path", t.SpeculativeFast}, {"speculative slow path", t.SpeculativeSlow}} {
		if len(u.u.Cycles) != len(t.ClocksFO4) {
			return fmt.Errorf("timing of the %s coalescer: %d cycle counts for %d clocks", u.name, len(u.u.Cycles), len(t.ClocksFO4))
		}
		for _, c := range u.u.Cycles {
			if c < 1 {
				return fmt.Errorf("timing of the %s coalescer: %d cycles, want at least 1", u.name, c)
			}
		}
	}
	return nil
}

// IsCoalesced reports whether an access goes through the coalescer of
// global loads and stores, the accesses a profile counts: an LDG or an
// STG, by the opcode's first dot-separated part (so LDGSTS is not).
func IsCoalesced(a *accelsim.WarpAccess) bool { return isProfiled(a) }

// Monotonic reports whether byte addresses (the active lanes', in lane
// order) are non-decreasing or non-increasing, compared unsigned as
// 003_*'s detector compares them: the accesses a speculative coalescer
// answers on its fast path.
func Monotonic(addrs []uint64) bool {
	nondec, noninc := monotonic(addrs)
	return nondec || noninc
}

// monotonic tells whether addrs are non-decreasing and whether they are
// non-increasing (both: all equal).
func monotonic(addrs []uint64) (nondec, noninc bool) {
	nondec, noninc = true, true
	for i := 1; i < len(addrs); i++ {
		if addrs[i-1] > addrs[i] {
			nondec = false
		}
		if addrs[i-1] < addrs[i] {
			noninc = false
		}
	}
	return nondec, noninc
}

// isProfiled reports whether an access is an LDG or an STG, by the
// opcode's first dot-separated part (so LDGSTS is not).
func isProfiled(a *accelsim.WarpAccess) bool {
	if a.Space != accelsim.Global || a.Op == accelsim.Atomic {
		return false
	}
	op, _, _ := strings.Cut(a.Opcode, ".")
	return op == "LDG" || op == "STG"
}

// Add profiles one warp access of the kernel it names, read from the
// trace argument trace. Accesses that are not LDG or STG are counted as
// skipped. An error names the access's file and line.
func (p *Profiler) Add(trace string, a *accelsim.WarpAccess) error {
	if a == nil {
		return errors.New("profile: nil access")
	}
	k, err := p.kernel(trace, a)
	if err != nil {
		return err
	}
	if !isProfiled(a) {
		switch {
		case a.Space == accelsim.Global && a.Op == accelsim.Atomic:
			k.skipped.GlobalAtomics++
			p.skipped.GlobalAtomics++
		case a.Space == accelsim.Global:
			k.skipped.OtherGlobal++
			p.skipped.OtherGlobal++
		default:
			k.skipped.OtherSpaces++
			p.skipped.OtherSpaces++
		}
		return nil
	}
	if n := bits.OnesCount32(a.Mask); n != len(a.Addrs) {
		return fmt.Errorf("%s:%d: %d addresses for %d active lanes (mask %08x)", a.File, a.Line, len(a.Addrs), n, a.Mask)
	}
	if len(a.Addrs) == 0 {
		k.skipped.NoActiveLanes++
		p.skipped.NoActiveLanes++
		return nil
	}
	if a.Width < 0 || a.Width > MaxWidth {
		return fmt.Errorf("%s:%d: access width %d bytes, want 0..%d", a.File, a.Line, a.Width, MaxWidth)
	}
	g := k.pcs[a.PC]
	if g == nil {
		if p.groups >= MaxGroups {
			return fmt.Errorf("%s:%d: more than %d (kernel, PC) groups", a.File, a.Line, MaxGroups)
		}
		p.groups++
		g = &pcAgg{pc: a.PC, opcode: a.Opcode}
		k.pcs[a.PC] = g
	}
	p.measure(&g.agg, a)
	return nil
}

func (p *Profiler) kernel(trace string, a *accelsim.WarpAccess) (*kernelAgg, error) {
	key := kernelKey{trace, a.Kernel, a.KernelName}
	if k := p.byKey[key]; k != nil {
		return k, nil
	}
	if len(p.kernels) >= MaxGroups {
		return nil, fmt.Errorf("%s:%d: more than %d kernels", a.File, a.Line, MaxGroups)
	}
	k := &kernelAgg{key: key, pcs: map[uint64]*pcAgg{}}
	p.kernels = append(p.kernels, k)
	p.byKey[key] = k
	return k, nil
}

// measure adds one LDG/STG to g.
func (p *Profiler) measure(g *agg, a *accelsim.WarpAccess) {
	addrs := a.Addrs
	g.accesses++
	g.activeLanes += int64(len(addrs))

	// Monotonicity over the active lanes' byte addresses, as 003_*'s
	// detector compares them: unsigned, neighbour by neighbour.
	nondec, noninc := monotonic(addrs)
	switch {
	case nondec && noninc:
		g.uniform++
	case nondec:
		g.increasing++
	case noninc:
		g.decreasing++
	}

	// The neighbor comparator compares each active lane's block (of its
	// address) with the next active lane's: one request per run of equal
	// blocks. It is exact when that equals the number of distinct blocks.
	shift := uint(bits.TrailingZeros64(p.opt.BlockBytes))
	runs := 0
	blocks := p.blocks[:0]
	for i, x := range addrs {
		b := x >> shift
		if i == 0 || b != addrs[i-1]>>shift {
			runs++
		}
		blocks = append(blocks, b)
	}
	laneBlocks := distinct(blocks)
	if runs == laneBlocks {
		g.neighborExact++
	} else {
		g.neighborExtraRequests += int64(runs - laneBlocks)
	}

	// Unique blocks touched by the bytes the lanes access: a lane of
	// Width bytes may span several blocks (a width of 0 counts as 1 byte).
	w := uint64(max(a.Width, 1))
	blocks = blocks[:0]
	for _, x := range addrs {
		first := x >> shift
		// The last byte's block, without overflowing at the top of memory.
		last := first + ((x&(p.opt.BlockBytes-1))+w-1)>>shift
		for b := first; ; b++ {
			blocks = append(blocks, b)
			if b == last {
				break
			}
		}
	}
	n := distinct(blocks)
	p.blocks = blocks
	for len(g.hist) <= n {
		g.hist = append(g.hist, 0)
	}
	g.hist[n]++
}

// distinct sorts xs and returns the number of distinct values.
func distinct(xs []uint64) int {
	slices.Sort(xs)
	n := 0
	for i, x := range xs {
		if i == 0 || x != xs[i-1] {
			n++
		}
	}
	return n
}

func (g *agg) add(o *agg) {
	g.accesses += o.accesses
	g.activeLanes += o.activeLanes
	g.increasing += o.increasing
	g.decreasing += o.decreasing
	g.uniform += o.uniform
	g.neighborExact += o.neighborExact
	g.neighborExtraRequests += o.neighborExtraRequests
	for len(g.hist) < len(o.hist) {
		g.hist = append(g.hist, 0)
	}
	for i, c := range o.hist {
		g.hist[i] += c
	}
}

// stats turns the sums into Stats with the cycles at t.
func (g *agg) stats(t Timing) Stats {
	s := Stats{
		Accesses:              g.accesses,
		ActiveLanes:           g.activeLanes,
		Increasing:            g.increasing,
		Decreasing:            g.decreasing,
		Uniform:               g.uniform,
		Monotonic:             g.increasing + g.decreasing + g.uniform,
		NeighborExact:         g.neighborExact,
		NeighborExtraRequests: g.neighborExtraRequests,
		UniqueBlocks:          []BlockCount{},
		Cycles:                make([]Cycles, len(t.ClocksFO4)),
	}
	var blocksSum int64
	for n, c := range g.hist {
		if c > 0 {
			s.UniqueBlocks = append(s.UniqueBlocks, BlockCount{Blocks: n, Accesses: c})
			blocksSum += int64(n) * c
		}
	}
	n := float64(s.Accesses)
	if s.Accesses > 0 {
		s.MonotonicFraction = round4(float64(s.Monotonic) / n)
		s.MeanUniqueBlocks = round4(float64(blocksSum) / n)
	}
	for i, clock := range t.ClocksFO4 {
		c := Cycles{ClockFO4: clock, Speedup: 1}
		if i < len(t.ClocksPS) {
			c.ClockPS = t.ClocksPS[i]
		}
		c.AllToAll = s.Accesses * int64(t.AllToAll.Cycles[i])
		c.Speculative = s.Monotonic*int64(t.SpeculativeFast.Cycles[i]) + (s.Accesses-s.Monotonic)*int64(t.SpeculativeSlow.Cycles[i])
		if s.Accesses > 0 {
			c.MeanAllToAll = round4(float64(c.AllToAll) / n)
			c.MeanSpeculative = round4(float64(c.Speculative) / n)
			c.Speedup = round4(float64(c.AllToAll) / float64(c.Speculative))
		}
		s.Cycles[i] = c
	}
	return s
}

// round4 keeps 4 decimals, so that the JSON is stable and readable.
func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }

// Report returns the profile so far: kernels in order of appearance,
// PCs in ascending order, and the total.
func (p *Profiler) Report() *Report {
	t := p.opt.Timing
	r := &Report{BlockBytes: p.opt.BlockBytes, Timing: t, Kernels: []Kernel{}, Skipped: p.skipped}
	var total agg
	for _, k := range p.kernels {
		pcs := make([]*pcAgg, 0, len(k.pcs))
		for _, g := range k.pcs {
			pcs = append(pcs, g)
		}
		slices.SortFunc(pcs, func(a, b *pcAgg) int {
			switch {
			case a.pc < b.pc:
				return -1
			case a.pc > b.pc:
				return 1
			}
			return 0
		})
		kr := Kernel{Trace: k.key.trace, ID: k.key.id, Name: k.key.name, Skipped: k.skipped, PCs: []PC{}}
		var ka agg
		for _, g := range pcs {
			kr.PCs = append(kr.PCs, PC{PC: fmt.Sprintf("0x%04x", g.pc), Opcode: g.opcode, Stats: g.stats(t)})
			ka.add(&g.agg)
		}
		kr.Stats = ka.stats(t)
		total.add(&ka)
		r.Kernels = append(r.Kernels, kr)
	}
	r.Total = total.stats(t)
	return r
}
