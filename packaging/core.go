package packaging

import (
	"bytes"
	"fmt"

	// yaml.v3 rather than goccy/go-yaml: it is already lsugen's YAML
	// library (ParseGAPI, CheckCore), and its yaml.Node lets a mapping keep
	// the order it is built in and carry comments, so the core reads in a
	// fixed, documented order.
	"gopkg.in/yaml.v3"
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
// constraints, for flows that read it; with u.Library the fileset liberty
// names the cell library by its absolute path.
//
// The file is the first line FuseSoC requires, "CAPI=2:", two comment
// lines, and the core marshalled from the structs below: struct fields in
// declaration order, filesets, parameters and targets in the order above.
// No YAML anchors or merge keys: every target is spelled out.
func CoreFile(u *Unit) []byte {
	var b bytes.Buffer
	// FuseSoC requires this exact first line, nothing before it.
	b.WriteString("CAPI=2:\n")
	fmt.Fprintf(&b, "# FuseSoC core of %s,\n", u.describe())
	fmt.Fprintf(&b, "# %s. Regenerate rather than edit.\n", u.provenance())
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(newCore(u)); err != nil {
		// Only strings, lists and mappings built here: nothing can fail.
		panic(fmt.Sprintf("packaging: marshalling the core of %s: %v", u.Name, err))
	}
	if err := enc.Close(); err != nil {
		panic(fmt.Sprintf("packaging: marshalling the core of %s: %v", u.Name, err))
	}
	return b.Bytes()
}

// capi2Core is the part of FuseSoC's CAPI2 core description lsugen writes
// (FuseSoC: fusesoc/capi2/json_schema.py).
type capi2Core struct {
	Name        string                `yaml:"name"`
	Description string                `yaml:"description,omitempty"`
	Filesets    ordered[fileset]      `yaml:"filesets"`
	Parameters  ordered[parameterDef] `yaml:"parameters,omitempty"`
	Targets     ordered[target]       `yaml:"targets"`
}

type fileset struct {
	Files    []file `yaml:"files"`
	FileType string `yaml:"file_type"`
}

// file is a files entry: a name, or a name mapped to its attributes.
type file struct {
	Name  string
	Attrs *fileAttrs
}

type fileAttrs struct {
	FileType string `yaml:"file_type,omitempty"`
	CopyTo   string `yaml:"copyto,omitempty"`
}

func (f file) MarshalYAML() (any, error) {
	if f.Attrs == nil {
		return f.Name, nil
	}
	return ordered[*fileAttrs]{{Key: f.Name, Value: f.Attrs}}, nil
}

type parameterDef struct {
	Datatype    string `yaml:"datatype"`
	Paramtype   string `yaml:"paramtype"`
	Description string `yaml:"description,omitempty"`
}

type target struct {
	Description string   `yaml:"description,omitempty"`
	DefaultTool string   `yaml:"default_tool,omitempty"`
	Filesets    []string `yaml:"filesets"`
	Parameters  []string `yaml:"parameters,omitempty"`
	Toplevel    string   `yaml:"toplevel"`
	Tools       *tools   `yaml:"tools,omitempty"`
}

// tools are the Edalize tool options of a target, one tool each.
type tools struct {
	Icarus    *icarusOptions    `yaml:"icarus,omitempty"`
	Verilator *verilatorOptions `yaml:"verilator,omitempty"`
	Yosys     *yosysOptions     `yaml:"yosys,omitempty"`
}

type icarusOptions struct {
	IverilogOptions []string `yaml:"iverilog_options"`
}

type verilatorOptions struct {
	Mode             string   `yaml:"mode"`
	VerilatorOptions []string `yaml:"verilator_options"`
}

type yosysOptions struct {
	Arch string `yaml:"arch"`
}

// ordered is a YAML mapping that keeps the order of its entries; an
// entry's Comment is written as comment lines above its key.
type ordered[T any] []entry[T]

type entry[T any] struct {
	Key     string
	Comment string
	Value   T
}

func (m ordered[T]) MarshalYAML() (any, error) {
	n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for _, e := range m {
		var v yaml.Node
		if err := v.Encode(e.Value); err != nil {
			return nil, err
		}
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: e.Key, HeadComment: e.Comment}, &v)
	}
	return n, nil
}

// files lists the submodules' files, then the unit's own.
func files(libs []string, own string) []file {
	var out []file
	for _, l := range libs {
		out = append(out, file{Name: l})
	}
	return append(out, file{Name: own})
}

