package liberty

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/timing"
)

// DefaultDontUse are cells, as path.Match patterns on the cell name, that
// neither characterization nor the synthesis flow of verify/sta uses: for
// the SkyWater sky130 libraries
//
//   - *lpflow_*: multi-power-domain cells (isolation, level shifters,
//     keep-alive buffers);
//   - *probe*: probe-point cells with metal on every layer;
//   - *clkbuf*, *clkinv*, *clkdlybuf*, *dlygate*, *dlymetal*: clock-tree
//     and hold-fixing delay cells, which a place-and-route flow reserves
//     for clock-tree synthesis and hold repair.
//
// Patterns that match nothing (in other libraries) are harmless.
var DefaultDontUse = []string{
	"*lpflow_*", "*probe*",
	"*clkbuf*", "*clkinv*", "*clkdlybuf*", "*dlygate*", "*dlymetal*",
}

// Options tune Characterize.
type Options struct {
	// DontUse are cells to leave out (path.Match patterns on the name),
	// besides those with a dont_use attribute; nil means DefaultDontUse.
	DontUse []string
	// Inverter names the reference inverter, lsugen's unit inverter;
	// "" picks the library's smallest (SmallestInverter).
	Inverter string
}

// Characterization is a library described in the terms of the
// logical-effort model, with the figures it was derived from.
type Characterization struct {
	Library string `json:"library"`
	// Inverter is the reference inverter and RefCapFF its input
	// capacitance, the unit of capacitance of the gate table.
	Inverter string  `json:"inverter"`
	RefCapFF float64 `json:"ref_cap_ff"`
	// SlewPS is the reference input transition, that of a stage in a
	// chain of FO4 inverters: every pin's g and p are fitted to its
	// delay tables at it; each cell's timing.SlewModel then corrects
	// the delay for the transition the analysis propagates to the pin,
	// edge by edge.
	SlewPS float64 `json:"slew_ps"`
	// FixedSlew, when not "", says why the model reads every table at
	// SlewPS instead of propagating transitions (a cell without
	// transition tables); "" when every cell has a transition model
	// (timing.SlewModel).
	FixedSlew string `json:"fixed_slew,omitempty"`
	// TauPS is τ, the reference inverter's delay per unit of electrical
	// effort; PInv its parasitic delay in τ.
	TauPS float64 `json:"tau_ps"`
	PInv  float64 `json:"p_inv"`
	// InputPInv is the reference inverter's parasitic delay, in τ, when
	// its input switches instantly: that of the inverters that drive the
	// primary inputs (timing.Tech.InputP).
	InputPInv float64 `json:"input_p_inv"`
	// FO4PS is the library's FO4 delay, the one figure lsugen uses for
	// it everywhere (characterize, the SDC, crosscheck-timing, periods in
	// time units): the reference inverter driving four copies of itself
	// and the wire of a fanout-4 net under the default wire-load model,
	// rise and fall averaged, at SlewPS. It is timing.Options.FO4PS of
	// Tech (timing.OptionsFor), computed by that function.
	FO4PS float64 `json:"fo4_ps"`
	// SetupPS is the flip-flop's setup time with data at SlewPS and an
	// ideal clock, rising and falling data averaged; 0 when the library
	// gives none.
	SetupPS float64 `json:"setup_ps,omitempty"`
	// WireLoad names the wire-load model used ("" when the library names
	// no default).
	WireLoad string `json:"wire_load"`
	// Kinds has one row per gate kind of the netlist.
	Kinds []KindFit `json:"kinds"`
	// Tech is the result, for timing.OptionsFor.
	Tech *timing.Tech `json:"-"`
}

