// Package conflicts counts bank, lock and position conflicts of warp
// memory accesses under a bank (or lock) mapping.
//
// The conflict degree of one access under a mapping is the largest number
// of distinct addresses that map to one bank: lanes on the same address
// are served by one broadcast, so they merge. An atomic access (Accel-Sim
// ATOMS) has no broadcast: its degree is the largest number of lanes in
// one bank, as the banks apply them one at a time. The access takes degree
// cycles, so it costs degree - 1 conflicts.
//
// Lock conflicts ("Simulation and Architecture Improvements of Atomic
// Operations on GPU Scratchpad Memory", §II) are the same count with the
// lock address as the mapping: distinct addresses sharing one lock bit
// serialise. Position conflicts are lanes updating the same address
// atomically: the degree is the largest number of lanes on one address
// (lanes, not distinct addresses, because atomics to one address cannot
// merge); no hash removes them.
package conflicts

import (
	"fmt"
	"slices"

	"github.com/lsugen/lsugen/model"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/tools/trace"
)

// MaxMapBits bounds the index width of a mapping and MaxMapSize the
// number of banks or locks, so the count array of a Counter stays small.
const (
	MaxMapBits = 24
	MaxMapSize = 1 << MaxMapBits
)

// Mapping maps a word address to a bank or lock index below Size.
type Mapping struct {
	Name string // e.g. "mod 32", "hash atomic_xor", "bits 9:0"
	Size int
	Map  func(addr uint64) uint32
}

// Modulo is the conventional mapping bank = addr mod n, for any n from 1
// to MaxMapSize: a power of two takes the low bits, as hardware does; any
// other count (17 banks, MGSim's and the mod hash unit's) the remainder.
func Modulo(n int) (Mapping, error) {
	if n < 1 || n > MaxMapSize {
		return Mapping{}, fmt.Errorf("%d banks: want 1 to %d", n, MaxMapSize)
	}
	name := fmt.Sprintf("mod %d", n)
	if n&(n-1) == 0 {
		mask := uint64(n - 1)
		return Mapping{Name: name, Size: n, Map: func(a uint64) uint32 { return uint32(a & mask) }}, nil
	}
	d := uint64(n)
	return Mapping{Name: name, Size: n, Map: func(a uint64) uint32 { return uint32(a % d) }}, nil
}

// LowBits is the lock mapping of Fermi-like GPUs: lock = address bits
// n-1:0 (1024 locks from word-address bits 9:0 for n = 10). n is checked
// before it is shifted: 1<<64 is 0 and 1<<63 negative.
func LowBits(n int) (Mapping, error) {
	if n < 0 || n > MaxMapBits {
		return Mapping{}, fmt.Errorf("%d lock bits: want 0 to %d", n, MaxMapBits)
	}
	m, err := Modulo(1 << n)
	if err != nil {
		return Mapping{}, err
	}
	m.Name = fmt.Sprintf("bits %d:0", n-1)
	if n == 0 {
		m.Name = "one lock"
	}
	return m, nil
}

// HashUnit maps addresses through the behavioural model of a constant
// hash unit (verify/model), so conflicts are counted on exactly the
// function the generated hardware computes. Configurable units need
// configuration inputs (HashUnitAt) and are refused. The unit's bank_o is
// the index: a bank, or a lock when the mapping is used for locks
// (bank_bits = 10 for 1024 locks).
func HashUnit(h *specs.Hash) (Mapping, error) {
	return HashUnitAt(h, nil)
}

