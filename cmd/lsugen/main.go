// Command lsugen generates, times and verifies the load/store-unit blocks
// described in HCL spec files.
//
//	lsugen gen     [-o DIR] SPEC...            write NAME.v and NAME_gates.v per unit
//	lsugen timing  [--json] [--paths] SPEC...  FO4 critical path, area, transistors
//	lsugen verify  [--sim LIST] SPEC...        model = netlist = Icarus = Verilator
//	lsugen version
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/lsugen/lsugen/gen"
	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/units"
)

const usage = `lsugen generates, times and verifies load/store-unit hardware blocks.

Usage:
  lsugen gen     [-o DIR] [--fusesoc] [--tb] SPEC...
                                               write DIR/NAME.v (RTL) and DIR/NAME_gates.v (gates) per unit;
                                               --fusesoc: also NAME.core (FuseSoC), NAME.ys (Yosys), NAME.sdc;
                                               --tb: also NAME.vec (golden vectors) and NAME_tb.v (self-checking testbench)
  lsugen timing  [--json] [--paths] [--svg FILE] SPEC...
                                               critical path in FO4, area in NAND2 equivalents, transistors
  lsugen verify  [flags] SPEC...               check model = netlist = Icarus = Verilator
  lsugen verify  --rtl FILE.v --unit NAME SPEC...
                                               run any Verilog module against the unit's golden vectors
  lsugen conflicts [--json] [--hash SPEC:UNIT | --banks N] [--lock-bits N] TRACE|SPEC...
                                               bank, lock and position conflicts of access traces
  lsugen search  [flags] INPUTS...             choose a hash configuration for access traces
  lsugen rapsim  [--json] [--w LIST] [--trials N] [--seed S] [--table II|IV|both]
                                               Monte Carlo congestion of RAW, RAS, RAP and the w^4 variants
  lsugen pipesim [--json] [-o FILE] SPEC --trace FILE | --synthetic|--preset NAME [flags]
                                               cycles, stalls and IPC of the elastic pipeline and its baselines
  lsugen fusesoc-gen GAPI.yml                  lsugen as a FuseSoC generator (parameters: spec, unit)
  lsugen crosscheck-timing --liberty FILE [--driver CELL] [--json|--markdown] SPEC...
                                               FO4 model against Yosys + OpenSTA with a real cell library
  lsugen characterize [--json] LIBERTY         a cell library as the FO4 model sees it (gate table, tau, wire load)
  lsugen version

Run 'lsugen COMMAND -h' for the flags of a command.
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// errReported marks an error whose details were already printed.
var errReported = errors.New("failed")

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "gen":
		err = cmdGen(args[1:], stdout, stderr)
	case "timing":
		err = cmdTiming(args[1:], stdout, stderr)
	case "verify":
		err = cmdVerify(args[1:], stdout, stderr)
	case "conflicts":
		err = cmdConflicts(args[1:], stdout, stderr)
	case "search":
		err = cmdSearch(args[1:], stdout, stderr)
	case "rapsim":
		err = cmdRapsim(args[1:], stdout, stderr)
	case "pipesim":
		err = cmdPipesim(args[1:], stdout, stderr)
	case "fusesoc-gen":
		err = cmdFusesocGen(args[1:], stdout, stderr)
	case "crosscheck-timing":
		err = cmdCrosscheck(args[1:], stdout, stderr)
	case "characterize":
		err = cmdCharacterize(args[1:], stdout, stderr)
	case "version", "--version":
		fmt.Fprintf(stdout, "lsugen %s\n", gen.Version)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
	default:
		fmt.Fprintf(stderr, "lsugen: unknown command %q\n\n%s", args[0], usage)
		return 2
	}
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		return 2
	case errors.Is(err, errReported):
		return 1
	}
	fmt.Fprintf(stderr, "lsugen: %v\n", err)
	return 1
}

var errUsage = errors.New("usage")

// parseFlags parses flags that may appear before, between or after the
// positional arguments, and returns the positional ones.
func parseFlags(fs *flag.FlagSet, args []string, stderr io.Writer) ([]string, error) {
	fs.SetOutput(stderr)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, errUsage
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// unit is one generated unit with where it came from.
type unit struct {
	spec   specs.Unit
	design *netlist.Design
}

// source is "file:line" of a unit's declaration.
func source(u specs.Unit) string {
	r := u.DeclRange()
	return fmt.Sprintf("%s:%d", r.Filename, r.Start.Line)
}

// workDir is the directory a run works in: given (the --work flag; created
// if need be, and kept) or, when that is empty, a new temporary one named
// after prefix, which the caller removes unless the run failed.
func workDir(given, prefix string) (dir string, keep bool, err error) {
	if given == "" {
		dir, err = os.MkdirTemp("", prefix)
		return dir, false, err
	}
	return given, true, os.MkdirAll(given, 0o755)
}

// loadAndGenerate loads the spec files and generates every unit. All
// diagnostics are printed once, here; on any error nothing is returned, so
// no command starts work on a partly valid input.
func loadAndGenerate(paths []string, stderr io.Writer) ([]unit, error) {
	if len(paths) == 0 {
		fmt.Fprintln(stderr, "lsugen: no spec files given")
		return nil, errUsage
	}
	loader := specs.NewLoader()
	file, diags := loader.Load(paths...)
	var loaded []unit
	if !diags.HasErrors() {
		for _, su := range file.Units {
			d, gd := units.Generate(su)
			diags = append(diags, gd...)
			if d != nil {
				loaded = append(loaded, unit{spec: su, design: d})
			}
		}
	}
	if len(diags) > 0 {
		printDiagnostics(stderr, loader, diags)
	}
	if diags.HasErrors() {
		return nil, errReported
	}
	if len(loaded) == 0 {
		fmt.Fprintln(stderr, "lsugen: the spec files declare no units")
		return nil, errReported
	}
	return loaded, nil
}

func printDiagnostics(w io.Writer, loader *specs.Loader, diags hcl.Diagnostics) {
	// Colour only on a terminal, and never when NO_COLOR is set.
	color := false
	if f, ok := w.(*os.File); ok && os.Getenv("NO_COLOR") == "" {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			color = true
		}
	}
	dw := hcl.NewDiagnosticTextWriter(w, loader.Files(), 100, color)
	_ = dw.WriteDiagnostics(diags)
	// Then one file:line:column line per diagnostic, for editors and grep.
	for _, d := range diags {
		sev := "error"
		if d.Severity == hcl.DiagWarning {
			sev = "warning"
		}
		pos := "lsugen"
		if d.Subject != nil {
			pos = fmt.Sprintf("%s:%d:%d", d.Subject.Filename, d.Subject.Start.Line, d.Subject.Start.Column)
		}
		fmt.Fprintf(w, "%s: %s: %s\n", pos, sev, d.Summary)
	}
}

func joinNames(us []unit) string {
	names := make([]string, len(us))
	for i, u := range us {
		names[i] = u.design.Name
	}
	return strings.Join(names, ", ")
}