// KindFit is the library cell chosen for a gate kind and its fitted
// figures.
type KindFit struct {
	Kind string `json:"kind"`
	// Cell is the library cell, or "CORE + INVERTER" when the kind is
	// faster built as its inverting core followed by the inverter than
	// as the library's own cell (Single then names that cell).
	Cell   string `json:"cell"`
	Single string `json:"single,omitempty"`
	// How to instantiate it: Core is the cell whose input pins Pins
	// lists and Output its output pin; a composite adds Inverter (input
	// pin InvIn, output InvOut) after it. Clock is a flip-flop's clock
	// pin.
	Core     string `json:"core"`
	Output   string `json:"output"`
	Inverter string `json:"inverter,omitempty"`
	InvIn    string `json:"inv_in,omitempty"`
	InvOut   string `json:"inv_out,omitempty"`
	Clock    string `json:"clock,omitempty"`
	// Candidates counts the library cells that implement the kind.
	Candidates int     `json:"candidates"`
	AreaGE     float64 `json:"area_ge"`
	Pins       []PinFit
}

// PinFit is one input pin of a chosen cell: its delay to the output (the
// mean of the worst rising and the worst falling edge) read from the
// tables at SlewPS, fitted as d = InterceptPS + SlopePSPerFF·C
// over loads of 1 to 8 reference inverters, and the same in the model's
// terms: d/τ = G·C/Cin + P with C and Cin in reference-inverter caps.
type PinFit struct {
	Pin          string  `json:"pin"`
	CapFF        float64 `json:"cap_ff"`
	InterceptPS  float64 `json:"intercept_ps"`
	SlopePSPerFF float64 `json:"slope_ps_per_ff"`
	Cin          float64 `json:"cin"`
	G            float64 `json:"g"`
	P            float64 `json:"p"`
}

// fitLoads are the loads of the delay fit, in reference-inverter caps:
// the electrical efforts gates see in practice.
var fitLoads = []float64{1, 2, 4, 8}

// candidate is a library cell that implements a kind, with pins[i] the
// cell pin for the kind's pin i.
type candidate struct {
	cell *Cell
	pins []*Pin
	out  *Pin
	// slope is the mean fitted delay slope over the pins, in library
	// units: the cell's drive resistance, to find the unit-drive one.
	slope float64
}

// matchComb finds the pin assignment under which cell c computes kind k,
// or nil.
func matchComb(c *Cell, k netlist.Kind) *candidate {
	if c.Sequential || len(c.Outputs) != 1 || len(c.Inputs) != k.Arity() {
		return nil
	}
	f, err := ParseFunction(c.Outputs[0].Function)
	if err != nil || c.Outputs[0].Function == "" {
		return nil
	}
	want := uint64(netlist.Kinds[k].Truth)
	n := k.Arity()
	perm := make([]int, n) // kind pin i -> cell input perm[i]
	for i := range perm {
		perm[i] = i
	}
	for {
		names := make([]string, n)
		for i, p := range perm {
			names[i] = c.Inputs[p].Name
		}
		if tt, err := f.TruthTable(names); err == nil && tt == want {
			pins := make([]*Pin, n)
			for i, p := range perm {
				pins[i] = c.Inputs[p]
			}
			return &candidate{cell: c, pins: pins, out: c.Outputs[0]}
		}
		if !nextPerm(perm) {
			return nil
		}
	}
}

// nextPerm steps p to the next permutation in lexicographic order.
func nextPerm(p []int) bool {
	i := len(p) - 2
	for i >= 0 && p[i] >= p[i+1] {
		i--
	}
	if i < 0 {
		return false
	}
	j := len(p) - 1
	for p[j] <= p[i] {
		j--
	}
	p[i], p[j] = p[j], p[i]
	for a, b := i+1, len(p)-1; a < b; a, b = a+1, b-1 {
		p[a], p[b] = p[b], p[a]
	}
	return true
}