// HashUnitAt is HashUnit for a configurable unit at configuration cfg
// (model.ParseHashConfig), its cfg_* inputs held at cfg's port values; cfg
// is nil for a constant unit.
func HashUnitAt(h *specs.Hash, cfg *model.HashConfig) (Mapping, error) {
	if h == nil {
		return Mapping{}, fmt.Errorf("no hash unit")
	}
	if h.Configurable && cfg == nil {
		return Mapping{}, fmt.Errorf("hash %q is configurable: its bank depends on configuration inputs; give its configuration or a constant hash unit", h.Name)
	}
	if !h.Configurable && cfg != nil {
		return Mapping{}, fmt.Errorf("hash %q is constant: it has no configuration to give", h.Name)
	}
	if h.BankBits < 1 || h.BankBits > MaxMapBits {
		return Mapping{}, fmt.Errorf("hash %q: %d bank bits: want 1 to %d", h.Name, h.BankBits, MaxMapBits)
	}
	m, err := model.ForHash(h)
	if err != nil {
		return Mapping{}, err
	}
	ports := m.Ports()
	in, out := [][]uint64{}, [][]uint64{}
	addrIn, bankOut, cfgIn := -1, -1, 0
	for _, p := range ports {
		words := make([]uint64, (p.Width+63)/64)
		switch {
		case p.Output:
			if p.Name == "bank_o" {
				bankOut = len(out)
			}
			out = append(out, words)
		case p.Name == "addr_i":
			addrIn = len(in)
			in = append(in, words)
		case cfg != nil && cfgIn < len(cfg.Regs) && p.Name == cfg.Regs[cfgIn].Port:
			copy(words, cfg.Port(cfgIn)) // held for every address
			cfgIn++
			in = append(in, words)
		default:
			in = append(in, words)
		}
	}
	ncfg := 0
	if cfg != nil {
		ncfg = len(cfg.Regs)
	}
	if addrIn < 0 || bankOut < 0 || len(in) != 1+ncfg || cfgIn != ncfg {
		return Mapping{}, fmt.Errorf("hash %q: model has no addr_i -> bank_o interface", h.Name)
	}
	// Address bits at or above addr_bits do not reach the unit.
	amask := ^uint64(0)
	if h.AddrBits < 64 {
		amask = 1<<h.AddrBits - 1
	}
	bmask := uint64(1)<<h.BankBits - 1
	// A mod unit has Banks banks, fewer than 2^bank_bits unless Banks is
	// a power of two; every other function (xor_matrix, ipoly, ...) spans
	// its bank_bits.
	size := 1 << h.BankBits
	if h.Function == specs.Mod {
		if h.Banks < 1 || h.Banks > size {
			return Mapping{}, fmt.Errorf("hash %q: %d banks do not fit in %d bank bits", h.Name, h.Banks, h.BankBits)
		}
		size = h.Banks
	}
	limit := uint64(size)
	eval := func(a uint64) uint32 {
		in[addrIn][0] = a
		m.Eval(in, out)
		b := out[bankOut][0] & bmask
		if b >= limit { // a model bug must not index past the counters
			b %= limit
		}
		return uint32(b)
	}
	name := "hash " + h.Name
	if cfg != nil {
		name += " at " + cfg.String()
	}
	if h.AddrBits > memoBits {
		return Mapping{Name: name, Size: size, Map: func(a uint64) uint32 { return eval(a & amask) }}, nil
	}
	// The model evaluates the whole unit for one address; a table of the
	// banks met so far (bank+1, 0 for not yet) asks it once per address.
	var memo []uint32
	return Mapping{Name: name, Size: size, Map: func(a uint64) uint32 {
		a &= amask
		if memo == nil {
			memo = make([]uint32, amask+1)
		}
		if b := memo[a]; b != 0 {
			return b - 1
		}
		b := eval(a)
		memo[a] = b + 1
		return b
	}}, nil
}

// memoBits is the widest hash address whose banks HashUnit's mapping
// remembers: a table of 4 MiB at most.
const memoBits = 20

// Counter measures conflict degrees under one mapping. It keeps scratch
// space between calls, so it allocates only when an access is wider than
// any before; it is not safe for concurrent use.
type Counter struct {
	m      Mapping
	counts []uint32 // per bank, zero between calls
	sorted []uint64 // scratch: an access's addresses sorted, or its banks
}

// NewCounter returns a Counter for m. m must come from Modulo, LowBits or
// HashUnit without an error: a zero Mapping is a programming error and
// panics here, not at the first access.
func NewCounter(m Mapping) *Counter {
	if m.Map == nil || m.Size < 1 || m.Size > MaxMapSize {
		panic(fmt.Sprintf("conflicts: NewCounter of an invalid mapping %q (size %d); check the constructor's error", m.Name, m.Size))
	}
	return &Counter{m: m, counts: make([]uint32, m.Size)}
}

// Degree returns the conflict degree of one access: the largest number of
// distinct addresses in one bank (0 for an empty access).
func (c *Counter) Degree(addrs []uint64) int {
	d, _ := c.degree(addrs)
	return d
}

// degree is Degree and the number of distinct addresses it spread.
func (c *Counter) degree(addrs []uint64) (most, n int) {
	s := c.distinct(addrs)
	top := uint32(0)
	for i, a := range s {
		b := c.m.Map(a)
		c.counts[b]++
		top = max(top, c.counts[b])
		s[i] = uint64(b) // the bank, to reset below without mapping again
	}
	for _, b := range s { // reset only what was touched
		c.counts[b] = 0
	}
	return int(top), len(s)
}

