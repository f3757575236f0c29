package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/lsugen/lsugen/gen"
	"github.com/lsugen/lsugen/rtl"
)

func cmdGen(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	out := fs.String("o", "out", "output directory")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: lsugen gen [-o DIR] SPEC...\n\nWrites DIR/NAME.v (readable RTL, module NAME) and DIR/NAME_gates.v\n(structural gate netlist, module NAME_gates) for every unit in the specs.\nNothing is written unless every unit generates.")
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