// matchDFF accepts a plain rising-edge D flip-flop: next_state is one
// input, clocked_on the other, no clear or preset, and an output that is
// the state. pins[0] is D; the clock pin is returned apart.
func matchDFF(c *Cell) (cand *candidate, clock string) {
	ff := c.FF
	if ff == nil || ff.Clear != "" || ff.Preset != "" || ff.ClearPresetVarious || len(c.Inputs) != 2 {
		return nil, ""
	}
	ns, ck := strings.TrimSpace(ff.NextState), strings.TrimSpace(ff.ClockedOn)
	var d *Pin
	for _, p := range c.Inputs {
		if p.Name == ns {
			d = p
		}
	}
	if d == nil || ck == ns || !(c.Inputs[0].Name == ck || c.Inputs[1].Name == ck) {
		return nil, ""
	}
	for _, o := range c.Outputs {
		if strings.TrimSpace(o.Function) == ff.IQ && ff.IQ != "" {
			return &candidate{cell: c, pins: []*Pin{d}, out: o}, ck
		}
	}
	return nil, ""
}

// arcDelay is the delay from pin `related` to output o at input
// transition slew and load (library units): the mean of the worst rising
// and the worst falling output over the matching arcs; ok is false
// without such arcs, err the first unreadable one.
func arcDelay(o *Pin, related, arcType string, slew, load float64) (d float64, ok bool, err error) {
	rise, fall := math.Inf(-1), math.Inf(-1)
	for _, a := range o.Arcs {
		if strings.TrimSpace(a.RelatedPin) != related || a.Type != arcType {
			continue
		}
		if a.Err != nil {
			return 0, false, a.Err
		}
		if a.CellRise != nil {
			rise = math.Max(rise, a.CellRise.At(slew, load))
		}
		if a.CellFall != nil {
			fall = math.Max(fall, a.CellFall.At(slew, load))
		}
	}
	switch {
	case math.IsInf(rise, -1) && math.IsInf(fall, -1):
		return 0, false, nil
	case math.IsInf(rise, -1):
		return fall, true, nil
	case math.IsInf(fall, -1):
		return rise, true, nil
	}
	return (rise + fall) / 2, true, nil
}

// fitLine fits d = a + b·C by least squares to the arc delays at loads
// fitLoads·ref (library units).
func fitLine(o *Pin, related, arcType string, slew, ref float64) (a, b float64, err error) {
	var sx, sy, sxx, sxy float64
	for _, k := range fitLoads {
		c := k * ref
		d, ok, err := arcDelay(o, related, arcType, slew, c)
		if err != nil {
			return 0, 0, err
		}
		if !ok {
			return 0, 0, fmt.Errorf("no %s timing arc from %s to %s", arcType, clipName(related), clipName(o.Name))
		}
		sx, sy, sxx, sxy = sx+c, sy+d, sxx+c*c, sxy+c*d
	}
	n := float64(len(fitLoads))
	b = (n*sxy - sx*sy) / (n*sxx - sx*sx)
	a = (sy - b*sx) / n
	if !(b > 0) {
		return 0, 0, fmt.Errorf("delay from %s to %s does not grow with the load", clipName(related), clipName(o.Name))
	}
	return a, b, nil
}

// inverting is the inverting core of each non-inverting kind.
var inverting = map[netlist.Kind]netlist.Kind{
	netlist.BUF:  netlist.INV,
	netlist.AND2: netlist.NAND2, netlist.AND3: netlist.NAND3, netlist.AND4: netlist.NAND4,
	netlist.OR2: netlist.NOR2, netlist.OR3: netlist.NOR3, netlist.OR4: netlist.NOR4,
	netlist.XOR2: netlist.XNOR2, netlist.XNOR2: netlist.XOR2,
}