// LaneDegree returns the largest number of active lanes in one bank,
// counting lanes on one address apart: the degree of an atomic access,
// whose lanes on one word are applied one at a time (no broadcast; the
// bank_arbiter's degree with broadcast = false, and the passes of a
// shared_memory unit's atomic, docs/shared-memory.md).
func (c *Counter) LaneDegree(addrs []uint64) int {
	most := uint32(0)
	c.sorted = c.sorted[:0]
	for _, a := range addrs {
		b := c.m.Map(a)
		c.counts[b]++
		most = max(most, c.counts[b])
		c.sorted = append(c.sorted, uint64(b))
	}
	for _, b := range c.sorted {
		c.counts[b] = 0
	}
	return int(most)
}

// AccessDegree is the bank degree of access a: LaneDegree for an atomic
// (trace.KindAtomic), Degree (broadcast) for every other kind. It is the
// one place that says which count an access gets.
func (c *Counter) AccessDegree(a *trace.Access) int {
	d, _ := c.Passes(a)
	return d
}

// Passes returns the bank passes (wavefronts) access a takes, its
// AccessDegree, and the passes a conflict-free layout needs for it: the
// n words it spreads (its distinct addresses; its lanes for an atomic,
// which has no broadcast) filling the banks evenly, ceil(n / banks). The
// degree is never below the ideal (some bank gets at least that many).
func (c *Counter) Passes(a *trace.Access) (degree, ideal int) {
	var n int
	if a.Kind == trace.KindAtomic {
		degree, n = c.LaneDegree(a.Addrs), len(a.Addrs)
	} else {
		degree, n = c.degree(a.Addrs)
	}
	return degree, (n + c.m.Size - 1) / c.m.Size
}

// distinct returns the access's addresses sorted without repeats, in
// scratch space: sorting merges equal addresses without a map.
func (c *Counter) distinct(addrs []uint64) []uint64 {
	c.sorted = append(c.sorted[:0], addrs...)
	slices.Sort(c.sorted)
	return slices.Compact(c.sorted)
}

// PositionDegree is the largest number of lanes on one address.
func (c *Counter) PositionDegree(addrs []uint64) int {
	c.sorted = append(c.sorted[:0], addrs...)
	slices.Sort(c.sorted)
	most, run := 0, 0
	for i, a := range c.sorted {
		if i > 0 && a == c.sorted[i-1] {
			run++
		} else {
			run = 1
		}
		most = max(most, run)
	}
	return most
}

// MaxKeptAccesses bounds the accesses an analysis lists
// (Options.KeepAccesses), all inputs together: some 100 bytes each, and
// as many lines of a report.
const MaxKeptAccesses = 1 << 18

// Options choose what Analyze and an Analyzer count.
type Options struct {
	Banks Mapping
	Locks *Mapping // nil: no lock or position conflicts
	// KeepAccesses keeps every access's result in the report, the first
	// MaxKeptAccesses of an analysis (a caller refuses more, as the CLI
	// does); without it memory stays bounded by the instructions, not the
	// accesses.
	KeepAccesses bool
	// BankBytes is the bank width the word addresses were made with (4 or
	// 8 for Accel-Sim inputs), reported only; 0 when not applicable.
	BankBytes int
}

// AccessResult is the conflicts of one access.
type AccessResult struct {
	Instr string `json:"instr"`
	// Line is the access's line in its trace file.
	Line int `json:"line"`
	// SourceLine is the CUDA source line of its instruction (Accel-Sim
	// traces with -enable lineinfo = 1), absent without one.
	SourceLine     int `json:"source_line,omitempty"`
	Lanes          int `json:"lanes"`
	BankDegree     int `json:"bank_degree"`
	LockDegree     int `json:"lock_degree,omitempty"`
	PositionDegree int `json:"position_degree,omitempty"`
	// Ideal is the passes a conflict-free layout needs for the access
	// (Counter.Passes); BankDegree is the passes it takes.
	Ideal int `json:"ideal_wavefronts"`
	// first: the access starts a request (trace.Access.Phase 0).
	first bool
}

