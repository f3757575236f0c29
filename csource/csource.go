// Package csource writes hash units as C source: for every constant hash
// unit a header NAME.h that C, C++ and CUDA code includes to compute the
// bank the generated hardware computes (and for mod the index within the
// bank, for rap the permuted address). Kernels use it to hash their
// shared-memory indices in software, as 000_* section 7.2 does by hand;
// simulators and conflict counters use it as the bank function.
//
// The header is written from the spec alone. The behavioural models in
// model/ are the independent check: the package's test compiles every
// header with the C compiler and compares each address with the model.
package csource

import (
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"github.com/lsugen/lsugen/specs"
)

// Info is what a header says about where it came from.
type Info struct {
	Version string // e.g. "lsugen 0.9.0"
	Source  string // the unit's spec, file:line
}

// ErrConfigurable is wrapped by Header's error for a configurable unit:
// its configuration arrives at run time, so there is no constant function
// to write.
var ErrConfigurable = errors.New("configurable hash units have no constant C function")

// FileName is the header's file name, NAME.h.
func FileName(h *specs.Hash) string { return h.Name + ".h" }

// Limits of what a header can compute with 64-bit addresses and a 32-bit
// bank number.
const (
	maxAddrBits = 64
	maxBankBits = 32
	maxRAPW     = 1 << 16 // a uint16_t table
	maxModBanks = 1 << 32 // a uint32_t bank
)

// Header returns the C header of a constant hash unit: an include guard,
// <stdint.h>, a comment saying what the unit computes and how to use it,
// the unit's sizes as macros and static inline functions NAME_bank
// (NAME_index for mod, NAME_addr for rap), __host__ __device__ under CUDA.
// The same unit always gives the same bytes. It refuses configurable units
// (ErrConfigurable) and parameters outside what the spec loader accepts
// with an error; it never panics.
func Header(h *specs.Hash, info Info) ([]byte, error) {
	if h == nil {
		return nil, errors.New("csource: nil hash unit")
	}
	if h.Configurable {
		return nil, fmt.Errorf("csource: hash %q: %w (its configuration is set on ports at run time; write a constant unit with the configuration to hash with)", h.Name, ErrConfigurable)
	}
	u, err := newUnit(h)
	if err != nil {
		return nil, fmt.Errorf("csource: hash %q (%s): %w", h.Name, h.Function, err)
	}
	var w writer
	u.write(&w, info)
	return []byte(w.String()), nil
}

// form is how a unit's bank is computed in C.
type form int

const (
	wordXor form = iota // bitvector_perm, bitvector_xor, fixed_xor: shifts and masks of the whole address
	bitXor              // bitwise_*, xor_matrix, ipoly: one line per bank bit
	addForm             // add
	rapForm             // rap: a table of row shifts
	modForm             // mod: % and /
)

// unit is a hash unit checked and reduced to what the C code needs.
type unit struct {
	h      *specs.Hash
	name   string // C identifier prefix of the functions
	macro  string // upper-case prefix of the macros
	n, m   int    // address and bank bits
	form   form
	rows   []uint64 // linear forms: per bank bit, the address bits XORed into it (bits >= n dropped)
	linear bool     // rows is set
	perm   []int    // rap 1P: r_i
	// lookups are the shift tables of rap R1P, 3P and RAS, whose sum mod w
	// is the shift.
	lookups []lookup
	banks   uint64 // mod
}

// baseUnit is the unit of h with its name and address width checked, the
// start of newUnit and newConfigurable.
func baseUnit(h *specs.Hash) (*unit, error) {
	if err := checkIdent(h.Name); err != nil {
		return nil, err
	}
	u := &unit{h: h, name: h.Name, macro: strings.ToUpper(h.Name), n: h.AddrBits, m: h.BankBits}
	if u.n < 1 || u.n > maxAddrBits {
		return nil, fmt.Errorf("addr_bits = %d, want 1..%d", u.n, maxAddrBits)
	}
	return u, nil
}

