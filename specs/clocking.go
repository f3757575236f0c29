package specs

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"

	"github.com/zclconf/go-cty/cty"
)

// Clocking says at which clock a combinational unit is generated: with
// ClockFO4 set, lsugen pipelines it (package retime) so that every stage
// fits the period under the TimingMode model.
type Clocking struct {
	// ClockFO4 is the clock period in FO4; 0 leaves the unit
	// combinational.
	ClockFO4 float64
	// TimingMode is the model that sets the cuts: "sized" (the default)
	// or "unsized".
	TimingMode string
	Style      string // pipeline: PipelineStages (default with ClockFO4) or PipelineRetime
	// Range is clock_fo4's expression, for diagnostics.
	Range hcl.Range
}

// Clock returns the unit's clocking.
func (c Clocking) Clock() Clocking { return c }

// Pipelinable is a unit that takes clock_fo4.
type Pipelinable interface {
	Unit
	Clock() Clocking
}

// Clock periods clock_fo4 accepts, in FO4: a stage must hold a register's
// clock-to-Q, setup and at least a gate.
const (
	MinClockFO4 = 4
	MaxClockFO4 = 10000
)

// TimingModes are the values of timing_mode.
var TimingModes = []string{"sized", "unsized"}

var clockingAttrs = []Attr{
	{Name: "clock_fo4", Type: "number", Doc: fmt.Sprintf("Clock period in FO4, %d..%d: the unit is pipelined so that every stage, with a register's clock-to-Q and setup, fits it. It gains `clk`, synchronous active-high `rst`, `valid_i` and `valid_o`: an input presented with `valid_i` in cycle t is on the outputs with `valid_o` in cycle t+L, L stated in the header; outputs come from registers and are 0 while `valid_o` is 0. Default: combinational.", MinClockFO4, MaxClockFO4)},
	{Name: "timing_mode", Type: "string", Doc: "With clock_fo4: the timing model that places the registers, `sized` (default) or `unsized`."},
}

// clocking decodes clock_fo4 and timing_mode.
func (bd *blockDecoder) clocking() Clocking {
	var c Clocking
	if v, ok := bd.value("clock_fo4"); ok {
		f, isNum := numberValue(v)
		switch {
		case !isNum:
			bd.errorf(bd.rng("clock_fo4"), "Invalid clock_fo4", "clock_fo4 must be a number of FO4; got a %s.", v.Type().FriendlyName())
		case f < MinClockFO4 || f > MaxClockFO4:
			bd.errorf(bd.rng("clock_fo4"), "Invalid clock_fo4", "clock_fo4 must be between %d and %d FO4; got %g.", MinClockFO4, MaxClockFO4, f)
		default:
			c.ClockFO4, c.Range = f, bd.rng("clock_fo4")
		}
	}
	if bd.has("timing_mode") {
		s, ok := bd.str("timing_mode")
		switch {
		case !ok:
		case !bd.has("clock_fo4"):
			bd.errorf(bd.rng("timing_mode"), "Argument not allowed", "timing_mode chooses the model that places pipeline registers; it needs clock_fo4.")
		case !oneOf(s, TimingModes):
			bd.errorf(bd.rng("timing_mode"), "Unsupported timing_mode", "%q is not a timing mode.%s The modes are sized and unsized.", s, didYouMean(s, TimingModes))
		default:
			c.TimingMode = s
		}
	}
	c.Style = bd.pipelineStyle(c.ClockFO4 > 0)
	if c.ClockFO4 > 0 && c.TimingMode == "" {
		c.TimingMode = "sized"
	}
	return c
}

// numberValue is a known number's value as a float64 (±Inf beyond
// float64's range); isNum is false for other values.
func numberValue(v cty.Value) (f float64, isNum bool) {
	if !v.IsKnown() || v.IsNull() || v.Type() != cty.Number {
		return 0, false
	}
	f, _ = v.AsBigFloat().Float64()
	return f, true
}
