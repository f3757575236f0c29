package packaging

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// SDC renders u's timing constraints. The period (or, for a combinational
// unit, the input-to-output budget) defaults to lsugen's sized
// critical-path estimate, rounded up to 0.01 FO4, times FO4_DELAY: set
// FO4_DELAY to the library's FO4 inverter delay in its time unit (the
// default 1.0 leaves the numbers in FO4), or the period itself.
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
	w("# SDC timing constraints of %s, %s;", u.describe(), kind)
	w("# %s.", u.provenance())
	w("#")
	end := ""
	switch {
	case strings.HasSuffix(u.Endpoint, ".D"):
		end = ", ending at the D input of flip-flop " + strings.TrimSuffix(u.Endpoint, ".D") + " of " + u.GatesFile
	case u.Endpoint != "":
		end = ", ending at " + u.Endpoint
	}
	w("# lsugen's critical-path estimate, logical effort with buffered fanout")
	w("# (lsugen timing --mode sized): %s FO4, %d gate levels%s.", strconv.FormatFloat(u.FO4, 'f', -1, 64), u.Depth, end)
	w("# Set FO4_DELAY to one FO4 inverter delay in your library's time unit")
	w("# (1.0 keeps every number below in FO4), or set the budget directly.")
	w("set FO4_DELAY 1.0")
	p := fmtNum(u.periodFO4())
	clock, budget := u.Clock, "CLK_PERIOD"
	if clock == "" {
		clock, budget = "vclk", "MAX_DELAY"
	}
	w("set %s [expr {%s * $FO4_DELAY}]", budget, p)
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
	if len(u.Inputs) > 0 {
		w("set_input_delay  $INPUT_DELAY  -clock %s [get_ports {%s}]", clock, portList(u.Inputs))
	}
	if len(u.Outputs) > 0 {
		w("set_output_delay $OUTPUT_DELAY -clock %s [get_ports {%s}]", clock, portList(u.Outputs))
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
