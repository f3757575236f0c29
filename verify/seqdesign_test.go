package verify

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/model"
	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/rtl"
)

// Hand-built sequential designs for the harness's tests: a gate-level
// netlist put together gate by gate, a hand-written RTL module and a Go
// model, each written on its own.

// gates builds a netlist.Design gate by gate. Registers get their Q nets at
// once (reg) and their DFF gates when the D nets exist (next), at the end
// of the gate list, so the order stays topological.
type gates struct {
	d    *netlist.Design
	dffs []netlist.Gate
}

func newGates(name string) *gates {
	return &gates{d: &netlist.Design{Name: name, NumNets: 2, NetNames: map[netlist.Net]string{}, Clock: "clk"}}
}

func (g *gates) net() netlist.Net {
	n := netlist.Net(g.d.NumNets)
	g.d.NumNets++
	return n
}

func (g *gates) bus(w int) netlist.Bus {
	b := make(netlist.Bus, w)
	for i := range b {
		b[i] = g.net()
	}
	return b
}

func (g *gates) input(name string, w int) netlist.Bus {
	b := g.bus(w)
	g.d.Ports = append(g.d.Ports, netlist.Port{Name: name, Dir: netlist.In, Bits: b, Doc: name})
	return b
}

func (g *gates) output(name string, b netlist.Bus) {
	g.d.Ports = append(g.d.Ports, netlist.Port{Name: name, Dir: netlist.Out, Bits: b, Doc: name})
}

func (g *gates) gate(k netlist.Kind, in ...netlist.Net) netlist.Net {
	out := g.net()
	g.d.Gates = append(g.d.Gates, netlist.Gate{Kind: k, In: in, Out: out})
	return out
}

func (g *gates) reg(name string, w int) netlist.Bus {
	q := g.bus(w)
	for i, n := range q {
		g.d.NetNames[n] = fmt.Sprintf("%s_%d", name, i)
	}
	return q
}

func (g *gates) next(q, d netlist.Bus) {
	for i := range q {
		g.dffs = append(g.dffs, netlist.Gate{Kind: netlist.DFF, In: []netlist.Net{d[i]}, Out: q[i]})
	}
}

func (g *gates) build(t testing.TB) *netlist.Design {
	g.d.Gates = append(g.d.Gates, g.dffs...)
	g.dffs = nil
	if err := g.d.Check(); err != nil {
		t.Fatal(err)
	}
	return g.d
}

func (g *gates) and(a, b netlist.Net) netlist.Net      { return g.gate(netlist.AND2, a, b) }
func (g *gates) or(a, b netlist.Net) netlist.Net       { return g.gate(netlist.OR2, a, b) }
func (g *gates) xor(a, b netlist.Net) netlist.Net      { return g.gate(netlist.XOR2, a, b) }
func (g *gates) not(a netlist.Net) netlist.Net         { return g.gate(netlist.INV, a) }
func (g *gates) mux(s, a0, a1 netlist.Net) netlist.Net { return g.gate(netlist.MUX2, s, a0, a1) }

func (g *gates) muxBus(s netlist.Net, a0, a1 netlist.Bus) netlist.Bus {
	out := make(netlist.Bus, len(a0))
	for i := range out {
		out[i] = g.mux(s, a0[i], a1[i])
	}
	return out
}

// andBus ANDs every bit of a with e.
func (g *gates) andBus(a netlist.Bus, e netlist.Net) netlist.Bus {
	out := make(netlist.Bus, len(a))
	for i := range out {
		out[i] = g.and(a[i], e)
	}
	return out
}

// add is a ripple-carry a + b, len(a) bits; b may be shorter (zero-extended).
func (g *gates) add(a, b netlist.Bus) netlist.Bus {
	sum := make(netlist.Bus, len(a))
	carry := netlist.Const0
	for i := range a {
		bi := netlist.Const0
		if i < len(b) {
			bi = b[i]
		}
		p := g.xor(a[i], bi)
		sum[i] = g.xor(p, carry)
		carry = g.or(g.and(a[i], bi), g.and(p, carry))
	}
	return sum
}