func newUnit(h *specs.Hash) (*unit, error) {
	u, err := baseUnit(h)
	if err != nil {
		return nil, err
	}
	switch h.Function {
	case specs.RAP:
		return u, u.newRAP()
	case specs.Mod:
		return u, u.newMod()
	}
	if u.m < 1 || u.m > maxBankBits || u.m > u.n {
		return nil, fmt.Errorf("bank_bits = %d, want 1..%d and at most addr_bits = %d", u.m, maxBankBits, u.n)
	}
	// bit is the one-hot mask of address bit i, or 0 when the hardware has
	// no such bit (shifts fill with zeros, selections above n read 0).
	bit := func(i int) uint64 {
		if i < 0 || i >= u.n {
			return 0
		}
		return 1 << i
	}
	u.rows = make([]uint64, u.m)
	u.linear = true
	switch h.Function {
	case specs.BitvectorPerm:
		if h.K < 0 {
			return nil, fmt.Errorf("k = %d, want >= 0", h.K)
		}
		u.form = wordXor
		for b := range u.m {
			u.rows[b] = bit(h.K + b)
		}
	case specs.BitvectorXor:
		if h.K1 < 0 || h.K2 < 0 {
			return nil, fmt.Errorf("k1 = %d, k2 = %d, want >= 0", h.K1, h.K2)
		}
		if h.Mask>>u.m != 0 {
			return nil, fmt.Errorf("mask = %#x, want < 2^bank_bits", h.Mask)
		}
		u.form = wordXor
		for b := range u.m {
			u.rows[b] = bit(h.K1 + b)
			if h.Mask>>b&1 == 1 {
				u.rows[b] ^= bit(h.K2 + b)
			}
		}
	case specs.BitwisePerm, specs.BitwiseXor, specs.XorMatrix, specs.IPoly:
		maxLen := map[specs.HashFunction]int{specs.BitwisePerm: 1, specs.BitwiseXor: 2}[h.Function]
		if len(h.Bits) != u.m {
			return nil, fmt.Errorf("bits has %d entries, want bank_bits = %d", len(h.Bits), u.m)
		}
		u.form = bitXor
		for b, row := range h.Bits {
			if maxLen > 0 && (len(row) < 1 || len(row) > maxLen) {
				return nil, fmt.Errorf("bits[%d] has %d elements, want 1..%d", b, len(row), maxLen)
			}
			for _, i := range row {
				if i < 0 {
					return nil, fmt.Errorf("bits[%d] lists address bit %d", b, i)
				}
				u.rows[b] ^= bit(i) // a bit listed twice cancels
			}
		}
		if h.Function == specs.BitwiseXor {
			for b, row := range h.Bits {
				if len(row) == 2 && row[0] == row[1] {
					// The loader stores [i, i] as [i]; [i, i] here would be ambiguous.
					return nil, fmt.Errorf("bits[%d] = %v lists one address bit twice", b, row)
				}
			}
		}
		if h.Function == specs.IPoly && (len(h.Polynomial) == 0 || slices.Max(h.Polynomial) != u.m) {
			return nil, fmt.Errorf("polynomial %v, want degree bank_bits = %d", h.Polynomial, u.m)
		}
	case specs.FixedXor, specs.Add:
		if 2*u.m > u.n {
			return nil, fmt.Errorf("2*bank_bits = %d > addr_bits = %d", 2*u.m, u.n)
		}
		if h.Function == specs.Add {
			u.form, u.rows, u.linear = addForm, nil, false
			break
		}
		u.form = wordXor
		for b := range u.m {
			u.rows[b] = bit(b) | bit(u.m+b)
		}
	default:
		return nil, fmt.Errorf("unknown hash function %q", h.Function)
	}
	return u, nil
}

