package specs

import (
	"fmt"
	"math/big"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// hashDoc introduces the hash block in the spec reference.
const hashDoc = `A bank-index hash (000_*, 002_*, 004_*): a combinational unit that maps a
word address to a bank. NAME is the Verilog module and file name.

Ports: ` + "`addr_i [n-1:0]`" + ` in, ` + "`bank_o [m-1:0]`" + ` out; rap also ` + "`addr_o [n-1:0]`" + `, mod
also ` + "`index_o`" + ` (addr / banks, as many bits as the largest quotient needs).
Configurable units add configuration ports, with S = clog2(n) (at least 1)
and field 0 in the least significant bits: bitvector_perm ` + "`cfg_k_i [S-1:0]`" + `;
bitvector_xor ` + "`cfg_k1_i`, `cfg_k2_i [S-1:0]`, `cfg_mask_i [m-1:0]`" + `; bitwise_perm
` + "`cfg_sel_i [m*S-1:0]`" + ` (field b selects the address bit of bank bit b);
bitwise_xor ` + "`cfg_sel_a_i`, `cfg_sel_b_i [m*S-1:0]`" + ` (equal selections mean the
single bit); rap ` + "`cfg_perm_i [w*L-1:0]`" + ` (field i is r_i). Shifts fill with zeros
and a selection at or above n reads 0.

With ` + "`config = \"register\"`" + ` the configuration lives in registers and the
unit is clocked: inputs ` + "`clk`" + `, ` + "`rst`" + ` (synchronous, active high: clears the
configuration to zeros), ` + "`cfg_we_i`" + ` and the same ` + "`cfg_*`" + ` ports. At a rising
edge with ` + "`cfg_we_i`" + ` = 1 the registers load the ` + "`cfg_*`" + ` inputs; the outputs are
combinational in ` + "`addr_i`" + ` and the registered configuration (loaded at an earlier
edge), so a cycle that writes still hashes with the old one.

rap: row i = addr[2L-1:L], column j = addr[L-1:0] (L = log2 w); bank = (j +
r_i) mod w; ` + "`addr_o`" + ` = i*w + bank with higher bits passed through. Its
scheme (004_* §VII) extends it to larger arrays: R1P and 3P add the shifts of
the fields k, j' and i above the column (one permutation thrice, or three),
RAS looks the shift up in a table of independent numbers; bank = (j + shift)
mod w and ` + "`addr_o`" + ` = the address with its column replaced by bank, always.

ipoly: bank = addr(x) mod P(x) over GF(2), address bit i the coefficient of
x^i; bank bit b is the XOR of the address bits i whose residue x^i mod P(x)
has bit b set (an XOR matrix, built like xor_matrix). mod: bank = addr mod
banks, index = addr / banks; for banks = 2^k * q the low k address bits pass
through to the bank's low bits, and addr >> k is divided by q: by folding
m-bit chunks with end-around carry when q = 2^m - 1; by folding by 2^m - 1
and dividing the m-bit residue when q divides 2^m - 1 for an m <= 16 (5, 9,
17, ...); else by long division by the constant, or beyond 12 serial
stages by a residue sum and an exact multiplication by the inverse of q
([hash functions](hash-functions.md)).

Warnings flag hashes that cannot reach every bank (duplicate or linearly
dependent bank bits) and ipoly polynomials that are reducible.`

// hashAttrs lists every argument of a hash block; which of them a
// function accepts is checked by hashArgs.
var hashAttrs = []Attr{
	{Name: "function", Required: true, Type: "string", Doc: "`bitvector_perm`, `bitvector_xor`, `bitwise_perm`, `bitwise_xor`, `xor_matrix`, `fixed_xor` (bank = addr[m-1:0] ^ addr[2m-1:m], 2m <= n), `add` (bank = (addr[m-1:0] + addr[2m-1:m]) mod 2^m), `rap` (random address permute-shift), `ipoly` (bank = addr(x) mod P(x) over GF(2)) or `mod` (bank = addr mod banks, any bank count)."},
	{Name: "addr_bits", Type: "number", Doc: "Word-address width n, 1..64. Required but for rap, where it defaults to 2*log2(w); bits above pass through to `addr_o`."},
	{Name: "bank_bits", Type: "number", Doc: "Bank-index width m, 1..16, m <= n. Every function but rap (whose bank index is log2(w) bits), ipoly (the degree of P) and mod (clog2(banks))."},
	{Name: "configurable", Type: "bool", Doc: "bitvector_*, bitwise_*, rap: take the configuration on `cfg_*` ports at run time instead of the constant arguments (default false)."},
	{Name: "config", Type: "string", Doc: "Configurable units: `ports` (default: the configuration on the `cfg_*` inputs every cycle, combinational) or `register` (clocked: `clk`, synchronous active-high `rst` clearing the configuration to zeros, and `cfg_we_i`; at a rising edge with `cfg_we_i` = 1 the configuration registers load the `cfg_*` inputs, which the outputs then use from the next cycle on, as a kernel launch sets it)."},
	{Name: "k", Type: "number", Doc: "bitvector_perm: bank = addr[k+m-1:k]; k + m <= n."},
	{Name: "k1", Type: "number", Doc: "bitvector_xor: bank = ((addr >> k1) ^ ((addr >> k2) & mask)) mod 2^m; k1 + m <= n."},
	{Name: "k2", Type: "number", Doc: "bitvector_xor: the second shift, k2 < n."},
	{Name: "mask", Type: "number", Doc: "bitvector_xor: which bits of addr >> k2 are XORed in, mask < 2^m."},
	{Name: "bits", Type: "list", Doc: "bitwise_perm: m address-bit indices, element b gives bank bit b. bitwise_xor: m pairs `[i, j]`, bank bit b = addr[i] ^ addr[j] (`[i, i]` is the single bit i). xor_matrix: m lists, bank bit b = XOR of the listed address bits (fixed and IPOLY hashes)."},
	{Name: "adder", Type: "string", Doc: "add, rap: `ripple` (default) or `cla` (hierarchical 4-bit carry lookahead)."},
	{Name: "w", Type: "number", Doc: "rap: matrix width, a power of two, 2..1024."},
	{Name: "permutation", Type: "list", Doc: "rap 1P and R1P: the row shifts r_i, a permutation of 0..w-1 (or give seed)."},
	{Name: "seed", Type: "number", Doc: "rap: a seed to draw the permutation (3P: three, one after the other; RAS: the shifts, uniform in 0..w-1) from; the same seed always gives the same table, and 1P, R1P and 3P's first permutation are the same for one seed."},
	{Name: "scheme", Type: "string", Doc: "rap: how the shift of the column j = addr[L-1:0] is found from the fields above it, k = addr[2L-1:L], j' = addr[3L-1:2L], i = addr[4L-1:3L] (L = log2 w; 004_* §VII): `1P` (default) r[k]; `R1P` r[i] + r[j'] + r[k]; `3P` r2[i] + r1[j'] + r0[k], three permutations; `RAS` shifts[addr[L+log2(rows)-1:L]], a table of independent numbers (the random address shift). R1P and 3P need addr_bits >= 4L (default 4L); only 1P is configurable."},
	{Name: "permutations", Type: "list", Doc: "rap 3P: three permutations of 0..w-1, [r0, r1, r2], shifting by k, j' and i (or give seed)."},
	{Name: "shifts", Type: "list", Doc: "rap RAS: the shift table, a power-of-two number (rows, 2..4096) of values in 0..w-1, repeats allowed; entry x shifts the addresses whose bits above the column are x (or give seed and rows)."},
	{Name: "rows", Type: "number", Doc: "rap RAS with seed: the entries of the shift table, a power of two 2..4096 (default w: one per row of a w x w matrix; w^3 for a w^4 array); addr_bits defaults to log2(w) + log2(rows)."},
	{Name: "polynomial", Type: "list", Doc: "ipoly: P(x) as the list of its exponents, e.g. `[5, 2, 0]` for x^5 + x^2 + 1 (any order; stored highest first). Degree 1..16 and <= addr_bits; it is bank_bits. The constant term 0 is required: without it x divides P and bank bit 0 is always address bit 0. A reducible P is accepted with a warning (strides sharing a factor with P conflict); GPGPU-Sim's IPOLY uses x^4+x+1, x^5+x^2+1 and x^6+x+1."},
	{Name: "banks", Type: "number", Doc: "mod: the bank count, 2..1024 and <= 2^addr_bits. `bank_o` = addr mod banks (clog2(banks) bits), `index_o` = addr / banks (the word within the bank, wide enough for every quotient)."},
	clockingAttrs[0], clockingAttrs[1], clockingAttrs[2],
	pipelineAttr,
}

var hashBlockSchema = schemaOf(hashAttrs)

// hashArgs lists the arguments each function accepts besides function,
// addr_bits and configurable.
var hashArgs = map[HashFunction][]string{
	BitvectorPerm: {"bank_bits", "k"},
	BitvectorXor:  {"bank_bits", "k1", "k2", "mask"},
	BitwisePerm:   {"bank_bits", "bits"},
	BitwiseXor:    {"bank_bits", "bits"},
	XorMatrix:     {"bank_bits", "bits"},
	FixedXor:      {"bank_bits"},
	Add:           {"bank_bits", "adder"},
	RAP:           {"w", "adder", "permutation", "seed", "scheme", "permutations", "shifts", "rows"},
	IPoly:         {"polynomial"},
	Mod:           {"banks"},
}

// constArgs are the constant configuration arguments, which a configurable
// unit receives on ports instead.
var constArgs = map[string]bool{"k": true, "k1": true, "k2": true, "mask": true, "bits": true, "permutation": true, "seed": true, "permutations": true, "shifts": true, "rows": true}

// configurableFuncs are the functions that have a run-time configuration.
var configurableFuncs = map[HashFunction]bool{BitvectorPerm: true, BitvectorXor: true, BitwisePerm: true, BitwiseXor: true, RAP: true}

// rapSeedStream is the PCG stream used to draw a rap permutation from its
// seed ("lsugen" in ASCII), fixed so that a seed always means the same
// permutation.
const rapSeedStream = 0x6c737567656e

// decodeHashBlock decodes and validates a `hash "NAME" { ... }` block. It
// returns nil when the block has errors; warnings come with a valid Hash.
func (d *decoder) decodeHashBlock(block *hcl.Block) (*Hash, hcl.Diagnostics) {
	hd, ranges := d.newBlockDecoder(block, hashBlockSchema)
	h := &Hash{Name: block.Labels[0], Range: block.DefRange, AttrRanges: ranges}
	fn, fnOK := hd.function()
	configurable, _ := hd.bool("configurable")
	if !fnOK {
		// Still type-check the sizes so that their errors show up now too.
		hd.int("addr_bits")
		hd.int("bank_bits")
		return nil, hd.diags
	}
	h.Function = fn
	// config before the function check, so that configurable = true on a
	// function without a configuration is one error, not two.
	h.Config = hd.config(configurable)
	if configurable && !configurableFuncs[fn] {
		hd.errorf(hd.rng("configurable"), "Function not configurable",
			"Hash function %q has no configuration, so it cannot be configurable.", fn)
		configurable = false
	}
	h.Configurable = configurable
	hd.rejectArgs(fn, configurable)

	switch fn {
	case RAP:
		hd.decodeRAP(h)
	case IPoly:
		hd.decodeIPoly(h)
	case Mod:
		hd.decodeMod(h)
	default:
		sizesOK := hd.decodeSizes(h)
		switch fn {
		case BitvectorPerm:
			hd.decodeBitvectorPerm(h, sizesOK)
		case BitvectorXor:
			hd.decodeBitvectorXor(h, sizesOK)
		case BitwisePerm, BitwiseXor, XorMatrix:
			hd.decodeBits(h, sizesOK)
		case FixedXor, Add:
			if sizesOK && 2*h.BankBits > h.AddrBits {
				hd.errorf(hd.rng("bank_bits"), "Invalid bank_bits",
					"%s needs 2*bank_bits <= addr_bits, since it combines two bank_bits-wide fields of the address; bank_bits is %d and addr_bits is %d.",
					fn, h.BankBits, h.AddrBits)
			}
			if fn == Add {
				h.Adder = hd.adder()
			}
		}
	}
	h.Clocking = hd.clocking()
	if h.Registered() && h.HasClock() {
		hd.errorf(h.Clocking.Range, "Argument not allowed", "With config = \"register\" the hash is clocked already, with its own protocol; clock_fo4 pipelines combinational units only. Remove clock_fo4 or use config = \"ports\".")
	}
	if hd.failed {
		return nil, hd.diags
	}
	return h, hd.diags
}

// newBlockDecoder evaluates every argument of block under schema, in
// schema order for stable diagnostics, and checks the unit name. It
// returns the decoder and the range of each written argument.
func (d *decoder) newBlockDecoder(block *hcl.Block, schema *hcl.BodySchema) (*blockDecoder, map[string]hcl.Range) {
	content, diags := block.Body.Content(schema)
	hd := &blockDecoder{
		block: block,
		attrs: content.Attributes,
		vals:  map[string]cty.Value{},
		diags: diags,
	}
	if diags.HasErrors() {
		hd.failed = true
	}
	if problem := checkUnitName(block.Labels[0]); problem != "" {
		hd.errorf(block.LabelRanges[0], "Invalid unit name", "%s. Unit names become Verilog module and file names.", problem)
	}
	ranges := map[string]hcl.Range{}
	for _, s := range schema.Attributes {
		attr := content.Attributes[s.Name]
		if attr == nil {
			continue
		}
		ranges[s.Name] = attr.Expr.Range()
		if isReference(block.Type, s.Name) {
			continue // read as a traversal by blockDecoder.ref
		}
		val, ok, moreDiags := d.eval(attr.Expr)
		hd.diags = append(hd.diags, moreDiags...)
		if ok {
			hd.vals[s.Name] = val
		} else {
			hd.failed = true
		}
	}
	return hd, ranges
}

// blockDecoder accumulates the diagnostics of one unit block.
type blockDecoder struct {
	block  *hcl.Block
	attrs  hcl.Attributes       // written arguments still in play
	vals   map[string]cty.Value // arguments that evaluated cleanly
	diags  hcl.Diagnostics
	nerr   int  // errors reported by this decoder
	failed bool // the unit is invalid
}

func (hd *blockDecoder) errorf(rng hcl.Range, summary, format string, args ...any) {
	hd.diags = append(hd.diags, &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  summary,
		Detail:   fmt.Sprintf(format, args...),
		Subject:  rng.Ptr(),
	})
	hd.nerr++
	hd.failed = true
}

