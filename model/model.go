// Package model holds the behavioural reference models of lsugen's units.
//
// A model evaluates a unit on port values exactly as the unit's interface
// documents it. The port names, widths and order below are the interface:
// the verification harness matches them by name against the generated
// design and compares outputs. The models are written from the papers and
// the interface description only; they share no code with the generators
// (gen, netlist, rtl) they check.
//
// # Port values
//
// A port value is a little-endian slice of 64-bit words: bit 0 of word 0 is
// bit 0 of the port, and a W-bit port has (W+63)/64 words. Bits at or above
// the port width are ignored on inputs and written as 0 on outputs.
//
// # Hash units
//
// Let A = addr_bits, m = bank_bits and S = max(1, clog2(A)), the width of
// one address-bit selection. Address bits at or above A read as 0, so every
// shift is a logical shift with zero fill and every out-of-range selection
// reads 0.
//
//	function        configurable  inputs (in order)                         outputs (in order)
//	bitvector_perm  no            addr_i[A]                                 bank_o[m]
//	bitvector_perm  yes           addr_i[A] cfg_k_i[S]                      bank_o[m]
//	bitvector_xor   no            addr_i[A]                                 bank_o[m]
//	bitvector_xor   yes           addr_i[A] cfg_k1_i[S] cfg_k2_i[S]         bank_o[m]
//	                              cfg_mask_i[m]
//	bitwise_perm    no            addr_i[A]                                 bank_o[m]
//	bitwise_perm    yes           addr_i[A] cfg_sel_i[m*S]                  bank_o[m]
//	bitwise_xor     no            addr_i[A]                                 bank_o[m]
//	bitwise_xor     yes           addr_i[A] cfg_sel_a_i[m*S] cfg_sel_b_i[m*S] bank_o[m]
//	xor_matrix      no            addr_i[A]                                 bank_o[m]
//	fixed_xor       no            addr_i[A]                                 bank_o[m]
//	add             no            addr_i[A]                                 bank_o[m]
//	rap             no            addr_i[A]                                 bank_o[L] addr_o[A]
//	rap             yes           addr_i[A] cfg_perm_i[w*L]                 bank_o[L] addr_o[A]
//	ipoly           no            addr_i[A]                                 bank_o[d]
//	mod             no            addr_i[A]                                 bank_o[B] index_o[I]
//
// Functions (a[i] is address bit i, b is a bank bit, 0 <= b < m):
//
//   - bitvector_perm: bank = (addr >> k) mod 2^m.
//   - bitvector_xor: bank = ((addr >> k1) ^ ((addr >> k2) & mask)) mod 2^m.
//   - bitwise_perm: bank bit b = a[sel_b], sel_b = Bits[b][0] or field b of
//     cfg_sel_i.
//   - bitwise_xor, constant: bank bit b = XOR of the bits listed in Bits[b]
//     (one element: that bit). Configurable: a[sel_a] ^ a[sel_b] when
//     sel_a != sel_b, and a[sel_a] when they are equal.
//   - xor_matrix: bank bit b = XOR of the bits listed in Bits[b]; an empty
//     list gives 0 and a bit listed twice cancels.
//   - fixed_xor: bank = addr[m-1:0] ^ addr[2m-1:m].
//   - add: bank = (addr[m-1:0] + addr[2m-1:m]) mod 2^m, whatever the adder.
//   - rap: w = 2^L, L = bank_bits. Column j = addr[L-1:0], row
//     i = addr[2L-1:L], bank = (j + r_i) mod w; addr_o is addr with its low
//     L bits replaced by bank (i*w + bank, with the address bits above 2L
//     passed through). r_i is Permutation[i], or field i of cfg_perm_i used
//     as-is (it need not be a permutation). Scheme R1P shifts by
//     r[k] + r[j'] + r[i] instead, 3P by Permutations[0][k] +
//     Permutations[1][j'] + Permutations[2][i] (k = addr[2L-1:L],
//     j' = addr[3L-1:2L], i = addr[4L-1:3L]), RAS by Shifts[x] for x the
//     log2(len(Shifts)) address bits from bit L up; address bits at or
//     above addr_bits read 0.
//   - ipoly: bank = addr(x) mod P(x) over GF(2) (address bit i is the
//     coefficient of x^i), d = degree of P, by long division.
//   - mod: bank = addr mod banks, index = addr / banks; B = clog2(banks),
//     I = ModIndexBits(A, banks).
//
// A configuration field f of width n in a port occupies bits f*n .. f*n+n-1,
// field 0 in the least significant bits.
//
// # Sequential units (001_*)
//
// elastic_pipeline and warp_ready_mask are clocked; ForPipeline and
// ForReadyMask return
// their Sequential models (the struct APIs are Pipeline and ReadyMask).
// The ports are listed without clk; rst is a synchronous, active-high
// input. Let T = tag_bits, DB = bits for 0..simd_width, W = warp_contexts,
// PC = pc_bits.
//
//	unit              inputs (in order)                           outputs (in order)
//	elastic_pipeline  rst[1] in_valid_i[1] in_kind_i[2]           stall_o[1] wb_valid_o[1] wb_tag_o[T]
//	                  in_degree_i[DB] in_tag_i[T]
//	warp_ready_mask   rst[1] launch_i[1] warp_ready_i[W]          warp_ready_o[W] mask_o[1]
//	                  warp_is_mem_i[W] sched_valid_i[1]
//	                  sched_shmem_i[1] sched_pc_i[PC] res_valid_i[1]
//	                  res_pc_i[PC] res_degree_i[DB]
//
// A Cycle computes the cycle's outputs from the state and the inputs, then
// the rising edge; with rst = 1 the next state is the reset state.
//
//   - elastic_pipeline (sections 3.1, 3.2): EXE offers one instruction a
//     cycle (in_kind_i 0 = alu, 1 = shmem, 2 and 3 = other memory); it is
//     accepted unless stall_o. A shmem instruction occupies MEM0 for
//     max(1, ceil(degree / shmem_ports)) cycles, any other one cycle; MEM1
//     .. MEM(M-1) take one cycle each and the memory path always wins
//     writeback. baseline_unified sends every instruction down the memory
//     path; baseline_split sends alu instructions down an M-stage NONMEM
//     pipeline that holds as a whole when it loses writeback;
//     elastic adds a PREMEM FIFO of warp_size/simd_width - 1 entries before
//     MEM0 and turns NONMEM into an M-entry FIFO whose head, or else EXE's
//     alu instruction, is forwarded to writeback. wb_valid_o/wb_tag_o is
//     the instruction selected for writeback in the cycle (tag 0 when none).
//   - warp_ready_mask (section 4, Figure 7): mask_o = (C != 0) and
//     warp_ready_o = warp_ready_i & ~(warp_is_mem_i & mask_o). Scheduling a
//     shmem warp loads C with (pred + S - 1) >> log2(shmem_ports), pred the
//     degree the history cache holds for sched_pc_i (0 on a miss, looked up
//     before this cycle's update), S = warp_size/simd_width; otherwise C
//     counts down to 0. C is not wrapped (34 for pred 31 with S = 4, P = 1). Each res_valid_i adds max(res_degree_i - 1, 0) to an
//     accumulator mod warp_size; the S-th writes the sum for res_pc_i into
//     the cache (hit: update; miss: lowest invalid way, else the set's
//     round-robin pointer, which then advances). launch_i clears
//     everything, like rst.
package model

