package gen

import (
	"fmt"
	"math/big"
	"math/bits"
	"strings"

	"github.com/hashicorp/hcl/v2"

	nl "github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/specs"
)

// SelWidth is the width of one run-time bit selection or shift amount of a
// configurable hash over addrBits address bits: clog2(addrBits), at least 1.
func SelWidth(addrBits int) int {
	return max(1, bits.Len(uint(addrBits-1)))
}

// hashGen holds what every hash generator needs: the spec, the builder and
// the word-level view under construction.
type hashGen struct {
	h    *specs.Hash
	b    *nl.Builder
	rtl  *nl.RTL
	addr nl.Bus   // addr_i nets
	addE *nl.Expr // addr_i as a word
	m    int      // bank bits
	s    int      // selection width

	// config = "register": the clear and write enable of the
	// configuration registers, and their total width.
	rst, we nl.Bus
	cfgBits int

	// mod: the quotient for index_o.
	index  nl.Bus
	indexE *nl.Expr
}

// Hash builds the netlist and word-level view of a hash unit.
func Hash(h *specs.Hash) (*nl.Design, hcl.Diagnostics) {
	if h.Function == specs.Add || h.Function == specs.RAP {
		if d := checkChoice(h, "adder", h.Adder, h.Adder == specs.AdderRipple || h.Adder == specs.AdderCLA); d.HasErrors() {
			return nil, d
		}
	}
	if h.Function == specs.Mod && !validMod(h) {
		// The loader never produces this; a spec built in code might.
		return nil, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Invalid banks",
			Detail: fmt.Sprintf("mod needs 2 <= banks <= %d, banks <= 2^addr_bits, 1 <= addr_bits <= %d and bank_bits = clog2(banks); got banks = %d, addr_bits = %d, bank_bits = %d.",
				specs.MaxModBanks, specs.MaxAddrBits, h.Banks, h.AddrBits, h.BankBits),
			Subject: h.AttrRange("banks").Ptr(),
		}}
	}
	if h.Function == specs.RAP && h.Scheme != "" && h.Scheme != specs.RAP1P {
		if problem := rapSchemeProblem(h); problem != "" {
			// The loader never produces this; a spec built in code might.
			return nil, hcl.Diagnostics{{
				Severity: hcl.DiagError,
				Summary:  "Invalid rap scheme",
				Detail:   fmt.Sprintf("rap %s: %s.", h.Scheme, problem),
				Subject:  h.AttrRange("scheme").Ptr(),
			}}
		}
	}
	if h.Function == specs.IPoly && !validMatrix(h) {
		return nil, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Invalid polynomial",
			Detail:   fmt.Sprintf("ipoly needs the loader's XOR matrix: one row per bank bit (bank_bits = %d) of address bits below addr_bits = %d; got %d rows.", h.BankBits, h.AddrBits, len(h.Bits)),
			Subject:  h.AttrRange("polynomial").Ptr(),
		}}
	}
	g := &hashGen{h: h, b: nl.NewBuilder(h.Name), rtl: &nl.RTL{}, m: h.BankBits, s: SelWidth(h.AddrBits)}
	n := h.AddrBits
	if h.Registered() {
		g.b.Clock("clk", "clock; the configuration registers load at its rising edge")
		g.rst = g.b.Input("rst", 1, "synchronous reset, active high: clears the configuration to zeros")
		g.we = g.b.Input("cfg_we_i", 1, "1: the configuration registers load the cfg_* inputs at the rising edge")
	}
	g.addr = g.b.Input("addr_i", n, "word address")
	g.addE = nl.Ref("addr_i", n)

	var bank nl.Bus
	var bankE *nl.Expr
	switch h.Function {
	case specs.BitvectorPerm:
		bank, bankE = g.bitvectorPerm()
	case specs.BitvectorXor:
		bank, bankE = g.bitvectorXor()
	case specs.BitwisePerm:
		bank, bankE = g.bitwisePerm()
	case specs.BitwiseXor:
		bank, bankE = g.bitwiseXor()
	case specs.XorMatrix, specs.IPoly:
		// The loader gives ipoly its XOR matrix: bank bit b is the XOR of
		// the address bits i whose residue x^i mod P(x) has bit b set.
		bank, bankE = g.xorMatrix()
	case specs.Mod:
		bank, bankE = g.mod()
	case specs.FixedXor:
		bank, bankE = g.fixedXor()
	case specs.Add:
		bank, bankE = g.add()
	case specs.RAP:
		bank, bankE = g.rap()
	default:
		return nil, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Unsupported hash function",
			Detail:   fmt.Sprintf("No generator for hash function %q.", h.Function),
			Subject:  h.AttrRange("function").Ptr(),
		}}
	}
	g.b.Output("bank_o", bank, "bank index")
	g.rtl.Assigns = append(g.rtl.Assigns, nl.Assign{Name: "bank_o", Expr: bankE})
	if h.Function == specs.RAP {
		g.rapAddrOut(bank)
	}
	if h.Function == specs.Mod {
		g.b.Output("index_o", g.index, fmt.Sprintf("word within the bank: addr_i / %d", h.Banks))
		g.rtl.Assigns = append(g.rtl.Assigns, nl.Assign{Name: "index_o", Expr: g.indexE})
	}
	g.b.Header(g.header()...)
	if h.Registered() {
		g.b.SetStorage(nl.Storage{Name: "configuration registers", Bits: g.cfgBits, Doc: "loaded from the cfg_* inputs when cfg_we_i is 1"})
	}
	g.b.SetRTL(g.rtl)
	d, err := g.b.Build()
	if err != nil {
		return nil, internalError(h, err)
	}
	return d, nil
}