func (hd *blockDecoder) warnf(rng hcl.Range, summary, format string, args ...any) {
	hd.diags = append(hd.diags, &hcl.Diagnostic{
		Severity: hcl.DiagWarning,
		Summary:  summary,
		Detail:   fmt.Sprintf(format, args...),
		Subject:  rng.Ptr(),
	})
}

// has reports whether the argument was written (and not rejected).
func (hd *blockDecoder) has(name string) bool { return hd.attrs[name] != nil }

// rng is the range of a written argument's expression.
func (hd *blockDecoder) rng(name string) hcl.Range { return hd.attrs[name].Expr.Range() }

// value returns a written argument's value; ok is false when it is not
// written or failed to evaluate (reported already).
func (hd *blockDecoder) value(name string) (cty.Value, bool) {
	if !hd.has(name) {
		return cty.NilVal, false
	}
	v, ok := hd.vals[name]
	return v, ok
}

// missing reports a required argument that was not written.
func (hd *blockDecoder) missing(name, why string) {
	hd.errorf(hd.block.Body.MissingItemRange(), "Missing required argument",
		"The argument %q is required%s, but no definition was found.", name, why)
}

// rejectArgs reports written arguments that the function does not take, and
// constant configuration given to a configurable unit.
func (hd *blockDecoder) rejectArgs(fn HashFunction, configurable bool) {
	accepted := map[string]bool{"function": true, "addr_bits": true, "configurable": true, "config": true, "clock_fo4": true, "clock": true, "timing_mode": true, "pipeline": true}
	for _, name := range hashArgs[fn] {
		accepted[name] = true
	}
	for _, s := range hashBlockSchema.Attributes {
		name := s.Name
		if !hd.has(name) {
			continue
		}
		switch {
		case fn == RAP && name == "bank_bits":
			hd.errorf(hd.rng(name), "Argument not allowed",
				"rap does not take bank_bits: its bank index is log2(w) bits wide.")
		case fn == IPoly && name == "bank_bits":
			hd.errorf(hd.rng(name), "Argument not allowed",
				"ipoly does not take bank_bits: the bank index has as many bits as the degree of polynomial.")
		case fn == Mod && name == "bank_bits":
			hd.errorf(hd.rng(name), "Argument not allowed",
				"mod does not take bank_bits: give banks, the bank count; the bank index is clog2(banks) bits wide.")
		case !accepted[name]:
			hd.errorf(hd.rng(name), "Argument not allowed",
				"Hash function %q does not take the argument %q.", fn, name)
		case configurable && constArgs[name]:
			hd.errorf(hd.rng(name), "Argument not allowed",
				"%q is constant configuration, but this unit is configurable and takes its configuration on input ports at run time. Remove %s or set configurable = false.",
				name, name)
		default:
			continue
		}
		delete(hd.attrs, name)
	}
}