import (
	"errors"
	"fmt"
	"math/bits"

	"github.com/lsugen/lsugen/specs"
)

// Port is one port of a unit as the model understands the interface (the
// documented port names are the interface; the harness matches them by name
// against the generated design).
type Port struct {
	Name   string
	Width  int
	Output bool
}

// Model evaluates a unit on port values. A port value is a little-endian
// slice of 64-bit words (bit 0 of word 0 = bit 0 of the port), len =
// (Width+63)/64.
type Model interface {
	// Ports lists the inputs first, then the outputs, in the documented
	// order (see the package documentation).
	Ports() []Port
	// Eval computes the outputs from the inputs. in and out are indexed
	// like the input and output ports of Ports(); the caller allocates
	// the output words and Eval overwrites all of them. Eval does not
	// allocate, keeps no state between calls and may be called from
	// several goroutines at once.
	Eval(in, out [][]uint64)
}

// ForHash returns the model of a hash unit. It refuses, with an error:
// configurable xor_matrix, fixed_xor and add; unknown hash
// functions; addr_bits < 1; bank_bits outside 1..64 (rap: w not a power of
// two >= 2, or bank_bits set and not log2(w)); negative k, k1, k2 or Bits
// elements; a Bits list without one entry per bank bit, or with entries of
// the wrong length (bitwise_perm: exactly one element; bitwise_xor: one or
// two, and two equal elements are refused as ambiguous); and a constant rap
// Permutation that does not have w entries in 0..w-1 (repeats are allowed).
// Constant shifts and Bits elements at or above addr_bits are accepted and
// read zeros.
func ForHash(u *specs.Hash) (Model, error) {
	if u == nil {
		return nil, errors.New("model: nil hash unit")
	}
	m, err := forHash(u)
	if err != nil {
		return nil, fmt.Errorf("model: hash %q (%s): %w", u.Name, u.Function, err)
	}
	return m, nil
}