// cfgInput declares a configuration input port and returns the
// configuration the datapath uses: the port itself, or with config =
// "register" the register it loads (NAME_q for the port NAME_i).
func (g *hashGen) cfgInput(name string, width int, doc string) (nl.Bus, *nl.Expr) {
	in := g.b.Input(name, width, doc)
	if !g.h.Registered() {
		return in, nl.Ref(name, width)
	}
	reg := strings.TrimSuffix(name, "_i") + "_q"
	q := g.b.Reg(reg, width)
	g.b.NextClear(q, g.b.MuxBus(g.we[0], q, in), g.rst[0])
	g.rtl.Regs = append(g.rtl.Regs, nl.Reg{Name: reg, Width: width,
		Clear: nl.Ref("rst", 1),
		Next:  nl.MuxE(nl.Ref("cfg_we_i", 1), nl.Ref(name, width), nl.Ref(reg, width)),
		Doc:   "registered " + name + ": " + doc})
	g.cfgBits += width
	return q, nl.Ref(reg, width)
}

// param declares a localparam of the word-level view.
func (g *hashGen) param(name string, width int, v uint64, doc string) *nl.Expr {
	g.rtl.Params = append(g.rtl.Params, nl.Param{Name: name, Width: width, Value: new(big.Int).SetUint64(v), Doc: doc})
	return nl.Ref(name, width)
}

func (g *hashGen) wire(name string, e *nl.Expr, doc string) *nl.Expr {
	return addWire(g.rtl, name, e, doc)
}

// addWire declares a local wire of a word-level view and returns it.
func addWire(r *nl.RTL, name string, e *nl.Expr, doc string) *nl.Expr {
	r.Assigns = append(r.Assigns, nl.Assign{Name: name, Wire: true, Expr: e, Doc: doc})
	return nl.Ref(name, e.W)
}

// field returns field i of a packed bus of w-bit fields (field 0 lowest).
func field(bus nl.Bus, i, w int) nl.Bus { return bus[i*w : (i+1)*w] }

func fieldE(e *nl.Expr, i, w int) *nl.Expr { return nl.Slice(e, i*w+w-1, i*w) }

// low returns bits [w-1:0] of a word, as a slice only when narrower.
func low(e *nl.Expr, w int) *nl.Expr {
	if e.W == w {
		return e
	}
	return nl.Slice(e, w-1, 0)
}

// shifted returns addr >> k for a constant k, as m nets (zero fill).
func (g *hashGen) shifted(k int) nl.Bus {
	out := make(nl.Bus, g.m)
	for i := range out {
		out[i] = nl.Const0
		if k+i < len(g.addr) {
			out[i] = g.addr[k+i]
		}
	}
	return out
}

