package specs

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/zclconf/go-cty/cty"
)

// Clocking says at which clock a combinational unit is generated: with
// a period set, lsugen pipelines it (package retime) so that every stage
// fits the period under the TimingMode model.
type Clocking struct {
	// ClockFO4 is the clock period in FO4; 0 leaves the unit
	// combinational. A period given in time units (PeriodPS) is converted
	// to it with the FO4 of the library in use (package flow) before the
	// unit is generated.
	ClockFO4 float64
	// PeriodPS is the period `clock` gives, in ps; 0 when the spec gives
	// clock_fo4 or no clock.
	PeriodPS float64
	// TimingMode is the model that sets the cuts: "sized" (the default
	// without a library), "unsized" or "liberty" (the library's
	// characterized model, the default with a library).
	TimingMode string
	// ModeDefaulted is set when the spec gave no timing_mode: the mode is
	// then the default, which a library given to the run changes.
	ModeDefaulted bool
	// Style is pipeline: PipelineStages (the default with a clock) or
	// PipelineRetime.
	Style string
	// Range is clock_fo4's or clock's expression, for diagnostics.
	Range hcl.Range
}

// HasClock tells whether the spec gives a clock, in FO4 or in time units.
func (c Clocking) HasClock() bool { return c.ClockFO4 > 0 || c.PeriodPS > 0 }

// Clock returns the unit's clocking.
func (c Clocking) Clock() Clocking { return c }

// Clocks returns the unit's clocking to be completed (package flow
// converts a period in time units to FO4 and chooses the default mode).
func (c *Clocking) Clocks() *Clocking { return c }

// Pipelinable is a unit that takes clock_fo4.
type Pipelinable interface {
	Unit
	Clock() Clocking
}

// Clocked is a unit whose spec may give a clock (clock_fo4 or clock): a
// pipelinable unit or a shared memory.
type Clocked interface {
	Unit
	Clocks() *Clocking
}

// Clock periods clock_fo4 accepts, in FO4: a stage must hold a register's
// clock-to-Q, setup and at least a gate.
const (
	MinClockFO4 = 4
	MaxClockFO4 = 10000
)

// Clock periods clock accepts, in ps: from 10 GHz to 1 MHz. The period in
// FO4 must then also be within MinClockFO4..MaxClockFO4 in the library in
// use, which package flow checks.
const (
	MinPeriodPS = 100
	MaxPeriodPS = 1e6
)

// TimingModes are the values of timing_mode.
var TimingModes = []string{"sized", "unsized", "liberty"}

// DefaultTimingMode is the timing mode of a unit whose spec gives none:
// the library's own model when the run has one, else the sized textbook
// model.
func DefaultTimingMode(haveLibrary bool) string {
	if haveLibrary {
		return "liberty"
	}
	return "sized"
}

var clockingAttrs = []Attr{
	{Name: "clock_fo4", Type: "number", Doc: fmt.Sprintf("Clock period in FO4, %d..%d: the unit is pipelined so that every stage, with a register's clock-to-Q and setup, fits it. It gains `clk`, synchronous active-high `rst`, `valid_i` and `valid_o`: an input presented with `valid_i` in cycle t is on the outputs with `valid_o` in cycle t+L, L stated in the header; outputs come from registers and are 0 while `valid_o` is 0. Default: combinational. At most one of clock_fo4 and clock.", MinClockFO4, MaxClockFO4)},
	{Name: "timing_mode", Type: "string", Doc: "With clock_fo4 or clock: the timing model that places the registers, `sized` (the textbook model with buffered fanout), `unsized` (gates as built) or `liberty` (the model characterized from the run's library, `--liberty FILE`, with its flip-flop's clock-to-Q and setup; cuts that hold in OpenSTA on the mapped netlist). Default: `liberty` when the run is given a library, else `sized`."},
	{Name: "clock", Type: "string", Doc: fmt.Sprintf("Clock period in time units, as clock_fo4 but `\"1GHz\"`, `\"800MHz\"`, `\"1.25ns\"` or `\"900ps\"` (%g ps to %g µs), converted to FO4 with the FO4 delay of the run's library (`--liberty`), or of the default library, sky130_fd_sc_hd at tt, 25 °C, 1.8 V, when none is given (docs/pipelining.md). At most one of clock_fo4 and clock.", float64(MinPeriodPS), MaxPeriodPS/1e6)},
}