// selWidth is S, the width of one address-bit selection in a configuration
// port: clog2(addrBits), but at least 1.
func selWidth(addrBits int) int {
	s := 0
	for 1<<s < addrBits {
		s++
	}
	return max(s, 1)
}

// log2Exact returns L with 2^L == w, or false when w is not a power of two.
func log2Exact(w int) (int, bool) {
	if w < 1 {
		return 0, false
	}
	l := 0
	for 1<<l < w {
		l++
	}
	return l, 1<<l == w
}

func forHash(h *specs.Hash) (Model, error) {
	if h.AddrBits < 1 {
		return nil, fmt.Errorf("addr_bits = %d, want at least 1", h.AddrBits)
	}
	A := h.AddrBits
	S := selWidth(A)

	switch h.Function {
	case specs.RAP:
		return newRAP(h)
	case specs.IPoly:
		return newIPoly(h)
	case specs.Mod:
		return newMod(h)
	}

	m := h.BankBits
	if m < 1 || m > 64 {
		return nil, fmt.Errorf("bank_bits = %d, want 1..64", m)
	}
	addrIn := Port{Name: "addr_i", Width: A}
	bankOut := Port{Name: "bank_o", Width: m, Output: true}

	if h.Configurable {
		switch h.Function {
		case specs.BitvectorPerm:
			return &bitvectorPerm{
				addrBits: A, bankBits: m, cfg: true, selBits: S,
				ports: []Port{addrIn, {Name: "cfg_k_i", Width: S}, bankOut},
			}, nil
		case specs.BitvectorXor:
			return &bitvectorXor{
				addrBits: A, bankBits: m, cfg: true, selBits: S,
				ports: []Port{addrIn, {Name: "cfg_k1_i", Width: S}, {Name: "cfg_k2_i", Width: S},
					{Name: "cfg_mask_i", Width: m}, bankOut},
			}, nil
		case specs.BitwisePerm:
			return &bitwisePerm{
				addrBits: A, bankBits: m, cfg: true, selBits: S,
				ports: []Port{addrIn, {Name: "cfg_sel_i", Width: m * S}, bankOut},
			}, nil
		case specs.BitwiseXor:
			return &bitwiseXorCfg{
				addrBits: A, bankBits: m, selBits: S,
				ports: []Port{addrIn, {Name: "cfg_sel_a_i", Width: m * S},
					{Name: "cfg_sel_b_i", Width: m * S}, bankOut},
			}, nil
		case specs.XorMatrix, specs.FixedXor, specs.Add:
			return nil, errors.New("no configurable form is modelled")
		default:
			return nil, fmt.Errorf("unknown hash function %q", h.Function)
		}
	}

	ports := []Port{addrIn, bankOut}
	switch h.Function {
	case specs.BitvectorPerm:
		if h.K < 0 {
			return nil, fmt.Errorf("k = %d, want >= 0", h.K)
		}
		return &bitvectorPerm{addrBits: A, bankBits: m, k: h.K, ports: ports}, nil
	case specs.BitvectorXor:
		if h.K1 < 0 || h.K2 < 0 {
			return nil, fmt.Errorf("k1 = %d, k2 = %d, want >= 0", h.K1, h.K2)
		}
		return &bitvectorXor{addrBits: A, bankBits: m, k1: h.K1, k2: h.K2, mask: h.Mask, ports: ports}, nil
	case specs.BitwisePerm:
		if err := checkBits(h.Bits, m, 1, 1); err != nil {
			return nil, err
		}
		sel := make([]int, m)
		for b := range sel {
			sel[b] = h.Bits[b][0]
		}
		return &bitwisePerm{addrBits: A, bankBits: m, sel: sel, ports: ports}, nil
	case specs.BitwiseXor:
		if err := checkBits(h.Bits, m, 1, 2); err != nil {
			return nil, err
		}
		for b, row := range h.Bits {
			if len(row) == 2 && row[0] == row[1] {
				// The loader stores [i, i] as [i]; two equal elements
				// would read as a[i] ^ a[i] = 0, which is ambiguous.
				return nil, fmt.Errorf("bits[%d] = %v lists one address bit twice", b, row)
			}
		}
		return newXorOfBits(A, m, h.Bits, ports), nil
	case specs.XorMatrix:
		if err := checkBits(h.Bits, m, 0, -1); err != nil {
			return nil, err
		}
		return newXorOfBits(A, m, h.Bits, ports), nil
	case specs.FixedXor:
		return &fixedXor{addrBits: A, bankBits: m, ports: ports}, nil
	case specs.Add:
		return &add{addrBits: A, bankBits: m, ports: ports}, nil
	default:
		return nil, fmt.Errorf("unknown hash function %q", h.Function)
	}
}