// config decodes the optional config argument (default ports), which only
// a configurable unit takes.
func (hd *blockDecoder) config(configurable bool) HashConfig {
	if !hd.has("config") {
		return ""
	}
	s, ok := hd.str("config")
	if !ok {
		return ""
	}
	modes := names(HashConfigs)
	if !oneOf(s, modes) {
		hd.errorf(hd.rng("config"), "Unsupported config",
			"%q is not a configuration mode.%s config must be %s.", s, didYouMean(s, modes), strings.Join(quoted(modes), " or "))
		return ""
	}
	if !configurable {
		hd.errorf(hd.rng("config"), "Argument not allowed",
			"config says where a configurable unit keeps its run-time configuration, but this unit is not configurable. Remove config or set configurable = true.")
		return ""
	}
	return HashConfig(s)
}

// quoted returns each string in double quotes.
func quoted(xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = fmt.Sprintf("%q", x)
	}
	return out
}

// function decodes the function argument.
func (hd *blockDecoder) function() (HashFunction, bool) {
	s, ok := hd.str("function")
	if !ok {
		return "", false
	}
	for _, fn := range HashFunctions {
		if string(fn) == s {
			return fn, true
		}
	}
	names := make([]string, len(HashFunctions))
	for i, fn := range HashFunctions {
		names[i] = string(fn)
	}
	hint := ""
	if best := closest(s, names); best != "" {
		hint = fmt.Sprintf(" Did you mean %q?", best)
	}
	hd.errorf(hd.rng("function"), "Unsupported hash function",
		"%q is not a hash function.%s The hash functions are %s.", s, hint, strings.Join(names, ", "))
	return "", false
}