// seqaccDesign is the gate-level accumulator:
//
//	inputs  clk, rst, en_i, x_i[4]
//	outputs sum_o[6] = acc + x_i          (Mealy: this cycle's x_i)
//	        cnt_o[3] = cnt                (enabled cycles since reset, mod 8)
//	        last_o[4] = cnt != 0 ? last : 0
//	        tog_o    = tog                (reset to 1, flips when enabled)
//
// At the rising edge: rst gives acc = 0, cnt = 0, tog = 1 (last is not
// reset); else en_i gives acc = sum_o, cnt = cnt + 1, last = x_i,
// tog = !tog.
func seqaccDesign(t testing.TB) *netlist.Design {
	g := newGates("seqacc")
	g.input("clk", 1)
	rst := g.input("rst", 1)[0]
	en := g.input("en_i", 1)[0]
	x := g.input("x_i", 4)
	acc, cnt, last, tog := g.reg("acc", 6), g.reg("cnt", 3), g.reg("last", 4), g.reg("tog", 1)

	sum := g.add(acc, x)
	nz := g.or(g.or(cnt[0], cnt[1]), cnt[2])
	g.output("sum_o", sum)
	g.output("cnt_o", cnt)
	g.output("last_o", g.andBus(last, nz))
	g.output("tog_o", tog)

	keep := g.not(rst)
	g.next(acc, g.andBus(g.muxBus(en, acc, sum), keep))
	g.next(cnt, g.andBus(g.muxBus(en, cnt, g.add(cnt, netlist.Bus{netlist.Const1})), keep))
	g.next(last, g.muxBus(g.and(en, keep), last, x))
	g.next(tog, netlist.Bus{g.or(rst, g.xor(tog[0], en))})
	return g.build(t)
}

// seqaccV is the readable RTL of seqacc, written by hand.
const seqaccV = "`timescale 1ns / 1ps\n" + `module seqacc (
    input  wire       clk,
    input  wire       rst,
    input  wire       en_i,
    input  wire [3:0] x_i,
    output wire [5:0] sum_o,
    output wire [2:0] cnt_o,
    output wire [3:0] last_o,
    output wire       tog_o
);
    reg [5:0] acc_q;
    reg [2:0] cnt_q;
    reg [3:0] last_q; // not reset
    reg       tog_q;

    assign sum_o  = acc_q + {2'b00, x_i};
    assign cnt_o  = cnt_q;
    assign last_o = (cnt_q != 3'd0) ? last_q : 4'd0;
    assign tog_o  = tog_q;

    always @(posedge clk) begin
        if (rst) begin
            acc_q <= 6'd0;
            cnt_q <= 3'd0;
            tog_q <= 1'b1;
        end else if (en_i) begin
            acc_q <= sum_o;
            cnt_q <= cnt_q + 3'd1;
            tog_q <= ~tog_q;
        end
        if (!rst && en_i) begin
            last_q <= x_i;
        end
    end
endmodule
`

// seqaccModel is seqacc in Go. bug, when set, makes tog keep its value in
// an enabled cycle with x_i = 15 and cnt = 5, as seqaccBuggyV does.
type seqaccModel struct {
	acc, cnt, last, tog uint64
	bug                 bool
}

func (m *seqaccModel) Ports() []model.Port {
	return []model.Port{
		{Name: "rst", Width: 1}, {Name: "en_i", Width: 1}, {Name: "x_i", Width: 4},
		{Name: "sum_o", Width: 6, Output: true}, {Name: "cnt_o", Width: 3, Output: true},
		{Name: "last_o", Width: 4, Output: true}, {Name: "tog_o", Width: 1, Output: true},
	}
}

func (m *seqaccModel) Reset() { m.acc, m.cnt, m.tog = 0, 0, 1 }

func (m *seqaccModel) Cycle(in, out [][]uint64) {
	rst, en, x := in[0][0]&1, in[1][0]&1, in[2][0]&15
	sum := (m.acc + x) & 63
	out[0][0], out[1][0], out[3][0] = sum, m.cnt, m.tog
	out[2][0] = 0
	if m.cnt != 0 {
		out[2][0] = m.last
	}
	switch {
	case rst == 1:
		m.Reset()
	case en == 1:
		if !(m.bug && x == 15 && m.cnt == 5) {
			m.tog ^= 1
		}
		m.acc, m.cnt, m.last = sum, (m.cnt+1)&7, x
	}
}