// checkBits checks that bits has one row per bank bit, each with between
// minLen and maxLen (maxLen < 0: any number) non-negative address bits.
func checkBits(bits [][]int, bankBits, minLen, maxLen int) error {
	if len(bits) != bankBits {
		return fmt.Errorf("bits has %d entries, want bank_bits = %d", len(bits), bankBits)
	}
	for b, row := range bits {
		if len(row) < minLen || (maxLen >= 0 && len(row) > maxLen) {
			return fmt.Errorf("bits[%d] has %d elements, want %d..%d", b, len(row), minLen, maxLen)
		}
		for _, i := range row {
			if i < 0 {
				return fmt.Errorf("bits[%d] lists address bit %d", b, i)
			}
		}
	}
	return nil
}

// ---------------------------------------------------------------------------
// Port value helpers. Everything is done one bit at a time.

// bitAt returns bit i of a port value of the given width; bits outside
// [0, width) read as 0.
func bitAt(v []uint64, width, i int) uint64 {
	if i < 0 || i >= width {
		return 0
	}
	return (v[i/64] >> (i % 64)) & 1
}

// fieldAt returns bits lo .. lo+n-1 (n <= 64) of a port value of the given
// width as an unsigned integer, bit lo in bit 0. Bits outside the port read
// as 0.
func fieldAt(v []uint64, width, lo, n int) uint64 {
	var x uint64
	for k := range n {
		x |= bitAt(v, width, lo+k) << k
	}
	return x
}

// setBit sets bit i of v to b (0 or 1); v must have that bit cleared.
func setBit(v []uint64, i int, b uint64) {
	v[i/64] |= (b & 1) << (i % 64)
}

// putField clears v and writes the low n bits of x into bits 0 .. n-1.
func putField(v []uint64, n int, x uint64) {
	clear(v)
	for k := range n {
		setBit(v, k, x>>k)
	}
}

// lowMask is 2^n - 1 for 0 <= n <= 64.
func lowMask(n int) uint64 {
	if n >= 64 {
		return ^uint64(0)
	}
	return 1<<n - 1
}

