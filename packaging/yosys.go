package packaging

import (
	"bytes"
	"fmt"
)

// YosysScript renders u's Yosys synthesis script, run as `yosys NAME.ys` in
// the directory of the generated files: it reads the RTL, synthesizes it
// onto Yosys's internal gate library, checks the result, prints the cell
// statistics and writes NAME_synth.v. Comments show where a Liberty
// standard-cell mapping goes.
func YosysScript(u *Unit) []byte {
	var b bytes.Buffer
	w := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	out := SynthOutputName(u.Name)
	w("# Yosys synthesis of %s,", u.describe())
	w("# %s.", u.provenance())
	w("# Run in this directory: yosys %s  (writes %s)", YosysFileName(u.Name), out)
	w("")
	w("read_verilog %s", u.RTLFile)
	w("hierarchy -check -top %s", u.Name)
	w("synth -top %s", u.Name)
	w("")
	w("# To map onto a standard-cell library instead of Yosys's internal gates,")
	w("# uncomment and name your Liberty file (read_liberty -lib declares its")
	w("# cells, so that check below knows their ports):")
	w("#   read_liberty -lib cells.lib")
	if u.Clock != "" {
		w("#   dfflibmap -liberty cells.lib")
	}
	w("#   abc -liberty cells.lib")
	w("#   opt_clean")
	w("#   stat -liberty cells.lib")
	w("")
	w("# Fail on undriven or multiply driven nets and combinational loops.")
	w("check -assert")
	w("stat")
	w("write_verilog -noattr %s", out)
	return b.Bytes()
}
