package rtl

import (
	"bytes"
	"fmt"
	"math/big"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/verilog"

	"github.com/lsugen/lsugen/netlist"
)

var testInfo = Info{Version: "lsugen 0.1.0", Source: "specs/test.hcl:12"}

// vec holds port values by name.
type vec map[string]uint64

// testDesign is a hand-built design with a Go model of its function.
type testDesign struct {
	d     *netlist.Design
	model func(in vec) vec
	vecs  []vec
}

func mask(w int) uint64 {
	if w >= 64 {
		return ^uint64(0)
	}
	return 1<<w - 1
}

// ---------------------------------------------------------------------------
// Gate-level helpers.

// shr is a logical barrel shifter a >> k (k a bus) from MUX2 levels.
func shr(b *netlist.Builder, a, k netlist.Bus) netlist.Bus {
	for s, sel := range k {
		sh := make(netlist.Bus, len(a))
		for i := range sh {
			if j := i + 1<<s; j < len(a) {
				sh[i] = a[j]
			} else {
				sh[i] = netlist.Const0
			}
		}
		a = b.MuxBus(sel, a, sh)
	}
	return a
}

// shrConst is a >> c as wiring.
func shrConst(a netlist.Bus, c int) netlist.Bus {
	out := make(netlist.Bus, len(a))
	for i := range out {
		if i+c < len(a) {
			out[i] = a[i+c]
		} else {
			out[i] = netlist.Const0
		}
	}
	return out
}

// add is a ripple-carry adder truncated to len(a).
func add(b *netlist.Builder, a, c netlist.Bus) netlist.Bus {
	out := make(netlist.Bus, len(a))
	carry := netlist.Const0
	for i := range a {
		p := b.Xor(a[i], c[i])
		out[i] = b.Xor(p, carry)
		carry = b.Or(b.And(a[i], c[i]), b.And(p, carry))
	}
	return out
}

func xorBus(b *netlist.Builder, a, c netlist.Bus) netlist.Bus {
	out := make(netlist.Bus, len(a))
	for i := range a {
		out[i] = b.Xor(a[i], c[i])
	}
	return out
}

func andBus(b *netlist.Builder, a, c netlist.Bus) netlist.Bus {
	out := make(netlist.Bus, len(a))
	for i := range a {
		out[i] = b.And(a[i], c[i])
	}
	return out
}

// selectPart returns field idx (w bits) of the constant table, fields
// beyond the table reading 0.
func selectPart(b *netlist.Builder, idx netlist.Bus, table *big.Int, n, w int) netlist.Bus {
	out := make(netlist.Bus, w)
	for j := range out {
		col := make(netlist.Bus, n)
		for e := range col {
			col[e] = netlist.Const0
			if table.Bit(e*w+j) == 1 {
				col[e] = netlist.Const1
			}
		}
		out[j] = b.Select(idx, col)
	}
	return out
}

func build(t *testing.T, b *netlist.Builder) *netlist.Design {
	t.Helper()
	d, err := b.Build()
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	return d
}

// ---------------------------------------------------------------------------
// Test designs.

// shiftXor is bank = (a >> k) ^ ((a >> 2) & MASK) over the low byte of a
// 10-bit address: Ref, Const, Slice, Shr (dynamic and constant), And, Xor,
// a local wire, a localparam, unused input bits and a temporary.
func shiftXor(t *testing.T) testDesign {
	const maskV = 0xb4
	b := netlist.NewBuilder("shift_xor")
	b.Header("bank = ((a >> k) ^ ((a >> 2) & MASK)) over the low byte of addr_i.",
		"Combinational; no clock.", "", "Configuration: MASK = 8'hb4.")
	a := b.Input("addr_i", 10, "word address; bits 9:8 are ignored")
	k := b.Input("k_i", 3, "run-time shift")
	a8 := a[:8]
	mv := netlist.Const(maskV, 8)
	y := xorBus(b, shr(b, a8, k), andBus(b, shrConst(a8, 2), mv))
	b.Name("hash", y)
	b.Output("hash_o", y, "the full 8-bit hash")
	b.Output("bank_o", y[:4], "bank index: the low 4 bits of the hash")

	a8e := netlist.Ref("a8", 8)
	hash := func() *netlist.Expr {
		return netlist.XorE(netlist.ShrE(a8e, netlist.Ref("k_i", 3)),
			netlist.AndE(netlist.ShrE(a8e, netlist.ConstExpr(2, 3)), netlist.Ref("MASK", 8)))
	}
	b.SetRTL(&netlist.RTL{
		Params: []netlist.Param{{Name: "MASK", Width: 8, Value: big.NewInt(maskV), Doc: "mask applied to the second shift"}},
		Assigns: []netlist.Assign{
			{Name: "a8", Wire: true, Expr: netlist.Slice(netlist.Ref("addr_i", 10), 7, 0), Doc: "the address byte that is hashed"},
			{Name: "hash_o", Expr: hash(), Doc: "full hash"},
			{Name: "bank_o", Expr: netlist.Slice(hash(), 3, 0), Doc: "bank = low bits of the hash\n(printed through a temporary)"},
		},
	})
	model := func(in vec) vec {
		a := in["addr_i"] & 0xff
		h := (a >> in["k_i"]) ^ ((a >> 2) & maskV)
		return vec{"hash_o": h, "bank_o": h & 15}
	}
	var vecs []vec
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 24 {
		vecs = append(vecs, vec{"addr_i": r.Uint64() & 1023, "k_i": uint64(i % 8)})
	}
	return testDesign{build(t, b), model, vecs}
}

