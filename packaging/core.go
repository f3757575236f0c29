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
// The SDC file is in its own fileset, constraints, for flows that read it.
// No YAML anchors or merge keys: every target is spelled out.
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