// Totals sum the conflicts (degree - 1) of a set of accesses.
type Totals struct {
	// Accesses counts phases: an Accel-Sim warp instruction of a 64- or
	// 128-bit width is served in several (docs/traces.md).
	Accesses      int `json:"accesses"`
	BankConflicts int `json:"bank_conflicts"`
	MaxBankDegree int `json:"max_bank_degree"`
	// Requests counts warp-level instructions executed (one per access of
	// an lsugen trace or pattern), Nsight Compute's
	// smsp__inst_executed_op_shared_ld/st.
	Requests int `json:"requests"`
	// Wavefronts is the bank passes of the requests, the sum of their
	// phases' degrees (l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld/st).
	Wavefronts int `json:"wavefronts"`
	// IdealWavefronts is the passes a conflict-free layout needs, per
	// phase ceil(words / banks) (Counter.Passes).
	IdealWavefronts int `json:"ideal_wavefronts"`
	// ExcessWavefronts is Wavefronts - IdealWavefronts: the bank conflicts
	// as Nsight Compute counts them
	// (l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld/st).
	ExcessWavefronts int `json:"excess_wavefronts"`
	// Atomics is the number of accesses counted for locks: all of them for
	// lsugen traces and patterns, the ATOMS phases of Accel-Sim traces.
	Atomics           int `json:"atomics,omitempty"`
	LockConflicts     int `json:"lock_conflicts,omitempty"`
	MaxLockDegree     int `json:"max_lock_degree,omitempty"`
	PositionConflicts int `json:"position_conflicts,omitempty"`
}

func (t *Totals) add(r AccessResult, atomic bool) {
	t.Accesses++
	t.BankConflicts += max(r.BankDegree-1, 0)
	t.MaxBankDegree = max(t.MaxBankDegree, r.BankDegree)
	if r.first {
		t.Requests++
	}
	t.Wavefronts += r.BankDegree
	t.IdealWavefronts += r.Ideal
	t.ExcessWavefronts += r.BankDegree - r.Ideal
	if atomic {
		t.Atomics++
	}
	t.LockConflicts += max(r.LockDegree-1, 0)
	t.MaxLockDegree = max(t.MaxLockDegree, r.LockDegree)
	t.PositionConflicts += max(r.PositionDegree-1, 0)
}

func (t *Totals) merge(u Totals) {
	t.Accesses += u.Accesses
	t.BankConflicts += u.BankConflicts
	t.MaxBankDegree = max(t.MaxBankDegree, u.MaxBankDegree)
	t.Requests += u.Requests
	t.Wavefronts += u.Wavefronts
	t.IdealWavefronts += u.IdealWavefronts
	t.ExcessWavefronts += u.ExcessWavefronts
	t.Atomics += u.Atomics
	t.LockConflicts += u.LockConflicts
	t.MaxLockDegree = max(t.MaxLockDegree, u.MaxLockDegree)
	t.PositionConflicts += u.PositionConflicts
}

// InstrInfo is what an Accel-Sim trace says of one instruction group (one
// PC of one kernel), given to Analyzer.Describe.
type InstrInfo struct {
	KernelID   int
	KernelName string // as traced (mangled)
	Opcode     string
	PC         uint64
	SourceLine int // 0: the trace has no line info
}

// KernelInfo names an Accel-Sim kernel; absent for other inputs.
type KernelInfo struct {
	// KernelID is the trace's -kernel id.
	KernelID *int `json:"kernel_id,omitempty"`
	// KernelName is the trace's -kernel name, as traced (mangled).
	KernelName string `json:"kernel_name,omitempty"`
	// KernelDemangled is KernelName demangled (Demangle), absent when it
	// is not a mangled C++ name.
	KernelDemangled string `json:"kernel_demangled,omitempty"`
}

// InstrID names one memory instruction group: Instr ("" for accesses
// before any @name line), and for Accel-Sim traces, where a group is one PC
// of one kernel named "k<id> <kernel name> <opcode> 0x<pc>", its fields
// apart too.
type InstrID struct {
	Instr string `json:"instr"`
	// KernelID is the kernel's -kernel id (Accel-Sim traces only, as are
	// the fields up to SourceLine).
	KernelID *int `json:"kernel_id,omitempty"`
	// Kernel is the kernel's name as traced (mangled).
	Kernel string `json:"kernel,omitempty"`
	// KernelDemangled is Kernel demangled, absent when it is not a mangled
	// C++ name.
	KernelDemangled string `json:"kernel_demangled,omitempty"`
	// Opcode is the SASS opcode as traced (LDS.U.128).
	Opcode string `json:"opcode,omitempty"`
	// PC is the instruction's byte address in its kernel.
	PC *uint64 `json:"pc,omitempty"`
	// Source is the CUDA source location, "line N" (the tracer writes the
	// line number, not the file), absent without line info.
	Source string `json:"source,omitempty"`
	// SourceLine is the CUDA source line number of Source.
	SourceLine int `json:"source_line,omitempty"`
}

