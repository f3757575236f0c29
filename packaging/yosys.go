package packaging

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// YosysScript renders u's Yosys synthesis script, run as `yosys NAME.ys` in
// the directory of the generated files: it reads the RTL, synthesizes it,
// checks the result, prints the cell statistics and writes NAME_synth.v.
// Without u.Library it maps onto Yosys's internal gate library, and
// comments show where a Liberty standard-cell mapping goes; with one it
// maps onto that library: read_liberty -lib (so that check knows the
// cells' ports), dfflibmap -liberty for a sequential unit, abc -liberty,
// and stat -liberty for the area.
func YosysScript(u *Unit) []byte {
	var b bytes.Buffer
	w := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	out := SynthOutputName(u.Name)
	w("# Yosys synthesis of %s,", u.describe())
	w("# %s.", u.provenance())
	w("# Run in this directory: yosys %s  (writes %s)", YosysFileName(u.Name), out)
	w("")
	for _, f := range append(append([]string(nil), u.RTLLibs...), u.RTLFile) {
		if f == u.Bank {
			// Its array as flip-flops would be the bulk of the netlist and of
			// the run; a real flow places an SRAM macro there.
			w("# %s is the memory bank: read as a black box, as a flow reads an SRAM", f)
			w("# macro's model. To see Yosys infer one memory per bank instead, read it")
			w("# plainly and run: synth -flatten -top %s -run :fine; stat", u.Name)
			w("read_verilog -lib %s", f)
			continue
		}
		w("read_verilog %s", f)
	}
	w("hierarchy -check -top %s", u.Name)
	if len(u.RTLLibs) > 0 {
		w("synth -flatten -top %s", u.Name)
	} else {
		w("synth -top %s", u.Name)
	}
	w("")
	stat := "stat"
	if lib := u.Library; lib != nil {
		p := yosysWord(lib.Path)
		w("# Map onto %s (lsugen gen --liberty):", lib.Name)
		if lib.Unpacked != nil {
			w("# %s, beside this script, is the library unpacked:", lib.Path)
			w("# Yosys reads no gzipped Liberty.")
		}
		w("read_liberty -lib %s", p)
		if u.Clock != "" {
			w("dfflibmap -liberty %s", p)
		}
		w("abc -liberty %s", p)
		w("opt_clean")
		stat = "stat -liberty " + p
	} else {
		w("# To map onto a standard-cell library instead of Yosys's internal gates,")
		w("# uncomment and name your Liberty file (read_liberty -lib declares its")
		w("# cells, so that check below knows their ports), or generate with")
		w("# lsugen gen --liberty LIB:")
		w("#   read_liberty -lib cells.lib")
		if u.Clock != "" {
			w("#   dfflibmap -liberty cells.lib")
		}
		w("#   abc -liberty cells.lib")
		w("#   opt_clean")
		w("#   stat -liberty cells.lib")
	}
	w("")
	w("# Fail on undriven or multiply driven nets and combinational loops.")
	w("check -assert")
	w("%s", stat)
	w("write_verilog -noattr %s", out)
	return b.Bytes()
}

// yosysWord quotes s as one argument of a Yosys command.
func yosysWord(s string) string {
	if strings.ContainsAny(s, " \t\"\\;#") {
		return strconv.Quote(s)
	}
	return s
}
