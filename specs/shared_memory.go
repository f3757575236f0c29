package specs

import (
	"fmt"
	"math/bits"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// sharedMemoryDoc introduces the shared_memory block in the spec reference.
const sharedMemoryDoc = `A banked shared memory: bank storage, address and data crossbars, the
replay of a conflicting warp access over several bank cycles (passes),
broadcast, 32/64/128-bit accesses and atomics at the banks.

The storage is one flat byte-addressed memory of ` + "`bytes`" + ` bytes, split into
words of ` + "`bank_bytes`" + ` bytes; word address w = byte address / bank_bytes has
word_bits = clog2(bytes / bank_bytes) bits. Word w lives in bank(w), the
referenced hash of w (the hash reads the low addr_bits (of the hash) bits of
w; bits beyond w read 0) or w mod ` + "`banks`" + `, at a row such that (bank, row)
is a bijection of the word addresses: ` + "`w / banks`" + ` for ` + "`banks`" + ` and mod
hashes (` + "`index_o`" + `), the word-address bits the bank does not determine for
XOR-type hashes (bitvector, bitwise, xor_matrix, fixed_xor, ipoly: the
lowest bits whose columns of the hash's GF(2) matrix are independent
determine the bank, the others, in order, are the row), ` + "`w >> m`" + ` for add
and rap. A configurable bitvector_perm or bitvector_xor hash stores word w
at the row w without its bits k..k+m-1 (k1 for bitvector_xor), which
depends on the configuration: the storage keeps its contents only while the
configuration is held, and only a configuration with k + m (k1 + m) at most
word_bits, and for bitvector_xor k2 != k1 or mask = 0, keeps words apart. Other configurable hashes have no storage row
independent of their configuration and are refused, as are hashes that
cannot reach every bank from the word addresses, registered or pipelined
hashes and more than 64 banks.

Ports (clock ` + "`clk`" + `, synchronous active-high ` + "`rst`" + `, which drops everything in
flight but leaves the storage as it is; lane i in the lowest bits):
` + "`req_valid_i`, `req_ready_o`, `req_op_i[3:0]`" + ` (0 load, 1 store, 2 add, 3 smin,
4 smax, 5 umin, 6 umax, 7 and, 8 or, 9 xor, 10 exch, 11 cas),
` + "`req_width_i[1:0]`" + ` (0: 32-bit, 1: 64-bit, 2: 128-bit), ` + "`req_active_i[lanes-1:0]`" + `,
` + "`req_addr_i[lanes*addr_bits-1:0]`" + ` (byte addresses, addr_bits = clog2(bytes)),
` + "`req_data_i[lanes*MAXW-1:0]`" + ` (MAXW the widest width), ` + "`req_cmp_i[lanes*32-1:0]`" + `;
` + "`rsp_valid_o`, `rsp_ready_i`, `rsp_data_o[lanes*MAXW-1:0]`, `rsp_active_o`,\n`rsp_error_o`, `rsp_passes_o`" + `; and the hash's ` + "`hash_cfg_*`" + ` ports when it is
configurable. Responses come in request order and are held while
` + "`rsp_ready_i`" + ` is low. An instruction with an unsupported op or width, an
atomic wider than 32 bits, or an active lane whose address is misaligned
or runs past ` + "`bytes`" + ` is refused whole (` + "`rsp_error_o`" + `, one pass, nothing
changes).

Passes (bank cycles) follow the cost model of ` + "`lsugen conflicts`" + `: with k =
max(1, W / (8*bank_bytes)) words per lane, lanes are served in phases of
max(1, floor(banks / k)) consecutive lanes, each phase taking the largest
number of distinct words of one bank (a word read or written by many lanes
counts once; every active lane counts for atomics); phases without an
active lane are skipped, an instruction without one takes one pass.
Atomics (32-bit) apply one lane at a time in lane order, each lane
returning the value before its own operation; when several lanes store to
the same bytes, the highest lane's data stays. The banks make one pass per
cycle; from an idle unit the response of back-to-back instruction k appears
in cycle T0 + P0 + ... + Pk - 1 + 3.

The bank storage is one memory macro per bank, timed and sized by the
` + "`bank_*`" + ` figures; the defaults are those of a typical small single-port
SRAM macro, and a user gives those of the SRAM they will use.`

// Shared-memory limits, checked before any work starts.
const (
	MaxShmemLanes = 64      // lanes are one 64-bit mask
	MaxShmemBytes = 1 << 20 // 1 MiB
	MinShmemBytes = 16      // one 128-bit access
	MaxShmemBanks = 64
	// Defaults of the bank macro figures: a typical small single-port
	// SRAM macro (a few KB, one read or write per cycle).
	DefaultBankAccessFO4  = 12
	DefaultBankSetupFO4   = 2
	DefaultBankAreaPerBit = 0.6 // NAND2 equivalents per bit
	maxBankFO4            = 1000
	maxBankAreaPerBit     = 100
)

// ShmemOp is a shared-memory operation, the value of req_op_i.
type ShmemOp uint8

const (
	ShmemLoad ShmemOp = iota
	ShmemStore
	ShmemAdd
	ShmemSMin
	ShmemSMax
	ShmemUMin
	ShmemUMax
	ShmemAnd
	ShmemOr
	ShmemXor
	ShmemExch
	ShmemCAS
	// NumShmemOps is the number of operations; req_op_i at or above it is
	// refused.
	NumShmemOps
)

var shmemOpNames = [NumShmemOps]string{"load", "store", "add", "smin", "smax", "umin", "umax", "and", "or", "xor", "exch", "cas"}

// String is the operation's name as the atomics argument writes it.
func (o ShmemOp) String() string {
	if o < NumShmemOps {
		return shmemOpNames[o]
	}
	return fmt.Sprintf("op%d", uint8(o))
}

// Atomic reports whether o is a read-modify-write (add .. cas).
func (o ShmemOp) Atomic() bool { return o >= ShmemAdd && o < NumShmemOps }

// ShmemAtomics lists every atomic operation, in op order.
var ShmemAtomics = []ShmemOp{ShmemAdd, ShmemSMin, ShmemSMax, ShmemUMin, ShmemUMax, ShmemAnd, ShmemOr, ShmemXor, ShmemExch, ShmemCAS}

// ShmemWidth is an access width code, the value of req_width_i.
type ShmemWidth uint8

const (
	ShmemW32  ShmemWidth = 0
	ShmemW64  ShmemWidth = 1
	ShmemW128 ShmemWidth = 2
)

// Bits is the width in bits (0 for the unused code 3).
func (w ShmemWidth) Bits() int {
	switch w {
	case ShmemW32:
		return 32
	case ShmemW64:
		return 64
	case ShmemW128:
		return 128
	}
	return 0
}

// ShmemWidthOf is the code of a width in bits; ok is false for others.
func ShmemWidthOf(bits int) (ShmemWidth, bool) {
	switch bits {
	case 32:
		return ShmemW32, true
	case 64:
		return ShmemW64, true
	case 128:
		return ShmemW128, true
	}
	return 0, false
}

// ShmemLatency is L of the response timing: an instruction accepted by an
// idle unit in cycle T0 makes its P passes in T0+1 .. T0+P and responds in
// T0 + P - 1 + L, two cycles after its last pass.
const ShmemLatency = 3

// ShmemRowKind says how a shared memory derives a word's row in its bank.
type ShmemRowKind int

const (
	// RowKeep: the row is the word-address bits Keep, in order (XOR-type
	// hashes, add, rap).
	RowKeep ShmemRowKind = iota
	// RowDivide: row = word / NumBanks (banks = N, or a mod hash's
	// index_o).
	RowDivide
	// RowWindow: row = the word address without the bank_bits bits at
	// the configured shift (cfg_k_i for bitvector_perm, cfg_k1_i for
	// bitvector_xor), low bits first.
	RowWindow
)

// ShmemRow is a shared memory's row function.
type ShmemRow struct {
	Kind ShmemRowKind
	Keep []int // RowKeep: word-address bits of the row, lowest first
}

var sharedMemoryAttrs = []Attr{
	{Name: "lanes", Required: true, Type: "number", Doc: fmt.Sprintf("Lanes of a warp access, 1..%d.", MaxShmemLanes)},
	{Name: "bytes", Required: true, Type: "number", Doc: fmt.Sprintf("Capacity in bytes, %d..%d (1 MiB), a multiple of 16 (one 128-bit access) and of bank_bytes * the number of banks, so that every bank has the same number of rows. Addresses are clog2(bytes) bits; those at or past bytes are refused.", MinShmemBytes, MaxShmemBytes)},
	{Name: "bank_bytes", Type: "number", Doc: "Bytes per bank word, 4 (default) or 8. A 32-bit access to an 8-byte bank uses half of the word; a 128-bit access spans 128/(8*bank_bytes) bank words."},
	{Name: "hash", Type: "reference", Refers: "hash", Doc: fmt.Sprintf("The bank of each word address, a `hash` unit written `hash.NAME`, combinational (no `config = \"register\"`, no `clock_fo4`), with at most %d banks, reaching every bank from the word addresses and with a storage row (see above). Exactly one of hash and banks.", MaxShmemBanks)},
	{Name: "banks", Type: "number", Doc: fmt.Sprintf("Without hash: bank = word address mod banks, row = word address / banks; 2..%d.", MaxShmemBanks)},
	{Name: "widths", Type: "list", Doc: "Access widths supported, a subset of [32, 64, 128] without repeats (default all), with 32 unless atomics = []; other widths are refused at run time."},
	{Name: "atomics", Type: "list", Doc: "Atomic operations supported, a subset of " + `["add", "smin", "smax", "umin", "umax", "and", "or", "xor", "exch", "cas"]` + " without repeats (default all; `[]` for none). Atomics are 32-bit; others are refused at run time."},
	{Name: "bank_access_fo4", Type: "number", Doc: fmt.Sprintf("The bank macro's access time (clock to read data), in FO4; default %d, a typical small single-port SRAM macro. Give your SRAM's figure.", DefaultBankAccessFO4)},
	{Name: "bank_setup_fo4", Type: "number", Doc: fmt.Sprintf("The bank macro's setup time of its address, data and enables before the clock, in FO4; default %d.", DefaultBankSetupFO4)},
	{Name: "clock_fo4", Type: "number", Doc: fmt.Sprintf("Clock period in FO4, %d..%d: the memory gets a pipelined front end (two instruction buffers served in turn, req_ready_o from registers, each lane word's bank and row computed as the instruction is taken), and every register-to-register path, the bank macros' access and setup included, must fit the period under timing_mode's model; a memory that cannot is refused with its slowest path. The latency stays 3. Default: one instruction buffer, no period.", MinClockFO4, MaxClockFO4)},
	{Name: "timing_mode", Type: "string", Doc: "With clock_fo4 or clock: the timing model the paths are checked with, `sized`, `unsized` or `liberty` (the run's library, `--liberty`); default `liberty` with a library, else `sized`."},
	{Name: "clock", Type: "string", Doc: "As clock_fo4, in time units (`\"1GHz\"`, `\"1.25ns\"`), converted with the FO4 of the run's library or of the default library (see the hash's clock)."},
	{Name: "bank_area_per_bit", Type: "number", Doc: fmt.Sprintf("The bank macro's area per stored bit, in NAND2 equivalents; default %g (a typical small single-port SRAM macro).", DefaultBankAreaPerBit)},
}

var sharedMemorySchema = schemaOf(sharedMemoryAttrs)

// Clocks returns the memory's clocking to be completed (Clocked).
func (m *SharedMemory) Clocks() *Clocking { return &m.Clock }

// SharedMemory is a decoded `shared_memory "NAME" { ... }` block.
type SharedMemory struct {
	Name      string
	Lanes     int
	Bytes     int
	BankBytes int
	// Hash is the bank hash; nil: bank = word mod Banks.
	Hash *UnitRef
	// Banks is the banks argument (0 with Hash).
	Banks int
	// Widths are the supported widths in bits, ascending.
	Widths []int
	// Atomics are the supported atomics, in op order.
	Atomics []ShmemOp
	// Bank macro figures.
	BankAccessFO4, BankSetupFO4, BankAreaPerBit float64
	// Clock is clock_fo4 and timing_mode: a pipelined front end whose
	// stages must fit the period (checked when the unit is built).
	Clock Clocking

	// Row is the row function, set when the unit is valid (after the
	// loader resolved the hash).
	Row ShmemRow

	Range      hcl.Range
	AttrRanges map[string]hcl.Range
}

func (m *SharedMemory) UnitName() string     { return m.Name }
func (m *SharedMemory) UnitKind() string     { return "shared_memory" }
func (m *SharedMemory) DeclRange() hcl.Range { return m.Range }

func (m *SharedMemory) Variant() string {
	v := fmt.Sprintf("%d banks", m.Banks)
	if m.Hash != nil {
		v = "hash " + m.Hash.Name
	}
	return fmt.Sprintf("%s, %d-byte banks", v, m.BankBytes)
}

// AddrBits is the byte-address width, clog2(bytes).
func (m *SharedMemory) AddrBits() int { return clog2(m.Bytes) }

// Words is the number of bank words, bytes / bank_bytes.
func (m *SharedMemory) Words() int { return m.Bytes / m.BankBytes }

// WordBits is the word-address width, clog2(Words).
func (m *SharedMemory) WordBits() int { return clog2(m.Words()) }

// NumBanks is the number of banks: banks, the mod hash's banks or
// 2^bank_bits of the hash (0 while the hash is unresolved).
func (m *SharedMemory) NumBanks() int {
	if m.Hash == nil {
		return m.Banks
	}
	h := m.Hash.Hash()
	switch {
	case h == nil:
		return 0
	case h.Function == Mod:
		return h.Banks
	}
	return 1 << h.BankBits
}

// BankRows is the number of rows of every bank.
func (m *SharedMemory) BankRows() int {
	switch m.Row.Kind {
	case RowDivide:
		return m.Words() / m.NumBanks()
	case RowWindow:
		// Every configuration: 2^(word_bits - bank_bits) rows.
		return 1 << (m.WordBits() - m.Hash.Hash().BankBits)
	}
	var mask uint64
	for _, b := range m.Row.Keep {
		mask |= 1 << b
	}
	maxRow := uint64(0)
	for w := uint64(0); w < uint64(m.Words()); w++ {
		maxRow = max(maxRow, pext(w, mask))
	}
	return int(maxRow) + 1
}

// pext gathers the bits of x selected by mask into the low bits.
func pext(x, mask uint64) uint64 {
	var out uint64
	for i := 0; mask != 0; i++ {
		b := bits.TrailingZeros64(mask)
		out |= (x >> b & 1) << i
		mask &= mask - 1
	}
	return out
}

// MaxWidth is the widest supported width in bits (MAXW).
func (m *SharedMemory) MaxWidth() int { return m.Widths[len(m.Widths)-1] }

// HasWidth reports whether accesses of bits bits are supported.
func (m *SharedMemory) HasWidth(bits int) bool {
	for _, w := range m.Widths {
		if w == bits {
			return true
		}
	}
	return false
}

// HasAtomic reports whether the atomic op is supported.
func (m *SharedMemory) HasAtomic(op ShmemOp) bool {
	for _, a := range m.Atomics {
		if a == op {
			return true
		}
	}
	return false
}

// LaneWords is k, the bank words one lane of a bits-wide access touches.
func (m *SharedMemory) LaneWords(bits int) int { return max(1, bits/(8*m.BankBytes)) }

// PassBits is the width of rsp_passes_o: bits.Len(lanes * kmax), kmax the
// bank words of a MaxWidth lane.
func (m *SharedMemory) PassBits() int { return bits.Len(uint(m.Lanes * m.LaneWords(m.MaxWidth()))) }

func clog2(n int) int {
	if n <= 1 {
		return 0
	}
	return bits.Len(uint(n - 1))
}

func (m *SharedMemory) refs() []*UnitRef {
	if m.Hash != nil {
		return []*UnitRef{m.Hash}
	}
	return nil
}

// checkRefs checks the bank hash against the memory (SHMEM row rules)
// and sets Row.
func (m *SharedMemory) checkRefs() hcl.Diagnostics {
	h := m.Hash.Hash()
	if h == nil {
		return nil
	}
	r := m.Hash
	bad := func(summary, format string, args ...any) hcl.Diagnostics {
		return hcl.Diagnostics{refDiag(r, summary, fmt.Sprintf(format, args...))}
	}
	switch {
	case h.HasClock():
		return bad("Pipelined hash", "hash %q has clock_fo4, but the shared memory computes the bank of every lane in its own front end. Remove clock_fo4 from the hash.", h.Name)
	case h.Registered():
		return bad("Hash with configuration registers", "hash %q keeps its configuration in registers (config = \"register\"), but the shared memory uses one instance per lane. Give the hash config = \"ports\": the memory then has its configuration ports (hash_cfg_*), shared by every lane.", h.Name)
	case h.Configurable && h.Function != BitvectorPerm && h.Function != BitvectorXor && h.Function != RAP:
		return bad("No storage row for this hash", "hash %q is a configurable %s: which word-address bits decide the bank depends on its configuration, so no storage row exists independent of the configuration, and a bank cannot keep its words apart. Use a constant %s, or a configurable bitvector_perm, bitvector_xor or rap (whose rows follow the configuration).", h.Name, h.Function, h.Function)
	}
	n := m.NumBanks()
	if n > MaxShmemBanks {
		return bad("Too many banks", "hash %q has %d banks; a shared memory has at most %d.", h.Name, n, MaxShmemBanks)
	}
	if m.Bytes%(m.BankBytes*n) != 0 {
		return bad("Capacity not a multiple of the banks", "bytes (%d) must be a multiple of bank_bytes * banks = %d * %d = %d, so that every one of hash %q's banks has the same number of rows.", m.Bytes, m.BankBytes, n, m.BankBytes*n, h.Name)
	}
	// Words >= banks (a multiple), so word_bits >= bank_bits.
	wb := m.WordBits()
	if h.Function == Mod {
		if h.AddrBits < wb {
			return bad("Hash reads too few bits", "mod hash %q reads %d address bits, but the memory's word addresses have %d (%d words); the bank and row (index_o) must see the whole word address. Give the hash addr_bits = %d.", h.Name, h.AddrBits, wb, m.Words(), wb)
		}
		m.Row = ShmemRow{Kind: RowDivide}
		return nil
	}
	if h.Configurable && h.Function != RAP {
		m.Row = ShmemRow{Kind: RowWindow}
		return nil
	}
	keep, ok, why := h.RowBits(wb)
	if !ok {
		return bad("Unreachable banks", "hash %q cannot reach every bank from the memory's %d-bit word addresses: %s.", h.Name, wb, why)
	}
	m.Row = ShmemRow{Kind: RowKeep, Keep: keep}
	return nil
}

// RowBits returns the word-address bits that form a word's row in its
// bank when this hash picks the bank of wordBits-bit word addresses
// (the hash reads the low AddrBits of them; bits beyond wordBits read 0),
// such that (bank, row) is a bijection of the word addresses. For the
// linear GF(2) hashes (bitvector_*, bitwise_*, xor_matrix, fixed_xor,
// ipoly) it picks bank_bits pivot bits, the lowest whose columns of the
// hash matrix are independent, so that the bank determines them given
// the others: keep is every other bit, lowest first. add and rap keep
// every bit above the low bank_bits (the bank is a bijection of those,
// given the rest). ok is false, with why, for a linear hash whose rank on
// these bits is below bank_bits (unreachable banks), for mod (its row is
// index_o, not a bit selection), for configurable units (the pivots
// follow the configuration) and when wordBits < bank_bits.
func (h *Hash) RowBits(wordBits int) (keep []int, ok bool, why string) {
	m := h.BankBits
	switch {
	case h.Function == Mod:
		return nil, false, "a mod hash's row is index_o (address / banks), not a selection of address bits"
	case h.Configurable && h.Function != RAP:
		return nil, false, "the bank bits of a configurable " + string(h.Function) + " follow its configuration"
	case wordBits < m:
		return nil, false, fmt.Sprintf("%d word-address bits reach only %d of the %d banks", wordBits, 1<<wordBits, 1<<m)
	case h.Function == Add || h.Function == RAP:
		for i := m; i < wordBits; i++ {
			keep = append(keep, i)
		}
		return keep, true, ""
	}
	masks := h.linearRows(wordBits)
	if dep, earlier, rank := dependentRow(masks); dep >= 0 {
		switch len(earlier) {
		case 0:
			why = fmt.Sprintf("bank bit %d is always 0", dep)
		case 1:
			why = fmt.Sprintf("bank bit %d always equals bank bit %d", dep, earlier[0])
		default:
			why = fmt.Sprintf("bank bit %d is always the XOR of bank bits %s", dep, joinInts(earlier))
		}
		return nil, false, fmt.Sprintf("%s on these addresses, so only %d of the %d banks are ever used", why, 1<<rank, 1<<m)
	}
	// Greedy over the columns, lowest first: a column joins the pivots
	// when it is independent of those chosen (a reduced basis by leading
	// bit), which gives the lowest independent set.
	var basis [64]uint64 // by leading bit
	for c := 0; c < wordBits; c++ {
		var col uint64
		for b, row := range masks {
			col |= (row >> c & 1) << b
		}
		for col != 0 {
			p := 63 - bits.LeadingZeros64(col)
			if basis[p] == 0 {
				basis[p] = col
				break
			}
			col ^= basis[p]
		}
		if col == 0 { // dependent on the pivots: a row bit
			keep = append(keep, c)
		}
	}
	return keep, true, ""
}

// linearRows is a linear hash's matrix over wordBits-bit word addresses:
// row b has address bit i set when bank bit b reads it.
func (h *Hash) linearRows(wordBits int) []uint64 {
	limit := min(h.AddrBits, wordBits)
	bit := func(i int) uint64 {
		if i < 0 || i >= limit {
			return 0
		}
		return 1 << i
	}
	rows := make([]uint64, h.BankBits)
	for b := range rows {
		switch h.Function {
		case BitvectorPerm:
			rows[b] = bit(h.K + b)
		case BitvectorXor:
			rows[b] = bit(h.K1 + b)
			if h.Mask>>b&1 == 1 {
				rows[b] ^= bit(h.K2 + b)
			}
		case FixedXor:
			rows[b] = bit(b) ^ bit(h.BankBits+b)
		default: // bitwise_*, xor_matrix, ipoly
			for _, i := range h.Bits[b] {
				rows[b] ^= bit(i)
			}
		}
	}
	return rows
}

// decodeSharedMemoryBlock decodes a `shared_memory "NAME"` block. It
// returns nil when the block has errors; the hash is checked once the
// loader resolved it (checkRefs).
func (d *decoder) decodeSharedMemoryBlock(block *hcl.Block) (*SharedMemory, hcl.Diagnostics) {
	bd, ranges := d.newBlockDecoder(block, sharedMemorySchema)
	m := &SharedMemory{Name: block.Labels[0], Range: block.DefRange, AttrRanges: ranges,
		BankBytes: 4, BankAccessFO4: DefaultBankAccessFO4, BankSetupFO4: DefaultBankSetupFO4, BankAreaPerBit: DefaultBankAreaPerBit}
	m.Lanes = bd.intIn("lanes", 1, MaxShmemLanes)
	m.Bytes = bd.intIn("bytes", MinShmemBytes, MaxShmemBytes)
	if m.Bytes > 0 && m.Bytes%16 != 0 {
		bd.errorf(bd.rng("bytes"), "Invalid bytes", "bytes must be a multiple of 16, so that a 128-bit access fits at every aligned address; got %d.", m.Bytes)
		m.Bytes = 0
	}
	if v, ok := bd.int("bank_bytes"); ok {
		m.BankBytes = int(v)
		if v != 4 && v != 8 {
			bd.errorf(bd.rng("bank_bytes"), "Invalid bank_bytes", "bank_bytes must be 4 or 8; got %d.", v)
			m.BankBytes = 0
		}
	} else if bd.has("bank_bytes") {
		m.BankBytes = 0
	}
	m.Hash = bd.ref("hash", "hash")
	switch {
	case bd.has("banks") && bd.has("hash"):
		bd.errorf(bd.rng("banks"), "Argument not allowed", "The bank count is the referenced hash's; remove banks, or remove hash for bank = word address mod banks.")
	case bd.has("banks"):
		m.Banks = bd.intIn("banks", 2, MaxShmemBanks)
		m.Row = ShmemRow{Kind: RowDivide}
		if m.Banks > 0 && m.Bytes > 0 && m.BankBytes > 0 && m.Bytes%(m.BankBytes*m.Banks) != 0 {
			bd.errorf(bd.rng("bytes"), "Capacity not a multiple of the banks",
				"bytes (%d) must be a multiple of bank_bytes * banks = %d * %d = %d, so that every bank has the same number of rows; %d or %d would do.",
				m.Bytes, m.BankBytes, m.Banks, m.BankBytes*m.Banks, roundDown(m.Bytes, lcm(16, m.BankBytes*m.Banks)), roundDown(m.Bytes, lcm(16, m.BankBytes*m.Banks))+lcm(16, m.BankBytes*m.Banks))
		}
	case !bd.has("hash"):
		bd.missing("banks", " unless hash names the bank hash")
	}
	m.Widths = bd.shmemWidths()
	m.Atomics = bd.shmemAtomics()
	if len(m.Widths) > 0 && len(m.Atomics) > 0 && m.Widths[0] != 32 {
		at := "widths"
		if bd.has("atomics") {
			at = "atomics"
		}
		bd.errorf(bd.rng(at), "Atomics without 32-bit accesses", "Atomics are 32-bit, but widths (%s) leaves out 32, so every atomic would be refused. Add 32 to widths, or give atomics = [].", joinInts(m.Widths))
	}
	m.BankAccessFO4 = bd.positive("bank_access_fo4", m.BankAccessFO4, false, maxBankFO4)
	m.BankSetupFO4 = bd.positive("bank_setup_fo4", m.BankSetupFO4, true, maxBankFO4)
	m.BankAreaPerBit = bd.positive("bank_area_per_bit", m.BankAreaPerBit, false, maxBankAreaPerBit)
	m.Clock = bd.clocking()
	if bd.failed {
		return nil, bd.diags
	}
	return m, bd.diags
}

func roundDown(x, q int) int { return x / q * q }

func lcm(a, b int) int {
	g, y := a, b
	for y != 0 {
		g, y = y, g%y
	}
	return a / g * b
}

// shmemWidths decodes widths (default all).
func (bd *blockDecoder) shmemWidths() []int {
	v, ok := bd.value("widths")
	if !ok {
		return []int{32, 64, 128}
	}
	rng := bd.rng("widths")
	elems, ok := bd.list(v, rng, "widths", 3)
	if !ok {
		return nil
	}
	if len(elems) == 0 {
		bd.errorf(rng, "Invalid widths", "widths lists no access width; give a subset of [32, 64, 128].")
		return nil
	}
	exprs := elemExprs(bd.attrs["widths"].Expr, len(elems))
	seen := map[int]int{}
	for i, ev := range elems {
		what := fmt.Sprintf("widths[%d]", i)
		x, ok := bd.toInt(ev, exprs[i].Range(), what)
		if !ok {
			continue
		}
		if _, valid := ShmemWidthOf(int(x)); !valid {
			bd.errorf(exprs[i].Range(), "Invalid width", "%s is %d; the access widths are 32, 64 and 128 bits.", what, x)
			continue
		}
		if j, dup := seen[int(x)]; dup {
			bd.errorf(exprs[i].Range(), "Repeated width", "%d appears twice (widths[%d] and widths[%d]); list each width once.", x, j, i)
			continue
		}
		seen[int(x)] = i
	}
	var out []int
	for _, w := range []int{32, 64, 128} {
		if _, ok := seen[w]; ok {
			out = append(out, w)
		}
	}
	return out
}

// shmemAtomics decodes atomics (default all, [] none).
func (bd *blockDecoder) shmemAtomics() []ShmemOp {
	v, ok := bd.value("atomics")
	if !ok {
		return append([]ShmemOp(nil), ShmemAtomics...)
	}
	rng := bd.rng("atomics")
	elems, ok := bd.list(v, rng, "atomics", len(ShmemAtomics))
	if !ok {
		return nil
	}
	names := make([]string, len(ShmemAtomics))
	for i, a := range ShmemAtomics {
		names[i] = a.String()
	}
	exprs := elemExprs(bd.attrs["atomics"].Expr, len(elems))
	seen := map[ShmemOp]int{}
	for i, ev := range elems {
		what := fmt.Sprintf("atomics[%d]", i)
		if ev.IsNull() || ev.Type() != cty.String {
			bd.errorf(exprs[i].Range(), "Incorrect attribute value type", "%s must be a string; got %s.", what, typeName(ev))
			continue
		}
		s := ev.AsString()
		op := NumShmemOps
		for _, a := range ShmemAtomics {
			if a.String() == s {
				op = a
			}
		}
		if op == NumShmemOps {
			bd.errorf(exprs[i].Range(), "Unknown atomic", "%q is not an atomic operation.%s The atomics are %s.", s, didYouMean(s, names), strings.Join(quoted(names), ", "))
			continue
		}
		if j, dup := seen[op]; dup {
			bd.errorf(exprs[i].Range(), "Repeated atomic", "%q appears twice (atomics[%d] and atomics[%d]); list each atomic once.", s, j, i)
			continue
		}
		seen[op] = i
	}
	out := []ShmemOp{}
	for _, a := range ShmemAtomics {
		if _, ok := seen[a]; ok {
			out = append(out, a)
		}
	}
	return out
}

// positive decodes an optional number in (0, hi] ([0, hi] with zeroOK);
// def when not written.
func (bd *blockDecoder) positive(name string, def float64, zeroOK bool, hi float64) float64 {
	v, ok := bd.value(name)
	if !ok {
		return def
	}
	f, isNum := numberValue(v)
	lo := "above 0"
	if zeroOK {
		lo = "at least 0"
	}
	switch {
	case !isNum:
		bd.errorf(bd.rng(name), "Incorrect attribute value type", "%s must be a number; got %s.", name, typeName(v))
	case f < 0 || (f == 0 && !zeroOK) || f > hi:
		bd.errorf(bd.rng(name), "Invalid "+name, "%s must be %s and at most %g; got %g.", name, lo, hi, f)
	default:
		return f
	}
	return def
}