func (u *unit) newRAP() error {
	h := u.h
	if h.W < 2 || h.W > maxRAPW || h.W&(h.W-1) != 0 {
		return fmt.Errorf("w = %d, want a power of two 2..%d", h.W, maxRAPW)
	}
	l := bits.TrailingZeros(uint(h.W))
	if u.m != 0 && u.m != l {
		return fmt.Errorf("bank_bits = %d, want log2(w) = %d", u.m, l)
	}
	if u.n < l {
		return fmt.Errorf("addr_bits = %d, want at least log2(w) = %d", u.n, l)
	}
	u.m, u.form = l, rapForm
	// table checks one shift table and adds its lookup by the address
	// field addr[lo+bits-1:lo].
	table := func(name, what string, vals []int, n, lo, bits int) error {
		if len(vals) != n {
			return fmt.Errorf("%s has %d entries, want %d", what, len(vals), n)
		}
		for i, r := range vals {
			if r < 0 || r >= h.W {
				return fmt.Errorf("%s[%d] = %d, want 0..%d", what, i, r, h.W-1)
			}
		}
		u.lookups = append(u.lookups, lookup{name: name, vals: vals, lo: lo, bits: bits})
		return nil
	}
	switch h.Scheme {
	case "", specs.RAP1P:
		if len(h.Permutation) != h.W {
			return fmt.Errorf("permutation has %d entries, want w = %d", len(h.Permutation), h.W)
		}
		for i, r := range h.Permutation {
			if r < 0 || r >= h.W {
				return fmt.Errorf("permutation[%d] = %d, want 0..%d", i, r, h.W-1)
			}
		}
		u.perm = h.Permutation
	case specs.RAPR1P:
		for f := 1; f <= 3; f++ {
			if err := table("r", "permutation", h.Permutation, h.W, f*l, l); err != nil {
				return err
			}
		}
	case specs.RAP3P:
		if len(h.Permutations) != 3 {
			return fmt.Errorf("3P has %d permutations, want 3", len(h.Permutations))
		}
		for f := 1; f <= 3; f++ {
			if err := table(fmt.Sprintf("r%d", f-1), fmt.Sprintf("permutations[%d]", f-1), h.Permutations[f-1], h.W, f*l, l); err != nil {
				return err
			}
		}
	case specs.RAPRAS:
		n := len(h.Shifts)
		if n < 2 || n&(n-1) != 0 || n > specs.MaxRASRows {
			return fmt.Errorf("RAS has %d shifts, want a power of two 2..%d", n, specs.MaxRASRows)
		}
		if err := table("shifts", "shifts", h.Shifts, n, l, bits.TrailingZeros(uint(n))); err != nil {
			return err
		}
	default:
		return fmt.Errorf("rap scheme %q, want 1P, R1P, 3P or RAS", h.Scheme)
	}
	return nil
}

func (u *unit) newMod() error {
	h := u.h
	if h.Banks < 2 || uint64(h.Banks) > maxModBanks {
		return fmt.Errorf("banks = %d, want 2..%d", h.Banks, uint64(maxModBanks))
	}
	u.banks = uint64(h.Banks)
	u.m = bits.Len64(u.banks - 1)
	u.form = modForm
	return nil
}

// checkIdent refuses a unit name that is not a C identifier (the loader
// accepts only Verilog identifiers, which are).
func checkIdent(name string) error {
	if name == "" {
		return errors.New("empty unit name")
	}
	for i, c := range name {
		letter := c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !letter && !(i > 0 && c >= '0' && c <= '9') {
			return fmt.Errorf("unit name %q is not a C identifier", name)
		}
	}
	return nil
}

// swizzles reports whether replacing the low m bits of an address by its
// bank is one-to-one, so that the swizzled index of section 7.2 keeps
// every element of an array apart: for a linear hash when the bank bits'
// dependence on address bits 0..m-1 is an invertible matrix over GF(2)
// (the higher bits only XOR a constant in); for add and rap always (for a
// fixed rest of the address, the low bits plus a constant modulo 2^m).
func (u *unit) swizzles() bool {
	switch {
	case u.form == addForm || u.form == rapForm:
		return true
	case !u.linear || u.m > u.n:
		return false
	}
	low := uint64(1)<<u.m - 1
	rows := make([]uint64, u.m)
	for b, r := range u.rows {
		rows[b] = r & low
	}
	// Gaussian elimination over GF(2): full rank when every column finds a pivot.
	for col := range u.m {
		p := -1
		for r := col; r < u.m; r++ {
			if rows[r]>>col&1 == 1 {
				p = r
				break
			}
		}
		if p < 0 {
			return false
		}
		rows[col], rows[p] = rows[p], rows[col]
		for r := range u.m {
			if r != col && rows[r]>>col&1 == 1 {
				rows[r] ^= rows[col]
			}
		}
	}
	return true
}

// ---------------------------------------------------------------------------
// Writing the header