// checkLens panics with a clear message when a port value has the wrong
// number of words.
func checkLens(ports []Port, in, out [][]uint64) {
	nIn := 0
	for _, p := range ports {
		if !p.Output {
			nIn++
		}
	}
	if len(in) != nIn || len(out) != len(ports)-nIn {
		panic(fmt.Sprintf("model: Eval got %d inputs and %d outputs, want %d and %d",
			len(in), len(out), nIn, len(ports)-nIn))
	}
	for k, p := range ports {
		v := in
		idx := k
		if p.Output {
			v, idx = out, k-nIn
		}
		if want := (p.Width + 63) / 64; len(v[idx]) != want {
			panic(fmt.Sprintf("model: port %s has %d words, want %d", p.Name, len(v[idx]), want))
		}
	}
}

// ---------------------------------------------------------------------------
// bitvector_perm

type bitvectorPerm struct {
	addrBits, bankBits int
	k                  int  // constant shift
	cfg                bool // shift from cfg_k_i instead
	selBits            int  // S, width of cfg_k_i
	ports              []Port
}

func (h *bitvectorPerm) Ports() []Port { return h.ports }

func (h *bitvectorPerm) Eval(in, out [][]uint64) {
	checkLens(h.ports, in, out)
	addr, bank := in[0], out[0]
	k := h.k
	if h.cfg {
		k = int(fieldAt(in[1], h.selBits, 0, h.selBits))
	}
	clear(bank)
	for b := range h.bankBits {
		setBit(bank, b, bitAt(addr, h.addrBits, k+b))
	}
}

// ---------------------------------------------------------------------------
// bitvector_xor

type bitvectorXor struct {
	addrBits, bankBits int
	k1, k2             int
	mask               uint64
	cfg                bool // k1, k2, mask from cfg_k1_i, cfg_k2_i, cfg_mask_i
	selBits            int
	ports              []Port
}

func (h *bitvectorXor) Ports() []Port { return h.ports }

func (h *bitvectorXor) Eval(in, out [][]uint64) {
	checkLens(h.ports, in, out)
	addr, bank := in[0], out[0]
	k1, k2, mask := h.k1, h.k2, h.mask
	if h.cfg {
		k1 = int(fieldAt(in[1], h.selBits, 0, h.selBits))
		k2 = int(fieldAt(in[2], h.selBits, 0, h.selBits))
		mask = fieldAt(in[3], h.bankBits, 0, h.bankBits)
	}
	clear(bank)
	for b := range h.bankBits {
		x := bitAt(addr, h.addrBits, k1+b)
		y := bitAt(addr, h.addrBits, k2+b) & (mask >> b)
		setBit(bank, b, x^y)
	}
}

// ---------------------------------------------------------------------------
// bitwise_perm

type bitwisePerm struct {
	addrBits, bankBits int
	sel                []int // constant: address bit for each bank bit
	cfg                bool  // selections from cfg_sel_i instead
	selBits            int
	ports              []Port
}

func (h *bitwisePerm) Ports() []Port { return h.ports }

func (h *bitwisePerm) Eval(in, out [][]uint64) {
	checkLens(h.ports, in, out)
	addr, bank := in[0], out[0]
	clear(bank)
	for b := range h.bankBits {
		var s int
		if h.cfg {
			s = int(fieldAt(in[1], h.bankBits*h.selBits, b*h.selBits, h.selBits))
		} else {
			s = h.sel[b]
		}
		setBit(bank, b, bitAt(addr, h.addrBits, s))
	}
}

// ---------------------------------------------------------------------------
// bitwise_xor (configurable)

type bitwiseXorCfg struct {
	addrBits, bankBits int
	selBits            int
	ports              []Port
}

func (h *bitwiseXorCfg) Ports() []Port { return h.ports }

func (h *bitwiseXorCfg) Eval(in, out [][]uint64) {
	checkLens(h.ports, in, out)
	addr, bank := in[0], out[0]
	selWidth := h.bankBits * h.selBits
	clear(bank)
	for b := range h.bankBits {
		sa := int(fieldAt(in[1], selWidth, b*h.selBits, h.selBits))
		sb := int(fieldAt(in[2], selWidth, b*h.selBits, h.selBits))
		x := bitAt(addr, h.addrBits, sa)
		if sa != sb {
			x ^= bitAt(addr, h.addrBits, sb)
		}
		setBit(bank, b, x)
	}
}