func (g *hashGen) bitvectorPerm() (nl.Bus, *nl.Expr) {
	if g.h.Configurable {
		k, kE := g.cfgInput("cfg_k_i", g.s, "shift amount k (addresses are shifted right by k, zero fill)")
		sh := shiftRight(g.b, g.addr, k)
		g.b.Name("addr_shr_k", sh)
		shE := g.wire("addr_shr_k", nl.ShrE(g.addE, kE), "address shifted right by k")
		return sh[:g.m], low(shE, g.m)
	}
	k := g.h.K
	return g.shifted(k), nl.Slice(g.addE, k+g.m-1, k)
}

func (g *hashGen) bitvectorXor() (nl.Bus, *nl.Expr) {
	var sh1, sh2, mask nl.Bus
	var k1E, k2E, maskE *nl.Expr
	if g.h.Configurable {
		var k1, k2 nl.Bus
		k1, k1E = g.cfgInput("cfg_k1_i", g.s, "shift amount k1 of the first vector")
		k2, k2E = g.cfgInput("cfg_k2_i", g.s, "shift amount k2 of the second vector")
		mask, maskE = g.cfgInput("cfg_mask_i", g.m, "mask applied to the second vector")
		sh1 = shiftRight(g.b, g.addr, k1)[:g.m]
		sh2 = shiftRight(g.b, g.addr, k2)[:g.m]
	} else {
		k1E = g.param("K1", g.s, uint64(g.h.K1), "shift of the first vector")
		k2E = g.param("K2", g.s, uint64(g.h.K2), "shift of the second vector")
		maskE = g.param("MASK", g.m, g.h.Mask, "bits of the second vector that are XORed in")
		sh1, sh2 = g.shifted(g.h.K1), g.shifted(g.h.K2)
		mask = nl.Const(g.h.Mask, g.m)
	}
	g.b.Name("addr_shr_k1", sh1)
	g.b.Name("addr_shr_k2", sh2)
	bank := make(nl.Bus, g.m)
	for i := range bank {
		bank[i] = g.b.Xor(sh1[i], g.b.And(sh2[i], mask[i]))
	}
	s1 := g.wire("addr_shr_k1", nl.ShrE(g.addE, k1E), "address shifted right by k1")
	s2 := g.wire("addr_shr_k2", nl.ShrE(g.addE, k2E), "address shifted right by k2")
	return bank, nl.XorE(low(s1, g.m), nl.AndE(low(s2, g.m), maskE))
}

// padded returns the address zero-extended to 2^s bits, so that every
// run-time selection reads a defined bit (selections >= addr_bits read 0).
func (g *hashGen) padded() (nl.Bus, *nl.Expr) {
	n, full := len(g.addr), 1<<g.s
	bus := append(append(nl.Bus(nil), g.addr...), nl.Const(0, full-n)...)
	if full == n {
		return bus, g.addE
	}
	e := g.wire("addr_pad", nl.Concat(g.addE, nl.ConstExpr(0, full-n)),
		fmt.Sprintf("address zero-extended to %d bits: selections >= %d read 0", full, n))
	return bus, e
}

func (g *hashGen) bitwisePerm() (nl.Bus, *nl.Expr) {
	if g.h.Configurable {
		sel, selE := g.cfgInput("cfg_sel_i", g.m*g.s, fmt.Sprintf("%d fields of %d bits; field b selects the address bit of bank bit b", g.m, g.s))
		pad, padE := g.padded()
		bank := make(nl.Bus, g.m)
		parts := make([]*nl.Expr, g.m)
		for i := range bank {
			bank[i] = g.b.Select(field(sel, i, g.s), pad)
			parts[i] = nl.BitAt(padE, fieldE(selE, i, g.s))
		}
		return bank, nl.Concat(parts...)
	}
	bank := make(nl.Bus, g.m)
	parts := make([]*nl.Expr, g.m)
	for i, row := range g.h.Bits {
		bank[i] = g.addr[row[0]]
		parts[i] = nl.Slice(g.addE, row[0], row[0])
	}
	return bank, nl.Concat(parts...)
}

