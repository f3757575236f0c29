// Package packaging writes the files that carry a generated unit into real
// flows: a FuseSoC CAPI2 core file (NAME.core), a Yosys synthesis script
// (NAME.ys) and SDC timing constraints (NAME.sdc), and reads the GAPI file
// through which FuseSoC calls lsugen as a generator.
//
// Every file is deterministic and small enough to read. The CAPI2 file is
// marshalled from Go structs with yaml.v3 and follows the JSON schema
// FuseSoC validates cores against (the tests validate it with that schema;
// CheckCore repeats the parts lsugen relies on). The SDC and the Yosys
// script are generic, or, with a Unit's Library, target that cell
// library (LoadLibrary).
package packaging

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/rtl"
	"github.com/lsugen/lsugen/timing"
)

// Unit is what the packaging files say about one generated unit.
type Unit struct {
	Name    string // module name of the readable RTL; also the file stem
	Kind    string // spec block type, e.g. "coalescer"
	Variant string // e.g. "all_to_all"
	Source  string // spec "file:line"
	Version string // lsugen's generator version, e.g. "0.1.0"
	// VLNV names the core; DefaultVLNV(Name, Version) when empty.
	VLNV string
	// RTLFile and GatesFile are the Verilog files: module Name and module
	// GatesModule.
	RTLFile, GatesFile string
	GatesModule        string
	// RTLLibs and GateLibs are the files of the units this one
	// instantiates (rtl.Sources), listed before RTLFile and GatesFile.
	RTLLibs, GateLibs []string
	// Bank is the file of the unit's memory bank module (rtl.BankFileName),
	// first in RTLLibs and GateLibs; "" for a unit without memories.
	Bank string
	// Clock is the clock port of a sequential unit, "" for a combinational
	// one; Inputs excludes it.
	Clock string
	// PeriodFO4 is the clock period asked for, in FO4: the period a
	// pipelined unit was cut at (netlist.Pipeline.PeriodFO4) or a clocked
	// unit's clock_fo4 (netlist.Protocol.PeriodFO4); 0 when none was. The
	// SDC's clock and the Yosys script's delay target are this period.
	PeriodFO4 float64
	// PeriodOf says where PeriodFO4 comes from, for the files' comments.
	PeriodOf        string
	Inputs, Outputs []Port
	// FO4 is the sized critical-path estimate (lsugen timing --timing-mode sized)
	// and Depth its number of gate levels; Endpoint is where it ends.
	FO4      float64
	Depth    int
	Endpoint string
	// Tech names the gate table of the estimate: "" for lsugen's textbook
	// table, else the characterized library's (timing.Result.Tech).
	Tech string
	// DriverSize and OutputLoad are the environment of the estimate: the
	// inverter driving each input bit, in unit inverters, and the load on
	// each output bit, in unit-inverter input capacitances
	// (timing.Options). The SDC states them with set_driving_cell and
	// set_load.
	DriverSize, OutputLoad float64
	// Library, when set, is the cell library the SDC's defaults and the
	// Yosys script's mapping target; nil leaves both generic.
	Library *Library
	// Testbench, when set, puts the unit's self-checking testbench into the
	// core: the fileset tb and the simulation targets sim and sim_gates.
	Testbench *Testbench
}

// Testbench names the files of a unit's self-checking testbench (`lsugen
// gen --tb`), which the caller writes beside the Verilog.
type Testbench struct {
	File    string // the testbench's Verilog file, e.g. NAME_tb.v
	Module  string // its module, the simulation toplevel, e.g. NAME_tb
	Vectors string // the golden vector file it reads from the working directory
	// DUTMacro is the define that names the module under test (the RTL
	// module when undefined).
	DUTMacro string
}

// Port is a port name and width.
type Port struct {
	Name  string
	Width int
}

// Estimate is the timing figure the SDC file documents: a result of
// timing.Analyze (EstimateOf builds it).
type Estimate struct {
	FO4      float64
	Depth    int
	Endpoint string
	// Tech is timing.Result.Tech: "" for the textbook gate table.
	Tech string
	// Options are the options of the analysis; the zero Options, which
	// timing refuses (no driver), stands for timing.DefaultOptions.
	Options timing.Options
}