// decodeSizes decodes addr_bits and bank_bits for every function but rap.
// It reports whether both are valid.
func (hd *blockDecoder) decodeSizes(h *Hash) bool {
	addr, addrOK := hd.requiredInt("addr_bits", "")
	if addrOK && (addr < 1 || addr > MaxAddrBits) {
		hd.errorf(hd.rng("addr_bits"), "Invalid addr_bits", "addr_bits must be between 1 and %d; got %d.", MaxAddrBits, addr)
		addrOK = false
	}
	bank, bankOK := hd.requiredInt("bank_bits", "")
	if bankOK && (bank < 1 || bank > MaxBankBits) {
		hd.errorf(hd.rng("bank_bits"), "Invalid bank_bits", "bank_bits must be between 1 and %d; got %d.", MaxBankBits, bank)
		bankOK = false
	}
	if addrOK && bankOK && bank > addr {
		hd.errorf(hd.rng("bank_bits"), "Invalid bank_bits", "bank_bits (%d) must not exceed addr_bits (%d).", bank, addr)
		bankOK = false
	}
	if !addrOK || !bankOK {
		return false
	}
	h.AddrBits, h.BankBits = int(addr), int(bank)
	return true
}

func (hd *blockDecoder) decodeBitvectorPerm(h *Hash, sizesOK bool) {
	if h.Configurable {
		return
	}
	k, ok := hd.requiredInt("k", " unless the unit is configurable")
	switch {
	case !ok:
	case k < 0:
		hd.errorf(hd.rng("k"), "Invalid k", "k must not be negative; got %d.", k)
	case sizesOK && k > int64(h.AddrBits-h.BankBits):
		hd.errorf(hd.rng("k"), "Invalid k",
			"The bank index is address bits k to k+bank_bits-1, so k + bank_bits must not exceed addr_bits (%d); k is %d and bank_bits is %d.",
			h.AddrBits, k, h.BankBits)
	default:
		h.K = int(k)
	}
}