func (g *hashGen) bitwiseXor() (nl.Bus, *nl.Expr) {
	if !g.h.Configurable {
		return g.xorMatrix()
	}
	doc := fmt.Sprintf("%d fields of %d bits; field b selects one address bit of bank bit b", g.m, g.s)
	selA, selAE := g.cfgInput("cfg_sel_a_i", g.m*g.s, doc)
	selB, selBE := g.cfgInput("cfg_sel_b_i", g.m*g.s, doc+" (equal to cfg_sel_a_i's field: the single bit)")
	pad, padE := g.padded()
	bank := make(nl.Bus, g.m)
	bitA, bitB, same := make([]*nl.Expr, g.m), make([]*nl.Expr, g.m), make([]*nl.Expr, g.m)
	for i := range bank {
		fa, fb := field(selA, i, g.s), field(selB, i, g.s)
		a, c := g.b.Select(fa, pad), g.b.Select(fb, pad)
		// Equal selections name the single bit a, not a ^ a = 0.
		bank[i] = g.b.Xor(a, g.b.And(c, g.b.Not(g.b.Equal(fa, fb))))
		faE, fbE := fieldE(selAE, i, g.s), fieldE(selBE, i, g.s)
		bitA[i], bitB[i], same[i] = nl.BitAt(padE, faE), nl.BitAt(padE, fbE), nl.EqE(faE, fbE)
	}
	a := g.wire("bit_a", nl.Concat(bitA...), "address bits selected by cfg_sel_a_i")
	c := g.wire("bit_b", nl.Concat(bitB...), "address bits selected by cfg_sel_b_i")
	s := g.wire("same_sel", nl.Concat(same...), "1 where both selections name the same bit")
	return bank, nl.XorE(a, nl.AndE(c, nl.NotE(s)))
}

// xorMatrix serves xor_matrix and constant bitwise_xor: bank bit b is the
// XOR of the address bits listed in Bits[b].
func (g *hashGen) xorMatrix() (nl.Bus, *nl.Expr) {
	bank := make(nl.Bus, g.m)
	parts := make([]*nl.Expr, g.m)
	for i, row := range g.h.Bits {
		nets := make(nl.Bus, len(row))
		terms := make([]*nl.Expr, len(row))
		for j, a := range row {
			nets[j] = g.addr[a]
			terms[j] = nl.Slice(g.addE, a, a)
		}
		bank[i] = g.b.XorAll(nets...)
		switch len(terms) {
		case 0:
			parts[i] = nl.ConstExpr(0, 1)
		case 1:
			parts[i] = terms[0]
		default:
			parts[i] = nl.XorE(terms...)
		}
	}
	return bank, nl.Concat(parts...)
}

func (g *hashGen) fixedXor() (nl.Bus, *nl.Expr) {
	m := g.m
	bank := make(nl.Bus, m)
	for i := range bank {
		bank[i] = g.b.Xor(g.addr[i], g.addr[m+i])
	}
	return bank, nl.XorE(nl.Slice(g.addE, m-1, 0), nl.Slice(g.addE, 2*m-1, m))
}

func (g *hashGen) add() (nl.Bus, *nl.Expr) {
	m := g.m
	bank := g.adder(g.addr[:m], g.addr[m:2*m])
	return bank, nl.AddE(nl.Slice(g.addE, m-1, 0), nl.Slice(g.addE, 2*m-1, m))
}

func (g *hashGen) adder(a, c nl.Bus) nl.Bus { return addWith(g.b, g.h.Adder, a, c, nl.Const0) }

