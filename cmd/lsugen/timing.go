package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/lsugen/lsugen/timing"
)

func cmdTiming(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("timing", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, `print {"units":[...]} as JSON`)
	paths := fs.Bool("paths", false, "print each unit's critical path gate by gate")
	opt := timing.DefaultOptions()
	fs.Float64Var(&opt.DriverSize, "driver", opt.DriverSize, "size of the inverter driving each primary input, in unit inverters")
	fs.Float64Var(&opt.OutputLoad, "load", opt.OutputLoad, "load on each output bit, in unit-inverter input capacitances")
	mode := fs.String("mode", string(timing.Unsized), "unsized: gates as built, unbuffered fanout; sized: logical-effort buffer trees on every stage")
	noWire := fs.Bool("no-wire", false, "free wires: the textbook logical-effort model (FO4 = 5 tau) instead of the wire-load model")
	clocks := fs.String("clock", "", "comma-separated clock periods in FO4: report the cycles each unit needs at each")
	svg := fs.String("svg", "", "also write an SVG figure: FO4 against lanes of the coalescers and detectors with the clock periods, and the critical path of one unit gate by gate")
	svgUnit := fs.String("svg-unit", "", "the unit whose critical path the SVG draws (default: the slowest)")
	libFile := fs.String("liberty", "", "time with the gate table characterized from this cell library (liberty, plain or gzipped): FO4 and ps of that library; see lsugen characterize")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: lsugen timing [--json] [--paths] [--driver X] [--load C] [--mode unsized|sized] [--no-wire] [--liberty FILE] [--clock FO4,...] [--svg FILE [--svg-unit NAME]] SPEC...\n\nStatic timing by logical effort with a wire-load model: critical path in\nFO4, area in NAND2 equivalents and transistor count of every unit. With\n--liberty the gate table, wire load and time scale are the library's\n(characterized as lsugen characterize prints it) and delays are also in ps.\n--svg draws FO4 against lanes (clock lines at the --clock periods, else\n40, 48 and 56 FO4) and one unit's critical path; the file is written\natomically.")
		fs.PrintDefaults()
	}
	specPaths, err := parseFlags(fs, args, stderr)
	if err != nil {
		return err
	}
	if *libFile != "" {
		ch, err := characterizeFile(*libFile)
		if err != nil {
			fmt.Fprintf(stderr, "lsugen timing: %v\n", err)
			return errReported
		}
		opt.Tech, opt.Wire = ch.Tech, ch.Tech.Wire
	}
	opt.Mode = timing.Mode(*mode)
	if *noWire {
		opt.Wire = timing.Wire{}
	}
	if opt.Mode != timing.Unsized && opt.Mode != timing.Sized {
		fmt.Fprintf(stderr, "lsugen timing: --mode %q: want unsized or sized\n", *mode)
		return errUsage
	}
	periods, err := parseClocks(*clocks)
	if err != nil {
		fmt.Fprintf(stderr, "lsugen timing: %v\n", err)
		return errUsage
	}
	if opt.DriverSize <= 0 || opt.OutputLoad < 0 {
		fmt.Fprintln(stderr, "lsugen timing: --driver must be positive and --load not negative")
		return errUsage
	}
	if *svgUnit != "" && *svg == "" {
		fmt.Fprintln(stderr, "lsugen timing: --svg-unit needs --svg FILE")
		return errUsage
	}
	units, err := loadAndGenerate(specPaths, stderr)
	if err != nil {
		return err
	}
	rep, err := timingReport(units, opt)
	if err != nil {
		return err
	}
	for i := range rep.Units {
		for _, p := range periods {
			rep.Units[i].Cycles = append(rep.Units[i].Cycles, timing.ClockCycles{ClockFO4: p, Cycles: timing.CyclesAt(rep.Units[i].FO4, p)})
		}
	}
	if *svg != "" {
		b, err := timingSVG(units, rep, opt, periods, *svgUnit)
		if err != nil {
			fmt.Fprintf(stderr, "lsugen timing: %v\n", err)
			return errUsage
		}
		if err := writeAll(filepath.Dir(*svg), map[string][]byte{filepath.Base(*svg): b}); err != nil {
			return err
		}
	}
	if *asJSON {
		b, err := rep.JSON()
		if err != nil {
			return err
		}
		_, err = stdout.Write(b)
		return err
	}
	if err := rep.WriteTable(stdout); err != nil {
		return err
	}
	if *paths {
		for _, u := range rep.Units {
			fmt.Fprintf(stdout, "\n%s", u.Result)
		}
	}
	if *svg != "" {
		fmt.Fprintf(stdout, "\nwrote %s\n", *svg)
	}
	return nil
}

// parseClocks reads "40,48,56" into clock periods in FO4.
func parseClocks(s string) ([]float64, error) {
	if s == "" {
		return nil, nil
	}
	var out []float64
	for _, f := range strings.Split(s, ",") {
		p, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || p <= 0 || math.IsInf(p, 0) {
			return nil, fmt.Errorf("--clock: %q is not a positive number of FO4", f)
		}
		out = append(out, p)
	}
	return out, nil
}

func timingReport(units []unit, opt timing.Options) (*timing.Report, error) {
	rep := &timing.Report{}
	for _, u := range units {
		res, err := timing.Analyze(u.design, opt)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", u.design.Name, err)
		}
		rep.Units = append(rep.Units, timing.UnitReport{Name: u.design.Name, Kind: u.spec.UnitKind(), Variant: u.spec.Variant(), Result: res})
	}
	return rep, nil
}
