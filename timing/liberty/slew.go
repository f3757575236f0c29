package liberty

import (
	"fmt"
	"math"
	"strings"

	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/timing"
)

// The grid a cell's transition model is sampled on: stage efforts
// f = G·C/Cin in τ (loads from a quarter of the cell's own input
// capacitance to 64 FO1 loads), and input transitions as multiples of
// the reference transition (an ideal input to 32 times an FO4 stage's,
// beyond the tables of most libraries, which are extrapolated).
var (
	slewEfforts = []float64{0.25, 0.5, 1, 2, 4, 8, 16, 32, 64}
	slewFactors = []float64{0, 0.25, 0.5, 1, 2, 4, 8, 16, 32}
)

// edges are an arc's figures for a rising and a falling output: delays
// and output transitions in library units.
type edges struct{ dRise, dFall, tRise, tFall float64 }

// arcEdges reads the arcs from pin related to output o of the given
// sense (see senseMatches; "" for all) at input transition slew and load
// (library units): the worst rising and the worst falling delay and
// transition over the matching arcs; a missing edge takes the other's
// figures. ok is false without such arcs or without transition tables.
func arcEdges(o *Pin, related, arcType, sense string, slew, load float64) (e edges, ok bool, err error) {
	inf := math.Inf(-1)
	e = edges{inf, inf, inf, inf}
	for _, a := range o.Arcs {
		if strings.TrimSpace(a.RelatedPin) != related || a.Type != arcType || !senseMatches(a.Sense, sense) {
			continue
		}
		if a.Err != nil {
			return e, false, a.Err
		}
		for _, t := range []struct {
			tab *Table
			v   *float64
		}{{a.CellRise, &e.dRise}, {a.CellFall, &e.dFall}, {a.RiseTransition, &e.tRise}, {a.FallTransition, &e.tFall}} {
			if t.tab != nil {
				*t.v = math.Max(*t.v, t.tab.At(slew, load))
			}
		}
	}
	fill := func(a, b *float64) {
		if math.IsInf(*a, -1) {
			*a = *b
		}
		if math.IsInf(*b, -1) {
			*b = *a
		}
	}
	fill(&e.dRise, &e.dFall)
	fill(&e.tRise, &e.tFall)
	for _, v := range []float64{e.dRise, e.tRise} {
		if math.IsInf(v, -1) {
			return e, false, nil
		}
	}
	return e, true, nil
}

// senseMatches tells whether an arc of timing_sense arc counts as one
// of sense want ("positive_unate" or "negative_unate"; "" takes all): a
// non-unate arc, or one without a sense, counts as both.
func senseMatches(arc, want string) bool {
	return want == "" || arc == want || arc != "positive_unate" && arc != "negative_unate"
}

// hasSense tells whether some arc from pin related to o counts as one of
// sense want.
func hasSense(o *Pin, related, arcType, want string) bool {
	for _, a := range o.Arcs {
		if strings.TrimSpace(a.RelatedPin) == related && a.Type == arcType && senseMatches(a.Sense, want) {
			return true
		}
	}
	return false
}

// arcRef is the delay arcs of one sense ("" for all) from an input pin
// of a cell to its output, read in library units.
type arcRef struct {
	out                  *Pin
	related, kind, sense string
}

func (a arcRef) edges(slew, load float64) (edges, error) {
	e, ok, err := arcEdges(a.out, a.related, a.kind, a.sense, slew, load)
	if err == nil && !ok {
		err = fmt.Errorf("no %s delay and transition tables from %s to %s", a.kind, clipName(a.related), clipName(a.out.Name))
	}
	return e, err
}

// outPin is cell c's output pin named name.
func outPin(c *Cell, name string) *Pin {
	for _, o := range c.Outputs {
		if o.Name == name {
			return o
		}
	}
	return nil
}