type writer struct{ strings.Builder }

func (w *writer) f(format string, args ...any) { fmt.Fprintf(w, format, args...) }

func (w *writer) line(s string) { w.WriteString(s + "\n") }

// comment writes lines of a block comment body (" * " prefixed).
func (w *writer) comment(lines ...string) {
	for _, l := range lines {
		if l == "" {
			w.line(" *")
		} else {
			w.line(" * " + l)
		}
	}
}

func (u *unit) write(w *writer, info Info) {
	w.f("/* %s.h: the hash unit %s (%s) as C, C++ and CUDA.\n", u.name, u.name, u.h.Function)
	w.line(" *")
	w.f(" * Generated by %s from %s.\n", info.Version, info.Source)
	w.line(" * Do not edit: change the spec and run `lsugen gen --c` again.")
	w.line(" *")
	w.comment(u.describe()...)
	w.line(" *")
	w.comment(u.usage()...)
	w.line(" */")
	guard := "LSUGEN_" + u.macro + "_H"
	w.f("#ifndef %s\n#define %s\n\n#include <stdint.h>\n\n", guard, guard)
	w.line(commonHD)
	if u.linear && u.form == bitXor && u.needsParity() {
		w.line(commonParity)
	}
	w.f("#define %s_ADDR_BITS %d\n", u.macro, u.n)
	w.f("#define %s_BANK_BITS %d\n", u.macro, u.m)
	if u.form == modForm {
		w.f("#define %s_BANKS %d\n\n", u.macro, u.banks)
	} else {
		w.f("#define %s_BANKS %d\n\n", u.macro, uint64(1)<<u.m)
	}
	switch u.form {
	case wordXor:
		u.writeWordXor(w)
	case bitXor:
		u.writeBitXor(w)
	case addForm:
		u.writeAdd(w)
	case rapForm:
		u.writeRAP(w)
	case modForm:
		u.writeMod(w)
	}
	w.f("\n#endif /* %s */\n", guard)
}

// commonHD and commonParity are shared by every header; their guards let a
// file include several.
const commonHD = `/* __host__ __device__ under nvcc, so that kernels and host code share the
 * function; nothing elsewhere. */
#ifndef LSUGEN_HD
#if defined(__CUDACC__)
#define LSUGEN_HD __host__ __device__
#else
#define LSUGEN_HD
#endif
#endif
`

const commonParity = `#ifndef LSUGEN_PARITY64_DEFINED
#define LSUGEN_PARITY64_DEFINED
/* The XOR of the bits of x: one population count on the GPU, a builtin
 * under GCC and Clang, a fold of halves elsewhere. */
static inline LSUGEN_HD uint32_t lsugen_parity64(uint64_t x)
{
#if defined(__CUDA_ARCH__)
	return (uint32_t)__popcll(x) & 1u;
#elif defined(__GNUC__) || defined(__clang__)
	return (uint32_t)__builtin_parityll(x);
#else
	x ^= x >> 32;
	x ^= x >> 16;
	x ^= x >> 8;
	x ^= x >> 4;
	x ^= x >> 2;
	x ^= x >> 1;
	return (uint32_t)(x & 1u);
#endif
}
#endif
`

// needsParity reports whether a bank bit XORs three or more address bits
// (fewer are written as shifts).
func (u *unit) needsParity() bool {
	for _, r := range u.rows {
		if bits.OnesCount64(r) > 2 {
			return true
		}
	}
	return false
}

