package main

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/lsugen/lsugen/gen"
	"github.com/lsugen/lsugen/internal/inputfile"
	"github.com/lsugen/lsugen/packaging"
	"github.com/lsugen/lsugen/specs"
)

const fusesocLong = `lsugen as a FuseSoC generator. FuseSoC calls it with the path of a GAPI
file (gapi: "1.0", files_root, vlnv, parameters) and runs it in the
generator's output directory. Parameters:

  spec   an HCL spec file, or a list of them, relative to files_root
         (the calling core's directory; the current directory without it)
         and inside it: an absolute path, or a '..' or a symbolic link
         that leads out of files_root, is refused
  unit   optional: generate only this unit of the specs
  tb     optional, true or false (default): also write the self-checking
         testbench NAME_tb.v and its golden vectors NAME.vec, and give the
         core the targets sim and sim_gates, which run it on the RTL and on
         the gate netlist under Icarus Verilog

For each unit it writes NAME.v, NAME_gates.v, NAME.ys, NAME.sdc and a
CAPI2 core NAME.core named by the GAPI vlnv (with several units,
vendor:library:name-UNIT:version; without a vlnv, lsugen:units:NAME:VERSION).
Nothing is written unless every file can be. --json lists the units and
the files written, as lsugen gen --json does.`

// newFusesocGenCmd is lsugen as a FuseSoC generator: FuseSoC runs it in
// the generator's output directory with one argument, the GAPI file.
func newFusesocGenCmd(a *app) *cobra.Command {
	var (
		out    string
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "fusesoc-gen [-o DIR] [--json] GAPI.yml",
		Short: "lsugen as a FuseSoC generator (parameters: spec, unit, tb)",
		Long:  fusesocLong,
		RunE: func(cmd *cobra.Command, pos []string) error {
			if len(pos) != 1 {
				return usagef("want one argument, the GAPI file; got %d", len(pos))
			}
			return fusesocGen(a, pos[0], out, asJSON)
		},
	}
	fs := cmd.Flags()
	addOutputFlag(fs, &out, ".", "output directory (FuseSoC runs a generator in its output directory)")
	addJSONFlag(fs, &asJSON)
	return cmd
}

// fusesocGen generates the units a GAPI file names into out. Every
// problem of the GAPI file or of the specs it names is bad input.
func fusesocGen(a *app, gapiPath, out string, asJSON bool) error {
	bad := func(format string, args ...any) error {
		return badInput(fmt.Errorf("%s: "+format, append([]any{gapiPath}, args...)...))
	}
	b, err := inputfile.Read(gapiPath, packaging.MaxGAPIBytes)
	if err != nil {
		return badInput(err)
	}
	g, err := packaging.ParseGAPI(b)
	if err != nil {
		return bad("%w", err)
	}
	params, err := gapiParams(g)
	if err != nil {
		return bad("%w", err)
	}
	specPaths, only := params.specs, params.unit
	units, err := loadAndGenerate(specPaths, defaultBudget(true), a.stderr)
	if err != nil {
		return err
	}
	if only != "" {
		var sel []unit
		for _, u := range units {
			if u.Design.Name == only {
				sel = append(sel, u)
			}
		}
		if sel == nil {
			specUnits := make([]specs.Unit, len(units))
			for i, u := range units {
				specUnits[i] = u.Spec
			}
			_, err := specs.FindUnit(specUnits, only, "", strings.Join(specPaths, ", "))
			return bad("parameters: unit: %v", err)
		}
		units = sel
	}
	vlnv := func(u unit) string { return "" }
	if g.VLNV != "" {
		v, l, n, ver, err := packaging.SplitVLNV(g.VLNV)
		if err != nil {
			return bad("vlnv: %w", err)
		}
		if len(units) == 1 {
			vlnv = func(unit) string { return g.VLNV }
		} else {
			vlnv = func(u unit) string { return strings.Join([]string{v, l, n + "-" + u.Design.Name, ver}, ":") }
		}
	}
	rep, set, err := unitFiles(units, out, true, params.tb, vlnv, nil)
	if err != nil {
		return err
	}
	if err := writeAll(out, set); err != nil {
		return err
	}
	if asJSON {
		return printJSON(a.stdout, rep)
	}
	names := make([]string, 0, len(units))
	for _, u := range units {
		names = append(names, packaging.CoreFileName(u.Design.Name))
	}
	fmt.Fprintf(a.stdout, "lsugen %s fusesoc-gen: wrote %d files for %d units to %s (cores: %s)\n",
		gen.Version, len(set), len(units), out, strings.Join(names, ", "))
	return nil
}