// composites replaces the cell of a non-inverting kind by its inverting
// core driving the reference inverter where that is faster at an FO4
// load: a mapper builds an OR4 as NOR4 + INV when the library's own OR4
// is slow (sky130's or4 has a parasitic delay near 33 τ, nor4 + inv near
// 17 τ). The composite's pins are the core's; the inverter drives the
// load; the core drives the inverter and its wire.
func composites(ch *Characterization, tech *timing.Tech) {
	inv := tech.Cells[netlist.INV]
	internal := inv.Cin[0] + tech.Wire.FanoutCapAt(1)
	fo4 := 4*inv.Cin[0] + tech.Wire.FanoutCapAt(4)
	meanDelay := func(c *timing.Cell) float64 {
		d := 0.0
		for i := range c.G {
			d += c.Delay(i, fo4) / float64(len(c.G))
		}
		return d
	}
	for k := netlist.Kind(0); int(k) < netlist.NumKinds; k++ {
		core, ok := inverting[k]
		if !ok {
			continue
		}
		cc := &tech.Cells[core]
		comp := timing.Cell{Area: cc.Area + inv.Area, Transistors: cc.Transistors + inv.Transistors}
		for i := range cc.G {
			comp.Cin = append(comp.Cin, cc.Cin[i])
			comp.G = append(comp.G, cc.Cin[i]*inv.G[0]/inv.Cin[0])
			comp.PinP = append(comp.PinP, cc.Delay(i, internal)+inv.P)
			comp.P += comp.PinP[i] / float64(len(cc.G))
		}
		if meanDelay(&comp) >= meanDelay(&tech.Cells[k]) {
			continue
		}
		kf := &ch.Kinds[k]
		ki := &ch.Kinds[netlist.INV]
		kf.Single = kf.Cell
		kf.Cell = ch.Kinds[core].Cell + " + " + ki.Cell
		kf.Core, kf.Output = ch.Kinds[core].Core, ch.Kinds[core].Output
		kf.Inverter, kf.InvIn, kf.InvOut = ki.Core, ki.Pins[0].Pin, ki.Output
		kf.Pins = nil
		for i, p := range ch.Kinds[core].Pins {
			kf.Pins = append(kf.Pins, PinFit{Pin: p.Pin, CapFF: p.CapFF, Cin: comp.Cin[i], G: comp.G[i], P: comp.PinP[i],
				InterceptPS: comp.PinP[i] * ch.TauPS, SlopePSPerFF: ch.Kinds[netlist.INV].Pins[0].SlopePSPerFF})
		}
		tech.Cells[k] = comp
	}
}

// SmallestInverter is the library's inverter of least area (ties: smaller
// input capacitance, then name) among the cells usable under dontUse:
// the counterpart of lsugen's unit inverter.
func (l *Library) SmallestInverter(dontUse []string) (*Cell, error) {
	var best *Cell
	for _, name := range l.Order {
		c := l.Cells[name]
		if c.DontUse || MatchAny(dontUse, name) || matchComb(c, netlist.INV) == nil {
			continue
		}
		if best == nil || c.Area < best.Area ||
			c.Area == best.Area && (c.Inputs[0].Cap < best.Inputs[0].Cap ||
				c.Inputs[0].Cap == best.Inputs[0].Cap && c.Name < best.Name) {
			best = c
		}
	}
	if best == nil {
		return nil, fmt.Errorf("library %s has no inverter", clipName(l.Name))
	}
	return best, nil
}