// rap is 004's permute-shift: bank = (column + r[row]) mod w.
func (g *hashGen) rap() (nl.Bus, *nl.Expr) {
	w, l := g.h.W, g.m
	col, row := g.addr[:l], g.addr[l:2*l]
	colE := g.wire("col", nl.Slice(g.addE, l-1, 0), "column j: the low log2(w) address bits")
	rowE := g.wire("row", nl.Slice(g.addE, 2*l-1, l), "row i: the next log2(w) address bits")
	if s := g.h.Scheme; s != "" && s != specs.RAP1P {
		shift, shiftE := g.rapSchemeShift()
		bank := g.adder(col, shift)
		return bank, nl.AddE(colE, shiftE)
	}
	var permE *nl.Expr
	shift := make(nl.Bus, l)
	if g.h.Configurable {
		var perm nl.Bus
		perm, permE = g.cfgInput("cfg_perm_i", w*l, fmt.Sprintf("%d fields of %d bits; field i is the shift r_i of row i", w, l))
		for t := range shift {
			column := make(nl.Bus, w)
			for i := range column {
				column[i] = perm[i*l+t]
			}
			shift[t] = g.b.Select(row, column)
		}
	} else {
		v := new(big.Int)
		for i := w - 1; i >= 0; i-- {
			v.Lsh(v, uint(l))
			v.Or(v, big.NewInt(int64(g.h.Permutation[i])))
		}
		g.rtl.Params = append(g.rtl.Params, nl.Param{Name: "PERM", Width: w * l, Value: v,
			Doc: fmt.Sprintf("permutation r: field i (%d bits, field 0 lowest) is the shift of row i", l)})
		permE = nl.Ref("PERM", w*l)
		// The table r as logic: each shift bit is a function of the row.
		for t := range shift {
			column := make(nl.Bus, w)
			for i := range column {
				column[i] = nl.Const(uint64(g.h.Permutation[i]>>t&1), 1)[0]
			}
			shift[t] = g.b.Select(row, column)
		}
	}
	g.b.Name("shift", shift)
	shiftE := g.wire("shift", nl.PartAt(permE, rowE, l), "r[row]")
	bank := g.adder(col, shift)
	return bank, nl.AddE(colE, shiftE)
}

// rapTable is one shift table of a rap scheme: the address field that
// indexes it (lo and width in bits) and its entries.
type rapTable struct {
	param     string
	lo, width int
	values    []int
	doc       string
}

// rapSchemeShift builds the shift of R1P, 3P and RAS: the sum, mod w, of
// table lookups indexed by the address fields above the column.
func (g *hashGen) rapSchemeShift() (nl.Bus, *nl.Expr) {
	h, l := g.h, g.m
	var tables []rapTable
	switch h.Scheme {
	case specs.RAPR1P:
		for f, name := range []string{"k", "j", "i"} {
			tables = append(tables, rapTable{"PERM", (f + 1) * l, l, h.Permutation, name})
		}
	case specs.RAP3P:
		for f, name := range []string{"k", "j", "i"} {
			tables = append(tables, rapTable{fmt.Sprintf("PERM%d", f), (f + 1) * l, l, h.Permutations[f], name})
		}
	case specs.RAPRAS:
		b := bits.TrailingZeros(uint(len(h.Shifts)))
		tables = append(tables, rapTable{"SHIFTS", l, b, h.Shifts, "x"})
	}
	declared := map[string]bool{}
	var sum nl.Bus
	var sumE *nl.Expr
	for _, t := range tables {
		idx := g.addr[t.lo : t.lo+t.width]
		idxE := g.wire("field_"+t.doc, nl.Slice(g.addE, t.lo+t.width-1, t.lo), fmt.Sprintf("address field %s = addr_i[%d:%d]", t.doc, t.lo+t.width-1, t.lo))
		// The table as logic: each shift bit is a function of the field.
		term := make(nl.Bus, l)
		for b := range term {
			column := make(nl.Bus, len(t.values))
			for x := range column {
				column[x] = nl.Const(uint64(t.values[x]>>b&1), 1)[0]
			}
			term[b] = g.b.Select(idx, column)
		}
		termE := g.tableLookup(t, idxE, declared)
		if len(tables) > 1 { // a single table's lookup is the shift itself
			g.b.Name("shift_"+t.doc, term)
			termE = g.wire("shift_"+t.doc, termE, fmt.Sprintf("%s[%s]", t.param, t.doc))
		}
		if sum == nil {
			sum, sumE = term, termE
			continue
		}
		sum, sumE = g.adder(sum, term), nl.AddE(sumE, termE)
	}
	g.b.Name("shift", sum)
	return sum, g.wire("shift", sumE, "the row's shift, mod w")
}