// describe says what the unit computes, with its parameters.
func (u *unit) describe() []string {
	h, n, m := u.h, u.n, u.m
	var d []string
	switch h.Function {
	case specs.BitvectorPerm:
		d = append(d, fmt.Sprintf("bitvector_perm, addr_bits = %d, bank_bits = %d, k = %d:", n, m, h.K),
			fmt.Sprintf("  bank = (addr >> %d) mod %d", h.K, 1<<m))
	case specs.BitvectorXor:
		d = append(d, fmt.Sprintf("bitvector_xor, addr_bits = %d, bank_bits = %d, k1 = %d, k2 = %d, mask = %d:", n, m, h.K1, h.K2, h.Mask),
			fmt.Sprintf("  bank = ((addr >> %d) ^ ((addr >> %d) & %#x)) mod %d", h.K1, h.K2, h.Mask, 1<<m))
	case specs.BitwisePerm:
		d = append(d, fmt.Sprintf("bitwise_perm, addr_bits = %d, bank_bits = %d, bits = %s:", n, m, listOf(h.Bits, false)),
			"  bank bit b = address bit bits[b]")
	case specs.BitwiseXor:
		d = append(d, fmt.Sprintf("bitwise_xor, addr_bits = %d, bank_bits = %d, bits = %s:", n, m, listOf(h.Bits, true)),
			"  bank bit b = the XOR of the address bits bits[b]")
	case specs.XorMatrix:
		d = append(d, fmt.Sprintf("xor_matrix, addr_bits = %d, bank_bits = %d:", n, m),
			"  bank bit b = the XOR of the address bits listed for it")
	case specs.IPoly:
		d = append(d, fmt.Sprintf("ipoly, addr_bits = %d, polynomial = %s:", n, intList(h.Polynomial)),
			fmt.Sprintf("  bank = addr(x) mod P(x) over GF(2), P(x) = %s,", specs.PolynomialString(h.Polynomial)),
			"  address bit i the coefficient of x^i; bank bit b the coefficient of x^b")
	case specs.FixedXor:
		d = append(d, fmt.Sprintf("fixed_xor, addr_bits = %d, bank_bits = %d:", n, m),
			fmt.Sprintf("  bank = addr[%d:0] ^ addr[%d:%d]", m-1, 2*m-1, m))
	case specs.Add:
		d = append(d, fmt.Sprintf("add, addr_bits = %d, bank_bits = %d:", n, m),
			fmt.Sprintf("  bank = (addr[%d:0] + addr[%d:%d]) mod %d", m-1, 2*m-1, m, 1<<m))
	case specs.RAP:
		perm := "permutation = " + intList(u.perm)
		if h.HasSeed {
			perm = fmt.Sprintf("permutation drawn from seed %d", h.Seed)
		}
		l := m
		if len(u.lookups) > 0 {
			src := "given in the spec"
			if h.HasSeed {
				src = fmt.Sprintf("drawn from seed %d", h.Seed)
			}
			var terms []string
			for _, t := range u.lookups {
				terms = append(terms, fmt.Sprintf("%s[addr[%d:%d]]", t.name, t.lo+t.bits-1, t.lo))
			}
			d = append(d, fmt.Sprintf("rap %s, w = %d, addr_bits = %d, tables %s:", h.Scheme, h.W, n, src),
				fmt.Sprintf("  column j = addr[%d:0], bank = (j + %s) mod %d;", m-1, strings.Join(terms, " + "), h.W),
				fmt.Sprintf("  %s_addr(addr): the address with its low %d bits replaced by the bank", u.name, m),
				"  (the hardware's addr_o).")
			break
		}
		d = append(d, fmt.Sprintf("rap, w = %d, addr_bits = %d, %s:", h.W, n, perm),
			fmt.Sprintf("  column j = addr[%d:0], row i = addr[%d:%d], bank = (j + r[i]) mod %d;", l-1, 2*l-1, l, h.W),
			fmt.Sprintf("  %s_addr(addr) = i*%d + bank: the address with its low %d bits", u.name, h.W, l),
			"  replaced by the bank (the hardware's addr_o).")
	case specs.Mod:
		d = append(d, fmt.Sprintf("mod, addr_bits = %d, banks = %d:", n, u.banks),
			fmt.Sprintf("  bank = addr mod %d, index = addr / %d (the word within its bank)", u.banks, u.banks))
	}
	if u.linear {
		d = append(d, "", "As XORs of address bits:")
		for b := range u.rows {
			d = append(d, fmt.Sprintf("  bank[%d] = %s", b, xorTerms(u.rows[b])))
		}
	}
	d = append(d, "", "addr is a word address.")
	if n < 64 {
		d[len(d)-1] += fmt.Sprintf(" Bits %d and up are ignored: the hardware's", n)
		d = append(d, fmt.Sprintf("addr_i has %d bits.", n))
	}
	return d
}