// rom reads fields of localparam tables with run-time indices: OpPart with
// an exact index (32 x 5 bits), a guarded multiply base (5 x 3 bits), a
// guarded power-of-two base with a truncated index (4 x 4 bits), a part of
// a concatenation (temporary) and a one-field part.
func rom(t *testing.T) testDesign {
	r := rand.New(rand.NewPCG(3, 4))
	table := func(n, w int) *big.Int {
		v := new(big.Int)
		for e := range n {
			v.Or(v, new(big.Int).Lsh(new(big.Int).SetUint64(r.Uint64()&mask(w)), uint(e*w)))
		}
		return v
	}
	rom5, rom3, rom4 := table(32, 5), table(5, 3), table(4, 4)

	b := netlist.NewBuilder("rom_sel")
	b.Header("Table lookups: the field of each table selected by a run-time index.",
		"Fields beyond a table read 0.")
	row := b.Input("row_i", 5, "row of ROM5")
	r3 := b.Input("r3_i", 3, "row of ROM3 and ROM4")
	x := b.Input("x_i", 6, "word whose 3-bit halves are selected")
	b.Output("f5_o", selectPart(b, row, rom5, 32, 5), "ROM5[row_i]")
	b.Output("f3_o", selectPart(b, r3, rom3, 5, 3), "ROM3[r3_i], 0 beyond entry 4")
	b.Output("f4_o", selectPart(b, r3, rom4, 4, 4), "ROM4[r3_i], 0 beyond entry 3")
	// {x[5:3] ^ x[2:0], x[2:0]} split in 3-bit fields, field row_i[0].
	cat := append(append(netlist.Bus{}, x[:3]...), xorBus(b, x[3:], x[:3])...)
	fx := make(netlist.Bus, 3)
	for j := range fx {
		fx[j] = b.Select(row[:1], netlist.Bus{cat[j], cat[3+j]})
	}
	b.Output("fx_o", fx, "field row_i[0] of {x_i[5:3] ^ x_i[2:0], x_i[2:0]}")
	// A one-field part: the whole of x_i[5:0] when r3_i == 0.
	one := make(netlist.Bus, 6)
	for j := range one {
		one[j] = b.Select(r3, netlist.Bus{x[j]})
	}
	b.Output("one_o", one, "x_i when r3_i is 0, else 0")

	xe := netlist.Ref("x_i", 6)
	b.SetRTL(&netlist.RTL{
		Params: []netlist.Param{
			{Name: "ROM5", Width: 160, Value: rom5, Doc: "32 entries of 5 bits"},
			{Name: "ROM3", Width: 15, Value: rom3, Doc: "5 entries of 3 bits"},
			{Name: "ROM4", Width: 16, Value: rom4, Doc: "4 entries of 4 bits"},
		},
		Assigns: []netlist.Assign{
			{Name: "f5_o", Expr: netlist.PartAt(netlist.Ref("ROM5", 160), netlist.Ref("row_i", 5), 5), Doc: "ROM5 lookup"},
			{Name: "f3_o", Expr: netlist.PartAt(netlist.Ref("ROM3", 15), netlist.Ref("r3_i", 3), 3), Doc: "ROM3 lookup"},
			{Name: "f4_o", Expr: netlist.PartAt(netlist.Ref("ROM4", 16), netlist.Ref("r3_i", 3), 4), Doc: "ROM4 lookup"},
			{Name: "fx_o", Expr: netlist.PartAt(
				netlist.Concat(netlist.Slice(xe, 2, 0), netlist.XorE(netlist.Slice(xe, 5, 3), netlist.Slice(xe, 2, 0))),
				netlist.Slice(netlist.Ref("row_i", 5), 0, 0), 3), Doc: "field of a computed word"},
			{Name: "one_o", Expr: netlist.PartAt(xe, netlist.Ref("r3_i", 3), 6), Doc: "one-field part select"},
		},
	})
	field := func(v *big.Int, i, w int) uint64 {
		return new(big.Int).And(new(big.Int).Rsh(v, uint(i*w)), new(big.Int).SetUint64(mask(w))).Uint64()
	}
	model := func(in vec) vec {
		row, r3, x := in["row_i"], in["r3_i"], in["x_i"]
		out := vec{"f5_o": field(rom5, int(row), 5), "f3_o": 0, "f4_o": 0, "one_o": 0}
		if r3 < 5 {
			out["f3_o"] = field(rom3, int(r3), 3)
		}
		if r3 < 4 {
			out["f4_o"] = field(rom4, int(r3), 4)
		}
		if r3 == 0 {
			out["one_o"] = x
		}
		w := (x & 7) | ((x>>3^x)&7)<<3
		out["fx_o"] = w >> (3 * (row & 1)) & 7
		return out
	}
	var vecs []vec
	for i := range 32 {
		vecs = append(vecs, vec{"row_i": uint64(i), "r3_i": uint64(i % 8), "x_i": r.Uint64() & 63})
	}
	return testDesign{build(t, b), model, vecs}
}

// bitSel reads single bits at run-time indices: exact-width guarded index,
// zero-extended index, truncated guarded index, a computed operand and a
// computed (hoisted) guarded index.
func bitSel(t *testing.T) testDesign {
	b := netlist.NewBuilder("bit_sel")
	b.Header("Dynamic bit selects; an index beyond the word reads 0.")
	a := b.Input("a_i", 14, "word to select from")
	s4 := b.Input("s4_i", 4, "4-bit index")
	s2 := b.Input("s2_i", 2, "2-bit index")
	s5 := b.Input("s5_i", 5, "5-bit index")
	tb := b.Input("t_i", 8, "second word")
	b.Output("b4_o", netlist.Bus{b.Select(s4, a)}, "a_i[s4_i]")
	b.Output("b2_o", netlist.Bus{b.Select(s2, a)}, "a_i[s2_i]")
	b.Output("b5_o", netlist.Bus{b.Select(s5, a)}, "a_i[s5_i]")
	b.Output("bx_o", netlist.Bus{b.Select(s4[:3], xorBus(b, a[:8], tb))}, "(a_i[7:0] ^ t_i)[s4_i[2:0]]")
	b.Output("bt_o", netlist.Bus{b.Select(add(b, s4, netlist.Const(1, 4)), tb)}, "t_i[s4_i + 1]")

	ae, te := netlist.Ref("a_i", 14), netlist.Ref("t_i", 8)
	b.SetRTL(&netlist.RTL{Assigns: []netlist.Assign{
		{Name: "b4_o", Expr: netlist.BitAt(ae, netlist.Ref("s4_i", 4))},
		{Name: "b2_o", Expr: netlist.BitAt(ae, netlist.Ref("s2_i", 2))},
		{Name: "b5_o", Expr: netlist.BitAt(ae, netlist.Ref("s5_i", 5))},
		{Name: "bx_o", Expr: netlist.BitAt(netlist.XorE(netlist.Slice(ae, 7, 0), te), netlist.Slice(netlist.Ref("s4_i", 4), 2, 0))},
		{Name: "bt_o", Expr: netlist.BitAt(te, netlist.AddE(netlist.Ref("s4_i", 4), netlist.ConstExpr(1, 4)))},
	}})
	bit := func(v, i uint64, w int) uint64 {
		if i >= uint64(w) {
			return 0
		}
		return v >> i & 1
	}
	model := func(in vec) vec {
		a, t8 := in["a_i"], in["t_i"]
		s4 := in["s4_i"]
		return vec{
			"b4_o": bit(a, s4, 14), "b2_o": bit(a, in["s2_i"], 14), "b5_o": bit(a, in["s5_i"], 14),
			"bx_o": bit((a&0xff)^t8, s4&7, 8), "bt_o": bit(t8, (s4+1)&15, 8),
		}
	}
	var vecs []vec
	r := rand.New(rand.NewPCG(5, 6))
	for i := range 32 {
		vecs = append(vecs, vec{"a_i": r.Uint64() & mask(14), "s4_i": uint64(i % 16), "s2_i": uint64(i % 4),
			"s5_i": uint64(i), "t_i": r.Uint64() & 255})
	}
	return testDesign{build(t, b), model, vecs}
}

