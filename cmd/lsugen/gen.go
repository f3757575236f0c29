package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/lsugen/lsugen/csource"
	"github.com/lsugen/lsugen/gen"
	"github.com/lsugen/lsugen/packaging"
	"github.com/lsugen/lsugen/rtl"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/timing"
	"github.com/lsugen/lsugen/timing/liberty"
	"github.com/lsugen/lsugen/verify"
)

const genLong = `Writes DIR/NAME.v (readable RTL, module NAME) and DIR/NAME_gates.v
(structural gate netlist, module NAME_gates) for every unit in the specs;
with --fusesoc also DIR/NAME.core (FuseSoC CAPI2 core, name
lsugen:units:NAME:VERSION), DIR/NAME.ys (run 'yosys NAME.ys' in DIR) and
DIR/NAME.sdc; with --tb also DIR/NAME_tb.v, a self-checking testbench that
runs under plain iverilog and verilator --binary, and DIR/NAME.vec, its
golden vectors (inputs and the behavioural model's outputs). With both,
NAME.core also has the targets sim and sim_gates, which run the testbench
on the RTL and on the gate netlist under Icarus Verilog. With --fusesoc
--liberty LIB the SDC and the Yosys script target that cell library (its
FO4, unit inverter and cells), named by its absolute path, never copied;
for a gzipped library the scripts name it unpacked beside it, which Yosys
needs: see docs/packaging.md. A pipelined or clock_fo4 unit's SDC clock
and Yosys delay target (abc -D) are the period asked for. --liberty also
converts clocks given in time units with the library's FO4 and places
pipeline registers with its model (timing_mode liberty, docs/clocks.md),
with or without --fusesoc. With --c also DIR/NAME.h for
every constant hash unit: a C, C++ and CUDA header with the unit's bank
function (and for mod its index, for rap its permuted address), for
hashing in software (docs/software-hash.md); configurable hash units have
no constant function and are named on standard error as skipped. Nothing
is written unless every unit generates, no two outputs share a name (units
foo and foo_gates, or foo and foo_synth with --fusesoc, are refused, and so
are Foo and foo: one file on a case-insensitive disk) and
every existing output is a regular file (a link, directory, FIFO or device
is refused, not replaced); each file is written to a temporary beside it
and renamed into place, and an interrupt removes the temporaries. Only DIR
itself is created. --json lists the units and the files written.`

func newGenCmd(a *app) *cobra.Command {
	var (
		out, libFile string
		fusesoc, tb  bool
		cHeaders     bool
		asJSON       bool
		b            budget
		w            workFlags
	)
	cmd := &cobra.Command{
		Use:   "gen [-o DIR] [--fusesoc] [--liberty FILE] [--tb] [--c] [--json] SPEC...",
		Short: "write the RTL and gate-level Verilog of every unit (and testbenches, FuseSoC cores, C headers)",
		Long:  genLong,
		RunE: func(cmd *cobra.Command, paths []string) error {
			var lib *packaging.Library
			if libFile != "" && fusesoc {
				var err error
				if lib, err = packaging.LoadLibrary(libFile, liberty.Options{}); err != nil {
					return badInput(err)
				}
				if _, err := os.Stat(lib.Path); lib.Gzipped != "" && err != nil {
					fmt.Fprintf(a.stderr, "lsugen gen: warning: the Yosys scripts name %s, which does not exist: Yosys 0.23 reads no gzipped Liberty in abc and dfflibmap and lsugen copies no library; unpack it once with gunzip -k %s\n",
						lib.Path, lib.Gzipped)
				}
			}
			b.LibraryPath = libFile
			units, err := loadAndGenerate(paths, b, a.stderr)
			if err != nil {
				return err
			}
			if err := checkOutputNames(units, out, fusesoc, tb, cHeaders, lib); err != nil {
				return err
			}
			rep, set, err := unitFiles(units, out, fusesoc, tb, func(unit) string { return "" }, lib)
			if err != nil {
				return err
			}
			var skipped []string
			if cHeaders {
				if skipped, err = addCHeaders(rep, set, units, out); err != nil {
					return err
				}
			}
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			if err := writeAllContext(ctx, out, set); err != nil {
				return err
			}
			if len(skipped) > 0 {
				fmt.Fprintf(a.stderr, "lsugen gen: --c wrote no header for the configurable hash units %s: their configuration is set at run time\n",
					strings.Join(skipped, ", "))
			}
			if asJSON {
				return printJSON(a.stdout, rep)
			}
			fmt.Fprintf(a.stdout, "wrote %d files for %d units to %s: %s\n", len(set), len(units), out, joinNames(units))
			return nil
		},
	}
	fs := cmd.Flags()
	addOutputFlag(fs, &out, "out", "output directory")
	fs.BoolVar(&fusesoc, "fusesoc", false, "also write per unit a FuseSoC core NAME.core, a Yosys script NAME.ys and SDC constraints NAME.sdc")
	fs.BoolVar(&tb, "tb", false, "also write per unit a self-checking testbench NAME_tb.v and its golden vectors NAME.vec")
	fs.BoolVar(&cHeaders, "c", false, "also write per constant hash unit a C/C++/CUDA header NAME.h computing its bank")
	addLibertyFlag(fs, &libFile)
	addJSONFlag(fs, &asJSON)
	addBudgetFlags(fs, &b, true)
	addPipeliningWork(a, fs, &b, &w, "lsugen gen")
	return cmd
}