func (hd *blockDecoder) decodeBitvectorXor(h *Hash, sizesOK bool) {
	if h.Configurable {
		return
	}
	start := hd.nerr
	k1, ok1 := hd.requiredInt("k1", " unless the unit is configurable")
	switch {
	case !ok1:
	case k1 < 0:
		hd.errorf(hd.rng("k1"), "Invalid k1", "k1 must not be negative; got %d.", k1)
	case sizesOK && k1 > int64(h.AddrBits-h.BankBits):
		hd.errorf(hd.rng("k1"), "Invalid k1",
			"k1 + bank_bits must not exceed addr_bits (%d); k1 is %d and bank_bits is %d.", h.AddrBits, k1, h.BankBits)
	}
	k2, ok2 := hd.requiredInt("k2", " unless the unit is configurable")
	switch {
	case !ok2:
	case k2 < 0:
		hd.errorf(hd.rng("k2"), "Invalid k2", "k2 must not be negative; got %d.", k2)
	case sizesOK && k2 >= int64(h.AddrBits):
		hd.errorf(hd.rng("k2"), "Invalid k2", "k2 must be below addr_bits (%d); got %d.", h.AddrBits, k2)
	}
	mask, ok3 := hd.requiredInt("mask", " unless the unit is configurable")
	switch {
	case !ok3:
	case mask < 0:
		hd.errorf(hd.rng("mask"), "Invalid mask", "mask must not be negative; got %d.", mask)
	case sizesOK && mask >= int64(1)<<h.BankBits:
		hd.errorf(hd.rng("mask"), "Invalid mask",
			"mask selects bank bits, so it must be below 2^bank_bits = %d; got %d.", int64(1)<<h.BankBits, mask)
	}
	if !sizesOK || !ok1 || !ok2 || !ok3 || hd.nerr != start {
		return
	}
	h.K1, h.K2, h.Mask = int(k1), int(k2), uint64(mask)
	if k1 == k2 && mask != 0 {
		hd.warnf(hd.rng("k2"), "Bits cancel out",
			"k1 and k2 are both %d, so each bank bit selected by mask (%#x) is an address bit XORed with itself: it is always 0 and some banks are never used.",
			k1, mask)
	}
	// Mask bits whose source bit k2+b lies above the address select zeros.
	if over := int(k2) + h.BankBits - h.AddrBits; over > 0 {
		dead := h.Mask &^ (uint64(1)<<(h.BankBits-over) - 1)
		if dead != 0 {
			hd.warnf(hd.rng("mask"), "Mask selects missing address bits",
				"mask bits %#x select address bits k2+b >= addr_bits (%d), which do not exist and read as 0.", dead, h.AddrBits)
		}
	}
}

// decodeBits decodes the bits argument of bitwise_perm, bitwise_xor and
// xor_matrix, and warns when the bank bits are linearly dependent.
func (hd *blockDecoder) decodeBits(h *Hash, sizesOK bool) {
	if h.Configurable {
		return
	}
	v, ok := hd.requiredValue("bits", " unless the unit is configurable")
	if !ok {
		return
	}
	rng := hd.rng("bits")
	rowVals, ok := hd.list(v, rng, "bits", MaxBankBits)
	if !ok {
		return
	}
	start := hd.nerr
	if sizesOK && len(rowVals) != h.BankBits {
		hd.errorf(rng, "Wrong number of bank bits",
			"bits needs one entry per bank bit: bank_bits is %d, but bits has %d entries.", h.BankBits, len(rowVals))
	}
	addrLimit := MaxAddrBits
	if sizesOK {
		addrLimit = h.AddrBits
	}
	rowExprs := elemExprs(hd.attrs["bits"].Expr, len(rowVals))
	rows := make([][]int, len(rowVals))
	for b, rv := range rowVals {
		what := fmt.Sprintf("bits[%d]", b)
		rowRng := rowExprs[b].Range()
		switch h.Function {
		case BitwisePerm:
			if i, ok := hd.bitIndex(rv, rowRng, what, addrLimit); ok {
				rows[b] = []int{i}
			}
		case BitwiseXor:
			pair, ok := hd.list(rv, rowRng, what, MaxXorTerms)
			if !ok {
				continue
			}
			if len(pair) != 2 {
				hd.errorf(rowRng, "Invalid bit pair", "%s must be a pair [i, j] of address bits; write [i, i] for the single bit i.", what)
				continue
			}
			exprs := elemExprs(rowExprs[b], 2)
			i, ok1 := hd.bitIndex(pair[0], exprs[0].Range(), what+"[0]", addrLimit)
			j, ok2 := hd.bitIndex(pair[1], exprs[1].Range(), what+"[1]", addrLimit)
			switch {
			case !ok1 || !ok2:
			case i == j:
				rows[b] = []int{i}
			default:
				rows[b] = []int{i, j}
			}
		case XorMatrix:
			terms, ok := hd.list(rv, rowRng, what, MaxXorTerms)
			if !ok {
				continue
			}
			exprs := elemExprs(rowExprs[b], len(terms))
			row := make([]int, 0, len(terms))
			var seen uint64
			for t, tv := range terms {
				i, ok := hd.bitIndex(tv, exprs[t].Range(), fmt.Sprintf("%s[%d]", what, t), addrLimit)
				if !ok {
					continue
				}
				if seen&(1<<i) != 0 {
					hd.errorf(exprs[t].Range(), "Repeated address bit",
						"Address bit %d appears twice in %s; XORing a bit with itself cancels it, so list each bit at most once.", i, what)
					continue
				}
				seen |= 1 << i
				row = append(row, i)
			}
			rows[b] = row
		}
	}
	if !sizesOK || hd.nerr != start {
		return
	}
	h.Bits = rows
	masks := make([]uint64, len(rows))
	for b, row := range rows {
		for _, i := range row {
			masks[b] ^= 1 << i
		}
	}
	if dep, earlier, rank := dependentRow(masks); dep >= 0 {
		var why string
		switch len(earlier) {
		case 0:
			why = fmt.Sprintf("bank bit %d is always 0", dep)
		case 1:
			why = fmt.Sprintf("bank bit %d always equals bank bit %d", dep, earlier[0])
		default:
			why = fmt.Sprintf("bank bit %d is always the XOR of bank bits %s", dep, joinInts(earlier))
		}
		hd.warnf(rowExprs[dep].Range(), "Hash is not surjective",
			"The bank bits are not independent: %s, so only %d of the %d banks are ever used.",
			why, 1<<rank, 1<<len(rows))
	}
}