// tableLookup is the RTL's lookup of table t at entry idxE, declaring the
// table's parameters the first time (declared). A table wider than a line
// is one parameter per bit of its entries (bit b of entry x is bit x of
// PARAM_Bb), read with one-bit indexes: a part select at a variable
// offset (PARAM[x * l +: l]) is a barrel shifter across the whole table
// to Yosys (the 8^4 RAS unit's 1,536-bit table: 43 s to read for its
// proof, against 6 s), and the gates are this lookup, bit by bit. A
// narrower table stays one packed parameter.
func (g *hashGen) tableLookup(t rapTable, idxE *nl.Expr, declared map[string]bool) *nl.Expr {
	l, n := g.m, len(t.values)
	first := !declared[t.param]
	declared[t.param] = true
	if n*l <= planeTableBits {
		if first {
			g.rtl.Params = append(g.rtl.Params, nl.Param{Name: t.param, Width: n * l, Value: packTable(t.values, 0, l),
				Doc: fmt.Sprintf("shift table: field x (%d bits, field 0 lowest) is the shift of address field value x", l)})
		}
		return nl.PartAt(nl.Ref(t.param, n*l), idxE, l)
	}
	bits := make([]*nl.Expr, l)
	for b := range bits {
		name := fmt.Sprintf("%s_B%d", t.param, b)
		if first {
			g.rtl.Params = append(g.rtl.Params, nl.Param{Name: name, Width: n, Value: packTable(t.values, b, 1),
				Doc: fmt.Sprintf("bit x is bit %d of the %d-bit shift of address field value x", b, l)})
		}
		bits[b] = nl.BitAt(nl.Ref(name, n), idxE)
	}
	return nl.Concat(bits...)
}

// planeTableBits is the widest shift table written as one packed
// parameter: one 256-bit line of the RTL.
const planeTableBits = 256

// packTable packs w bits of each table entry from bit lo, entry 0 lowest.
func packTable(values []int, lo, w int) *big.Int {
	v := new(big.Int)
	for x := len(values) - 1; x >= 0; x-- {
		v.Lsh(v, uint(w))
		v.Or(v, big.NewInt(int64(values[x]>>lo&(1<<w-1))))
	}
	return v
}

// rapAddrOut adds addr_o = row*w + bank, with higher bits passed through.
func (g *hashGen) rapAddrOut(bank nl.Bus) {
	l, n := g.m, g.h.AddrBits
	out := append(append(nl.Bus(nil), bank...), g.addr[l:]...)
	g.b.Output("addr_o", out, "remapped address: row*w + bank (bits above the matrix pass through)")
	g.rtl.Assigns = append(g.rtl.Assigns, nl.Assign{Name: "addr_o",
		Expr: nl.Concat(nl.Ref("bank_o", l), nl.Slice(g.addE, n-1, l))})
}