// genParams are the generator parameters of a GAPI file.
type genParams struct {
	specs []string // spec files inside files_root, joined to it
	unit  string   // only this unit; "" for every unit
	tb    bool     // also the testbench, its vectors and the sim targets
}

// gapiParams reads the generator parameters: spec (a path or a list of
// paths inside files_root, joined to it), the optional unit and the
// optional tb. Unknown parameters are errors, so that a misspelt one is not
// silently ignored.
func gapiParams(g *packaging.GAPI) (genParams, error) {
	var unknown []string
	for k := range g.Parameters {
		if k != "spec" && k != "unit" && k != "tb" {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return genParams{}, fmt.Errorf("parameters: unknown %s (lsugen reads spec, unit and tb)", strings.Join(unknown, ", "))
	}
	var p genParams
	var err error
	if p.specs, p.unit, err = gapiSpecUnit(g); err != nil {
		return genParams{}, err
	}
	switch tb := g.Parameters["tb"].(type) {
	case nil:
	case bool:
		p.tb = tb
	case string:
		return genParams{}, fmt.Errorf("parameters: tb: want true or false, unquoted; got the string %q", tb)
	default:
		return genParams{}, fmt.Errorf("parameters: tb: want true or false, got %v", tb)
	}
	return p, nil
}

// gapiSpecUnit reads the parameters spec and unit.
func gapiSpecUnit(g *packaging.GAPI) (paths []string, unit string, err error) {
	switch s := g.Parameters["spec"].(type) {
	case nil:
		return nil, "", fmt.Errorf("parameters: spec is missing: name the HCL spec file(s), relative to files_root")
	case string:
		paths = []string{s}
	case []any:
		for i, e := range s {
			p, ok := e.(string)
			if !ok {
				return nil, "", fmt.Errorf("parameters: spec[%d]: want a file name, got %v", i, e)
			}
			paths = append(paths, p)
		}
	default:
		return nil, "", fmt.Errorf("parameters: spec: want a file name or a list of them, got %v", s)
	}
	if len(paths) == 0 {
		return nil, "", fmt.Errorf("parameters: spec is an empty list")
	}
	if len(paths) > packaging.MaxGAPISpecs {
		return nil, "", fmt.Errorf("parameters: spec names %d files, more than %d", len(paths), packaging.MaxGAPISpecs)
	}
	seen := map[string]int{}
	for i, p := range paths {
		if p == "" {
			return nil, "", fmt.Errorf("parameters: spec: empty file name")
		}
		if paths[i], err = g.SpecPath(p); err != nil {
			return nil, "", fmt.Errorf("parameters: %w", err)
		}
		if j, dup := seen[paths[i]]; dup {
			return nil, "", fmt.Errorf("parameters: spec[%d]: %s names the file of spec[%d] again", i, strconv.Quote(p), j)
		}
		seen[paths[i]] = i
		// Only a regular file: a FIFO would block the open of the loader.
		if fi, err := os.Stat(paths[i]); err == nil && !fi.Mode().IsRegular() {
			return nil, "", fmt.Errorf("parameters: spec %s is %s, not a regular file", strconv.Quote(p), inputfile.Kind(fi.Mode()))
		}
	}
	switch u := g.Parameters["unit"].(type) {
	case nil:
	case string:
		if u == "" {
			return nil, "", fmt.Errorf("parameters: unit is empty")
		}
		unit = u
	default:
		return nil, "", fmt.Errorf("parameters: unit: want a unit name, got %v", u)
	}
	return paths, unit, nil
}