// ---------------------------------------------------------------------------
// bitwise_xor (constant) and xor_matrix: each bank bit is the XOR of a list
// of address bits.
//
// A list can hold up to 64 bits, so rather than reading them one by one the
// list is turned once into a mask over the address words: a bit listed an
// odd number of times is set, one listed an even number of times cancels,
// one at or above addr_bits reads 0 and is left out. The bank bit is then
// the parity of addr AND mask.

type xorOfBits struct {
	addrBits, bankBits int
	masks              [][]uint64 // per bank bit, one word per address word
	ports              []Port
}

func newXorOfBits(addrBits, bankBits int, terms [][]int, ports []Port) *xorOfBits {
	h := &xorOfBits{addrBits: addrBits, bankBits: bankBits, ports: ports}
	for _, row := range terms {
		mask := make([]uint64, (addrBits+63)/64)
		for _, i := range row {
			if i < addrBits {
				mask[i/64] ^= 1 << (i % 64)
			}
		}
		h.masks = append(h.masks, mask)
	}
	return h
}

func (h *xorOfBits) Ports() []Port { return h.ports }

func (h *xorOfBits) Eval(in, out [][]uint64) {
	checkLens(h.ports, in, out)
	addr, bank := in[0], out[0]
	clear(bank)
	for b := range h.bankBits {
		ones := 0
		for w, mask := range h.masks[b] {
			ones += bits.OnesCount64(addr[w] & mask)
		}
		setBit(bank, b, uint64(ones%2))
	}
}

// ---------------------------------------------------------------------------
// fixed_xor

type fixedXor struct {
	addrBits, bankBits int
	ports              []Port
}

func (h *fixedXor) Ports() []Port { return h.ports }

func (h *fixedXor) Eval(in, out [][]uint64) {
	checkLens(h.ports, in, out)
	addr, bank := in[0], out[0]
	m := h.bankBits
	clear(bank)
	for b := range m {
		setBit(bank, b, bitAt(addr, h.addrBits, b)^bitAt(addr, h.addrBits, m+b))
	}
}

// ---------------------------------------------------------------------------
// add

type add struct {
	addrBits, bankBits int
	ports              []Port
}

func (h *add) Ports() []Port { return h.ports }

func (h *add) Eval(in, out [][]uint64) {
	checkLens(h.ports, in, out)
	addr := in[0]
	m := h.bankBits
	lo := fieldAt(addr, h.addrBits, 0, m) // addr[m-1:0]
	hi := fieldAt(addr, h.addrBits, m, m) // addr[2m-1:m]
	// uint64 addition wraps mod 2^64, and m <= 64, so masking gives mod 2^m.
	putField(out[0], m, (lo+hi)&lowMask(m))
}

// ---------------------------------------------------------------------------
// rap

type rap struct {
	addrBits int
	l, w     int // w = 2^l
	scheme   specs.RAPScheme
	tables   [][]uint64 // constant shift tables, one per address field read
	rasBits  int        // RAS: the table's index bits
	cfg      bool       // r_i from cfg_perm_i instead
	ports    []Port
}

