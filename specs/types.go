// The package documentation is in loader.go.

package specs

import "github.com/hashicorp/hcl/v2"

// Unit is one decoded unit block of any family (hash, and later others).
type Unit interface {
	// UnitName is the block label; it is also the Verilog module name.
	UnitName() string
	// UnitKind is the block type, e.g. "hash".
	UnitKind() string
	// Variant says which member of the family the unit is, e.g.
	// "bitvector_xor, configurable".
	Variant() string
	// DeclRange is the range of the block header, for diagnostics.
	DeclRange() hcl.Range
}

// File is the result of loading one or more spec files.
type File struct {
	Units []Unit // in source order, files in the order given
	// Patterns are the `pattern` blocks: access patterns for analysis,
	// not hardware, so gen, timing and verify never see them.
	Patterns []*Pattern
}

// HashFunction names a bank-index hash family.
type HashFunction string

const (
	BitvectorPerm HashFunction = "bitvector_perm" // bank = addr[k+m-1:k]
	BitvectorXor  HashFunction = "bitvector_xor"  // bank = (addr>>k1) ^ ((addr>>k2) & mask)
	BitwisePerm   HashFunction = "bitwise_perm"   // bank bit b = addr[bits[b]]
	BitwiseXor    HashFunction = "bitwise_xor"    // bank bit b = addr[i] ^ addr[j]
	XorMatrix     HashFunction = "xor_matrix"     // bank bit b = XOR of listed addr bits
	FixedXor      HashFunction = "fixed_xor"      // addr[m-1:0] ^ addr[2m-1:m]
	Add           HashFunction = "add"            // addr[m-1:0] + addr[2m-1:m] mod 2^m
	RAP           HashFunction = "rap"            // random address permute-shift
	IPoly         HashFunction = "ipoly"          // addr(x) mod P(x) over GF(2)
	Mod           HashFunction = "mod"            // addr mod banks, any bank count
)

// HashFunctions lists every hash function in documentation order.
var HashFunctions = []HashFunction{BitvectorPerm, BitvectorXor, BitwisePerm, BitwiseXor, XorMatrix, FixedXor, Add, RAP, IPoly, Mod}

// HashConfig says where a configurable hash keeps its configuration.
type HashConfig string

// Configuration modes of a configurable hash; the empty value means
// ConfigPorts.
const (
	ConfigPorts    = HashConfig("ports")    // cfg_* inputs, combinational
	ConfigRegister = HashConfig("register") // registers written through cfg_we_i
)

// HashConfigs lists the configuration modes in documentation order.
var HashConfigs = []HashConfig{ConfigPorts, ConfigRegister}

// Registered reports whether the unit is configurable with config =
// "register": clocked, its configuration held in registers.
func (h *Hash) Registered() bool { return h.Configurable && h.Config == ConfigRegister }

// Adder names an adder architecture. The loader accepts only the
// constants below, and generators refuse any other value, so an unknown
// name never falls back to one of them.
type Adder string

// Adder architectures: AdderRipple and AdderCLA for the add hash and the
// rap column adder; all four for the subtractors of the monotonicity
// detector.
const (
	AdderRipple = Adder("ripple")
	AdderCLA    = Adder("cla") // a tree of 4-bit lookahead units
	// AdderCLA4 is 003_*'s subtractor: 4-bit carry-lookahead blocks
	// composed into 8, 16 and 32 bits and a 33rd, the carry passed from
	// block to block.
	AdderCLA4   = Adder("cla4")
	AdderPrefix = Adder("prefix") // parallel prefix (Sklansky)
)

// Valid reports whether a is one of the adder architectures.
func (a Adder) Valid() bool {
	switch a {
	case AdderRipple, AdderCLA, AdderCLA4, AdderPrefix:
		return true
	}
	return false
}

