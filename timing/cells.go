// Package timing estimates the critical path, area and transistor count of
// a gate netlist with the method of logical effort (Sutherland, Sproull &
// Harris, "Logical Effort: Designing Fast CMOS Circuits", 1999), in the
// spirit of Google XLS's xls/netlist/logical_effort.h: a small, explicit
// cell table and a plain forward pass over the topologically ordered gates.
//
// # Delay model
//
// Delay is measured in τ, the delay of an ideal inverter driving an
// identical inverter with no parasitics. One stage takes
//
//	d = g·h + p,   h = Cload/Cin
//
// where g is the logical effort of the input pin, p the parasitic delay of
// the cell, Cin the pin's input capacitance and Cload the capacitance on the
// cell's output net, both in units of a unit inverter's input capacitance.
// A fanout-of-4 inverter takes 1·4 + 1 = 5τ, so FO4 = 5τ when wires are
// free; with wire capacitance the FO4 inverter is measured under the same
// model (Wire.TauPerFO4) and delays are reported in that unit.
//
// Every library cell is unit-drive: its output stage drives like a unit
// inverter, so a pin of logical effort g presents Cin = g and its effort
// delay is simply Cload. Cells that are several stages inside (AND, OR, BUF,
// non-inverting MUX2, DFF clock-to-Q) are described by effective
// single-stage figures whose derivation is given next to each row of Cells.
//
// Wires add capacitance by the wire-load model of Wire; transitions are
// not distinguished (rise = fall) and the clock is ideal. No setup time is added at DFF D inputs.
package timing

import "github.com/lsugen/lsugen/netlist"

// TauPerFO4 is the delay of a fanout-of-4 inverter in τ with free wires:
// g·h + p = 1·4 + 1. With a wire model see Wire.TauPerFO4.
const TauPerFO4 = 5.0

// Cell is the electrical and physical model of one library gate kind.
type Cell struct {
	// G is the logical effort of each input pin, in netlist pin order.
	G []float64
	// P is the parasitic (load-independent) delay in τ. For DFF it is the
	// clock-to-Q delay apart from the effort term of the Q load.
	P float64
	// PinP, when set, is the parasitic delay of each input pin instead of
	// P: a characterized library cell is faster from some pins than from
	// others. P is then their mean.
	PinP []float64
	// Cin is each input pin's capacitance in unit-inverter input caps.
	// For unit-drive cells Cin[i] == G[i].
	Cin []float64
	// Area is the cell area in NAND2 equivalents (NAND2 = 1.0).
	Area float64
	// Transistors is the static CMOS transistor count.
	Transistors int
	// Slew, when set, is a characterized cell's transition model: the
	// analysis then propagates transitions (see SlewModel). The
	// textbook cells have none.
	Slew *SlewModel `json:"slew,omitempty"`
}

// Delay is the delay in τ from input pin to output when the output net
// carries load (in unit-inverter input caps): G·(load/Cin) + P.
func (c *Cell) Delay(pin int, load float64) float64 {
	return c.G[pin]*load/c.Cin[pin] + c.parasitic(pin)
}

// parasitic is the parasitic delay from input pin to output.
func (c *Cell) parasitic(pin int) float64 {
	if c.PinP != nil {
		return c.PinP[pin]
	}
	return c.P
}

// Area column. A first-order layout estimate for single-height static CMOS
// cells: one poly track per complementary transistor pair plus one for the
// cell boundary, so area ∝ T/2 + 1 tracks; normalised to NAND2 (3 tracks)
// this is GE = (T + 2)/6, e.g. INV 0.67, NAND2 1, XOR2 2.33. Flip-flops
// need more than the rule gives (see DFF).
func ge(transistors int) float64 { return float64(transistors+2) / 6 }

// same returns n copies of v: the per-pin figures of a symmetric cell.
func same(n int, v float64) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = v
	}
	return s
}