// newCore builds u's core description.
func newCore(u *Unit) *capi2Core {
	c := &capi2Core{
		Name:        u.vlnv(),
		Description: fmt.Sprintf("%s, lsugen %s", u.describe(), u.Version),
		Filesets: ordered[fileset]{
			{Key: "rtl", Value: fileset{Files: files(u.RTLLibs, u.RTLFile), FileType: "verilogSource"}},
			{Key: "gates", Value: fileset{Files: files(u.GateLibs, u.GatesFile), FileType: "verilogSource"}},
			{Key: "constraints", Comment: "For flows that read SDC (OpenSTA, OpenROAD): add it to their target.",
				Value: fileset{Files: []file{{Name: SDCFileName(u.Name)}}, FileType: "SDC"}},
		},
	}
	if lib := u.Library; lib != nil {
		// By its absolute path, which FuseSoC keeps as it is: lsugen
		// copies no library.
		c.Filesets = append(c.Filesets, entry[fileset]{Key: "liberty",
			Comment: "The cell library the SDC and " + YosysFileName(u.Name) + " target (lsugen gen --liberty),\nby its absolute path: lsugen copies no library.",
			Value:   fileset{Files: []file{{Name: lib.Path}}, FileType: "liberty"}})
	}
	lint := func(fs, top, what string) target {
		return target{
			Description: "Lint " + what + " with Verilator (--lint-only -Wall)",
			DefaultTool: "verilator", Filesets: []string{fs}, Toplevel: top,
			Tools: &tools{Verilator: &verilatorOptions{Mode: "lint-only", VerilatorOptions: []string{"-Wall"}}},
		}
	}
	c.Targets = ordered[target]{
		{Key: "default", Comment: "What a core that depends on this one gets: the readable RTL.",
			Value: target{Filesets: []string{"rtl"}, Toplevel: u.Name}},
		{Key: "lint", Value: lint("rtl", u.Name, "the RTL")},
		{Key: "lint_gates", Value: lint("gates", u.GatesModule, "the gate netlist")},
		{Key: "synth",
			Comment: "Edalize's Yosys backend runs synth_<arch> and needs an FPGA arch;\n" +
				"for technology-independent synthesis run `yosys " + YosysFileName(u.Name) + "` instead.",
			Value: target{Description: "Synthesize the RTL with Yosys", DefaultTool: "yosys", Filesets: []string{"rtl"},
				Toplevel: u.Name, Tools: &tools{Yosys: &yosysOptions{Arch: "ice40"}}}},
	}
	tb := u.Testbench
	if tb == nil {
		return c
	}
	c.Filesets = append(c.Filesets, entry[fileset]{Key: "tb",
		Comment: "The self-checking testbench and its golden vectors (lsugen gen --tb).\n" +
			"FuseSoC copies the vectors into the simulator's work directory\n" +
			"(copyto), where the testbench opens them.",
		Value: fileset{Files: []file{{Name: tb.File}, {Name: tb.Vectors, Attrs: &fileAttrs{FileType: "user", CopyTo: tb.Vectors}}},
			FileType: "verilogSource"}})
	c.Parameters = ordered[parameterDef]{{Key: tb.DUTMacro,
		Comment: "The module the testbench checks; undefined, the RTL module " + u.Name + ".",
		Value:   parameterDef{Datatype: "str", Paramtype: "vlogdefine", Description: "Module under test of " + tb.Module + " (default " + u.Name + ")"}}}
	// Edalize's icarus backend runs iverilog -s TOPLEVEL with these
	// options, then vvp in the work directory; $fatal fails the run.
	sim := func(fs, what string, params []string) target {
		return target{
			Description: "Check " + what + " against the golden vectors with Icarus Verilog",
			DefaultTool: "icarus", Filesets: []string{fs, "tb"}, Parameters: params, Toplevel: tb.Module,
			Tools: &tools{Icarus: &icarusOptions{IverilogOptions: []string{"-g2005", "-Wall"}}},
		}
	}
	c.Targets = append(c.Targets,
		entry[target]{Key: "sim", Comment: "The testbench prints PASS <n> vectors, or the first failing vector\nand exits non-zero.",
			Value: sim("rtl", "the RTL", nil)},
		entry[target]{Key: "sim_gates", Value: sim("gates", "the gate netlist", []string{tb.DUTMacro + "=" + u.GatesModule})})
	return c
}
