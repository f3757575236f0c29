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

// arcTransition is the output transition of the arcs from pin related to
// output o at input transition slew and load (library units): the mean
// of the worst rising and the worst falling transition, as arcDelay
// reads delays.
func arcTransition(o *Pin, related, arcType string, slew, load float64) (t float64, ok bool, err error) {
	rise, fall := math.Inf(-1), math.Inf(-1)
	for _, a := range o.Arcs {
		if strings.TrimSpace(a.RelatedPin) != related || a.Type != arcType {
			continue
		}
		if a.Err != nil {
			return 0, false, a.Err
		}
		if a.RiseTransition != nil {
			rise = math.Max(rise, a.RiseTransition.At(slew, load))
		}
		if a.FallTransition != nil {
			fall = math.Max(fall, a.FallTransition.At(slew, load))
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

// arcRef is one delay arc of a cell, read in library units.
type arcRef struct {
	out           *Pin
	related, kind string
}

func (a arcRef) delay(slew, load float64) (float64, error) {
	d, ok, err := arcDelay(a.out, a.related, a.kind, slew, load)
	if err == nil && !ok {
		err = fmt.Errorf("no %s timing arc from %s to %s", a.kind, clipName(a.related), clipName(a.out.Name))
	}
	return d, err
}

func (a arcRef) transition(slew, load float64) (float64, error) {
	t, ok, err := arcTransition(a.out, a.related, a.kind, slew, load)
	if err == nil && !ok {
		err = fmt.Errorf("no transition table from %s to %s", clipName(a.related), clipName(a.out.Name))
	}
	return t, err
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
// input capacitance, all in library units. For a pin at input
// transition s and load C it samples
//
//   - a single cell: its delay at s less its delay at the reference
//     transition, and its output transition;
//   - a composite (core + inverter): the core at s driving the inverter
//     and its wire, then the inverter at the core's output transition:
//     the sum of both delay changes, and the inverter's transition;
//   - a flip-flop: no delay change (clock to Q is read at an ideal
//     clock) and the clock arc's output transition at an ideal clock.
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
			inv = arcRef{outPin(ic, kf.InvOut), kf.InvIn, "combinational"}
		}
		m := &timing.SlewModel{Effort: slewEfforts}
		for _, x := range slewFactors {
			m.Slew = append(m.Slew, x*slew/tau)
		}
		for pin, pf := range kf.Pins {
			a := arcRef{outPin(core, kf.Output), pf.Pin, "combinational"}
			if netlist.Kind(k) == netlist.DFF {
				a.related, a.kind = kf.Clock, "rising_edge"
			}
			// sample is the delay change and the output transition at
			// input transition s and load c.
			sample := func(s, c float64) (dd, out float64, err error) {
				switch {
				case netlist.Kind(k) == netlist.DFF:
					out, err = a.transition(0, c)
					return 0, out, err
				case kf.Inverter == "":
					d, err1 := a.delay(s, c)
					d0, err2 := a.delay(slew, c)
					out, err3 := a.transition(s, c)
					return d - d0, out, firstErr(err1, err2, err3)
				}
				d, err1 := a.delay(s, internal)
				d0, err2 := a.delay(slew, internal)
				sc, err3 := a.transition(s, internal)
				sc0, err4 := a.transition(slew, internal)
				di, err5 := inv.delay(sc, c)
				di0, err6 := inv.delay(sc0, c)
				out, err7 := inv.transition(sc, c)
				return d - d0 + di - di0, out, firstErr(err1, err2, err3, err4, err5, err6, err7)
			}
			dg := make([][]float64, len(m.Slew))
			og := make([][]float64, len(m.Slew))
			for i, s := range m.Slew {
				dg[i] = make([]float64, len(m.Effort))
				og[i] = make([]float64, len(m.Effort))
				for j, f := range m.Effort {
					c := f * cell.Cin[pin] / cell.G[pin] * ref
					dd, out, err := sample(s*tau, c)
					if err != nil {
						return fmt.Errorf("%s: %w", kf.Kind, err)
					}
					dg[i][j], og[i][j] = dd/tau, out/tau
				}
			}
			m.Delay = append(m.Delay, dg)
			m.Out = append(m.Out, og)
		}
		cell.Slew = m
	}
	return nil
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