// dependentRow does Gaussian elimination over GF(2) on the rows (address
// bit masks, one per bank bit). It returns the first row that is the XOR of
// earlier rows (-1 if none), those earlier rows, and the rank.
func dependentRow(rows []uint64) (dep int, earlier []int, rank int) {
	dep = -1
	var pivots [64]struct{ bits, combo uint64 } // by highest set bit; combo: rows XORed in
	for r, row := range rows {
		v, combo := row, uint64(1)<<r
		for v != 0 {
			p := 63 - bits.LeadingZeros64(v)
			if pivots[p].bits == 0 {
				pivots[p].bits, pivots[p].combo = v, combo
				rank++
				break
			}
			v ^= pivots[p].bits
			combo ^= pivots[p].combo
		}
		if v == 0 && dep < 0 {
			dep = r
			for e := 0; e < r; e++ {
				if combo&(1<<e) != 0 {
					earlier = append(earlier, e)
				}
			}
		}
	}
	return dep, earlier, rank
}

// decodeRAP decodes a rap unit: w, scheme, addr_bits (default: the bits
// the scheme reads), adder and the shift tables.
func (hd *blockDecoder) decodeRAP(h *Hash) {
	w, wOK := hd.requiredInt("w", " for rap")
	if wOK && (w < 2 || w > MaxRAPWidth || w&(w-1) != 0) {
		hd.errorf(hd.rng("w"), "Invalid w", "w must be a power of two between 2 and %d; got %d.", MaxRAPWidth, w)
		wOK = false
	}
	scheme := hd.rapScheme(h)
	if hd.has("scheme") {
		h.Scheme = scheme // unwritten stays empty, which means 1P
	}
	// rows: the entries of RAS's table (w unless shifts or rows say).
	rows, rowsOK := int64(w), wOK
	if hd.has("rows") {
		rows, rowsOK = hd.int("rows")
		if rowsOK && (rows < 2 || rows > MaxRASRows || rows&(rows-1) != 0) {
			hd.errorf(hd.rng("rows"), "Invalid rows", "rows must be a power of two between 2 and %d; got %d.", MaxRASRows, rows)
			rowsOK = false
		}
	}
	if wOK {
		h.W = int(w)
		h.BankBits = bits.TrailingZeros64(uint64(w))
		switch scheme {
		case RAPR1P, RAP3P:
			h.AddrBits = 4 * h.BankBits
		default:
			h.AddrBits = 2 * h.BankBits
		}
	}
	if addr, ok := hd.int("addr_bits"); ok {
		switch {
		case addr < 1 || addr > MaxAddrBits:
			hd.errorf(hd.rng("addr_bits"), "Invalid addr_bits", "addr_bits must be between 1 and %d; got %d.", MaxAddrBits, addr)
		case wOK && addr < int64(h.AddrBits):
			hd.errorf(hd.rng("addr_bits"), "Invalid addr_bits",
				"rap %s with w = %d uses the low %d address bits, so addr_bits must be at least %d; got %d.",
				scheme, w, h.AddrBits, h.AddrBits, addr)
		default:
			h.AddrBits = int(addr)
		}
	}
	h.Adder = hd.adder()
	if h.Configurable {
		return
	}
	tables := map[RAPScheme]string{RAP1P: "permutation", RAPR1P: "permutation", RAP3P: "permutations", RAPRAS: "shifts"}
	table := tables[scheme]
	switch {
	case hd.has(table) && hd.has("seed"):
		hd.errorf(hd.rng("seed"), "Conflicting arguments",
			"%s and seed both define the shifts of rap %s; give only one of them.", table, scheme)
	case hd.has("seed"):
		seed, ok := hd.int("seed")
		if ok && wOK && rowsOK {
			r := rand.New(rand.NewPCG(uint64(seed), rapSeedStream))
			h.Seed, h.HasSeed = seed, true
			switch scheme {
			case RAP3P:
				h.Permutations = [][]int{r.Perm(h.W), r.Perm(h.W), r.Perm(h.W)}
			case RAPRAS:
				h.Shifts = make([]int, rows)
				for x := range h.Shifts {
					h.Shifts[x] = r.IntN(h.W)
				}
			default:
				h.Permutation = r.Perm(h.W)
			}
		}
	case hd.has(table):
		switch scheme {
		case RAP3P:
			hd.decodePermutations(h, wOK)
		case RAPRAS:
			hd.decodeShifts(h, wOK)
		default:
			if v, ok := hd.value("permutation"); ok {
				h.Permutation = hd.decodePermutation(v, hd.rng("permutation"), hd.attrs["permutation"].Expr, "permutation", h.W, wOK)
			}
		}
	default:
		hd.missing(table, fmt.Sprintf(" (or seed) for rap %s unless the unit is configurable", scheme))
	}
	if scheme == RAPRAS && h.Shifts != nil && hd.has("rows") && rowsOK && int64(len(h.Shifts)) != rows {
		hd.errorf(hd.rng("rows"), "Conflicting arguments", "rows is %d but shifts has %d entries; give one of them.", rows, len(h.Shifts))
	}
	if scheme == RAPRAS && wOK && len(h.Shifts) > 0 {
		need := h.BankBits + bits.TrailingZeros(uint(len(h.Shifts)))
		if h.AddrBits < need {
			if hd.has("addr_bits") {
				hd.errorf(hd.rng("addr_bits"), "Invalid addr_bits",
					"rap RAS with w = %d and a table of %d entries reads the low %d address bits, so addr_bits must be at least %d; got %d.",
					w, len(h.Shifts), need, need, h.AddrBits)
			} else {
				h.AddrBits = need
			}
		}
	}
}

