package packaging

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// YosysScript renders u's Yosys synthesis script, run as `yosys NAME.ys` in
// the directory of the generated files: it reads the RTL, synthesizes it,
// checks the result, prints the cell statistics and writes NAME_synth.v.
// Without u.Library it maps onto Yosys's internal gate library, and
// comments show where a Liberty standard-cell mapping goes; with one it
// maps onto that library, named by its absolute path: read_liberty -lib
// (so that check knows the cells' ports), dfflibmap -liberty for a
// sequential unit, abc -liberty, and stat -liberty for the area.
//
// The mapping is timing-driven where the unit has a target: for a
// clocked unit with a period asked for, abc -D gets the period in ps (the
// SDC's clock) and -constr the SDC's driving cell and output load
// (ABCConstraints), which run ABC's buffering and gate sizing. Other units get no -D: their only figure is lsugen's own
// estimate, not a requirement, and a delay target above what ABC's model
// can reach stops its delay optimization early (see package verify/sta).
// The library's don't-use cells are listed: Yosys 0.23's abc and
// dfflibmap take no -dont_use option and skip those cells by their
// dont_use attribute.
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
		w("# Map onto %s (lsugen gen --liberty), by its path:", lib.Name)
		w("# lsugen copies no library.")
		if lib.Gzipped != "" {
			w("# Yosys 0.23's dfflibmap and abc read no gzipped Liberty: this names the")
			w("# library unpacked beside %s; make it once with", lib.Gzipped)
			w("#   gunzip -k %s", yosysWord(lib.Gzipped))
		}
		if len(lib.DontUse) > 0 {
			w("# Don't-use cells (dont_use : true in the library), which abc and")
			w("# dfflibmap skip by that attribute: %s.", strings.Join(lib.DontUse, ", "))
		} else {
			w("# The library marks no cell dont_use.")
		}
		w("read_liberty -lib %s", p)
		if u.Clock != "" {
			w("dfflibmap -liberty %s", p)
		}
		if t := u.TargetPS(); t > 0 {
			w("# Timing-driven: the delay target is the target period (%s),", u.PeriodOf)
			w("# %s ps.", fmtDelayPS(t))
			w("# %s: the SDC's driving cell and output load, so that abc", ConstrFileName(u.Name))
			w("# buffers and sizes for them.")
			w("abc -D %s -constr %s -liberty %s", fmtDelayPS(t), yosysWord(ConstrFileName(u.Name)), p)
		} else {
			if u.Clock != "" {
				w("# No target period (no clock_fo4), so no delay target (abc -D).")
			} else {
				w("# Combinational: no period, so no delay target (abc -D); the SDC's")
				w("# max delay is lsugen's estimate, not a requirement.")
			}
			w("abc -liberty %s", p)
		}
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
		if u.PeriodFO4 > 0 {
			w("# and map for the target period, %s FO4, in ps:", fmtFO4(u.PeriodFO4))
			w("#   abc -D PERIOD_PS -liberty cells.lib")
		} else {
			w("#   abc -liberty cells.lib")
		}
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

// ABCConstraints is the constraint file of abc -constr for u's
// timing-driven mapping: the SDC's environment, the library's unit
// inverter driving every input and OutputLoad of its input capacitances,
// in fF, on every output. nil without a target period or a library.
func ABCConstraints(u *Unit) []byte {
	lib := u.Library
	if u.TargetPS() <= 0 || lib == nil {
		return nil
	}
	return []byte(fmt.Sprintf("set_driving_cell %s\nset_load %s\n", lib.Inverter, fmtG(u.OutputLoad*lib.InverterCap*lib.CapUnitFF)))
}

// fmtDelayPS prints a delay target in whole ps, as abc -D reads it.
func fmtDelayPS(ps float64) string {
	return strconv.FormatInt(int64(math.Round(ps)), 10)
}

// yosysWord quotes s as one argument of a Yosys command.
func yosysWord(s string) string {
	if strings.ContainsAny(s, " \t\"\\;#") {
		return strconv.Quote(s)
	}
	return s
}
