package packaging

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// CoreFile renders u's FuseSoC CAPI2 core file. Targets:
//
//	default     the RTL, toplevel NAME: what a core that depends on this one gets
//	lint        Verilator --lint-only -Wall on the RTL
//	lint_gates  the same on the gate netlist, toplevel NAME_gates
//	synth       Yosys through Edalize (which needs an FPGA arch; yosys NAME.ys
//	            is the technology-independent synthesis)
//
// With u.Testbench also
//
//	sim         the self-checking testbench on the RTL under Icarus Verilog
//	sim_gates   the same on the gate netlist: the define DUT (a vlogdefine
//	            parameter) names module NAME_gates
//
// whose fileset tb holds the testbench and its golden vectors; the vectors
// carry copyto, so FuseSoC copies them into the simulator's work directory,
// where the testbench opens them. The SDC file is in its own fileset,
// constraints, for flows that read it. No YAML anchors or merge keys: every
// target is spelled out.
func CoreFile(u *Unit) []byte {
	var b bytes.Buffer
	w := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	// FuseSoC requires this exact first line, nothing before it.
	w("CAPI=2:")
	w("# FuseSoC core of %s,", u.describe())
	w("# %s. Regenerate rather than edit.", u.provenance())
	w("name: %s", yamlString(u.vlnv()))
	w("description: %s", yamlString(fmt.Sprintf("%s, lsugen %s", u.describe(), u.Version)))
	w("")
	w("filesets:")
	fileset := func(name, file, typ string) {
		w("  %s:", name)
		w("    files:")
		w("      - %s", yamlString(file))
		w("    file_type: %s", typ)
	}
	fileset("rtl", u.RTLFile, "verilogSource")
	fileset("gates", u.GatesFile, "verilogSource")
	w("  # For flows that read SDC (OpenSTA, OpenROAD): add it to their target.")
	fileset("constraints", SDCFileName(u.Name), "SDC")
	tb := u.Testbench
	if tb != nil {
		w("  # The self-checking testbench and its golden vectors (lsugen gen --tb).")
		w("  # FuseSoC copies the vectors into the simulator's work directory")
		w("  # (copyto), where the testbench opens them.")
		w("  tb:")
		w("    files:")
		w("      - %s", yamlString(tb.File))
		w("      - %s:", yamlString(tb.Vectors))
		w("          file_type: user")
		w("          copyto: %s", yamlString(tb.Vectors))
		w("    file_type: verilogSource")
		w("")
		w("parameters:")
		w("  # The module the testbench checks; undefined, the RTL module %s.", u.Name)
		w("  %s:", tb.DUTMacro)
		w("    datatype: str")
		w("    paramtype: vlogdefine")
		w("    description: %s", yamlString("Module under test of "+tb.Module+" (default "+u.Name+")"))
	}
	w("")
	w("targets:")
	w("  # What a core that depends on this one gets: the readable RTL.")
	w("  default:")
	w("    filesets:")
	w("      - rtl")
	w("    toplevel: %s", yamlString(u.Name))
	lint := func(target, fs, top, what string) {
		w("  %s:", target)
		w("    description: %s", yamlString("Lint "+what+" with Verilator (--lint-only -Wall)"))
		w("    default_tool: verilator")
		w("    filesets:")
		w("      - %s", fs)
		w("    toplevel: %s", yamlString(top))
		w("    tools:")
		w("      verilator:")
		w("        mode: lint-only")
		w("        verilator_options:")
		w("          - -Wall")
	}
	lint("lint", "rtl", u.Name, "the RTL")
	lint("lint_gates", "gates", u.GatesModule, "the gate netlist")
	w("  # Edalize's Yosys backend runs synth_<arch> and needs an FPGA arch;")
	w("  # for technology-independent synthesis run `yosys %s` instead.", YosysFileName(u.Name))
	w("  synth:")
	w("    description: %s", yamlString("Synthesize the RTL with Yosys"))
	w("    default_tool: yosys")
	w("    filesets:")
	w("      - rtl")
	w("    toplevel: %s", yamlString(u.Name))
	w("    tools:")
	w("      yosys:")
	w("        arch: ice40")
	if tb != nil {
		// Edalize's icarus backend runs iverilog -s TOPLEVEL with these
		// options, then vvp in the work directory; $fatal fails the run.
		sim := func(target, fs, what, define string) {
			w("  %s:", target)
			w("    description: %s", yamlString("Check "+what+" against the golden vectors with Icarus Verilog"))
			w("    default_tool: icarus")
			w("    filesets:")
			w("      - %s", fs)
			w("      - tb")
			if define != "" {
				w("    parameters:")
				w("      - %s", yamlString(tb.DUTMacro+"="+define))
			}
			w("    toplevel: %s", yamlString(tb.Module))
			w("    tools:")
			w("      icarus:")
			w("        iverilog_options:")
			w("          - -g2005")
			w("          - -Wall")
		}
		w("  # The testbench prints PASS <n> vectors, or the first failing vector")
		w("  # and exits non-zero.")
		sim("sim", "rtl", "the RTL", "")
		sim("sim_gates", "gates", "the gate netlist", u.GatesModule)
	}
	return b.Bytes()
}

// plainYAML matches strings that read back as themselves when written
// without quotes: no YAML indicator at the start, no ": " or " #" inside.
var plainYAML = regexp.MustCompile(`^[A-Za-z_/][A-Za-z0-9_.:/+-]*$`)

// yamlSpecial are plain words YAML 1.1 or 1.2 (PyYAML, which FuseSoC uses,
// is 1.1) would read as booleans or null.
var yamlSpecial = map[string]bool{
	"y": true, "n": true, "yes": true, "no": true, "true": true, "false": true,
	"on": true, "off": true, "null": true,
}

// yamlString writes s as a YAML scalar that reads back as the string s:
// plain when that is unambiguous, else double-quoted with JSON escapes
// (a JSON string is a valid YAML double-quoted scalar).
func yamlString(s string) string {
	if plainYAML.MatchString(s) && !strings.HasSuffix(s, ":") && !yamlSpecial[strings.ToLower(s)] {
		return s
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}