// header documents the unit's function, configuration and protocol.
func (g *hashGen) header() []string {
	h := g.h
	m := h.BankBits
	lines := []string{fmt.Sprintf("Bank-index hash, function %s, %d address bits, %d bank bits.", h.Function, h.AddrBits, m)}
	kind := "constant"
	switch {
	case h.Registered():
		kind = "configurable, in registers: at a rising edge of clk with cfg_we_i = 1\n" +
			"they load the cfg_* inputs; rst (synchronous, active high) clears them to zeros.\n" +
			"The outputs use the registered configuration, the one loaded at an earlier edge,\n" +
			"so a cycle that writes still hashes with the old one"
	case h.Configurable:
		kind = "configurable: the configuration arrives on the cfg_* inputs"
	}
	lines = append(lines, strings.Split("Configuration: "+kind+".", "\n")...)
	switch h.Function {
	case specs.BitvectorPerm:
		lines = append(lines, "bank_o = (addr_i >> k)[bank_bits-1:0], zero fill.")
		if !h.Configurable {
			lines = append(lines, fmt.Sprintf("k = %d", h.K))
		}
	case specs.BitvectorXor:
		lines = append(lines, "bank_o = ((addr_i >> k1) ^ ((addr_i >> k2) & mask))[bank_bits-1:0], zero fill.")
		if !h.Configurable {
			lines = append(lines, fmt.Sprintf("k1 = %d, k2 = %d, mask = %d", h.K1, h.K2, h.Mask))
		}
	case specs.BitwisePerm, specs.BitwiseXor, specs.XorMatrix:
		if h.Configurable {
			if h.Function == specs.BitwisePerm {
				lines = append(lines, "bank_o[b] = addr_i[sel[b]]; a selection >= addr_bits reads 0.")
			} else {
				lines = append(lines, "bank_o[b] = addr_i[sel_a[b]] ^ addr_i[sel_b[b]], or addr_i[sel_a[b]] when the selections are equal;",
					"a selection >= addr_bits reads 0.")
			}
			lines = append(lines, fmt.Sprintf("Selection fields are %d bits wide, field 0 in the least significant bits.", g.s))
		} else {
			lines = append(lines, "bank_o[b] = XOR of the address bits listed for b:")
			lines = append(lines, xorRows(h.Bits)...)
		}
	case specs.IPoly:
		lines = append(lines, fmt.Sprintf("IPOLY: bank_o = addr_i(x) mod P(x) over GF(2), P(x) = %s;", specs.PolynomialString(h.Polynomial)),
			"address bit i is the coefficient of x^i, so bank_o[b] is the XOR of the address",
			"bits i whose residue x^i mod P(x) has bit b set:")
		lines = append(lines, xorRows(h.Bits)...)
	case specs.Mod:
		p := newModPlan(h.AddrBits, h.Banks)
		lines = append(lines, fmt.Sprintf("bank_o = addr_i mod %d (%d bits), index_o = addr_i / %d (%d bits): the word within the bank.",
			h.Banks, m, h.Banks, p.quoBits))
		lines = append(lines, p.describe(h.Banks, m)...)
	case specs.FixedXor:
		lines = append(lines, fmt.Sprintf("bank_o = addr_i[%d:0] ^ addr_i[%d:%d]", m-1, 2*m-1, m))
	case specs.Add:
		lines = append(lines, fmt.Sprintf("bank_o = (addr_i[%d:0] + addr_i[%d:%d]) mod 2^%d, %s adder", m-1, 2*m-1, m, m, h.Adder))
	case specs.RAP:
		l := m
		if h.Scheme != "" && h.Scheme != specs.RAP1P {
			lines = append(lines, g.rapSchemeHeader()...)
			break
		}
		lines = append(lines, fmt.Sprintf("Random address permute-shift for a %dx%d matrix: row i = addr_i[%d:%d], column j = addr_i[%d:0],", h.W, h.W, 2*l-1, l, l-1),
			fmt.Sprintf("bank_o = (j + r_i) mod %d (%s adder); addr_o = i*%d + bank_o, higher address bits passed through.", h.W, h.Adder, h.W))
		if !h.Configurable {
			src := "given in the spec"
			if h.HasSeed {
				src = fmt.Sprintf("drawn from seed %d", h.Seed)
			}
			lines = append(lines, fmt.Sprintf("r (%s), row 0 first:", src))
			lines = append(lines, intRows(h.Permutation, 16)...)
		} else {
			lines = append(lines, fmt.Sprintf("r_i is field i of cfg_perm_i (%d bits each, field 0 lowest), used as given.", l))
		}
	}
	if h.Registered() {
		outs := "bank_o is"
		if h.Function == specs.RAP {
			outs = "bank_o and addr_o are"
		}
		lines = append(lines, "Protocol: clocked by clk; "+outs+" combinational in addr_i and the",
			"registered configuration, which the formulas above read.")
	} else {
		lines = append(lines, "Protocol: combinational; outputs follow the inputs, no clock, no reset.")
	}
	return lines
}

// validMatrix reports whether an ipoly unit carries a usable XOR matrix.
func validMatrix(h *specs.Hash) bool {
	if h.BankBits < 1 || len(h.Bits) != h.BankBits || h.AddrBits < 1 {
		return false
	}
	for _, row := range h.Bits {
		for _, a := range row {
			if a < 0 || a >= h.AddrBits {
				return false
			}
		}
	}
	return true
}

// xorRows lists an XOR matrix, one bank bit a line.
func xorRows(rows [][]int) []string {
	lines := make([]string, len(rows))
	for b, row := range rows {
		terms := make([]string, len(row))
		for j, a := range row {
			terms[j] = fmt.Sprintf("addr_i[%d]", a)
		}
		if len(terms) == 0 {
			terms = []string{"0"}
		}
		lines[b] = fmt.Sprintf("  bank_o[%d] = %s", b, strings.Join(terms, " ^ "))
	}
	return lines
}

// intRows prints v as indented comma-separated rows of perRow values.
func intRows(v []int, perRow int) []string {
	var rows []string
	for lo := 0; lo < len(v); lo += perRow {
		s := make([]string, 0, perRow)
		for _, x := range v[lo:min(lo+perRow, len(v))] {
			s = append(s, fmt.Sprint(x))
		}
		rows = append(rows, "  "+strings.Join(s, ", "))
	}
	return rows
}