// Cells is the gate table, indexed by netlist.Kind. Sources:
//
//	[LE]  Sutherland, Sproull & Harris, "Logical Effort", 1999, Table 4.1
//	      (logical effort per input) and Table 4.2 (parasitic delay):
//	      NAND_n g=(n+2)/3 p=n; NOR_n g=(2n+1)/3 p=n; XOR2 g=4 p=4 (each
//	      input and its complement together); n-way multiplexer of tristate
//	      inverters g=2 per data input, p=2n.
//	[WH]  Weste & Harris, "CMOS VLSI Design", 4th ed., ch. 4: gates sized for
//	      unit drive (nMOS width 1 per series device count, pMOS twice that);
//	      g = (input's nMOS + pMOS width)/3, p = (diffusion width on the
//	      output node)/3, a unit inverter being 1+2 wide.
//	[GE]  area from the transistor count, see ge.
//
// Multi-stage cells: a first stage of unit drive that drives a unit inverter
// (load 1) takes 1 + p₁ τ; the final unit inverter takes Cload + 1. The
// cell's effective p is the sum of the fixed parts, its pins present the
// first stage's input caps, and the effort term stays Cload.
var Cells = [netlist.NumKinds]Cell{
	// INV: the reference, g=1 p=1 [LE]; 2 T.
	netlist.INV: {G: same(1, 1), P: 1, Cin: same(1, 1), Area: ge(2), Transistors: 2},
	// BUF: two unit inverters. First drives the second: 1·1+1 = 2τ; then
	// Cload+1: p = 3, pin cap 1 [LE]; 4 T.
	netlist.BUF: {G: same(1, 1), P: 3, Cin: same(1, 1), Area: ge(4), Transistors: 4},

	// NAND_n: g=(n+2)/3, p=n [LE]; 2n T.
	netlist.NAND2: {G: same(2, 4.0/3), P: 2, Cin: same(2, 4.0/3), Area: ge(4), Transistors: 4},
	netlist.NAND3: {G: same(3, 5.0/3), P: 3, Cin: same(3, 5.0/3), Area: ge(6), Transistors: 6},
	netlist.NAND4: {G: same(4, 6.0/3), P: 4, Cin: same(4, 6.0/3), Area: ge(8), Transistors: 8},

	// NOR_n: g=(2n+1)/3, p=n [LE]; 2n T.
	netlist.NOR2: {G: same(2, 5.0/3), P: 2, Cin: same(2, 5.0/3), Area: ge(4), Transistors: 4},
	netlist.NOR3: {G: same(3, 7.0/3), P: 3, Cin: same(3, 7.0/3), Area: ge(6), Transistors: 6},
	netlist.NOR4: {G: same(4, 9.0/3), P: 4, Cin: same(4, 9.0/3), Area: ge(8), Transistors: 8},

	// AND_n = NAND_n + INV: NAND_n driving a unit inverter takes 1 + n τ,
	// the inverter Cload + 1, so p = n + 2; pins present NAND_n's (n+2)/3
	// [LE]; 2n + 2 T.
	netlist.AND2: {G: same(2, 4.0/3), P: 4, Cin: same(2, 4.0/3), Area: ge(6), Transistors: 6},
	netlist.AND3: {G: same(3, 5.0/3), P: 5, Cin: same(3, 5.0/3), Area: ge(8), Transistors: 8},
	netlist.AND4: {G: same(4, 6.0/3), P: 6, Cin: same(4, 6.0/3), Area: ge(10), Transistors: 10},

	// OR_n = NOR_n + INV: 1 + n τ, then Cload + 1: p = n + 2; pins present
	// NOR_n's (2n+1)/3 [LE]; 2n + 2 T.
	netlist.OR2: {G: same(2, 5.0/3), P: 4, Cin: same(2, 5.0/3), Area: ge(6), Transistors: 6},
	netlist.OR3: {G: same(3, 7.0/3), P: 5, Cin: same(3, 7.0/3), Area: ge(8), Transistors: 8},
	netlist.OR4: {G: same(4, 9.0/3), P: 6, Cin: same(4, 9.0/3), Area: ge(10), Transistors: 10},

	// XOR2/XNOR2: the static complementary XOR, g=4 per input counting the
	// input and its complement, p=4 [LE]. The complements come from two
	// inverters inside the cell whose delay the book's figure (and this
	// model) leaves out. 8 T + 2 inverters = 12 T.
	netlist.XOR2:  {G: same(2, 4), P: 4, Cin: same(2, 4), Area: ge(12), Transistors: 12},
	netlist.XNOR2: {G: same(2, 4), P: 4, Cin: same(2, 4), Area: ge(12), Transistors: 12},

	// AOI21 !((A1&A2)|B) for unit drive [WH]: pull-down A1,A2 in series
	// (width 2 each) parallel to B (width 1); pull-up A1||A2 (width 4 each)
	// in series with B (width 4). gA = (2+4)/3 = 2, gB = (1+4)/3 = 5/3;
	// output node: A1 2 + B 1 + B's pMOS 4 = 7, p = 7/3. 6 T.
	netlist.AOI21: {G: []float64{2, 2, 5.0 / 3}, P: 7.0 / 3, Cin: []float64{2, 2, 5.0 / 3}, Area: ge(6), Transistors: 6},
	// OAI21 !((A1|A2)&B), the dual [WH]: pull-down A1||A2 (width 2 each) in
	// series with B (width 2); pull-up A1,A2 in series (width 4 each)
	// parallel to B (width 2). gA = (2+4)/3 = 2, gB = (2+2)/3 = 4/3;
	// output node: B 2 + A1's pMOS 4 + B's pMOS 2 = 8, p = 8/3. 6 T.
	netlist.OAI21: {G: []float64{2, 2, 4.0 / 3}, P: 8.0 / 3, Cin: []float64{2, 2, 4.0 / 3}, Area: ge(6), Transistors: 6},

	// MUX2 S?A1:A0, non-inverting: two unit-drive tristate inverters on a
	// shared node X, then a unit output inverter [LE]. Data pins g=2. Each
	// of S and its complement drives one tristate's nMOS (width 2) and the
	// other's pMOS (width 4), g=2 each; counted together as for XOR2, the
	// select pin presents 4 (the internal S inverter's delay is left out).
	// Tristates into X (load 1): 1 + 2·2 = 5τ; inverter Cload + 1: p = 6.
	// 2×4 T tristates + S inverter + output inverter = 12 T.
	netlist.MUX2: {G: []float64{4, 2, 2}, P: 6, Cin: []float64{4, 2, 2}, Area: ge(12), Transistors: 12},

	// DFF: static master-slave transmission-gate flip-flop ([WH] ch. 10): D →
	// input inverter → master TG → master latch → slave TG → slave node →
	// output inverter → Q, each latch with an inverter + tristate keeper,
	// plus the local clock inverters: 24 T. D presents the unit input
	// inverter: Cin 1 (a timing end point; no setup time). Clock-to-Q (a
	// timing start point, ideal clock): the master's inverter drives the
	// slave node through the TG like a unit tristate, load = output inverter
	// + keeper inverter = 2, parasitic = TG 2 + keeper tristate 2: 2 + 4 =
	// 6τ; the output inverter Cload + 1: p = 7. Area: the track rule
	// undercounts flops (clock and keeper spacing); 5.67 GE is the DFF_X1 :
	// NAND2_X1 area ratio (4.522 : 0.798 µm²) of the Nangate 45 nm Open
	// Cell Library.
	netlist.DFF: {G: same(1, 1), P: 7, Cin: same(1, 1), Area: 4.522 / 0.798, Transistors: 24},
}