// InstrTotals are the totals of one memory instruction group.
type InstrTotals struct {
	InstrID
	// ExcessShare is the instruction's share of its kernel's excess
	// wavefronts (of its input's, for inputs without kernels), 0 to 1.
	ExcessShare float64 `json:"excess_share"`
	Totals
	kernel string // the kernel's label, to find its totals
}

// KernelTotals are the totals of one kernel of an Accel-Sim trace,
// labelled "k<id> <kernel name>".
type KernelTotals struct {
	Kernel string `json:"kernel"`
	KernelInfo
	Totals
}

// InputReport is the analysis of one input.
type InputReport struct {
	File    string         `json:"file"`
	Kernels []KernelTotals `json:"kernels,omitempty"`
	Instrs  []InstrTotals  `json:"instrs"`
	// InstrsOmitted counts the instructions --top left out of Instrs; the
	// kernels' and the input's totals count them.
	InstrsOmitted int `json:"instrs_omitted,omitempty"`
	// Accesses lists every access, only when asked (--accesses).
	Accesses []AccessResult `json:"accesses,omitempty"`
	// SkippedNotShared counts the memory instructions of an Accel-Sim
	// trace not on shared memory (global, local, ...): not counted.
	SkippedNotShared int `json:"skipped_not_shared,omitempty"`
	// SkippedInactive counts its shared-memory instructions without an
	// active lane: not counted.
	SkippedInactive int    `json:"skipped_inactive,omitempty"`
	Total           Totals `json:"total"`
}

// Report is the analysis of several inputs.
type Report struct {
	Banks     string        `json:"banks"`     // mapping name
	NumBanks  int           `json:"num_banks"` // banks
	BankBytes int           `json:"bank_bytes,omitempty"`
	Locks     string        `json:"locks,omitempty"` // lock mapping name, if counted
	NumLocks  int           `json:"num_locks,omitempty"`
	Inputs    []InputReport `json:"inputs"`
	Total     Totals        `json:"total"`
}

// Analyzer counts conflicts one access at a time, so that a trace streams
// through it: it keeps totals per input, kernel and instruction (and per
// access only with Options.KeepAccesses). Begin starts an input, Add
// counts an access, Report ends the analysis.
type Analyzer struct {
	opt          Options
	banks, locks *Counter
	rep          *Report
	in           *InputReport // the input being read
	instrIndex   map[string]int
	kernelIndex  map[string]int
	demangled    map[string]string // kernel name -> Demangle, once per name
	kept         int               // accesses listed (KeepAccesses)
}

// NewAnalyzer returns an Analyzer for opt; its mappings must come from
// Modulo, LowBits or HashUnit without an error.
func NewAnalyzer(opt Options) *Analyzer {
	z := &Analyzer{opt: opt, banks: NewCounter(opt.Banks), demangled: map[string]string{},
		rep: &Report{Banks: opt.Banks.Name, NumBanks: opt.Banks.Size, BankBytes: opt.BankBytes, Inputs: []InputReport{}}}
	if opt.Locks != nil {
		z.rep.Locks, z.rep.NumLocks = opt.Locks.Name, opt.Locks.Size
		z.locks = NewCounter(*opt.Locks)
	}
	return z
}

// Begin starts the report of the input named file; later accesses belong
// to it.
func (z *Analyzer) Begin(file string) {
	z.end()
	z.in = &InputReport{File: file, Instrs: []InstrTotals{}}
	z.instrIndex, z.kernelIndex = map[string]int{}, map[string]int{}
}

// end closes the input being read: each instruction's share of its
// kernel's (or its input's) excess wavefronts, then the totals.
func (z *Analyzer) end() {
	if z.in == nil {
		return
	}
	for i := range z.in.Instrs {
		it := &z.in.Instrs[i]
		whole := z.in.Total.ExcessWavefronts
		if k, ok := z.kernelIndex[it.kernel]; ok && it.kernel != "" {
			whole = z.in.Kernels[k].ExcessWavefronts
		}
		if whole > 0 {
			it.ExcessShare = float64(it.ExcessWavefronts) / float64(whole)
		}
	}
	z.rep.Total.merge(z.in.Total)
	z.rep.Inputs = append(z.rep.Inputs, *z.in)
	z.in = nil
}