// Hash is a decoded `hash "NAME" { ... }` block.
//
// Fields that do not apply to Function are zero. For configurable units the
// constant configuration fields (K, K1, K2, Mask, Bits, Permutation) are
// unused: the configuration arrives on input ports at run time.
type Hash struct {
	Name         string
	Function     HashFunction
	AddrBits     int
	BankBits     int // for rap: log2(W)
	Configurable bool
	// Config is where a configurable unit keeps its configuration:
	// ConfigPorts (the cfg_* inputs, every cycle) or ConfigRegister
	// (registers loaded from the cfg_* inputs when cfg_we_i is 1). The
	// empty value, which the loader stores when config is not written,
	// means ConfigPorts.
	Config HashConfig

	K    int    // bitvector_perm
	K1   int    // bitvector_xor
	K2   int    // bitvector_xor
	Mask uint64 // bitvector_xor, < 2^BankBits

	// Bits, one entry per bank bit b (entry 0 = bank bit 0): the address
	// bits XORed into bank bit b. bitwise_perm entries have one element;
	// bitwise_xor entries have two distinct elements, or one where the spec
	// wrote [i, i]; xor_matrix entries have any number (none means 0).
	Bits [][]int

	Adder Adder // add, rap: AdderRipple or AdderCLA

	W           int   // rap: matrix width, a power of two
	Permutation []int // rap 1P, R1P: r_i for row i; derived from Seed when given

	// Scheme is rap's shift (004_* §VII); empty (scheme not written)
	// means RAP1P. Below, L = log2(W) and the address fields
	// above the column j = addr[L-1:0] are k = addr[2L-1:L],
	// j' = addr[3L-1:2L] and i = addr[4L-1:3L].
	Scheme RAPScheme
	// Permutations are 3P's three permutations: element 0 shifts by k,
	// 1 by j', 2 by i (the paper's t_k, s_j and r_i).
	Permutations [][]int
	// Shifts is RAS's table: entry x (0..W-1, repeats allowed) shifts the
	// addresses whose bits addr[L+log2(len)-1:L] are x.
	Shifts []int

	Seed    int64 // rap: seed the permutation(s) or shifts were drawn from
	HasSeed bool  // rap: Permutation, Permutations or Shifts came from Seed

	// Polynomial is ipoly's P(x) as its exponents, highest first
	// ([5, 2, 0] is x^5 + x^2 + 1); BankBits is its degree.
	Polynomial []int
	// Banks is mod's bank count, any from 2 to 1024 (bank_o = addr mod
	// Banks, index_o = addr / Banks); BankBits is clog2(Banks).
	Banks int

	// Clocking pipelines the unit at clock_fo4 when set.
	Clocking

	Range      hcl.Range            // the block header
	AttrRanges map[string]hcl.Range // attribute name -> range of its expression
}

func (h *Hash) UnitName() string     { return h.Name }
func (h *Hash) UnitKind() string     { return "hash" }
func (h *Hash) DeclRange() hcl.Range { return h.Range }

func (h *Hash) Variant() string {
	if h.Function == RAP && h.Scheme != "" && h.Scheme != RAP1P {
		return string(h.Function) + ", " + string(h.Scheme)
	}
	if h.Registered() {
		return string(h.Function) + ", configurable, register"
	}
	if h.Configurable {
		return string(h.Function) + ", configurable"
	}
	return string(h.Function)
}

// AttrRange returns the range of the named attribute, or the block header
// when the attribute was not written.
func (h *Hash) AttrRange(name string) hcl.Range {
	if r, ok := h.AttrRanges[name]; ok {
		return r
	}
	return h.Range
}

// RAPScheme names how a rap unit computes a row's shift from the address
// bits above the column (004_* §VII, for arrays larger than w×w).
type RAPScheme string

const (
	RAP1P  = RAPScheme("1P")  // r[k]: one permutation (the w×w matrix's RAP)
	RAPR1P = RAPScheme("R1P") // r[i] + r[j'] + r[k]: one permutation, used three times
	RAP3P  = RAPScheme("3P")  // r2[i] + r1[j'] + r0[k]: three permutations
	RAPRAS = RAPScheme("RAS") // shifts[addr above the column]: independent numbers, no permutation
)

// RAPSchemes lists the rap schemes in documentation order.
var RAPSchemes = []RAPScheme{RAP1P, RAPR1P, RAP3P, RAPRAS}

// Limits on sizes, checked before any work starts.
const (
	MaxAddrBits = 64   // address width of a hash unit
	MaxBankBits = 16   // bank index width
	MaxRAPWidth = 1024 // rap matrix width w
	MaxRASRows  = 4096 // entries of a rap RAS shift table
	MaxXorTerms = 64   // address bits listed in one xor_matrix row
)