func newRAP(h *specs.Hash) (Model, error) {
	A := h.AddrBits
	l, ok := log2Exact(h.W)
	if !ok || l < 1 {
		return nil, fmt.Errorf("w = %d, want a power of two >= 2", h.W)
	}
	// bank_bits is log2(w); accept it unset, refuse a contradiction.
	if h.BankBits != 0 && h.BankBits != l {
		return nil, fmt.Errorf("bank_bits = %d, want log2(w) = %d", h.BankBits, l)
	}
	if l > 63 || h.W > (1<<30)/l {
		return nil, fmt.Errorf("w = %d is too large to model", h.W)
	}
	scheme := h.Scheme
	if scheme == "" {
		scheme = specs.RAP1P
	}
	r := &rap{addrBits: A, l: l, w: h.W, scheme: scheme, cfg: h.Configurable}
	r.ports = []Port{{Name: "addr_i", Width: A}}
	// perm checks a permutation (what names it) and returns it as a table.
	perm := func(p []int, what string) ([]uint64, error) {
		if len(p) != h.W {
			return nil, fmt.Errorf("%s has %d entries, want w = %d", what, len(p), h.W)
		}
		seen := make([]bool, h.W)
		t := make([]uint64, h.W)
		for i, v := range p {
			if v < 0 || v >= h.W {
				return nil, fmt.Errorf("%s[%d] = %d, want 0..%d", what, i, v, h.W-1)
			}
			if seen[v] {
				return nil, fmt.Errorf("%s repeats %d, want a permutation", what, v)
			}
			seen[v] = true
			t[i] = uint64(v)
		}
		return t, nil
	}
	switch {
	case h.Configurable && scheme != specs.RAP1P:
		return nil, fmt.Errorf("a configurable rap is 1P; scheme %s is constant only", scheme)
	case h.Configurable:
		r.ports = append(r.ports, Port{Name: "cfg_perm_i", Width: h.W * l})
	case scheme == specs.RAP1P || scheme == specs.RAPR1P:
		t, err := perm(h.Permutation, "permutation")
		if err != nil {
			return nil, err
		}
		r.tables = [][]uint64{t}
	case scheme == specs.RAP3P:
		if len(h.Permutations) != 3 {
			return nil, fmt.Errorf("3P has %d permutations, want 3", len(h.Permutations))
		}
		for p := range 3 {
			t, err := perm(h.Permutations[p], fmt.Sprintf("permutations[%d]", p))
			if err != nil {
				return nil, err
			}
			r.tables = append(r.tables, t)
		}
	case scheme == specs.RAPRAS:
		n := len(h.Shifts)
		b, ok := log2Exact(n)
		if !ok || b < 1 || b > 20 {
			return nil, fmt.Errorf("RAS has %d shifts, want a power of two 2..2^20", n)
		}
		t := make([]uint64, n)
		for x, v := range h.Shifts {
			if v < 0 || v >= h.W {
				return nil, fmt.Errorf("shifts[%d] = %d, want 0..%d", x, v, h.W-1)
			}
			t[x] = uint64(v)
		}
		r.tables, r.rasBits = [][]uint64{t}, b
	default:
		return nil, fmt.Errorf("unknown rap scheme %q", scheme)
	}
	r.ports = append(r.ports,
		Port{Name: "bank_o", Width: l, Output: true},
		Port{Name: "addr_o", Width: A, Output: true})
	return r, nil
}

func (h *rap) Ports() []Port { return h.ports }

func (h *rap) Eval(in, out [][]uint64) {
	checkLens(h.ports, in, out)
	addr := in[0]
	L, A := h.l, h.addrBits
	j := fieldAt(addr, A, 0, L) // column
	k := fieldAt(addr, A, L, L) // the row of a w×w matrix
	var shift uint64
	switch {
	case h.cfg:
		shift = fieldAt(in[1], h.w*L, int(k)*L, L)
	case h.scheme == specs.RAP1P:
		shift = h.tables[0][k]
	case h.scheme == specs.RAPR1P:
		r := h.tables[0]
		shift = r[k] + r[fieldAt(addr, A, 2*L, L)] + r[fieldAt(addr, A, 3*L, L)]
	case h.scheme == specs.RAP3P:
		shift = h.tables[0][k] + h.tables[1][fieldAt(addr, A, 2*L, L)] + h.tables[2][fieldAt(addr, A, 3*L, L)]
	case h.scheme == specs.RAPRAS:
		shift = h.tables[0][fieldAt(addr, A, L, h.rasBits)]
	}
	bank := (j + shift) % uint64(h.w)

	putField(out[0], L, bank)

	addrOut := out[1]
	clear(addrOut)
	for p := range A {
		if p < L {
			setBit(addrOut, p, bank>>p)
		} else {
			setBit(addrOut, p, bitAt(addr, A, p))
		}
	}
}
