package flow

import (
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/timing"
	"github.com/lsugen/lsugen/units"
)

// AddLatencies sets each unit's cycles at each clock period (FO4) of
// rep, whose units are us in order: the latency of the unit that
// clock_fo4 builds at that period under timing mode mode ("" for the
// default, which a library makes liberty) in library lib, so that timing,
// profile and the generated unit give one answer. A variable-latency unit
// (the speculative coalescer) has its fast answers' latency beside its
// slow ones'. Where clock_fo4 builds nothing — a unit with its own clock
// or protocol, a period outside specs.MinClockFO4..MaxClockFO4, a unit the
// pipeliner refuses at that period — the count stays the critical path's
// ⌈FO4 / period⌉ and Built is false.
func AddLatencies(rep *timing.Report, us []Unit, periodsFO4 []float64, mode string, lib *Library) {
	tech := lib.tech()
	if mode == "" {
		mode = specs.DefaultTimingMode(lib != nil)
	}
	for i := range rep.Units {
		r := &rep.Units[i]
		r.AddCycles(periodsFO4)
		u := us[i]
		if u.Design.Clock != "" || u.Design.Pipeline != nil {
			continue
		}
		for j, p := range periodsFO4 {
			if p < specs.MinClockFO4 || p > specs.MaxClockFO4 {
				continue
			}
			b, diags := units.Pipeline(u.Spec, u.Design, specs.Clocking{ClockFO4: p, TimingMode: mode}, tech, nil)
			if diags.HasErrors() || b.Design == nil || b.Design.Pipeline == nil {
				continue
			}
			c := &r.Cycles[j]
			c.Cycles, c.Built = b.Design.Pipeline.Latency, true
			if v := b.Variable.Report(); v != nil {
				c.FastCycles = v.FastLatency
			}
		}
	}
}