// rapScheme decodes scheme (default 1P) and refuses the arguments the
// scheme does not take.
func (hd *blockDecoder) rapScheme(h *Hash) RAPScheme {
	scheme := RAP1P
	if hd.has("scheme") {
		s, ok := hd.str("scheme")
		if !ok {
			return RAP1P
		}
		all := names(RAPSchemes)
		if !oneOf(s, all) {
			hd.errorf(hd.rng("scheme"), "Unsupported scheme", "%q is not a rap scheme.%s scheme must be %s.", s, didYouMean(s, all), strings.Join(quoted(all), ", "))
			return RAP1P
		}
		scheme = RAPScheme(s)
	}
	if h.Configurable && scheme != RAP1P {
		hd.errorf(hd.rng("scheme"), "Scheme not configurable",
			"A configurable rap is 1P: cfg_perm_i gives the shift of each row, used as given (so it serves RAS on a w×w matrix too). rap %s is constant only; set configurable = false.", scheme)
	}
	takes := map[string][]RAPScheme{"permutation": {RAP1P, RAPR1P}, "permutations": {RAP3P}, "shifts": {RAPRAS}, "rows": {RAPRAS}}
	for _, arg := range []string{"permutation", "permutations", "shifts", "rows"} {
		if hd.has(arg) && !slices.Contains(takes[arg], scheme) {
			hd.errorf(hd.rng(arg), "Argument not allowed", "rap %s does not take %s (it is for %s).", scheme, arg, strings.Join(names(takes[arg]), " and "))
			delete(hd.attrs, arg)
		}
	}
	return scheme
}

// decodePermutations decodes 3P's three permutations.
func (hd *blockDecoder) decodePermutations(h *Hash, wOK bool) {
	v, ok := hd.value("permutations")
	if !ok {
		return
	}
	rng := hd.rng("permutations")
	lists, ok := hd.list(v, rng, "permutations", 3)
	if !ok {
		return
	}
	if len(lists) != 3 {
		hd.errorf(rng, "Invalid permutations", "rap 3P takes three permutations (shifting by address fields k, j and i); got %d.", len(lists))
		return
	}
	exprs := elemExprs(hd.attrs["permutations"].Expr, 3)
	start := hd.nerr
	perms := make([][]int, 3)
	for p, lv := range lists {
		perms[p] = hd.decodePermutation(lv, exprs[p].Range(), exprs[p], fmt.Sprintf("permutations[%d]", p), h.W, wOK)
	}
	if hd.nerr == start && wOK {
		h.Permutations = perms
	}
}

// decodeShifts decodes RAS's table: a power-of-two number of values in
// [0, w).
func (hd *blockDecoder) decodeShifts(h *Hash, wOK bool) {
	v, ok := hd.value("shifts")
	if !ok {
		return
	}
	rng := hd.rng("shifts")
	elems, ok := hd.list(v, rng, "shifts", MaxRASRows)
	if !ok {
		return
	}
	start := hd.nerr
	if n := len(elems); n < 2 || n&(n-1) != 0 {
		hd.errorf(rng, "Invalid shifts", "shifts must have a power-of-two number of entries, 2 to %d (one per value of the address bits above the column); got %d.", MaxRASRows, n)
	}
	limit := int64(MaxRAPWidth)
	if wOK {
		limit = int64(h.W)
	}
	exprs := elemExprs(hd.attrs["shifts"].Expr, len(elems))
	out := make([]int, len(elems))
	for x, ev := range elems {
		what := fmt.Sprintf("shifts[%d]", x)
		n, ok := hd.toInt(ev, exprs[x].Range(), what)
		if !ok {
			continue
		}
		if n < 0 || n >= limit {
			hd.errorf(exprs[x].Range(), "Invalid shifts", "%s is %d, but a shift is 0 to %d.", what, n, limit-1)
			continue
		}
		out[x] = int(n)
	}
	if wOK && hd.nerr == start {
		h.Shifts = out
	}
}

// decodePermutation checks that the list v (the argument what, written as
// expr at rng) holds every value in [0, w) exactly once, and returns it
// (nil after an error).
func (hd *blockDecoder) decodePermutation(v cty.Value, rng hcl.Range, expr hcl.Expression, what string, w int, wOK bool) []int {
	elems, ok := hd.list(v, rng, what, MaxRAPWidth)
	if !ok {
		return nil
	}
	start := hd.nerr
	if wOK && len(elems) != w {
		hd.errorf(rng, "Invalid permutation", "%s must have w = %d entries; got %d.", what, w, len(elems))
	}
	limit := int64(MaxRAPWidth)
	if wOK {
		limit = int64(w)
	}
	exprs := elemExprs(expr, len(elems))
	perm := make([]int, len(elems))
	for i, ev := range elems {
		elem := fmt.Sprintf("%s[%d]", what, i)
		x, ok := hd.toInt(ev, exprs[i].Range(), elem)
		if !ok {
			continue
		}
		if x < 0 || x >= limit {
			hd.errorf(exprs[i].Range(), "Invalid permutation", "%s is %d, but rows are numbered 0 to %d.", elem, x, limit-1)
			continue
		}
		perm[i] = int(x)
	}
	if !wOK || hd.nerr != start {
		return nil
	}
	// All entries are in range and there are w of them: a repeated value
	// means another one is missing.
	first := make([]int, w)
	for i := range first {
		first[i] = -1
	}
	for i, x := range perm {
		if first[x] >= 0 {
			hd.errorf(exprs[i].Range(), "Invalid permutation",
				"Value %d appears twice (%s[%d] and %s[%d]), so value %d never appears; %s must list every value in [0, %d) exactly once.",
				x, what, first[x], what, i, firstMissing(perm, w), what, w)
			return nil
		}
		first[x] = i
	}
	return perm
}