// Characterize describes the library in the model's terms. For every gate
// kind it picks, among the usable cells with the kind's function, the one
// whose drive is nearest the reference inverter's (the model's cells are
// all unit drive), reads its delay tables at the input transition of an
// FO4 chain, and fits each pin's delay to a line in the load. τ is the
// reference inverter's delay per reference-inverter load; a pin of slope
// b, intercept a and capacitance Cin (in reference caps) then has logical
// effort Cin·b/b_inv and parasitic delay a/τ. Flip-flops are read at an
// ideal clock's zero transition. The wire-load model is the library's
// default one, in reference caps per fanout. Each cell also gets its
// transition model (timing.SlewModel, see slewModels), so that the
// analysis propagates rising and falling transitions; a library without
// transition tables gets none (FixedSlew says why) and is read at the
// one transition.
func Characterize(l *Library, opt Options) (*Characterization, error) {
	dontUse := opt.DontUse
	if dontUse == nil {
		dontUse = DefaultDontUse
	}
	usable := func(c *Cell) bool { return !c.DontUse && !MatchAny(dontUse, c.Name) }
	var inv *Cell
	if opt.Inverter == "" {
		var err error
		if inv, err = l.SmallestInverter(dontUse); err != nil {
			return nil, err
		}
	} else {
		inv = l.Cells[opt.Inverter]
		if inv == nil {
			return nil, fmt.Errorf("library %s has no cell %s", clipName(l.Name), clip(opt.Inverter))
		}
		if matchComb(inv, netlist.INV) == nil {
			return nil, fmt.Errorf("cell %s is not an inverter", clipName(opt.Inverter))
		}
	}
	ref := inv.Inputs[0].Cap
	if !(ref > 0) {
		return nil, fmt.Errorf("inverter %s has no input capacitance", clipName(inv.Name))
	}
	ch := &Characterization{Library: l.Name, Inverter: inv.Name, RefCapFF: ref * l.CapUnitFF}

	// The wire-load model, in library capacitance units.
	var wl *WireLoad
	if l.DefaultWireLoad != "" {
		wl = l.WireLoads[l.DefaultWireLoad]
		ch.WireLoad = wl.Name
	}
	wireCap := func(f int) float64 {
		if wl == nil {
			return 0
		}
		return wl.Capacitance * wl.Length(f)
	}

	// The reference slew: a stage of an FO4 inverter chain, driven by
	// another such stage (a fixed point of the transition tables).
	invOut := inv.Outputs[0]
	fo4Load := 4*ref + wireCap(4)
	slew := 0.0
	for it := 0; it < 50; it++ {
		var r, f float64
		var nr, nf int
		for _, a := range invOut.Arcs {
			if a.RiseTransition != nil {
				r, nr = r+a.RiseTransition.At(slew, fo4Load), nr+1
			}
			if a.FallTransition != nil {
				f, nf = f+a.FallTransition.At(slew, fo4Load), nf+1
			}
		}
		if nr == 0 || nf == 0 {
			return nil, fmt.Errorf("inverter %s has no transition tables", clipName(inv.Name))
		}
		slew = (r/float64(nr) + f/float64(nf)) / 2
	}
	ch.SlewPS = slew * l.TimeUnitPS

	aInv, bInv, err := fitLine(invOut, inv.Inputs[0].Name, "combinational", slew, ref)
	if err != nil {
		return nil, fmt.Errorf("inverter %s: %w", inv.Name, err)
	}
	tau := bInv * ref // library time units
	ch.TauPS = tau * l.TimeUnitPS
	ch.PInv = aInv / tau
	aIn, _, err := fitLine(invOut, inv.Inputs[0].Name, "combinational", 0, ref)
	if err != nil {
		return nil, fmt.Errorf("inverter %s: %w", inv.Name, err)
	}
	ch.InputPInv = aIn / tau

	tech := &timing.Tech{Name: l.Name, TauPS: ch.TauPS, RefCapFF: ch.RefCapFF, InputP: ch.InputPInv}
	if wl != nil {
		n := 0
		for f := range wl.FanoutLength {
			n = max(n, f)
		}
		for f := 1; f <= n; f++ {
			tech.Wire.FanoutCap = append(tech.Wire.FanoutCap, wireCap(f)/ref)
		}
		tech.Wire.FanoutSlope = wl.Capacitance * wl.Slope / ref
	}

	var missing []string
	for k := netlist.Kind(0); int(k) < netlist.NumKinds; k++ {
		var cands []*candidate
		clock := map[*candidate]string{}
		for _, name := range l.Order {
			c := l.Cells[name]
			if !usable(c) {
				continue
			}
			if k == netlist.DFF {
				if cd, ck := matchDFF(c); cd != nil {
					cands = append(cands, cd)
					clock[cd] = ck
				}
			} else if cd := matchComb(c, k); cd != nil {
				cands = append(cands, cd)
			}
		}
		// Each candidate's drive: the mean slope over its pins (the
		// clock arc for a flip-flop).
		var ok []*candidate
		for _, cd := range cands {
			sum := 0.0
			good := true
			if k == netlist.DFF {
				_, b, err := fitLine(cd.out, clock[cd], "rising_edge", 0, ref)
				good, sum = err == nil, b
			} else {
				for _, p := range cd.pins {
					_, b, err := fitLine(cd.out, p.Name, "combinational", slew, ref)
					if err != nil {
						good = false
						break
					}
					sum += b / float64(len(cd.pins))
				}
			}
			if good {
				cd.slope = sum
				ok = append(ok, cd)
			}
		}
		if len(ok) == 0 {
			missing = append(missing, k.String())
			continue
		}
		sort.SliceStable(ok, func(i, j int) bool {
			di, dj := math.Abs(math.Log(ok[i].slope/bInv)), math.Abs(math.Log(ok[j].slope/bInv))
			if di != dj {
				return di < dj
			}
			if ok[i].cell.Area != ok[j].cell.Area {
				return ok[i].cell.Area < ok[j].cell.Area
			}
			return ok[i].cell.Name < ok[j].cell.Name
		})
		best := ok[0]
		kf := KindFit{Kind: k.String(), Cell: best.cell.Name, Candidates: len(ok), Core: best.cell.Name, Output: best.out.Name, Clock: clock[best]}
		cell := timing.Cell{Transistors: timing.Cells[k].Transistors}
		for _, p := range best.pins {
			var a, b float64
			if k == netlist.DFF {
				a, b, _ = fitLine(best.out, clock[best], "rising_edge", 0, ref)
			} else {
				a, b, _ = fitLine(best.out, p.Name, "combinational", slew, ref)
			}
			cin := p.Cap / ref
			pf := PinFit{Pin: p.Name, CapFF: p.Cap * l.CapUnitFF, InterceptPS: a * l.TimeUnitPS,
				SlopePSPerFF: b * l.TimeUnitPS / l.CapUnitFF, Cin: cin, G: cin * b / bInv, P: a / tau}
			kf.Pins = append(kf.Pins, pf)
			cell.G = append(cell.G, pf.G)
			cell.Cin = append(cell.Cin, pf.Cin)
			cell.PinP = append(cell.PinP, pf.P)
			cell.P += pf.P / float64(len(best.pins))
		}
		if k == netlist.INV {
			cell.PinP = nil // the input driver copies the inverter's P
		}
		cell.Area = best.cell.Area // in GE below, once NAND2 is known
		tech.Cells[k] = cell
		ch.Kinds = append(ch.Kinds, kf)
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("library %s has no usable cell for %s", clipName(l.Name), strings.Join(missing, ", "))
	}
	composites(ch, tech)
	// The flip-flop's setup time for the pipeliner's stages
	// (timing.Options.SetupFO4): data at the reference transition, the
	// clock ideal (transition 0), as a static timing check before clock
	// tree synthesis (and OpenSTA by default) takes it.
	if ff := l.Cells[ch.Kinds[netlist.DFF].Cell]; ff != nil {
		if s, err := l.SetupPS(ff, ch.Kinds[netlist.DFF].Pins[0].Pin, 0, slew); err == nil && s > 0 {
			tech.SetupPS, ch.SetupPS = s, s
		}
	}
	if err := slewModels(l, ch, tech, slew, tau, ref); err != nil {
		// All or none: the model reads every table at SlewPS.
		for k := range tech.Cells {
			tech.Cells[k].Slew = nil
		}
		ch.FixedSlew = err.Error()
	}
	nand2 := tech.Cells[netlist.NAND2].Area
	if !(nand2 > 0) {
		return nil, fmt.Errorf("library %s: the NAND2 cell %s has no area", clipName(l.Name), clipName(ch.Kinds[netlist.NAND2].Cell))
	}
	for k := range tech.Cells {
		tech.Cells[k].Area /= nand2
		ch.Kinds[k].AreaGE = tech.Cells[k].Area
	}
	ch.Tech = tech
	// The library's FO4, computed where the timing model computes it, so
	// that every figure in FO4 converts to ps by this one.
	ch.FO4PS = timing.OptionsFor(tech).FO4PS()
	return ch, nil
}