// alu covers Add, Eq, Lt, Mux, Not, Or, Concat (with a constant), a low slice
// of a sum, and output bits driven by inputs and constants.
func alu(t *testing.T) testDesign {
	b := netlist.NewBuilder("alu4")
	b.Header("Small arithmetic and logic on two 4-bit words.")
	a := b.Input("a_i", 4, "first operand")
	c := b.Input("b_i", 4, "second operand")
	s := b.Input("s_i", 1, "mux select")
	sum := add(b, a, c)
	b.Output("sum_o", sum, "a_i + b_i mod 16")
	b.Output("lo_o", sum[:3], "(a_i + b_i) mod 8")
	b.Output("eq_o", netlist.Bus{b.Equal(a, c)}, "a_i == b_i")
	carry := netlist.Const1 // a + ~b + 1 carries out unless a < b
	for i := range a {
		nc := b.Not(c[i])
		carry = b.Or(b.And(a[i], nc), b.And(b.Xor(a[i], nc), carry))
	}
	b.Output("lt_o", netlist.Bus{b.Not(carry)}, "a_i < b_i")
	b.Output("mux_o", b.MuxBus(s[0], c, a), "s_i ? a_i : b_i")
	nota := make(netlist.Bus, 4)
	ora := make(netlist.Bus, 4)
	for i := range nota {
		nota[i] = b.Not(a[i])
		ora[i] = b.Or(a[i], c[i])
	}
	b.Output("not_o", nota, "~a_i")
	b.Output("or_o", ora, "a_i | b_i")
	b.Output("cat_o", netlist.Bus{c[2], c[3], netlist.Const1, netlist.Const0, a[0], a[1]}, "{a_i[1:0], 2'b01, b_i[3:2]}")

	ae, be := netlist.Ref("a_i", 4), netlist.Ref("b_i", 4)
	b.SetRTL(&netlist.RTL{Assigns: []netlist.Assign{
		{Name: "sum", Wire: true, Expr: netlist.AddE(ae, be), Doc: "4-bit sum"},
		{Name: "sum_o", Expr: netlist.Ref("sum", 4)},
		{Name: "lo_o", Expr: netlist.Slice(netlist.AddE(ae, be), 2, 0), Doc: "a low slice of a sum distributes"},
		{Name: "eq_o", Expr: netlist.EqE(ae, be)},
		{Name: "lt_o", Expr: netlist.LtE(ae, be)},
		{Name: "mux_o", Expr: netlist.MuxE(netlist.Ref("s_i", 1), ae, be)},
		{Name: "not_o", Expr: netlist.NotE(ae)},
		{Name: "or_o", Expr: netlist.OrE(ae, be)},
		{Name: "cat_o", Expr: netlist.Concat(netlist.Slice(be, 3, 2), netlist.ConstExpr(1, 2), netlist.Slice(ae, 1, 0))},
	}})
	model := func(in vec) vec {
		a, c, s := in["a_i"], in["b_i"], in["s_i"]
		out := vec{"sum_o": (a + c) & 15, "lo_o": (a + c) & 7, "eq_o": 0, "mux_o": c,
			"not_o": ^a & 15, "or_o": a | c, "cat_o": (a&3)<<4 | 1<<2 | c>>2}
		if a == c {
			out["eq_o"] = 1
		}
		out["lt_o"] = 0
		if a < c {
			out["lt_o"] = 1
		}
		if s == 1 {
			out["mux_o"] = a
		}
		return out
	}
	var vecs []vec
	r := rand.New(rand.NewPCG(7, 8))
	for i := range 24 {
		a := r.Uint64() & 15
		c := r.Uint64() & 15
		if i%5 == 0 {
			c = a
		}
		vecs = append(vecs, vec{"a_i": a, "b_i": c, "s_i": uint64(i & 1)})
	}
	return testDesign{build(t, b), model, vecs}
}

// zoo has one output bit per combinational cell kind, plus a net that
// feeds two output bits and renamed nets that collide with ports, keywords
// and each other.
func zoo(t *testing.T) testDesign {
	b := netlist.NewBuilder("cell_zoo")
	b.Header("One output bit per library cell kind.")
	x := b.Input("x_i", 4, "cell inputs")
	x0, x1, x2, x3 := x[0], x[1], x[2], x[3]
	and2 := b.And(x0, x1)
	z := netlist.Bus{
		b.Not(x0), b.Buf(x1),
		b.Nand(x0, x1), b.Nand(x0, x1, x2), b.Nand(x0, x1, x2, x3),
		b.Nor(x0, x1), b.Nor(x0, x1, x2), b.Nor(x0, x1, x2, x3),
		and2, b.And(x0, x1, x2), b.And(x0, x1, x2, x3),
		b.Or(x0, x1), b.Or(x0, x1, x2), b.Or(x0, x1, x2, x3),
		b.Xor(x0, x1), b.Xnor(x0, x1),
		b.Aoi21(x0, x1, x2), b.Oai21(x0, x1, x2), b.Mux(x0, x1, x2),
	}
	b.Output("z_o", z, "one bit per cell kind, INV first")
	b.Output("dup_o", netlist.Bus{and2, and2}, "x_i[0] & x_i[1], twice")

	xb := func(i int) *netlist.Expr { return netlist.Slice(netlist.Ref("x_i", 4), i, i) }
	and := netlist.AndE
	or := netlist.OrE
	not := netlist.NotE
	zs := []*netlist.Expr{
		not(xb(0)), xb(1),
		not(and(xb(0), xb(1))), not(and(xb(0), xb(1), xb(2))), not(and(xb(0), xb(1), xb(2), xb(3))),
		not(or(xb(0), xb(1))), not(or(xb(0), xb(1), xb(2))), not(or(xb(0), xb(1), xb(2), xb(3))),
		and(xb(0), xb(1)), and(xb(0), xb(1), xb(2)), and(xb(0), xb(1), xb(2), xb(3)),
		or(xb(0), xb(1)), or(xb(0), xb(1), xb(2)), or(xb(0), xb(1), xb(2), xb(3)),
		netlist.XorE(xb(0), xb(1)), not(netlist.XorE(xb(0), xb(1))),
		not(or(and(xb(0), xb(1)), xb(2))), not(and(or(xb(0), xb(1)), xb(2))),
		netlist.MuxE(xb(0), xb(2), xb(1)),
	}
	b.SetRTL(&netlist.RTL{Assigns: []netlist.Assign{
		{Name: "z_o", Expr: netlist.Concat(zs...)},
		{Name: "dup_o", Expr: netlist.Concat(and(xb(0), xb(1)), and(xb(0), xb(1)))},
	}})
	d := build(t, b)
	model := func(in vec) vec {
		x := in["x_i"]
		v := func(i int) uint64 { return x >> i & 1 }
		n := func(b uint64) uint64 { return b ^ 1 }
		a, c, e, f := v(0), v(1), v(2), v(3)
		bits := []uint64{
			n(a), c, n(a & c), n(a & c & e), n(a & c & e & f), n(a | c), n(a | c | e), n(a | c | e | f),
			a & c, a & c & e, a & c & e & f, a | c, a | c | e, a | c | e | f, a ^ c, n(a ^ c),
			n(a&c | e), n((a | c) & e), map[bool]uint64{true: e, false: c}[a == 1],
		}
		var zv uint64
		for i, bit := range bits {
			zv |= bit << i
		}
		return vec{"z_o": zv, "dup_o": (a & c) * 3}
	}
	var vecs []vec
	for i := range 16 {
		vecs = append(vecs, vec{"x_i": uint64(i)})
	}
	return testDesign{d, model, vecs}
}