// ParsePeriod reads a clock period in time units ("1GHz", "800 MHz",
// "1.25ns", "900ps", "2us") into ps. Units are case-insensitive; a bare
// number is refused (it could be FO4).
func ParsePeriod(s string) (ps float64, err error) {
	t := strings.ToLower(strings.TrimSpace(s))
	units := []struct {
		suffix string
		freq   bool
		scale  float64 // ps per unit, or Hz per unit for a frequency
	}{
		{"ghz", true, 1e9}, {"mhz", true, 1e6}, {"khz", true, 1e3}, {"hz", true, 1},
		{"ps", false, 1}, {"ns", false, 1e3}, {"us", false, 1e6}, {"µs", false, 1e6},
	}
	for _, u := range units {
		num, ok := strings.CutSuffix(t, u.suffix)
		if !ok {
			continue
		}
		x, perr := strconv.ParseFloat(strings.TrimSpace(num), 64)
		if perr != nil || !(x > 0) || math.IsInf(x, 0) {
			return 0, fmt.Errorf("%q: want a positive number before %s", s, u.suffix)
		}
		if u.freq {
			return 1e12 / (x * u.scale), nil
		}
		return x * u.scale, nil
	}
	return 0, fmt.Errorf("%q has no unit: give a frequency (GHz, MHz) or a period (ns, ps), e.g. \"1GHz\" or \"1.25ns\" (a period in FO4 is clock_fo4)", s)
}

// CheckPeriodPS checks a period in ps against MinPeriodPS..MaxPeriodPS.
func CheckPeriodPS(ps float64) error {
	if !(ps >= MinPeriodPS && ps <= MaxPeriodPS) {
		return fmt.Errorf("a period of %s is outside %g ps (10 GHz) to %g µs (1 MHz)", FormatPS(ps), float64(MinPeriodPS), MaxPeriodPS/1e6)
	}
	return nil
}

// FormatPS writes a period in ps as a reader would: "1000 ps (1 GHz)".
func FormatPS(ps float64) string {
	if !(ps > 0) || math.IsInf(ps, 0) {
		return fmt.Sprintf("%g ps", ps)
	}
	f := 1e12 / ps
	freq := fmt.Sprintf("%.4g MHz", f/1e6)
	if f >= 1e9 {
		freq = fmt.Sprintf("%.4g GHz", f/1e9)
	}
	return fmt.Sprintf("%.4g ps (%s)", ps, freq)
}

// clocking decodes clock_fo4, clock and timing_mode.
func (bd *blockDecoder) clocking() Clocking {
	var c Clocking
	if bd.has("clock_fo4") && bd.has("clock") {
		bd.errorf(bd.rng("clock"), "Conflicting arguments", "Give the period once: clock_fo4 (in FO4) or clock (in time units), not both.")
		return c
	}
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
	if bd.has("clock") {
		if s, ok := bd.str("clock"); ok {
			ps, err := ParsePeriod(s)
			if err == nil {
				err = CheckPeriodPS(ps)
			}
			if err != nil {
				bd.errorf(bd.rng("clock"), "Invalid clock", "clock %v.", err)
			} else {
				c.PeriodPS, c.Range = ps, bd.rng("clock")
			}
		}
	}
	if bd.has("timing_mode") {
		s, ok := bd.str("timing_mode")
		switch {
		case !ok:
		case !bd.has("clock_fo4") && !bd.has("clock"):
			bd.errorf(bd.rng("timing_mode"), "Argument not allowed", "timing_mode chooses the model that places pipeline registers; it needs clock_fo4 or clock.")
		case !oneOf(s, TimingModes):
			bd.errorf(bd.rng("timing_mode"), "Unsupported timing_mode", "%q is not a timing mode.%s The modes are sized, unsized and liberty.", s, didYouMean(s, TimingModes))
		default:
			c.TimingMode = s
		}
	}
	c.Style = bd.pipelineStyle(c.ClockFO4 > 0 || c.PeriodPS > 0)
	if (c.ClockFO4 > 0 || c.PeriodPS > 0) && c.TimingMode == "" {
		c.TimingMode, c.ModeDefaulted = DefaultTimingMode(false), true
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
