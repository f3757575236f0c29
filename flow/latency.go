package flow

import (
	"github.com/lsugen/lsugen/netlist"
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
//
// done, when not nil, is called as each pipelining ends; LatencyWork
// estimates them before.
func AddLatencies(rep *timing.Report, us []Unit, periodsFO4 []float64, mode string, lib *Library, done func()) {
	tech := lib.tech()
	mode = latencyMode(mode, lib)
	for i := range rep.Units {
		r := &rep.Units[i]
		r.AddCycles(periodsFO4)
		u := us[i]
		if !latencyBuilt(u) {
			continue
		}
		for j, p := range periodsFO4 {
			if !latencyPeriod(p) {
				continue
			}
			b, diags := units.Pipeline(u.Spec, u.Design, specs.Clocking{ClockFO4: p, TimingMode: mode}, tech, nil)
			if done != nil {
				done()
			}
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

// LatencyWork estimates the pipelinings AddLatencies makes of us at
// periodsFO4 (work.go), for a work budget and a progress line.
func LatencyWork(us []Unit, periodsFO4 []float64, mode string, lib *Library) PipelineWork {
	designs := make([]*netlist.Design, len(us))
	names := make([]string, len(us))
	var ps []pipelining
	mode = latencyMode(mode, lib)
	for i, u := range us {
		designs[i], names[i] = u.Design, u.Spec.UnitName()
		if !latencyBuilt(u) {
			continue
		}
		for _, p := range periodsFO4 {
			if latencyPeriod(p) {
				ps = append(ps, pipelining{index: i, clock: specs.Clocking{ClockFO4: p, TimingMode: mode}})
			}
		}
	}
	return estimatePipelinings(ps, designs, names, lib.tech())
}

// latencyMode is AddLatencies' timing mode: mode, or the default one
// with library lib.
func latencyMode(mode string, lib *Library) string {
	if mode == "" {
		return specs.DefaultTimingMode(lib != nil)
	}
	return mode
}

// latencyBuilt reports whether AddLatencies pipelines u: a combinational
// unit, not yet pipelined.
func latencyBuilt(u Unit) bool { return u.Design.Clock == "" && u.Design.Pipeline == nil }

// latencyPeriod reports whether AddLatencies pipelines at period p (FO4):
// one clock_fo4 accepts.
func latencyPeriod(p float64) bool { return p >= specs.MinClockFO4 && p <= specs.MaxClockFO4 }
