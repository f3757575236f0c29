package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/lsugen/lsugen/gen"
	"github.com/lsugen/lsugen/packaging"
	"github.com/lsugen/lsugen/rtl"
	"github.com/lsugen/lsugen/timing"
	"github.com/lsugen/lsugen/verify"
)

func cmdGen(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	out := fs.String("o", "out", "output directory")
	fusesoc := fs.Bool("fusesoc", false, "also write per unit a FuseSoC core NAME.core, a Yosys script NAME.ys and SDC constraints NAME.sdc")
	tb := fs.Bool("tb", false, "also write per unit a self-checking testbench NAME_tb.v and its golden vectors NAME.vec")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: lsugen gen [-o DIR] [--fusesoc] [--tb] SPEC...\n\nWrites DIR/NAME.v (readable RTL, module NAME) and DIR/NAME_gates.v\n(structural gate netlist, module NAME_gates) for every unit in the specs;\nwith --fusesoc also DIR/NAME.core (FuseSoC CAPI2 core, name\nlsugen:units:NAME:VERSION), DIR/NAME.ys (run `yosys NAME.ys` in DIR) and\nDIR/NAME.sdc; with --tb also DIR/NAME_tb.v, a self-checking testbench that\nruns under plain iverilog and verilator --binary, and DIR/NAME.vec, its\ngolden vectors (inputs and the behavioural model's outputs). With both,\nNAME.core also has the targets sim and sim_gates, which run the testbench\non the RTL and on the gate netlist under Icarus Verilog. Nothing is\nwritten unless every unit generates.")
		fs.PrintDefaults()
	}
	paths, err := parseFlags(fs, args, stderr)
	if err != nil {
		return err
	}
	units, err := loadAndGenerate(paths, stderr)
	if err != nil {
		return err
	}
	set, err := verilogFiles(units)
	if err != nil {
		return err
	}
	if *fusesoc {
		pkg, err := packagingFiles(units, func(u unit) string { return "" }, *tb)
		if err != nil {
			return err
		}
		for name, b := range pkg {
			set[name] = b
		}
	}
	if *tb {
		files, err := testbenchFiles(units)
		if err != nil {
			return err
		}
		if err := mergeFiles(set, files); err != nil {
			return err
		}
	}
	if err := writeAll(*out, set); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %d files for %d units to %s: %s\n", len(set), len(units), *out, joinNames(units))
	return nil
}

// verilogFiles renders the RTL and gate-level Verilog of every unit.
func verilogFiles(units []unit) (map[string][]byte, error) {
	set := map[string][]byte{}
	for _, u := range units {
		files, err := rtl.Files(u.design, rtl.Info{Version: "lsugen " + gen.Version, Source: source(u.spec)})
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
// estimate with the default driver and load, as `lsugen timing --mode
// sized` reports it.
func packagingFiles(units []unit, vlnv func(unit) string, tb bool) (map[string][]byte, error) {
	opt := timing.DefaultOptions()
	opt.Mode = timing.Sized
	set := map[string][]byte{}
	for _, u := range units {
		res, err := timing.Analyze(u.design, opt)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", u.design.Name, err)
		}
		pu := packaging.NewUnit(u.design, u.spec.UnitKind(), u.spec.Variant(), source(u.spec), gen.Version,
			packaging.Estimate{FO4: res.FO4, Depth: res.Depth, Endpoint: res.Endpoint})
		pu.VLNV = vlnv(u)
		if tb {
			pu.Testbench = &packaging.Testbench{
				File: verify.TestbenchFileName(u.design), Module: verify.TestbenchModule(u.design),
				Vectors: verify.VectorFileName(u.design), DUTMacro: verify.DUTMacro,
			}
		}
		for name, b := range packaging.Files(pu) {
			set[name] = b
		}
	}
	return set, nil
}