// NewUnit describes design d, generated from source by lsugen version.
func NewUnit(d *netlist.Design, kind, variant, source, version string, est Estimate) *Unit {
	u := &Unit{
		Name: d.Name, Kind: kind, Variant: variant, Source: source, Version: version,
		RTLFile: rtl.RTLFileName(d), GatesFile: rtl.GatesFileName(d), GatesModule: rtl.GatesModuleName(d),
		Clock: d.Clock, FO4: est.FO4, Depth: est.Depth, Endpoint: est.Endpoint, Tech: est.Tech,
	}
	switch {
	case d.Clock == "":
	case d.Pipeline != nil && d.Pipeline.PeriodFO4 > 0:
		u.PeriodFO4, u.PeriodOf = d.Pipeline.PeriodFO4, "the period the unit was pipelined at"
	case d.Protocol != nil && d.Protocol.PeriodFO4 > 0:
		u.PeriodFO4, u.PeriodOf = d.Protocol.PeriodFO4, "the unit's clock_fo4"
	}
	rtlFiles, gateFiles := rtl.Sources(d)
	u.RTLLibs, u.GateLibs = rtlFiles[:len(rtlFiles)-1], gateFiles[:len(gateFiles)-1]
	u.Bank = rtl.BankFileName(d)
	opt := est.Options
	if opt.DriverSize == 0 {
		opt = timing.DefaultOptions()
	}
	u.DriverSize, u.OutputLoad = opt.DriverSize, opt.OutputLoad
	for _, p := range d.Inputs() {
		if p.Name != d.Clock {
			u.Inputs = append(u.Inputs, Port{p.Name, p.Width()})
		}
	}
	for _, p := range d.Outputs() {
		u.Outputs = append(u.Outputs, Port{p.Name, p.Width()})
	}
	return u
}

// DefaultVLNV is the core name lsugen gives a unit outside a FuseSoC
// generator run: lsugen:units:NAME:VERSION.
func DefaultVLNV(name, version string) string {
	return "lsugen:units:" + name + ":" + version
}

func (u *Unit) vlnv() string {
	if u.VLNV != "" {
		return u.VLNV
	}
	return DefaultVLNV(u.Name, u.Version)
}

// File names of the packaging files of unit name.
func CoreFileName(name string) string  { return name + ".core" }
func YosysFileName(name string) string { return name + ".ys" }
func SDCFileName(name string) string   { return name + ".sdc" }

// ConstrFileName is the ABC constraint file of a timing-driven Yosys
// script (written only for a unit with a target period and a library).
func ConstrFileName(name string) string { return name + ".constr" }

// SynthOutputName is the netlist the Yosys script writes.
func SynthOutputName(name string) string { return name + "_synth.v" }

// Files renders the packaging files of u: file name -> contents. They
// are the core, the Yosys script and the SDC, and, for a timing-driven
// script (a target period and a library), ABC's constraint file.
// u.Library is named by its path, never copied.
func Files(u *Unit) map[string][]byte {
	files := map[string][]byte{
		CoreFileName(u.Name):  CoreFile(u),
		YosysFileName(u.Name): YosysScript(u),
		SDCFileName(u.Name):   SDC(u),
	}
	if c := ABCConstraints(u); c != nil {
		files[ConstrFileName(u.Name)] = c
	}
	return files
}

// describe is "KIND NAME (VARIANT)".
func (u *Unit) describe() string {
	s := u.Kind + " " + u.Name
	if u.Variant != "" {
		s += " (" + u.Variant + ")"
	}
	return s
}

// provenance is the "generated by" line of every file.
func (u *Unit) provenance() string {
	return fmt.Sprintf("generated by lsugen %s from %s", u.Version, u.Source)
}

// estimateFO4 is the estimate rounded up to a hundredth of an FO4, so
// that a constraint set from it is never tighter than the estimate.
func (u *Unit) estimateFO4() float64 {
	return math.Ceil(u.FO4*100-1e-6) / 100
}

// TargetPS is the period asked for in ps, PeriodFO4 times the library's
// FO4; 0 without a period or a library.
func (u *Unit) TargetPS() float64 {
	if u.PeriodFO4 <= 0 || u.Library == nil {
		return 0
	}
	return u.PeriodFO4 * u.Library.FO4PS
}

// fmtTime prints ps in the library's time unit rounded to 1e-4 of it,
// trailing zeros trimmed to three decimals: 1000 ps in ns is "1.000".
func fmtTime(ps float64, lib *Library) string {
	s := strconv.FormatFloat(math.Round(ps/lib.TimeUnitPS*1e4)/1e4, 'f', 4, 64)
	if strings.HasSuffix(s, "0") {
		s = s[:len(s)-1]
	}
	return s
}