// usage is the note on hashing in software (000_* section 7.2).
func (u *unit) usage() []string {
	if u.form == modForm {
		return []string{
			"Software use: the bank and the index together name every word once:",
			fmt.Sprintf("word a is word %s_index(a) of bank %s_bank(a), as in data kept as", u.name, u.name),
			fmt.Sprintf("%d arrays, x[bank][index]. A simulator or a conflict count takes the", u.banks),
			"bank as it is. It is no index swizzle for a GPU's shared memory, whose",
			"power-of-two banking takes the bank from the low bits of the index.",
		}
	}
	banks := uint64(1) << u.m
	fn := u.name + "_bank"
	lines := []string{
		"Software hashing (000_* section 7.2): on a GPU whose shared memory picks",
		fmt.Sprintf("the bank from the low %d bits of the word index (%d banks), a kernel", u.m, banks),
		"that stores element i of a shared array at",
		"",
		fmt.Sprintf("    (i & ~(uint64_t)(%s_BANKS - 1)) | %s(i)", u.macro, fn),
		"",
		"in every access to the array spreads its accesses over the banks as",
		"this hash does, with no hardware change.",
	}
	if u.form == rapForm {
		lines = append(lines, fmt.Sprintf("Below 2^%d this index is %s_addr(i).", u.n, u.name))
	}
	lines = append(lines, "")
	if u.swizzles() {
		return append(lines,
			fmt.Sprintf("For this unit that index is a permutation of each aligned block of %d", banks),
			"words: no two elements share a word and the array keeps its size.",
			"",
			fmt.Sprintf("    __shared__ float tile[32 * %s_BANKS];", u.macro),
			fmt.Sprintf("    #define AT(i) (((i) & ~(uint64_t)(%s_BANKS - 1)) | %s(i))", u.macro, fn),
			"    tile[AT(threadIdx.y * 32 + threadIdx.x)] = x;")
	}
	return append(lines,
		"For this unit that index is NOT one-to-one: with the higher address",
		fmt.Sprintf("bits fixed, two values of bits 0..%d can give one bank, so two elements", u.m-1),
		"of a block can share a word. Use it as a bank number (a simulator, a",
		"conflict count, one array per bank), or choose a hash whose bank bits",
		"XOR the low address bits in.")
}

func (u *unit) writeFuncHead(w *writer, ret, suffix, doc string) {
	w.f("/* %s */\n", doc)
	w.f("static inline LSUGEN_HD %s %s_%s(uint64_t addr)\n{\n", ret, u.name, suffix)
}

// maskAddr is the statement that drops the address bits the hardware does
// not have.
func (u *unit) maskAddr() string {
	if u.n >= 64 {
		return ""
	}
	return fmt.Sprintf("\taddr &= %s;\n", u64(uint64(1)<<u.n-1))
}

func (u *unit) bankMask() string { return hexU(uint64(1)<<u.m - 1) }

// shr is addr shifted right by k, with the zero fill of the hardware: ""
// when no address bit is left.
func (u *unit) shr(k int) string {
	switch {
	case k >= u.n:
		return ""
	case k == 0:
		return "addr"
	}
	return fmt.Sprintf("(addr >> %d)", k)
}

// writeConstZero writes the body of a function whose result is 0 for every
// address.
func writeConstZero(w *writer) {
	w.line("\t(void)addr; /* no address bit reaches the bank */")
	w.line("\treturn 0u;")
	w.line("}")
}

func (u *unit) allZero() bool {
	for _, r := range u.rows {
		if r != 0 {
			return false
		}
	}
	return true
}

func (u *unit) writeWordXor(w *writer) {
	h := u.h
	u.writeFuncHead(w, "uint32_t", "bank", "The bank of word address addr.")
	if u.allZero() {
		writeConstZero(w)
		return
	}
	w.WriteString(u.maskAddr())
	var expr string
	switch h.Function {
	case specs.BitvectorPerm:
		expr = u.shr(h.K)
	case specs.BitvectorXor:
		a, b := u.shr(h.K1), u.shr(h.K2)
		switch {
		case b == "" || h.Mask == 0:
			expr = a
		case a == "":
			expr = fmt.Sprintf("(%s & %s)", b, hexU(h.Mask))
		default:
			expr = fmt.Sprintf("(%s ^ (%s & %s))", a, b, hexU(h.Mask))
		}
	case specs.FixedXor:
		expr = fmt.Sprintf("(addr ^ %s)", u.shr(u.m))
	}
	w.f("\treturn (uint32_t)(%s & %s);\n}\n", expr, u.bankMask())
}