// genReport is the --json document of gen and fusesoc-gen: what was
// written.
type genReport struct {
	// Version is lsugen's version.
	Version string `json:"version"`
	// Dir is the output directory.
	Dir string `json:"dir"`
	// Units are the units generated, in spec order.
	Units []genUnit `json:"units"`
	// Files are the paths of every file written (Dir joined with the
	// name), sorted.
	Files []string `json:"files"`
}

// genUnit is one generated unit of a genReport.
type genUnit struct {
	Name    string `json:"name"`
	Kind    string `json:"kind"`    // the spec block type, e.g. "hash"
	Variant string `json:"variant"` // e.g. "bitvector_xor, configurable"
	Source  string `json:"source"`  // file:line of the unit's block
	// Files are the paths of the unit's files, sorted.
	Files []string `json:"files"`
}

// unitFiles renders every unit's files: its Verilog, with fusesoc its
// FuseSoC core, Yosys script and SDC (vlnv names a unit's core, "" for the
// default name), with tb its testbench and golden vectors. Two files of
// one name are an error (bad input: two units whose names collide). The
// report lists the files under dir. With lib the packaging files target
// that cell library, which they name by its path (no copy is written).
func unitFiles(units []unit, dir string, fusesoc, tb bool, vlnv func(unit) string, lib *packaging.Library) (*genReport, map[string][]byte, error) {
	if err := checkOutputNames(units, dir, fusesoc, tb, false, lib); err != nil {
		return nil, nil, err
	}
	rep := &genReport{Version: gen.Version, Dir: dir, Units: []genUnit{}, Files: []string{}}
	set := map[string][]byte{}
	for _, u := range units {
		one := []unit{u}
		own := map[string][]byte{}
		parts := []func() (map[string][]byte, error){func() (map[string][]byte, error) { return verilogFiles(one) }}
		if fusesoc {
			parts = append(parts, func() (map[string][]byte, error) { return packagingFiles(one, vlnv, tb, lib) })
		}
		if tb {
			parts = append(parts, func() (map[string][]byte, error) { return testbenchFiles(one) })
		}
		for _, part := range parts {
			files, err := part()
			if err != nil {
				return nil, nil, err
			}
			if err := mergeFiles(own, files); err != nil {
				return nil, nil, badInput(err)
			}
		}
		if err := mergeFiles(set, own); err != nil {
			return nil, nil, badInput(err)
		}
		gu := genUnit{Name: u.Design.Name, Kind: u.Spec.UnitKind(), Variant: u.Spec.Variant(), Source: source(u.Spec)}
		for _, name := range sortedNames(own) {
			gu.Files = append(gu.Files, filepath.Join(dir, name))
		}
		rep.Units = append(rep.Units, gu)
	}
	for _, name := range sortedNames(set) {
		rep.Files = append(rep.Files, filepath.Join(dir, name))
	}
	return rep, set, nil
}

// checkOutputNames names every file a gen run writes into dir (and the
// netlist each --fusesoc Yosys script writes there when it runs) before
// anything is rendered or written, and refuses two of one name (bad
// input, exit status 2) naming both units: units foo and foo_gates would
// both write foo_gates.v, foo's Yosys script would overwrite foo_synth's
// RTL. The file sets follow unitFiles and addCHeaders: every unit and
// the units it instantiates write their RTL and gate netlist; the units
// named write the packaging files (fusesoc), testbench and vectors (tb)
// and, for a constant hash unit, a C header (cHeaders).
func checkOutputNames(units []unit, dir string, fusesoc, tb, cHeaders bool, lib *packaging.Library) error {
	type owner struct{ name, who, what string }
	// Keyed by the name in lower case: names that differ only in case
	// are one file on a case-insensitive disk (macOS, Windows), and the
	// C headers' include guards and macros are the name in upper case.
	owners := map[string]owner{}
	claim := func(name, who, what string) error {
		key := strings.ToLower(name)
		o, dup := owners[key]
		switch {
		case dup && o.who != who && o.name == name:
			return badInput(fmt.Errorf("two generated files are named %s (in %s), the %s of %s and the %s of %s: rename one of the units (nothing written)",
				name, dir, o.what, o.who, what, who))
		case dup && o.who != who:
			return badInput(fmt.Errorf("two generated files, %s and %s (in %s), differ only in case, the %s of %s and the %s of %s: on a case-insensitive disk one replaces the other, and C headers would share include guards and macros; rename one of the units (nothing written)",
				o.name, name, dir, o.what, o.who, what, who))
		}
		owners[key] = owner{name, who, what}
		return nil
	}
	unitName := func(u unit) string { return fmt.Sprintf("unit %s (%s)", u.Design.Name, source(u.Spec)) }
	for _, u := range withSubunits(units) {
		who := unitName(u)
		if err := claim(rtl.RTLFileName(u.Design), who, "RTL"); err != nil {
			return err
		}
		if err := claim(rtl.GatesFileName(u.Design), who, "gate netlist"); err != nil {
			return err
		}
		if bank := rtl.BankFileName(u.Design); bank != "" {
			if err := claim(bank, who, "bank module"); err != nil {
				return err
			}
		}
	}
	for _, u := range units {
		who, n := unitName(u), u.Design.Name
		var files [][2]string
		if fusesoc {
			files = append(files,
				[2]string{packaging.CoreFileName(n), "FuseSoC core"},
				[2]string{packaging.YosysFileName(n), "Yosys script"},
				[2]string{packaging.SDCFileName(n), "SDC constraints"},
				[2]string{packaging.ConstrFileName(n), "ABC constraints"},
				[2]string{packaging.SynthOutputName(n), "Yosys script's output netlist"})
		}
		if tb {
			files = append(files,
				[2]string{verify.TestbenchFileName(u.Design), "testbench"},
				[2]string{verify.VectorFileName(u.Design), "golden vectors"})
		}
		if h, ok := u.Spec.(*specs.Hash); ok && cHeaders && !h.Configurable {
			files = append(files, [2]string{csource.FileName(h), "C header"})
		}
		for _, f := range files {
			if err := claim(f[0], who, f[1]); err != nil {
				return err
			}
		}
	}
	return nil
}