// SkipNotShared counts a memory instruction that is not on shared memory,
// SkipInactive one without an active lane.
func (z *Analyzer) SkipNotShared() { z.input().SkippedNotShared++ }

// SkipInactive counts a shared-memory instruction without an active lane.
func (z *Analyzer) SkipInactive() { z.input().SkippedInactive++ }

func (z *Analyzer) input() *InputReport {
	if z.in == nil {
		z.Begin("")
	}
	return z.in
}

// Describe gives the kernel, opcode, PC and source line of the
// instruction group instr of kernel (its label), before or after its
// first access; the first description of a group counts.
func (z *Analyzer) Describe(instr, kernel string, info InstrInfo) {
	it := &z.input().Instrs[z.instrAt(instr, kernel)]
	if it.KernelID != nil {
		return
	}
	dm, ok := z.demangled[info.KernelName]
	if !ok {
		dm = Demangle(info.KernelName)
		z.demangled[info.KernelName] = dm
	}
	id, pc := info.KernelID, info.PC
	it.KernelID, it.Kernel, it.KernelDemangled, it.Opcode, it.PC = &id, info.KernelName, dm, info.Opcode, &pc
	if info.SourceLine > 0 {
		it.Source, it.SourceLine = fmt.Sprintf("line %d", info.SourceLine), info.SourceLine
	}
	if kernel != "" {
		k := &z.in.Kernels[z.kernelAt(kernel)]
		if k.KernelID == nil {
			k.KernelInfo = KernelInfo{KernelID: &id, KernelName: info.KernelName, KernelDemangled: dm}
		}
	}
}

// instrAt is the index of instruction group instr of kernel in the input
// being read, added if new.
func (z *Analyzer) instrAt(instr, kernel string) int {
	in := z.input()
	i, ok := z.instrIndex[instr]
	if !ok {
		i = len(in.Instrs)
		z.instrIndex[instr] = i
		in.Instrs = append(in.Instrs, InstrTotals{InstrID: InstrID{Instr: instr}, kernel: kernel})
	}
	return i
}

// kernelAt is the index of kernel (a label) in the input being read,
// added if new.
func (z *Analyzer) kernelAt(kernel string) int {
	in := z.input()
	k, ok := z.kernelIndex[kernel]
	if !ok {
		k = len(in.Kernels)
		z.kernelIndex[kernel] = k
		in.Kernels = append(in.Kernels, KernelTotals{Kernel: kernel})
	}
	return k
}

// Add counts one access. Lock and position conflicts are counted for
// atomics (trace.KindAtomic) and for accesses of unknown kind (lsugen
// traces and patterns, where the lock flags say they are atomics).
func (z *Analyzer) Add(a *trace.Access) {
	in := z.input()
	r := AccessResult{Instr: a.Instr, Line: a.Line, Lanes: len(a.Addrs), first: a.Phase == 0}
	r.BankDegree, r.Ideal = z.banks.Passes(a)
	atomic := z.locks != nil && (a.Kind == trace.KindAny || a.Kind == trace.KindAtomic)
	if atomic {
		r.LockDegree = z.locks.Degree(a.Addrs)
		r.PositionDegree = z.locks.PositionDegree(a.Addrs)
	}
	i := z.instrAt(a.Instr, a.Kernel)
	in.Instrs[i].add(r, atomic)
	r.SourceLine = in.Instrs[i].SourceLine
	if a.Kernel != "" {
		in.Kernels[z.kernelAt(a.Kernel)].add(r, atomic)
	}
	in.Total.add(r, atomic)
	if z.opt.KeepAccesses && z.kept < MaxKeptAccesses {
		in.Accesses = append(in.Accesses, r)
		z.kept++
	}
}

// Report ends the input being read and returns the analysis.
func (z *Analyzer) Report() *Report {
	z.end()
	return z.rep
}

// Analyze counts the conflicts of every access of every trace.
// Instructions and kernels are listed in order of first appearance.
func Analyze(traces []*trace.Trace, opt Options) *Report {
	z := NewAnalyzer(opt)
	for _, t := range traces {
		z.Begin(t.File)
		for i := range t.Accesses {
			z.Add(&t.Accesses[i])
		}
	}
	return z.Report()
}