// rapSchemeHeader documents an R1P, 3P or RAS rap unit.
func (g *hashGen) rapSchemeHeader() []string {
	h, l := g.h, g.m
	field := func(f int) string { return fmt.Sprintf("addr_i[%d:%d]", (f+1)*l-1, f*l) }
	technique := "permute-shift"
	if h.Scheme == specs.RAPRAS {
		technique = "shift" // independent shifts, no permutation
	}
	lines := []string{fmt.Sprintf("Random address %s (004_* section VII), w = %d: column j = %s, k = %s,", technique, h.W, field(0), field(1))}
	src := "given in the spec"
	if h.HasSeed {
		src = fmt.Sprintf("drawn from seed %d", h.Seed)
	}
	switch h.Scheme {
	case specs.RAPR1P:
		lines = append(lines, fmt.Sprintf("j' = %s, i = %s; R1P: bank_o = (j + r[k] + r[j'] + r[i]) mod %d (%s adders).", field(2), field(3), h.W, h.Adder),
			fmt.Sprintf("r (%s), entry 0 first:", src))
		lines = append(lines, intRows(h.Permutation, 16)...)
	case specs.RAP3P:
		lines = append(lines, fmt.Sprintf("j' = %s, i = %s; 3P: bank_o = (j + r0[k] + r1[j'] + r2[i]) mod %d (%s adders).", field(2), field(3), h.W, h.Adder),
			fmt.Sprintf("r0, r1, r2 (%s), entry 0 first:", src))
		for p, perm := range h.Permutations {
			lines = append(lines, fmt.Sprintf(" r%d:", p))
			lines = append(lines, intRows(perm, 16)...)
		}
	case specs.RAPRAS:
		b := bits.TrailingZeros(uint(len(h.Shifts)))
		lines = append(lines, fmt.Sprintf("RAS: x = addr_i[%d:%d], bank_o = (j + shifts[x]) mod %d (%s adder).", l+b-1, l, h.W, h.Adder),
			fmt.Sprintf("shifts (%d independent numbers, %s), entry 0 first:", len(h.Shifts), src))
		lines = append(lines, intRows(h.Shifts, 16)...)
	}
	return append(lines, "addr_o = addr_i with its column replaced by bank_o (the higher bits pass through).")
}

// rapSchemeProblem says what is wrong with an R1P, 3P or RAS unit's sizes
// and tables, or "" when the generator can build it.
func rapSchemeProblem(h *specs.Hash) string {
	w, l := h.W, h.BankBits
	if w < 2 || w&(w-1) != 0 || w > specs.MaxRAPWidth || 1<<l != w {
		return fmt.Sprintf("w = %d and bank_bits = %d, want a power of two 2..%d and its log2", w, l, specs.MaxRAPWidth)
	}
	inRange := func(vals []int) bool {
		for _, v := range vals {
			if v < 0 || v >= w {
				return false
			}
		}
		return true
	}
	switch h.Scheme {
	case specs.RAPR1P, specs.RAP3P:
		if h.Configurable || h.AddrBits < 4*l {
			return fmt.Sprintf("needs a constant unit of at least %d address bits", 4*l)
		}
		tables := h.Permutations
		if h.Scheme == specs.RAPR1P {
			tables = [][]int{h.Permutation}
		} else if len(tables) != 3 {
			return fmt.Sprintf("%d permutations, want 3", len(tables))
		}
		for _, t := range tables {
			if len(t) != w || !inRange(t) {
				return fmt.Sprintf("a table of %d entries, want w = %d in 0..%d", len(t), w, w-1)
			}
		}
	case specs.RAPRAS:
		n := len(h.Shifts)
		if h.Configurable || n < 2 || n&(n-1) != 0 || n > specs.MaxRASRows || !inRange(h.Shifts) || h.AddrBits < l+bits.TrailingZeros(uint(n)) {
			return fmt.Sprintf("a constant table of a power of two 2..%d shifts in 0..%d, read from the address bits above the column, is needed; got %d shifts", specs.MaxRASRows, w-1, n)
		}
	default:
		return "unknown scheme, want 1P, R1P, 3P or RAS"
	}
	return ""
}