// addCHeaders adds the C header NAME.h of every constant hash unit to set
// and to the report (units are rep.Units, in order) and returns the names
// of the configurable hash units, which have none. Specs without a
// constant hash unit are bad input: --c would write nothing.
func addCHeaders(rep *genReport, set map[string][]byte, units []unit, dir string) (skipped []string, err error) {
	written := 0
	for i, u := range units {
		h, ok := u.Spec.(*specs.Hash)
		if !ok {
			continue
		}
		if h.Configurable {
			skipped = append(skipped, h.Name)
			continue
		}
		b, err := csource.Header(h, csource.Info{Version: gen.GeneratedBy(), Source: source(u.Spec)})
		if err != nil {
			return nil, err
		}
		name := csource.FileName(h)
		if err := mergeFiles(set, map[string][]byte{name: b}); err != nil {
			return nil, badInput(err)
		}
		rep.Units[i].Files = append(rep.Units[i].Files, filepath.Join(dir, name))
		sort.Strings(rep.Units[i].Files)
		written++
	}
	if written == 0 {
		return nil, badInput(errors.New("--c writes a C header per constant hash unit, and the specs declare none"))
	}
	rep.Files = rep.Files[:0]
	for _, name := range sortedNames(set) {
		rep.Files = append(rep.Files, filepath.Join(dir, name))
	}
	return skipped, nil
}

// sortedNames are the keys of set, sorted.
func sortedNames(set map[string][]byte) []string {
	names := make([]string, 0, len(set))
	for n := range set {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// verilogFiles renders the RTL and gate-level Verilog of every unit and
// of the units they instantiate, each once.
func verilogFiles(units []unit) (map[string][]byte, error) {
	set := map[string][]byte{}
	for _, u := range withSubunits(units) {
		files, err := rtl.Files(u.Design, rtl.Info{Version: gen.GeneratedBy(), Source: source(u.Spec)})
		if err != nil {
			return nil, err
		}
		for name, b := range files {
			set[name] = b
		}
	}
	return set, nil
}

// packagingFiles renders every unit's FuseSoC core, Yosys script and SDC
// file; vlnv names a unit's core ("" for the default name). With tb the
// core also runs the testbench and golden vectors testbenchFiles writes
// (targets sim and sim_gates). The SDC documents the sized critical-path
// estimate with the default driver and load, as `lsugen timing --timing-mode
// sized` reports it; with lib in that library's gate table, and the SDC
// and Yosys script target the library.
func packagingFiles(units []unit, vlnv func(unit) string, tb bool, lib *packaging.Library) (map[string][]byte, error) {
	opt := packaging.EstimateOptions(lib)
	set := map[string][]byte{}
	for _, u := range units {
		res, err := timing.Analyze(u.Design, opt)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", u.Design.Name, err)
		}
		pu := packaging.NewUnit(u.Design, u.Spec.UnitKind(), u.Spec.Variant(), source(u.Spec), gen.Version, packaging.EstimateOf(res, opt))
		pu.VLNV = vlnv(u)
		pu.Library = lib
		if tb {
			pu.Testbench = &packaging.Testbench{
				File: verify.TestbenchFileName(u.Design), Module: verify.TestbenchModule(u.Design),
				Vectors: verify.VectorFileName(u.Design), DUTMacro: verify.DUTMacro,
			}
		}
		for name, b := range packaging.Files(pu) {
			set[name] = b
		}
	}
	return set, nil
}