// slewModels gives every kind's cell of tech its transition model, from
// the cells ch chose (after composites), and sets tech.SlewTau. slew and
// tau are the reference transition and τ, ref the reference inverter's
// input capacitance, all in library units. For a pin's positive- and
// negative-unate arcs apart, at input transition s and load C, and each
// output edge, it samples
//
//   - a single cell: the edge's delay at s less the pin's mean delay
//     (over all its arcs and both edges, as the fitted line has it) at
//     the reference transition, and the edge's output transition;
//   - a composite (core + inverter): the core at s driving the inverter
//     and its wire to the opposite edge, then the inverter at the core's
//     output transition, the core's positive-unate arcs becoming the
//     composite's negative-unate ones and the other way round;
//   - a flip-flop: clock to Q at an ideal clock, and its transition (the
//     analysis reads a flip-flop, like an input driver, at an ideal
//     input).
func slewModels(l *Library, ch *Characterization, tech *timing.Tech, slew, tau, ref float64) error {
	tech.SlewTau = slew / tau
	internal := (tech.Cells[netlist.INV].Cin[0] + tech.Wire.FanoutCapAt(1)) * ref
	for k := range ch.Kinds {
		kf := &ch.Kinds[k]
		cell := &tech.Cells[k]
		core := l.Cells[kf.Core]
		if core == nil || outPin(core, kf.Output) == nil {
			return fmt.Errorf("%s: no cell %s with output %s", kf.Kind, clipName(kf.Core), clipName(kf.Output))
		}
		var inv arcRef
		if kf.Inverter != "" {
			ic := l.Cells[kf.Inverter]
			if ic == nil || outPin(ic, kf.InvOut) == nil {
				return fmt.Errorf("%s: no inverter %s with output %s", kf.Kind, clipName(kf.Inverter), clipName(kf.InvOut))
			}
			inv = arcRef{outPin(ic, kf.InvOut), kf.InvIn, "combinational", ""}
		}
		m := &timing.SlewModel{Effort: slewEfforts}
		for _, x := range slewFactors {
			m.Slew = append(m.Slew, x*slew/tau)
		}
		dff := netlist.Kind(k) == netlist.DFF
		for pin, pf := range kf.Pins {
			all := arcRef{outPin(core, kf.Output), pf.Pin, "combinational", ""}
			if dff {
				all.related, all.kind = kf.Clock, "rising_edge"
			}
			// mean is the pin's mean delay over its arcs and edges at the
			// reference transition and load c: the fitted line's basis.
			mean := func(c float64) (float64, error) {
				if dff {
					e, err := all.edges(0, c)
					return (e.dRise + e.dFall) / 2, err
				}
				if kf.Inverter == "" {
					e, err := all.edges(slew, c)
					return (e.dRise + e.dFall) / 2, err
				}
				r, f, err := composite(all, inv, slew, internal, c)
				return (r.dRise + f.dFall) / 2, err
			}
			var ps timing.PinSlew
			for _, sense := range []string{"positive_unate", "negative_unate"} {
				a := all
				a.sense = sense
				if !hasSense(a.out, a.related, a.kind, sense) || dff && sense == "positive_unate" {
					continue
				}
				// at is the edges of these arcs at input transition s
				// and load c.
				at := func(s, c float64) (edges, error) {
					switch {
					case dff:
						return a.edges(0, c)
					case kf.Inverter == "":
						return a.edges(s, c)
					}
					r, f, err := composite(a, inv, s, internal, c)
					return edges{r.dRise, f.dFall, r.tRise, f.tFall}, err
				}
				pair := &timing.EdgePair{}
				for _, s := range m.Slew {
					var rd, fd, ro, fo []float64
					for _, f := range m.Effort {
						c := f * cell.Cin[pin] / cell.G[pin] * ref
						e, err := at(s*tau, c)
						if err != nil {
							return fmt.Errorf("%s: %w", kf.Kind, err)
						}
						m0, err := mean(c)
						if err != nil {
							return fmt.Errorf("%s: %w", kf.Kind, err)
						}
						rd, fd = append(rd, (e.dRise-m0)/tau), append(fd, (e.dFall-m0)/tau)
						ro, fo = append(ro, e.tRise/tau), append(fo, e.tFall/tau)
					}
					pair.Rise.Delay, pair.Rise.Out = append(pair.Rise.Delay, rd), append(pair.Rise.Out, ro)
					pair.Fall.Delay, pair.Fall.Out = append(pair.Fall.Delay, fd), append(pair.Fall.Out, fo)
				}
				// A composite's inverter flips the core's sense.
				if (sense == "positive_unate") == (kf.Inverter == "") {
					ps.Pos = pair
				} else {
					ps.Neg = pair
				}
			}
			if ps.Pos == nil && ps.Neg == nil {
				return fmt.Errorf("%s: no timing arc from %s", kf.Kind, clipName(pf.Pin))
			}
			m.Pins = append(m.Pins, ps)
		}
		cell.Slew = m
	}
	if inv := &tech.Cells[netlist.INV].Slew.Pins[0]; inv.Neg == nil {
		return fmt.Errorf("the inverter has no negative-unate arc")
	}
	return nil
}

// composite is a core cell's arcs a at input transition s driving the
// inverter inv through the internal load, then the inverter at load c:
// rise is the composite's rising output (the core falling, the inverter
// rising), fall its falling one, each edges with the delays summed and
// the inverter's transitions.
func composite(a, inv arcRef, s, internal, c float64) (rise, fall edges, err error) {
	ce, err := a.edges(s, internal)
	if err != nil {
		return rise, fall, err
	}
	r, err := inv.edges(ce.tFall, c)
	if err != nil {
		return rise, fall, err
	}
	f, err := inv.edges(ce.tRise, c)
	r.dRise += ce.dFall
	f.dFall += ce.dRise
	return r, f, err
}

// firstErr is the first non-nil error.
func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}