func (u *unit) writeBitXor(w *writer) {
	u.writeFuncHead(w, "uint32_t", "bank", "The bank of word address addr, one bank bit a line.")
	if u.allZero() {
		writeConstZero(w)
		return
	}
	w.line("\tuint32_t bank = 0;")
	w.line("")
	w.WriteString(u.maskAddr())
	for b, r := range u.rows {
		shift := ""
		if b > 0 {
			shift = fmt.Sprintf(" << %d", b)
		}
		var terms []int
		for x := r; x != 0; x &= x - 1 {
			terms = append(terms, bits.TrailingZeros64(x))
		}
		switch len(terms) {
		case 0:
			w.f("\t/* bank[%d] = 0 */\n", b)
		case 1:
			w.f("\tbank |= (uint32_t)(%s & 1u)%s;\n", u.shr(terms[0]), shift)
		case 2:
			w.f("\tbank |= (uint32_t)((%s ^ %s) & 1u)%s;\n", u.shr(terms[0]), u.shr(terms[1]), shift)
		default:
			w.f("\tbank |= lsugen_parity64(addr & %s)%s;\n", u64(r), shift)
		}
	}
	w.line("\treturn bank;")
	w.line("}")
}

func (u *unit) writeAdd(w *writer) {
	u.writeFuncHead(w, "uint32_t", "bank", fmt.Sprintf(
		"The bank of word address addr. The low %d bits of addr + (addr >> %d) are\n * addr[%d:0] + addr[%d:%d] mod %d: higher bits never carry into them.",
		u.m, u.m, u.m-1, 2*u.m-1, u.m, 1<<u.m))
	w.WriteString(u.maskAddr())
	w.f("\treturn (uint32_t)((addr + (addr >> %d)) & %s);\n}\n", u.m, u.bankMask())
}

// lookup is one shift table of a rap scheme, indexed by the address
// field addr[lo+bits-1:lo].
type lookup struct {
	name     string
	vals     []int
	lo, bits int
}

func (u *unit) writeRAP(w *writer) {
	if len(u.lookups) > 0 {
		u.writeRAPScheme(w)
		return
	}
	l, wd := u.m, u.h.W
	elem := "uint8_t"
	if wd > 256 {
		elem = "uint16_t"
	}
	u.writeFuncHead(w, "uint32_t", "bank", "The bank of word address addr: row i's shift r[i] added to column j.")
	// A function-scope table: under CUDA it goes to global memory, read
	// through the L1 cache (a __constant__ one would serialise a warp whose
	// lanes read different rows), and an unused header warns about nothing.
	w.f("\t/* r[i], the shift of row i */\n\tstatic const %s r[%d] = {\n", elem, wd)
	const perLine = 16
	for i := 0; i < wd; i += perLine {
		var vals []string
		for _, v := range u.perm[i:min(i+perLine, wd)] {
			vals = append(vals, strconv.Itoa(v))
		}
		w.f("\t\t%s,\n", strings.Join(vals, ", "))
	}
	w.line("\t};")
	w.line("\tuint64_t j, i;")
	w.line("")
	w.WriteString(u.maskAddr())
	mask := hexU(uint64(wd - 1))
	w.f("\tj = addr & %s; /* column: addr[%d:0] */\n", mask, l-1)
	if row := u.shr(l); row != "" {
		w.f("\ti = %s & %s; /* row: addr[%d:%d] */\n", row, mask, 2*l-1, l)
	} else {
		w.line("\ti = 0; /* no row bits */")
	}
	w.f("\treturn (uint32_t)((j + r[i]) & %s);\n}\n\n", mask)

	u.writeFuncHead(w, "uint64_t", "addr", "The permuted address (the hardware's addr_o): addr with its low bits\n * replaced by the bank, i*w + bank with the higher bits passed through.")
	w.WriteString(u.maskAddr())
	w.f("\treturn (addr & ~%s) | %s_bank(addr);\n}\n", u64(uint64(wd-1)), u.name)
}