// firstMissing returns the smallest value in [0, w) not in perm.
func firstMissing(perm []int, w int) int {
	present := make([]bool, w)
	for _, x := range perm {
		present[x] = true
	}
	for x, ok := range present {
		if !ok {
			return x
		}
	}
	return w
}

// adder decodes the optional adder argument (default ripple).
func (hd *blockDecoder) adder() Adder {
	if !hd.has("adder") {
		return AdderRipple
	}
	s, ok := hd.str("adder")
	if !ok {
		return ""
	}
	if a := Adder(s); a != AdderRipple && a != AdderCLA {
		hd.errorf(hd.rng("adder"), "Unsupported adder", "adder must be %q or %q; got %q.", AdderRipple, AdderCLA, s)
		return ""
	}
	return Adder(s)
}

// requiredValue returns a required argument's value, reporting it missing.
func (hd *blockDecoder) requiredValue(name, why string) (cty.Value, bool) {
	if !hd.has(name) {
		hd.missing(name, why)
		return cty.NilVal, false
	}
	return hd.value(name)
}

// requiredInt decodes a required whole-number argument.
func (hd *blockDecoder) requiredInt(name, why string) (int64, bool) {
	if !hd.has(name) {
		hd.missing(name, why)
		return 0, false
	}
	return hd.int(name)
}

// int decodes an optional whole-number argument.
func (hd *blockDecoder) int(name string) (int64, bool) {
	v, ok := hd.value(name)
	if !ok {
		return 0, false
	}
	return hd.toInt(v, hd.rng(name), name)
}

// toInt checks that v is a whole number that fits in int64; what names it
// in messages.
func (hd *blockDecoder) toInt(v cty.Value, rng hcl.Range, what string) (int64, bool) {
	if v.IsNull() || v.Type() != cty.Number {
		hd.errorf(rng, "Incorrect attribute value type", "%s must be a number; got %s.", what, typeName(v))
		return 0, false
	}
	f := v.AsBigFloat()
	if !f.IsInt() {
		hd.errorf(rng, "Not a whole number", "%s must be a whole number; got %s.", what, formatNumber(v))
		return 0, false
	}
	i, acc := f.Int64()
	if acc != big.Exact {
		hd.errorf(rng, "Number out of range", "%s must fit in a 64-bit signed integer; got %s.", what, formatNumber(v))
		return 0, false
	}
	return i, true
}

// bitIndex decodes an address bit index, which must be below limit.
func (hd *blockDecoder) bitIndex(v cty.Value, rng hcl.Range, what string, limit int) (int, bool) {
	i, ok := hd.toInt(v, rng, what)
	if !ok {
		return 0, false
	}
	if i < 0 || i >= int64(limit) {
		hd.errorf(rng, "Invalid bit index", "%s is %d, but address bits are numbered 0 to %d.", what, i, limit-1)
		return 0, false
	}
	return int(i), true
}

// bool decodes an optional bool argument (default false).
func (hd *blockDecoder) bool(name string) (bool, bool) {
	v, ok := hd.value(name)
	if !ok {
		return false, false
	}
	if v.IsNull() || v.Type() != cty.Bool {
		hd.errorf(hd.rng(name), "Incorrect attribute value type", "%s must be true or false; got %s.", name, typeName(v))
		return false, false
	}
	return v.True(), true
}

// str decodes a string argument.
func (hd *blockDecoder) str(name string) (string, bool) {
	v, ok := hd.value(name)
	if !ok {
		return "", false
	}
	if v.IsNull() || v.Type() != cty.String {
		hd.errorf(hd.rng(name), "Incorrect attribute value type", "%s must be a string; got %s.", name, typeName(v))
		return "", false
	}
	return v.AsString(), true
}

// list checks that v is a list or tuple of at most maxLen elements and
// returns them. The length is checked before touching the elements.
func (hd *blockDecoder) list(v cty.Value, rng hcl.Range, what string, maxLen int) ([]cty.Value, bool) {
	ty := v.Type()
	if v.IsNull() || !(ty.IsListType() || ty.IsTupleType()) {
		hd.errorf(rng, "Incorrect attribute value type", "%s must be a list; got %s.", what, typeName(v))
		return nil, false
	}
	if n := v.LengthInt(); n > maxLen {
		hd.errorf(rng, "List too long", "%s has %d elements; at most %d are allowed.", what, n, maxLen)
		return nil, false
	}
	return v.AsValueSlice(), true
}

// elemExprs returns the expressions of the n elements of a list literal,
// so that diagnostics can point at one element. When expr is not such a
// literal (a for expression, a local, a function call) every element gets
// expr itself.
func elemExprs(expr hcl.Expression, n int) []hcl.Expression {
	if exprs, diags := hcl.ExprList(expr); !diags.HasErrors() && len(exprs) == n {
		return exprs
	}
	exprs := make([]hcl.Expression, n)
	for i := range exprs {
		exprs[i] = expr
	}
	return exprs
}

func typeName(v cty.Value) string {
	if v.IsNull() {
		return "null"
	}
	return v.Type().FriendlyName()
}

// joinInts lists numbers as "1, 2 and 3".
func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

// closest returns the candidate nearest to s by edit distance, if it is
// close enough to be a likely typo.
func closest(s string, candidates []string) string {
	if len(s) > 64 {
		return "" // no hash function name is that long; skip the quadratic work
	}
	best, bestDist := "", 4
	for _, c := range candidates {
		if d := EditDistance(s, c); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

// EditDistance is the edit distance of a and b in which swapping two
// adjacent characters is one edit, as inserting, deleting or replacing
// one is (the optimal string alignment distance): the "did you mean"
// suggestions of the loader and of the command line, where a typed
// "uint" is "unit", not "quiet".
func EditDistance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