// misc covers the printer's corner cases: a select of a part select
// (temporary), a bit of a one-bit operand, slices distributed through ?:
// and ~, a constant shift sliced past the word, constant indices in and
// out of range, a constant wider than 64 bits and nested ?:.
func misc(t *testing.T) testDesign {
	b := netlist.NewBuilder("misc")
	b.Header("Printer corner cases.")
	a := b.Input("a_i", 12, "word")
	s := b.Input("s_i", 2, "index")
	c := b.Input("c_i", 1, "select")
	field := make(netlist.Bus, 6)
	for j := range field {
		field[j] = b.Select(s, netlist.Bus{a[j], a[6+j]})
	}
	b.Output("m1_o", field[2:], "field s_i of a_i, bits 5:2")
	b.Output("m2_o", netlist.Bus{b.Select(s[1:], netlist.Bus{c[0]})}, "c_i[s_i[1]]")
	sh := shrConst(a[:8], 5)
	m3 := make(netlist.Bus, 4)
	for i := range m3 {
		m3[i] = b.Mux(c[0], sh[i+2], b.Not(a[i+2]))
	}
	b.Output("m3_o", m3, "(c_i ? ~a_i[7:0] : a_i[7:0] >> 5)[5:2]")
	b.Output("m4_o", a[6:], "field 1 of a_i")
	b.Output("m5_o", netlist.Const(0, 6), "field 3 of a_i: 0")
	b.Output("m6_o", netlist.Bus{b.Equal(a, netlist.Const(0xabc, 12))}, "a_i == 12'habc, as a 72-bit compare")
	b.Output("m7_o", netlist.Bus{netlist.Const0}, "a_i[3:0][9]: 0")
	m8 := netlist.Bus{b.Select(s, netlist.Bus{a[0], a[2], netlist.Const1, netlist.Const1}),
		b.Select(s, netlist.Bus{a[1], a[3], netlist.Const1, netlist.Const1})}
	b.Output("m8_o", m8, "s_i == 0 ? a_i[1:0] : s_i == 1 ? a_i[3:2] : 3")
	for i, name := range []string{"m9_o", "m10_o"} {
		x, y := a[2*i], a[2*i+1]
		b.Output(name, netlist.Bus{b.Xor(x, y), b.And(x, y)}, "a half adder's sum of two bits of a_i, by a function")
	}

	ae, se := netlist.Ref("a_i", 12), netlist.Ref("s_i", 2)
	a8 := netlist.Slice(ae, 7, 0)
	rep := new(big.Int)
	for range 6 {
		rep.Lsh(rep, 12).Or(rep, big.NewInt(0xabc))
	}
	b.SetRTL(&netlist.RTL{Assigns: []netlist.Assign{
		{Name: "m1_o", Expr: netlist.Slice(netlist.PartAt(ae, se, 6), 5, 2)},
		{Name: "m2_o", Expr: netlist.BitAt(netlist.Ref("c_i", 1), netlist.Slice(se, 1, 1))},
		{Name: "m3_o", Expr: netlist.Slice(netlist.MuxE(netlist.Ref("c_i", 1), netlist.NotE(a8), netlist.ShrE(a8, netlist.ConstExpr(5, 3))), 5, 2)},
		{Name: "m4_o", Expr: netlist.PartAt(ae, netlist.ConstExpr(1, 2), 6)},
		{Name: "m5_o", Expr: netlist.PartAt(ae, netlist.ConstExpr(3, 2), 6)},
		{Name: "m6_o", Expr: netlist.EqE(netlist.Concat(ae, ae, ae, ae, ae, ae), &netlist.Expr{Op: netlist.OpConst, W: 72, Val: rep})},
		{Name: "m7_o", Expr: netlist.BitAt(netlist.Slice(ae, 3, 0), netlist.ConstExpr(9, 4))},
		{Name: "m8_o", Expr: netlist.MuxE(netlist.EqE(se, netlist.ConstExpr(0, 2)), netlist.Slice(ae, 1, 0),
			netlist.MuxE(netlist.EqE(se, netlist.ConstExpr(1, 2)), netlist.Slice(ae, 3, 2), netlist.ConstExpr(3, 2)))},
		{Name: "m9_o", Expr: netlist.Call("half_add", 2, netlist.Slice(ae, 1, 0))},
		{Name: "m10_o", Expr: netlist.Call("half_add", 2, netlist.Slice(ae, 3, 2))},
	}, Funcs: []netlist.Func{{Name: "half_add", In: 2, Out: 2, Doc: "The sum of two bits.",
		Locals: []netlist.FuncLocal{
			{Name: "s", Expr: netlist.XorE(netlist.Slice(netlist.Ref(netlist.FuncInput, 2), 0, 0), netlist.Slice(netlist.Ref(netlist.FuncInput, 2), 1, 1))},
			{Name: "c", Expr: netlist.AndE(netlist.Slice(netlist.Ref(netlist.FuncInput, 2), 0, 0), netlist.Slice(netlist.Ref(netlist.FuncInput, 2), 1, 1))},
		},
		Result: netlist.Concat(netlist.Ref("s", 1), netlist.Ref("c", 1))}}})
	model := func(in vec) vec {
		a, s, c := in["a_i"], in["s_i"], in["c_i"]
		out := vec{"m4_o": a >> 6, "m5_o": 0, "m6_o": 0, "m7_o": 0, "m2_o": 0, "m8_o": 3,
			"m9_o": a&1 + a>>1&1, "m10_o": a>>2&1 + a>>3&1}
		var f uint64
		if s < 2 {
			f = a >> (6 * s) & 63
		}
		out["m1_o"] = f >> 2
		if s>>1 == 0 {
			out["m2_o"] = c
		}
		if c == 1 {
			out["m3_o"] = (^a & 255) >> 2 & 15
		} else {
			out["m3_o"] = (a & 255) >> 5 >> 2 & 15
		}
		if a == 0xabc {
			out["m6_o"] = 1
		}
		switch s {
		case 0:
			out["m8_o"] = a & 3
		case 1:
			out["m8_o"] = a >> 2 & 3
		}
		return out
	}
	var vecs []vec
	r := rand.New(rand.NewPCG(9, 10))
	for i := range 32 {
		a := r.Uint64() & 4095
		if i%7 == 0 {
			a = 0xabc
		}
		vecs = append(vecs, vec{"a_i": a, "s_i": uint64(i % 4), "c_i": uint64(i / 4 % 2)})
	}
	return testDesign{build(t, b), model, vecs}
}