// writeRAPScheme writes rap R1P, 3P and RAS: column j plus the sum of
// the table lookups, mod w.
func (u *unit) writeRAPScheme(w *writer) {
	wd := u.h.W
	elem := "uint8_t"
	if wd > 256 {
		elem = "uint16_t"
	}
	u.writeFuncHead(w, "uint32_t", "bank", fmt.Sprintf("The bank of word address addr: column j plus the shifts of rap %s.", u.h.Scheme))
	written := map[string]bool{}
	for _, t := range u.lookups {
		if written[t.name] {
			continue
		}
		written[t.name] = true
		w.f("\tstatic const %s %s[%d] = {\n", elem, t.name, len(t.vals))
		const perLine = 16
		for i := 0; i < len(t.vals); i += perLine {
			var vals []string
			for _, v := range t.vals[i:min(i+perLine, len(t.vals))] {
				vals = append(vals, strconv.Itoa(v))
			}
			w.f("\t\t%s,\n", strings.Join(vals, ", "))
		}
		w.line("\t};")
	}
	w.line("\tuint64_t s = 0;")
	w.line("")
	w.WriteString(u.maskAddr())
	for _, t := range u.lookups {
		if f := u.shr(t.lo); f != "" {
			w.f("\ts += %s[%s & %s]; /* addr[%d:%d] */\n", t.name, f, hexU(uint64(len(t.vals)-1)), t.lo+t.bits-1, t.lo)
		} else {
			w.f("\ts += %s[0]; /* addr[%d:%d] lies above the address */\n", t.name, t.lo+t.bits-1, t.lo)
		}
	}
	w.f("\treturn (uint32_t)((addr + s) & %s);\n}\n\n", hexU(uint64(wd-1)))

	u.writeFuncHead(w, "uint64_t", "addr", "The permuted address (the hardware's addr_o): addr with its low bits\n * replaced by the bank, the higher bits passed through.")
	w.WriteString(u.maskAddr())
	w.f("\treturn (addr & ~%s) | %s_bank(addr);\n}\n", u64(uint64(wd-1)), u.name)
}

func (u *unit) writeMod(w *writer) {
	u.writeFuncHead(w, "uint32_t", "bank", fmt.Sprintf("The bank of word address addr: addr mod %d.", u.banks))
	w.WriteString(u.maskAddr())
	w.f("\treturn (uint32_t)(addr %% %du);\n}\n\n", u.banks)
	u.writeFuncHead(w, "uint64_t", "index", fmt.Sprintf("The word within the bank: addr / %d.", u.banks))
	w.WriteString(u.maskAddr())
	w.f("\treturn addr / %du;\n}\n", u.banks)
}

// ---------------------------------------------------------------------------
// Formatting helpers

// u64 is a 64-bit C constant in hex.
func u64(x uint64) string { return fmt.Sprintf("UINT64_C(%#x)", x) }

// hexU is an unsigned C constant in hex (promoted to uint64_t where it
// meets addr).
func hexU(x uint64) string { return fmt.Sprintf("%#xu", x) }

// xorTerms writes the address bits of mask as "addr[i] ^ addr[j]", or 0.
func xorTerms(mask uint64) string {
	if mask == 0 {
		return "0"
	}
	var terms []string
	for x := mask; x != 0; x &= x - 1 {
		terms = append(terms, fmt.Sprintf("addr[%d]", bits.TrailingZeros64(x)))
	}
	return strings.Join(terms, " ^ ")
}

func intList(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return "[" + strings.Join(s, ", ") + "]"
}

// listOf writes a bits argument as the spec does: bitwise_perm's single
// bits plain, bitwise_xor's single bit i as the pair [i, i].
func listOf(rows [][]int, pairs bool) string {
	s := make([]string, len(rows))
	for i, r := range rows {
		switch {
		case len(r) == 1 && pairs:
			s[i] = intList([]int{r[0], r[0]})
		case len(r) == 1:
			s[i] = strconv.Itoa(r[0])
		default:
			s[i] = intList(r)
		}
	}
	return "[" + strings.Join(s, ", ") + "]"
}