// seqaccBuggyV is seqaccV with the bug of seqaccModel.bug.
var seqaccBuggyV = strings.Replace(seqaccV, "tog_q <= ~tog_q;", "tog_q <= (x_i == 4'hf && cnt_q == 3'd5) ? tog_q : ~tog_q;", 1)

// seqJob writes the RTL text as NAME.v and the design's gates as
// NAME_gates.v into a fresh directory and returns the job.
func seqJob(t testing.TB, d *netlist.Design, rtlText string, m model.Sequential) Job {
	t.Helper()
	dir := t.TempDir()
	var gb bytes.Buffer
	if err := rtl.WriteGates(&gb, d, rtl.Info{Version: "lsugen test", Source: "verify/seqdesign_test.go"}); err != nil {
		t.Fatal(err)
	}
	rtlPath := filepath.Join(dir, rtl.RTLFileName(d))
	gatesPath := filepath.Join(dir, rtl.GatesFileName(d))
	if err := os.WriteFile(rtlPath, []byte(rtlText), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(gatesPath, gb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return Job{
		Design:  d,
		Seq:     m,
		Sources: []string{rtlPath, gatesPath},
		Modules: []string{d.Name, rtl.GatesModuleName(d)},
		Dir:     dir,
	}
}

// regfileDesign is a larger sequential design for speed measurements: a
// register file of entries x width bits (not reset) with a valid bit per
// entry (reset), one write port and two read ports whose data reads 0 for
// an invalid entry, and an XOR checksum register of everything written.
//
//	inputs  clk, rst, we_i, waddr_i[A], wdata_i[width], raddr0_i[A], raddr1_i[A], clr_i
//	outputs rdata0_o[width], rdata1_o[width], sum_o[width]
//
// clr_i clears all valid bits (as a kernel launch does); a write in the
// same cycle still happens.
func regfileDesign(t testing.TB, abits, width int) *netlist.Design {
	entries := 1 << uint(abits)
	g := newGates(fmt.Sprintf("regfile%dx%d", entries, width))
	g.input("clk", 1)
	rst := g.input("rst", 1)[0]
	we := g.input("we_i", 1)[0]
	waddr := g.input("waddr_i", abits)
	wdata := g.input("wdata_i", width)
	raddr := []netlist.Bus{g.input("raddr0_i", abits), g.input("raddr1_i", abits)}
	clr := g.input("clr_i", 1)[0]

	mem := make([]netlist.Bus, entries)
	valid := g.reg("valid", entries)
	for e := range mem {
		mem[e] = g.reg(fmt.Sprintf("mem%d", e), width)
	}
	sum := g.reg("sum", width)

	// Read ports: a mux tree over the entries, then the valid bit.
	read := func(addr netlist.Bus) netlist.Bus {
		level := mem
		vl := make([]netlist.Bus, entries)
		for e := range vl {
			vl[e] = netlist.Bus{valid[e]}
		}
		for b := 0; b < abits; b++ {
			var nl, nv []netlist.Bus
			for i := 0; i < len(level); i += 2 {
				nl = append(nl, g.muxBus(addr[b], level[i], level[i+1]))
				nv = append(nv, g.muxBus(addr[b], vl[i], vl[i+1]))
			}
			level, vl = nl, nv
		}
		return g.andBus(level[0], vl[0][0])
	}
	g.output("rdata0_o", read(raddr[0]))
	g.output("rdata1_o", read(raddr[1]))
	g.output("sum_o", sum)

	// Write decode.
	keep := g.not(rst)
	wen := g.and(we, keep)
	dec := []netlist.Net{wen}
	for b := abits - 1; b >= 0; b-- {
		nb := g.not(waddr[b])
		var nd []netlist.Net
		for _, d := range dec {
			nd = append(nd, g.and(d, nb), g.and(d, waddr[b]))
		}
		dec = nd
	}
	// dec[e] now selects entry e with address bits taken MSB first.
	noClr := g.and(g.not(clr), keep)
	for e := range mem {
		g.next(mem[e], g.muxBus(dec[e], mem[e], wdata))
		g.next(netlist.Bus{valid[e]}, netlist.Bus{g.or(dec[e], g.and(valid[e], noClr))})
	}
	x := make(netlist.Bus, width)
	for i := range x {
		x[i] = g.xor(sum[i], g.and(wdata[i], wen))
	}
	g.next(sum, g.andBus(x, keep))
	return g.build(t)
}

// regfileV is the hand-written RTL of regfileDesign.
func regfileV(name string, abits, width int) string {
	entries := 1 << uint(abits)
	return fmt.Sprintf("`timescale 1ns / 1ps\n"+`module %[1]s (
    input  wire         clk,
    input  wire         rst,
    input  wire         we_i,
    input  wire [%[2]d:0]  waddr_i,
    input  wire [%[3]d:0] wdata_i,
    input  wire [%[2]d:0]  raddr0_i,
    input  wire [%[2]d:0]  raddr1_i,
    input  wire         clr_i,
    output wire [%[3]d:0] rdata0_o,
    output wire [%[3]d:0] rdata1_o,
    output wire [%[3]d:0] sum_o
);
    reg [%[3]d:0] mem_q [0:%[4]d]; // not reset
    reg [%[4]d:0] valid_q;
    reg [%[3]d:0] sum_q;

    assign rdata0_o = valid_q[raddr0_i] ? mem_q[raddr0_i] : %[5]d'd0;
    assign rdata1_o = valid_q[raddr1_i] ? mem_q[raddr1_i] : %[5]d'd0;
    assign sum_o = sum_q;

    always @(posedge clk) begin
        if (rst) begin
            valid_q <= %[6]d'd0;
            sum_q <= %[5]d'd0;
        end else begin
            if (clr_i) valid_q <= %[6]d'd0;
            if (we_i) begin
                mem_q[waddr_i] <= wdata_i;
                valid_q[waddr_i] <= 1'b1;
                sum_q <= sum_q ^ wdata_i;
            end
        end
    end
endmodule
`, name, abits-1, width-1, entries-1, width, entries)
}

// regfileModel is regfileDesign in Go.
type regfileModel struct {
	abits, width int
	mem          []uint64
	valid        []bool
	sum          uint64
}

func newRegfileModel(abits, width int) *regfileModel {
	return &regfileModel{abits: abits, width: width, mem: make([]uint64, 1<<uint(abits)), valid: make([]bool, 1<<uint(abits))}
}

func (m *regfileModel) Ports() []model.Port {
	return []model.Port{
		{Name: "rst", Width: 1}, {Name: "we_i", Width: 1}, {Name: "waddr_i", Width: m.abits},
		{Name: "wdata_i", Width: m.width}, {Name: "raddr0_i", Width: m.abits}, {Name: "raddr1_i", Width: m.abits},
		{Name: "clr_i", Width: 1},
		{Name: "rdata0_o", Width: m.width, Output: true}, {Name: "rdata1_o", Width: m.width, Output: true},
		{Name: "sum_o", Width: m.width, Output: true},
	}
}

func (m *regfileModel) Reset() {
	clear(m.valid)
	m.sum = 0
}

func (m *regfileModel) Cycle(in, out [][]uint64) {
	am, dm := Mask(m.abits), Mask(m.width)
	for i, r := range []uint64{in[4][0] & am, in[5][0] & am} {
		out[i][0] = 0
		if m.valid[r] {
			out[i][0] = m.mem[r]
		}
	}
	out[2][0] = m.sum
	if in[0][0]&1 == 1 {
		m.Reset()
		return
	}
	if in[6][0]&1 == 1 {
		clear(m.valid)
	}
	if in[1][0]&1 == 1 {
		w, d := in[2][0]&am, in[3][0]&dm
		m.mem[w], m.valid[w] = d, true
		m.sum ^= d
	}
}