// dffDesign is built by hand: q_o = {~d_i[1], d_i[0]} registered on clk,
// c_o = d_i[0] ^ d_i[1] combinational; spare_i is never read.
func dffDesign() *netlist.Design {
	return &netlist.Design{
		Name: "dff_pair",
		Ports: []netlist.Port{
			{Name: "clk", Dir: netlist.In, Bits: netlist.Bus{2}, Doc: "clock"},
			{Name: "d_i", Dir: netlist.In, Bits: netlist.Bus{3, 4}, Doc: "data in"},
			{Name: "spare_i", Dir: netlist.In, Bits: netlist.Bus{5}, Doc: "unused input"},
			{Name: "q_o", Dir: netlist.Out, Bits: netlist.Bus{7, 8}, Doc: "{~d_i[1], d_i[0]}, registered"},
			{Name: "c_o", Dir: netlist.Out, Bits: netlist.Bus{9}, Doc: "d_i[0] ^ d_i[1]"},
		},
		Gates: []netlist.Gate{
			{Kind: netlist.INV, In: []netlist.Net{4}, Out: 6},
			{Kind: netlist.DFF, In: []netlist.Net{3}, Out: 7},
			{Kind: netlist.DFF, In: []netlist.Net{6}, Out: 8},
			{Kind: netlist.XOR2, In: []netlist.Net{3, 4}, Out: 9},
		},
		NumNets:  10,
		NetNames: map[netlist.Net]string{7: "q", 8: "q"},
		Clock:    "clk",
		Header:   []string{"Two flip-flops, for testing the DFF printer.", "Protocol: q_o follows d_i one clock later."},
	}
}

func allDesigns(t *testing.T) []testDesign {
	return []testDesign{shiftXor(t), rom(t), bitSel(t), alu(t), zoo(t), misc(t)}
}

// ---------------------------------------------------------------------------
// Tool helpers.

func tool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Fatalf("%s not found (%v); install with: apt-get install verilator iverilog", name, err)
	}
	return p
}

