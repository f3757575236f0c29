package packaging

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// SDC renders u's timing constraints. A clocked unit with a period asked
// for (u.PeriodFO4: pipelined at a period, or a clock_fo4) gets that
// period as its clock: with u.Library in the library's time unit, PeriodFO4
// times the library's FO4 rounded to 1e-4 of the unit (a 1 GHz target is
// 1.000 ns), without one as PeriodFO4 times FO4_DELAY; lsugen's estimate
// of its worst stage goes in a comment. Any other unit's period (or, for
// a combinational unit, its input-to-output budget) is lsugen's sized
// critical-path estimate, rounded up to 0.01 FO4, times FO4_DELAY, one
// FO4 inverter delay in the library's time unit, and a comment says that
// no period was asked for.
//
// The environment the estimate assumes is stated too: set_driving_cell
// puts the library's unit inverter (DRIVING_CELL, output pin DRIVING_PIN)
// on every data input and set_load puts OutputLoad unit-inverter input
// capacitances (INV_CAP each, in the library's capacitance unit) on every
// output. FO4_DELAY, DRIVING_CELL, DRIVING_PIN and INV_CAP keep a value
// the user set before read_sdc. Their defaults come from u.Library; without
// one they are generic and valid with any library: FO4_DELAY 1.0 (the
// numbers stay in FO4), no driving cell (ideal inputs) and INV_CAP 0 (no
// load).
//
// A sequential unit gets create_clock on its clock port and input and
// output delays (0 by default: lsugen's estimate gives those paths the
// whole cycle); a combinational unit gets a virtual clock with the same
// input and output delays and set_max_delay from all inputs to all
// outputs. Ports are named one by one, buses as NAME[*].
func SDC(u *Unit) []byte {
	var b bytes.Buffer
	w := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	kind := "combinational"
	if u.Clock != "" {
		kind = "sequential, clock " + u.Clock
	}
	lib := u.Library
	w("# SDC timing constraints of %s, %s;", u.describe(), kind)
	w("# %s.", u.provenance())
	if lib != nil {
		w("# Library: %s.", lib.Name)
	}
	w("#")
	end := ""
	switch {
	case strings.HasSuffix(u.Endpoint, ".D"):
		end = ", ending at the D input of flip-flop " + strings.TrimSuffix(u.Endpoint, ".D") + " of " + u.GatesFile
	case u.Endpoint != "":
		end = ", ending at " + u.Endpoint
	}
	what := "critical-path estimate"
	if u.PeriodFO4 > 0 {
		what = "estimate of the worst stage"
	}
	w("# lsugen's %s, logical effort with buffered fanout", what)
	inPS := ""
	if lib != nil {
		inPS = fmt.Sprintf(" (%s at the library's FO4)", libTime(u.FO4*lib.FO4PS, lib))
	}
	levels := fmt.Sprintf(" %d gate levels%s.", u.Depth, end)
	if inPS != "" {
		levels = "\n#" + levels
	}
	if u.Tech != "" {
		w("# (lsugen timing --timing-mode sized --liberty LIB, the gate table of")
		w("# %s): %s FO4%s,%s", u.Tech, strconv.FormatFloat(u.FO4, 'f', -1, 64), inPS, levels)
	} else {
		w("# (lsugen timing --timing-mode sized): %s FO4%s,%s", strconv.FormatFloat(u.FO4, 'f', -1, 64), inPS, levels)
	}
	w("# FO4_DELAY, DRIVING_CELL, DRIVING_PIN and INV_CAP keep a value set before")
	w("# read_sdc.")
	w("")
	if lib != nil {
		w("# FO4_DELAY: one FO4 inverter delay in the library's time unit (%s):", unitName(lib.TimeUnitPS, "ps", "ns", "us"))
		w("# %s ps, the library's FO4 as lsugen characterize computes it.", strconv.FormatFloat(lib.FO4PS, 'f', 2, 64))
		w("if {![info exists FO4_DELAY]} { set FO4_DELAY %s }", fmtG(lib.FO4PS/lib.TimeUnitPS))
	} else {
		w("# FO4_DELAY: one FO4 inverter delay in your library's time unit; 1.0")
		w("# keeps every number below in FO4.")
		w("if {![info exists FO4_DELAY]} { set FO4_DELAY 1.0 }")
	}
	clock, budget := u.Clock, "CLK_PERIOD"
	if clock == "" {
		clock, budget = "vclk", "MAX_DELAY"
	}
	switch {
	case u.PeriodFO4 > 0 && lib != nil:
		w("# The target period, %s: %s FO4,", u.PeriodOf, fmtFO4(u.PeriodFO4))
		w("# %s ps at the library's FO4.", strconv.FormatFloat(u.TargetPS(), 'f', 1, 64))
		if u.FO4 > u.PeriodFO4 {
			w("# The estimate of the worst stage exceeds it: expect negative slack.")
		}
		w("set %s %s", budget, fmtTime(u.TargetPS(), lib))
	case u.PeriodFO4 > 0:
		w("# The target period, %s: %s FO4.", u.PeriodOf, fmtFO4(u.PeriodFO4))
		if u.FO4 > u.PeriodFO4 {
			w("# The estimate of the worst stage exceeds it: expect negative slack.")
		}
		w("set %s [expr {%s * $FO4_DELAY}]", budget, fmtFO4(u.PeriodFO4))
	case u.Clock != "":
		w("# No period was asked for (no clock_fo4): the period is lsugen's estimate,")
		w("# rounded up to 0.01 FO4.")
		w("set %s [expr {%s * $FO4_DELAY}]", budget, fmtNum(u.estimateFO4()))
	default:
		w("set %s [expr {%s * $FO4_DELAY}]", budget, fmtNum(u.estimateFO4()))
	}
	w("")
	if u.Clock != "" {
		w("create_clock -name %s -period $%s [get_ports %s]", clock, budget, u.Clock)
	} else {
		w("# No clock port: a virtual clock times the input-to-output paths for")
		w("# tools that only check clocked paths, and set_max_delay bounds them")
		w("# for those that read it.")
		w("create_clock -name %s -period $%s", clock, budget)
	}
	w("")
	w("# External delays as fractions of the budget: 0 leaves the paths from")
	w("# inputs and to outputs the whole of it, as lsugen's estimate assumes.")
	w("set INPUT_DELAY  [expr {0.0 * $%s}]", budget)
	w("set OUTPUT_DELAY [expr {0.0 * $%s}]", budget)
	inputs, outputs := portList(u.Inputs), portList(u.Outputs)
	if len(u.Inputs) > 0 {
		w("set_input_delay  $INPUT_DELAY  -clock %s [get_ports {%s}]", clock, inputs)
	}
	if len(u.Outputs) > 0 {
		w("set_output_delay $OUTPUT_DELAY -clock %s [get_ports {%s}]", clock, outputs)
	}
	w("")
	w("# The environment of the estimate: each input bit driven by %s,", sized(u.DriverSize, "the unit inverter", "an inverter of %s times its size"))
	w("# each output bit loaded with %s.", sized(u.OutputLoad, "one unit-inverter input capacitance", "%s unit-inverter input capacitances"))
	w("# DRIVING_CELL is the library's unit inverter (its smallest) and")
	w("# DRIVING_PIN its output pin; INV_CAP is its input capacitance in the")
	w("# library's capacitance unit.")
	if u.DriverSize != 1 {
		w("# The estimate's driver is %s unit inverters: name an inverter of that", fmtG(u.DriverSize))
		w("# drive as DRIVING_CELL.")
	}
	if lib != nil {
		w("# %s: input pin %s, %s fF; capacitance unit %s.", lib.Inverter, lib.InverterIn,
			strconv.FormatFloat(lib.InverterCap*lib.CapUnitFF, 'f', 3, 64), unitName(lib.CapUnitFF, "fF", "pF", "nF"))
		w("if {![info exists DRIVING_CELL]} { set DRIVING_CELL %s }", tclWord(lib.Inverter))
		w("if {![info exists DRIVING_PIN]}  { set DRIVING_PIN %s }", tclWord(lib.InverterOut))
		w("if {![info exists INV_CAP]}      { set INV_CAP %s }", fmtG(lib.InverterCap))
	} else {
		w("# Without them (the defaults) inputs are ideal and outputs unloaded.")
		w(`if {![info exists DRIVING_CELL]} { set DRIVING_CELL "" }`)
		w(`if {![info exists DRIVING_PIN]}  { set DRIVING_PIN "" }`)
		w("if {![info exists INV_CAP]}      { set INV_CAP 0.0 }")
	}
	if len(u.Inputs) > 0 {
		w(`if {$DRIVING_CELL ne "" && $DRIVING_PIN ne ""} {`)
		w("  set_driving_cell -lib_cell $DRIVING_CELL -pin $DRIVING_PIN [get_ports {%s}]", inputs)
		w(`} elseif {$DRIVING_CELL ne ""} {`)
		w("  set_driving_cell -lib_cell $DRIVING_CELL [get_ports {%s}]", inputs)
		w("}")
	}
	if len(u.Outputs) > 0 {
		w("set_load [expr {%s * $INV_CAP}] [get_ports {%s}]", fmtG(u.OutputLoad), outputs)
	}
	if u.Clock == "" {
		w("")
		w("set_max_delay $%s -from [all_inputs] -to [all_outputs]", budget)
	}
	return b.Bytes()
}

// portList names ports for get_ports: NAME, or NAME[*] for a bus.
func portList(ps []Port) string {
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.Name
		if p.Width > 1 {
			names[i] += "[*]"
		}
	}
	return strings.Join(names, " ")
}

// fmtNum prints x with at most 2 decimals and no trailing zeros.
func fmtNum(x float64) string {
	s := strconv.FormatFloat(x, 'f', 2, 64)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// libTime is ps in the library's time unit with the unit's name.
func libTime(ps float64, lib *Library) string {
	if n := unitName(lib.TimeUnitPS, "ps", "ns", "us"); strings.HasPrefix(n, "1") {
		return fmtTime(ps, lib) + " " + n[1:]
	}
	return fmtTime(ps, lib) + " × " + fmtG(lib.TimeUnitPS) + " ps"
}

// fmtFO4 prints a period in FO4 with at most 4 decimals, no trailing
// zeros: enough for 0.1 ps at any FO4 below 1 ns.
func fmtFO4(x float64) string {
	s := strconv.FormatFloat(x, 'f', 4, 64)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// fmtG prints x with at most 6 significant digits, as Tcl reads it back.
func fmtG(x float64) string {
	return strconv.FormatFloat(x, 'g', 6, 64)
}

// unitName names a library unit of x base units: "1ns" for 1000 ps, else
// "X ps".
func unitName(x float64, base, kilo, mega string) string {
	switch x {
	case 1:
		return "1" + base
	case 1e3:
		return "1" + kilo
	case 1e6:
		return "1" + mega
	}
	return fmtG(x) + " " + base
}

// sized is one when x is 1, else many with x in place of its %s.
func sized(x float64, one, many string) string {
	if x == 1 {
		return one
	}
	return fmt.Sprintf(many, fmtG(x))
}

// tclWord quotes s as one Tcl word: braced unless it is a plain name.
func tclWord(s string) string {
	for _, r := range s {
		if !(r == '_' || r == '.' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return "{" + s + "}"
		}
	}
	return s
}