// run runs a tool in dir and fails on a non-zero exit or any output.
func run(t *testing.T, dir string, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(tool(t, name), args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

func lint(t *testing.T, dir, file string) {
	t.Helper()
	run(t, dir, "verilator", "--lint-only", "-Wall", file)
	run(t, dir, "iverilog", "-g2005", "-Wall", "-o", os.DevNull, file)
}

func writeFile(t *testing.T, dir, name string, write func(*bytes.Buffer) error) string {
	t.Helper()
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// outDir is a temporary directory, or $RTL_TEST_OUT/<test> when set, to
// keep the generated files for reading.
func outDir(t *testing.T) string {
	if root := os.Getenv("RTL_TEST_OUT"); root != "" {
		dir := filepath.Join(root, strings.ReplaceAll(t.Name(), "/", "_"))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	return t.TempDir()
}

func writeBoth(t *testing.T, dir string, d *netlist.Design) (rtlText, gatesText string) {
	rtlText = writeFile(t, dir, RTLFileName(d), func(b *bytes.Buffer) error { return WriteRTL(b, d, testInfo) })
	gatesText = writeFile(t, dir, GatesFileName(d), func(b *bytes.Buffer) error { return WriteGates(b, d, testInfo) })
	return
}

// ---------------------------------------------------------------------------
// Tests.

func TestWriteRTL_LintClean(t *testing.T) {
	for _, td := range allDesigns(t) {
		t.Run(td.d.Name, func(t *testing.T) {
			dir := outDir(t)
			writeFile(t, dir, RTLFileName(td.d), func(b *bytes.Buffer) error { return WriteRTL(b, td.d, testInfo) })
			lint(t, dir, RTLFileName(td.d))
		})
	}
}

func TestWriteGates_LintClean(t *testing.T) {
	designs := allDesigns(t)
	ds := []*netlist.Design{dffDesign()}
	for _, td := range designs {
		ds = append(ds, td.d)
	}
	for _, d := range ds {
		t.Run(d.Name, func(t *testing.T) {
			dir := outDir(t)
			writeFile(t, dir, GatesFileName(d), func(b *bytes.Buffer) error { return WriteGates(b, d, testInfo) })
			lint(t, dir, GatesFileName(d))
		})
	}
}

// TestCoverage makes sure the test designs exercise every operator and
// every cell kind.
func TestCoverage(t *testing.T) {
	ops := map[netlist.Op]bool{}
	var walk func(e *netlist.Expr)
	walk = func(e *netlist.Expr) {
		ops[e.Op] = true
		for _, a := range e.Args {
			walk(a)
		}
	}
	var kinds [netlist.NumKinds]int
	for _, td := range allDesigns(t) {
		for _, a := range td.d.RTL.Assigns {
			walk(a.Expr)
		}
		for k, n := range td.d.Stats() {
			kinds[k] += n
		}
	}
	kinds[netlist.DFF] += dffDesign().Stats()[netlist.DFF]
	sd := stateDesign(t)
	for _, a := range sd.RTL.Assigns {
		walk(a.Expr)
	}
	for _, r := range sd.RTL.Regs {
		walk(r.Next)
	}
	for op := range opNames {
		if !ops[op] {
			t.Errorf("no test design uses %s", opNames[op])
		}
	}
	for k, n := range kinds {
		if n == 0 {
			t.Errorf("no test design has a %s", netlist.Kind(k))
		}
	}
}

func TestWriteRTL_Header(t *testing.T) {
	for _, td := range allDesigns(t) {
		t.Run(td.d.Name, func(t *testing.T) {
			d := td.d
			rtlText, gatesText := writeBoth(t, t.TempDir(), d)
			for _, c := range []struct{ module, text string }{{d.Name, rtlText}, {d.Name + "_gates", gatesText}} {
				checkHeader(t, d, c.module, c.text)
			}
			if !strings.Contains(gatesText, "Structural gate-level netlist of module "+d.Name+" ") {
				t.Errorf("gate file lacks the structural-netlist note")
			}
			m := regexp.MustCompile(`// Cells: (\d+) \(([^)]*)\)\.`).FindStringSubmatch(gatesText)
			if m == nil || m[1] != strconv.Itoa(len(d.Gates)) {
				t.Errorf("gate file lacks a cell summary of %d cells: %v", len(d.Gates), m)
			} else {
				stats := d.Stats()
				for k, n := range stats {
					if n > 0 && !strings.Contains(m[2], fmt.Sprintf("%s %d", netlist.Kind(k), n)) {
						t.Errorf("cell summary %q lacks %s %d", m[2], netlist.Kind(k), n)
					}
				}
			}
			if got := strings.Count(gatesText, "  // "); got < len(d.Gates) {
				t.Errorf("gate file has %d commented lines for %d gates", got, len(d.Gates))
			}
		})
	}
}

func checkHeader(t *testing.T, d *netlist.Design, module, text string) {
	t.Helper()
	if !strings.HasPrefix(text, "`timescale 1ns / 1ps\n`default_nettype none\n") {
		t.Errorf("%s: does not start with `timescale and `default_nettype none", module)
	}
	if !strings.HasSuffix(text, "\n`default_nettype wire\n") {
		t.Errorf("%s: does not end with `default_nettype wire", module)
	}
	head, _, _ := strings.Cut(text, "\nmodule ")
	for _, want := range []string{"// Module " + module + "\n", "// Generated by lsugen 0.1.0 from specs/test.hcl:12. Do not edit.\n"} {
		if !strings.Contains(head, want) {
			t.Errorf("%s: header lacks %q", module, want)
		}
	}
	for _, h := range d.Header {
		if h != "" && !strings.Contains(head, "// "+h+"\n") {
			t.Errorf("%s: header lacks line %q", module, h)
		}
	}
	for _, p := range d.Ports {
		dir := "input"
		if p.Dir == netlist.Out {
			dir = "output"
		}
		re := regexp.MustCompile(`(?m)^//\s+` + regexp.QuoteMeta(p.Name) + `\s+` + dir + `\s+` + strconv.Itoa(p.Width()) + `\s+` + regexp.QuoteMeta(p.Doc) + `$`)
		if !re.MatchString(head) {
			t.Errorf("%s: port table lacks a row for %s", module, p.Name)
		}
	}
	if !strings.Contains(text, "\nmodule "+module+" (\n") {
		t.Errorf("%s: no module line", module)
	}
	if strings.Contains(text, "\t") || strings.Contains(text, " \n") {
		t.Errorf("%s: tabs or trailing blanks", module)
	}
}

func TestWrite_Deterministic(t *testing.T) {
	first := map[string]string{}
	for round := range 3 {
		designs := allDesigns(t)
		ds := []*netlist.Design{dffDesign()}
		for _, td := range designs {
			ds = append(ds, td.d)
		}
		for _, d := range ds {
			var r, g bytes.Buffer
			if d.RTL != nil {
				if err := WriteRTL(&r, d, testInfo); err != nil {
					t.Fatal(err)
				}
			}
			if err := WriteGates(&g, d, testInfo); err != nil {
				t.Fatal(err)
			}
			// Write the same design value twice as well.
			var g2 bytes.Buffer
			if err := WriteGates(&g2, d, testInfo); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(g.Bytes(), g2.Bytes()) {
				t.Errorf("%s: two writes differ", d.Name)
			}
			key := d.Name
			if round == 0 {
				first[key] = r.String() + g.String()
			} else if first[key] != r.String()+g.String() {
				t.Errorf("%s: output differs between rebuilds", d.Name)
			}
		}
	}
}

// TestFunctional simulates the RTL and the gates against the Go model.
func TestFunctional(t *testing.T) {
	for _, td := range allDesigns(t) {
		t.Run(td.d.Name, func(t *testing.T) {
			dir := outDir(t)
			writeBoth(t, dir, td.d)
			rtlOut, gateOut := simulate(t, dir, td.d, td.vecs)
			for i, in := range td.vecs {
				want := td.model(in)
				for _, p := range td.d.Outputs() {
					w := want[p.Name] & mask(p.Width())
					if rtlOut[i][p.Name] != w {
						t.Errorf("vector %v: RTL %s = %#x, want %#x", in, p.Name, rtlOut[i][p.Name], w)
					}
					if gateOut[i][p.Name] != w {
						t.Errorf("vector %v: gates %s = %#x, want %#x", in, p.Name, gateOut[i][p.Name], w)
					}
				}
			}
		})
	}
}

// simulate compiles both modules with a generated testbench and returns the
// outputs of each for every vector.
func simulate(t *testing.T, dir string, d *netlist.Design, vecs []vec) (rtlOut, gateOut []vec) {
	t.Helper()
	var tb strings.Builder
	fmt.Fprintf(&tb, "`timescale 1ns / 1ps\n`default_nettype none\nmodule tb;\n")
	var conR, conG []string
	for _, p := range d.Ports {
		if p.Dir == netlist.In {
			fmt.Fprintf(&tb, "    reg %s%s;\n", declRange(p.Width()), p.Name)
			conR = append(conR, fmt.Sprintf(".%s(%s)", p.Name, p.Name))
			conG = append(conG, fmt.Sprintf(".%s(%s)", p.Name, p.Name))
		} else {
			fmt.Fprintf(&tb, "    wire %s%s_r, %s_g;\n", declRange(p.Width()), p.Name, p.Name)
			conR = append(conR, fmt.Sprintf(".%s(%s_r)", p.Name, p.Name))
			conG = append(conG, fmt.Sprintf(".%s(%s_g)", p.Name, p.Name))
		}
	}
	fmt.Fprintf(&tb, "    %s dut_r (%s);\n", d.Name, strings.Join(conR, ", "))
	fmt.Fprintf(&tb, "    %s_gates dut_g (%s);\n", d.Name, strings.Join(conG, ", "))
	var fmts, args []string
	for _, p := range d.Outputs() {
		fmts = append(fmts, "%h", "%h")
		args = append(args, p.Name+"_r", p.Name+"_g")
	}
	display := fmt.Sprintf("$display(\"%s\", %s);", strings.Join(fmts, " "), strings.Join(args, ", "))
	fmt.Fprintf(&tb, "    initial begin\n")
	for _, v := range vecs {
		var sets []string
		for _, p := range d.Inputs() {
			sets = append(sets, fmt.Sprintf("%s = %s;", p.Name, literalU(v[p.Name]&mask(p.Width()), p.Width())))
		}
		fmt.Fprintf(&tb, "        %s\n        #1 %s\n", strings.Join(sets, " "), display)
	}
	fmt.Fprintf(&tb, "        $finish;\n    end\nendmodule\n`default_nettype wire\n")
	if err := os.WriteFile(filepath.Join(dir, "tb.v"), []byte(tb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, dir, "iverilog", "-g2005", "-Wall", "-o", "sim.vvp", "tb.v", RTLFileName(d), GatesFileName(d))
	if t.Failed() {
		t.FailNow()
	}
	cmd := exec.Command(tool(t, "vvp"), "-n", "sim.vvp")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("vvp: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	var data []string
	for _, l := range lines {
		if !strings.Contains(l, "$finish") && !strings.HasPrefix(l, "VCD") {
			data = append(data, l)
		}
	}
	if len(data) != len(vecs) {
		t.Fatalf("vvp printed %d lines for %d vectors:\n%s", len(data), len(vecs), out)
	}
	for _, l := range data {
		f := strings.Fields(l)
		r, g := vec{}, vec{}
		for i, p := range d.Outputs() {
			rv, err1 := strconv.ParseUint(f[2*i], 16, 64)
			gv, err2 := strconv.ParseUint(f[2*i+1], 16, 64)
			if err1 != nil || err2 != nil {
				t.Fatalf("bad simulator output %q", l)
			}
			r[p.Name], g[p.Name] = rv, gv
		}
		rtlOut, gateOut = append(rtlOut, r), append(gateOut, g)
	}
	return rtlOut, gateOut
}

// TestWriteGates_DFF simulates the hand-built sequential design.
func TestWriteGates_DFF(t *testing.T) {
	d := dffDesign()
	if err := d.Check(); err != nil {
		t.Fatal(err)
	}
	dir := outDir(t)
	text := writeFile(t, dir, GatesFileName(d), func(b *bytes.Buffer) error { return WriteGates(b, d, testInfo) })
	for _, want := range []string{"    reg q;\n", "    reg q_1;\n", "wire d_i_0 = d_i[0];\n", "    always @(posedge clk) begin\n        q <= d_i_0;  // DFF g1\n",
		"assign q_o[0] = q;\n", "assign c_o = d_i_0 ^ d_i_1;  // XOR2 g3\n", "spare_i"} {
		if !strings.Contains(text, want) {
			t.Errorf("gate file lacks %q", want)
		}
	}
	checkHeader(t, d, d.Name+"_gates", text)
	if err := WriteRTL(&bytes.Buffer{}, d, testInfo); err == nil {
		t.Errorf("WriteRTL of a design without RTL: no error")
	}
	tb := "`timescale 1ns / 1ps\n`default_nettype none\nmodule tb;\n" +
		"    reg clk; reg [1:0] d_i; reg spare_i;\n    wire [1:0] q_o; wire c_o;\n" +
		"    dff_pair_gates dut (.clk(clk), .d_i(d_i), .spare_i(spare_i), .q_o(q_o), .c_o(c_o));\n" +
		"    initial begin\n        clk = 1'b0; spare_i = 1'b0;\n"
	seq := []uint64{1, 2, 3, 0, 2}
	for _, v := range seq {
		tb += fmt.Sprintf("        d_i = 2'd%d; #1 clk = 1'b1; #1 $display(\"%%h %%h\", q_o, c_o); clk = 1'b0; #1;\n", v)
	}
	tb += "        $finish;\n    end\nendmodule\n`default_nettype wire\n"
	if err := os.WriteFile(filepath.Join(dir, "tb.v"), []byte(tb), 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, dir, "iverilog", "-g2005", "-Wall", "-o", "sim.vvp", "tb.v", GatesFileName(d))
	cmd := exec.Command(tool(t, "vvp"), "-n", "sim.vvp")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("vvp: %v\n%s", err, out)
	}
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if !strings.Contains(l, "$finish") {
			got = append(got, l)
		}
	}
	var want []string
	for _, v := range seq {
		q := v&1 | (^v>>1&1)<<1
		want = append(want, fmt.Sprintf("%d %d", q, (v^v>>1)&1))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("DFF simulation:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestWriteGates_Names checks the namer: every declared net name is unique,
// not a port, not the module and not a keyword, even where NetNames
// collide with all of those and with each other.
func TestWriteGates_Names(t *testing.T) {
	d := shiftXor(t).d
	var internal []netlist.Net // gate outputs that are no output bit
	isOut := map[netlist.Net]bool{}
	for _, p := range d.Outputs() {
		for _, n := range p.Bits {
			isOut[n] = true
		}
	}
	for _, g := range d.Gates {
		if !isOut[g.Out] {
			internal = append(internal, g.Out)
		}
	}
	clash := fmt.Sprintf("n%d", internal[8])
	renames := []string{"addr_i", "wire", "delete", "same", "same", clash, "9 lives[3]", "shift_xor_gates"}
	for i, name := range renames {
		d.NetNames[internal[i]] = name
	}
	dir := outDir(t)
	text := writeFile(t, dir, GatesFileName(d), func(b *bytes.Buffer) error { return WriteGates(b, d, testInfo) })
	lint(t, dir, GatesFileName(d))
	seen := map[string]bool{"shift_xor_gates": true}
	for _, p := range d.Ports {
		seen[p.Name] = true
	}
	decl := regexp.MustCompile(`(?m)^    (?:wire|reg) (\w+)( =|;)`)
	for _, m := range decl.FindAllStringSubmatch(text, -1) {
		name := m[1]
		if seen[name] || verilog.IsReserved(name) {
			t.Errorf("declared name %s collides", name)
		}
		seen[name] = true
	}
	// The net named like the port takes a free addr_i_<k> (the port's bits
	// themselves are the scalars addr_i_<bit> = addr_i[<bit>]).
	if !regexp.MustCompile(`(?m)^    wire addr_i_\d+;`).MatchString(text) {
		t.Error("the gate net named addr_i was not renamed")
	}
	for _, want := range []string{"wire wire_1;", "wire delete_1;", "wire same;", "wire same_1;",
		"wire " + clash + ";", "wire " + clash + "_1;", "wire n_9_lives_3;", "wire shift_xor_gates_1;"} {
		if !strings.Contains(text, want) {
			t.Errorf("gate file lacks %q", want)
		}
	}
}

func TestWriteRTL_Errors(t *testing.T) {
	a4 := netlist.Ref("a_i", 4)
	cases := []struct {
		name    string
		assigns []netlist.Assign
		params  []netlist.Param
		want    string
	}{
		{"width", []netlist.Assign{{Name: "y_o", Expr: netlist.Slice(a4, 2, 0)}}, nil, "assign y_o: expression is 3 bits, output y_o is 4 bits"},
		{"operand", []netlist.Assign{{Name: "y_o", Expr: netlist.XorE(a4, netlist.ConstExpr(1, 3))}}, nil, "assign y_o: operand 1 of ^ is 3 bits"},
		{"unknown", []netlist.Assign{{Name: "y_o", Expr: netlist.Ref("b_i", 4)}}, nil, "unknown name \"b_i\""},
		{"refwidth", []netlist.Assign{{Name: "y_o", Expr: netlist.Ref("a_i", 3)}}, nil, "a_i is 4 bits but referenced as 3"},
		{"twice", []netlist.Assign{{Name: "y_o", Expr: a4}, {Name: "y_o", Expr: a4}}, nil, "assigned more than once"},
		{"never", nil, nil, "output y_o is never assigned"},
		{"input", []netlist.Assign{{Name: "a_i", Expr: a4}}, nil, "not an output port"},
		{"order", []netlist.Assign{{Name: "y_o", Expr: netlist.Ref("w", 4)}, {Name: "w", Wire: true, Expr: a4}}, nil, "used before its assignment"},
		{"keyword", []netlist.Assign{{Name: "reg", Wire: true, Expr: a4}, {Name: "y_o", Expr: a4}}, nil, "not a usable Verilog identifier"},
		{"clash", []netlist.Assign{{Name: "a_i", Wire: true, Expr: a4}, {Name: "y_o", Expr: a4}}, nil, "already used"},
		{"part", []netlist.Assign{{Name: "y_o", Expr: netlist.Concat(netlist.PartAt(a4, netlist.Ref("a_i", 4), 3), netlist.ConstExpr(0, 1))}}, nil, "not a whole number of fields"},
		{"const", []netlist.Assign{{Name: "y_o", Expr: netlist.ConstExpr(16, 4)}}, nil, "does not fit in 4 bits"},
		{"param", []netlist.Assign{{Name: "y_o", Expr: a4}}, []netlist.Param{{Name: "P", Width: 2, Value: big.NewInt(4)}}, "localparam P: value 4 does not fit"},
		{"mux", []netlist.Assign{{Name: "y_o", Expr: netlist.MuxE(a4, a4, a4)}}, nil, "select is 4 bits"},
		{"nofunc", []netlist.Assign{{Name: "y_o", Expr: netlist.Call("g", 4, a4)}}, nil, "call of unknown function \"g\""},
		{"callwidth", []netlist.Assign{{Name: "y_o", Expr: netlist.Call("inv", 4, netlist.Slice(a4, 2, 0))}}, nil, "function inv takes 4 bits and returns 4, called on 3 bits"},
		{"funcunread", []netlist.Assign{{Name: "y_o", Expr: netlist.Call("low", 4, a4)}}, nil, "function low does not read all of its input"},
		{"funcscope", []netlist.Assign{{Name: "y_o", Expr: netlist.Call("outer", 4, a4)}}, nil, "function outer: o: a_i is not the function's input or one of its locals"},
	}
	x4 := netlist.Ref(netlist.FuncInput, 4)
	funcs := []netlist.Func{
		{Name: "inv", In: 4, Out: 4, Locals: []netlist.FuncLocal{{Name: "n", Expr: netlist.XorE(netlist.Slice(x4, 0, 0), netlist.Slice(x4, 1, 1), netlist.Slice(x4, 2, 2), netlist.Slice(x4, 3, 3))}},
			Result: netlist.Concat(netlist.Ref("n", 1), netlist.Ref("n", 1), netlist.Ref("n", 1), netlist.Ref("n", 1))},
		{Name: "low", In: 4, Out: 4, Locals: []netlist.FuncLocal{{Name: "n", Expr: netlist.Slice(x4, 0, 0)}},
			Result: netlist.Concat(netlist.Ref("n", 1), netlist.Ref("n", 1), netlist.Ref("n", 1), netlist.Ref("n", 1))},
		{Name: "outer", In: 4, Out: 4, Locals: []netlist.FuncLocal{{Name: "o", Expr: netlist.Slice(netlist.Ref("a_i", 4), 0, 0)}},
			Result: netlist.Concat(netlist.Ref("o", 1), netlist.Ref("o", 1), netlist.Ref("o", 1), netlist.Ref("o", 1))},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := netlist.NewBuilder("bad")
			a := b.Input("a_i", 4, "")
			b.Output("y_o", a, "")
			var fs []netlist.Func // those the case calls
			for _, a := range c.assigns {
				for _, f := range funcs {
					if a.Expr != nil && a.Expr.Op == netlist.OpCall && a.Expr.Name == f.Name {
						fs = append(fs, f)
					}
				}
			}
			b.SetRTL(&netlist.RTL{Params: c.params, Assigns: c.assigns, Funcs: fs})
			d := build(t, b)
			var buf bytes.Buffer
			err := WriteRTL(&buf, d, testInfo)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want one containing %q", err, c.want)
			}
			if buf.Len() != 0 {
				t.Errorf("wrote %d bytes despite the error", buf.Len())
			}
		})
	}
}

func TestFileNames(t *testing.T) {
	d := &netlist.Design{Name: "hash_paper"}
	if RTLFileName(d) != "hash_paper.v" || GatesFileName(d) != "hash_paper_gates.v" {
		t.Errorf("file names %s, %s", RTLFileName(d), GatesFileName(d))
	}
}

// TestWriteRTL_UnusedSink: a localparam, a local wire and an input that
// nothing reads are sunk, and the file stays lint-clean.
func TestWriteRTL_UnusedSink(t *testing.T) {
	b := netlist.NewBuilder("sink")
	clk := b.Input("clk", 1, "clock (unused by this combinational unit)")
	_ = clk
	a := b.Input("a_i", 4, "operand")
	for k := range 8 { // enough to wrap the sink's line
		b.Input(fmt.Sprintf("unread_port_number_%d_i", k), 2, "")
	}
	b.Output("y_o", a[:2], "a_i[1:0]")
	ae := netlist.Ref("a_i", 4)
	b.SetRTL(&netlist.RTL{
		Params: []netlist.Param{{Name: "WIDE", Width: 70, Value: new(big.Int).Lsh(big.NewInt(5), 66), Doc: "never read"}},
		Assigns: []netlist.Assign{
			{Name: "spare", Wire: true, Expr: netlist.NotE(ae), Doc: "never read"},
			{Name: "y_o", Expr: netlist.Slice(ae, 1, 0)},
		},
	})
	d := build(t, b)
	dir := outDir(t)
	rtlText, gatesText := writeBoth(t, dir, d)
	lint(t, dir, RTLFileName(d))
	lint(t, dir, GatesFileName(d))
	if !strings.Contains(rtlText, "wire unused_ok = ^{clk, unread_port_number_0_i,") || !strings.Contains(rtlText, " WIDE, spare};") {
		t.Errorf("RTL sink wrong:\n%s", rtlText)
	}
	if !strings.Contains(gatesText, "wire unused_ok = ^{clk, a_i[3:2], unread_port_number_0_i,") {
		t.Errorf("gate sink wrong:\n%s", gatesText)
	}
	if !strings.Contains(rtlText, "localparam [69:0] WIDE = 70'h14_00000000_00000000;") {
		t.Errorf("wide localparam printed wrong:\n%s", rtlText)
	}
}

// TestWriteRTL_PartSelectOfNetIsArrayRead: a field of a net chosen at run
// time reads an array view of the net's fields, not a `+:` select at a
// run-time base, which Yosys maps to a shifter of the whole bus (the
// proof of the 48 KB shared memory ran out of 16 GB on 128 of them); a
// localparam table keeps the select.
func TestWriteRTL_PartSelectOfNetIsArrayRead(t *testing.T) {
	d := rom(t).d
	var buf bytes.Buffer
	if err := WriteRTL(&buf, d, testInfo); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	if strings.Contains(text, "x_i_by6") { // one field: x_i itself, no array
		t.Errorf("RTL declares an array of x_i's one field:\n%s", text)
	}
	for _, want := range []string{
		"wire [2:0] fx_o_tmp0_by3 [0:1];",
		"assign fx_o = fx_o_tmp0_by3[row_i[0]];",
		"ROM5[{3'd0, row_i} * 8'd5 +: 5]",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("RTL lacks %q:\n%s", want, text)
		}
	}
	if strings.Count(text, "+:") != 4 { // the three ROM selects and the array's element assign
		t.Errorf("RTL has %d `+:` selects, want 4:\n%s", strings.Count(text, "+:"), text)
	}
}
