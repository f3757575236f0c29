package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"time"

	"github.com/lsugen/lsugen/gen"
	"github.com/lsugen/lsugen/rtl"
	"github.com/lsugen/lsugen/units"
	"github.com/lsugen/lsugen/verify"
)

// testbenchFiles renders every unit's standalone testbench NAME_tb.v and
// golden vector file NAME.vec (`lsugen gen --tb`).
func testbenchFiles(us []unit) (map[string][]byte, error) {
	set := map[string][]byte{}
	for _, u := range us {
		g, err := units.Golden(u.spec, u.design)
		if err != nil {
			return nil, err
		}
		info := rtl.Info{Version: "lsugen " + gen.Version, Source: source(u.spec)}
		set[verify.TestbenchFileName(u.design)] = g.Testbench(info)
		set[verify.VectorFileName(u.design)] = g.VectorFile(info)
	}
	return set, nil
}

// mergeFiles adds the files of src to dst; two files of one name (a unit
// named like another unit's testbench, say) are an error, not an overwrite.
func mergeFiles(dst, src map[string][]byte) error {
	names := make([]string, 0, len(src))
	for name := range src {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if _, dup := dst[name]; dup {
			return fmt.Errorf("two generated files are named %s: rename one of the units", name)
		}
		dst[name] = src[name]
	}
	return nil
}

// stringList is a flag that may be given several times.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(s string) error { *l = append(*l, s); return nil }

// rtlFlags are the flags of `lsugen verify --rtl`.
type rtlFlags struct {
	files stringList
	unit  string
	top   string
}

// addRTLFlags declares verify's flags for checking other Verilog against
// a unit's golden vectors.
func addRTLFlags(fs *flag.FlagSet) *rtlFlags {
	f := &rtlFlags{}
	fs.Var(&f.files, "rtl", "check this Verilog file's module against the golden vectors of --unit\n(repeat for several files) under Icarus and Verilator, as `lsugen gen --tb`'s\ntestbench does; the model, netlist and generated Verilog are not run")
	fs.StringVar(&f.unit, "unit", "", "with --rtl: the unit whose golden vectors and ports to use (default: the only unit)")
	fs.StringVar(&f.top, "top", "", "with --rtl: the module to check (default: the unit's name)")
	return f
}

// active reports whether any of the flags was given.
func (f *rtlFlags) active() bool { return len(f.files) > 0 || f.unit != "" || f.top != "" }

// rtlFlagsAllowed are the verify flags that apply with --rtl.
var rtlFlagsAllowed = map[string]bool{"rtl": true, "unit": true, "top": true, "sim": true, "work": true}

// verifyRTL is `lsugen verify --rtl FILE.v... [--unit NAME] [--top MODULE]
// SPEC...`: the unit's standalone testbench and golden vectors, exactly as
// `lsugen gen --tb` writes them, run against the module in the files under
// each simulator. Exit status 0 when every simulator passes, 1 on a
// mismatch or when a check cannot run, 2 for bad arguments.
func verifyRTL(fs *flag.FlagSet, f *rtlFlags, paths []string, stdout, stderr io.Writer) error {
	usageErr := func(format string, args ...any) error {
		fmt.Fprintf(stderr, "lsugen verify: "+format+"\n", args...)
		return errUsage
	}
	var other []string
	simSet := false
	fs.Visit(func(fl *flag.Flag) {
		simSet = simSet || fl.Name == "sim"
		if !rtlFlagsAllowed[fl.Name] {
			other = append(other, "--"+fl.Name)
		}
	})
	if len(other) > 0 {
		return usageErr("%s: not with --rtl (it checks the fixed golden vectors; flags: --rtl, --unit, --top, --sim, --work)", strings.Join(other, ", "))
	}
	if len(f.files) == 0 {
		return usageErr("--unit and --top need --rtl FILE.v")
	}
	for _, file := range f.files {
		st, err := os.Stat(file)
		if err != nil {
			return usageErr("--rtl %s: %v", file, errors.Unwrap(err))
		}
		if st.IsDir() {
			return usageErr("--rtl %s: a directory, not a Verilog file", file)
		}
	}
	engines := []verify.Engine{verify.Icarus, verify.Verilator}
	if simSet {
		var err error
		if engines, err = verify.ParseEngines(fs.Lookup("sim").Value.String()); err != nil {
			return usageErr("%v", err)
		}
		for _, e := range engines {
			if e == verify.Netlist {
				return usageErr("--sim netlist: --rtl runs Verilog files, under icarus or verilator")
			}
		}
	}
	loaded, err := loadAndGenerate(paths, stderr)
	if err != nil {
		return err
	}
	var u *unit
	for i := range loaded {
		if loaded[i].design.Name == f.unit || f.unit == "" && len(loaded) == 1 {
			u = &loaded[i]
		}
	}
	if u == nil {
		names := joinNames(loaded)
		if f.unit == "" {
			return usageErr("the specs declare %d units: choose one with --unit (%s)", len(loaded), names)
		}
		return usageErr("no unit %q in the specs (units: %s)", f.unit, names)
	}
	top := f.top
	if top == "" {
		top = u.design.Name
	}

	g, err := units.Golden(u.spec, u.design)
	if err != nil {
		return err
	}
	dir, keep, err := workDir(fs.Lookup("work").Value.String(), "lsugen-verify-rtl-")
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	check := verify.RTLCheck{
		Golden:  g,
		Info:    rtl.Info{Version: "lsugen " + gen.Version, Source: source(u.spec)},
		Sources: f.files,
		Top:     top,
		Dir:     dir,
	}
	what := "vectors"
	if g.Clocked {
		what = "cycles"
	}
	results, err := check.Run(ctx, engines)
	failed := false
	for _, r := range results {
		if r.Passed {
			fmt.Fprintf(stdout, "%-24s %-10s PASS  %8d %s of %s, module %s  %s\n", u.design.Name, r.Engine, r.Count, what, verify.VectorFileName(u.design), top, r.Elapsed.Round(time.Millisecond))
			continue
		}
		failed = true
		fmt.Fprintf(stdout, "%-24s %-10s FAIL  module %s  %s\n", u.design.Name, r.Engine, top, r.Elapsed.Round(time.Millisecond))
		fmt.Fprintf(stderr, "lsugen verify: %s: module %s (%s): %s\n", u.design.Name, top, r.Engine, r.Failure)
	}
	if err != nil {
		fmt.Fprintf(stderr, "lsugen verify: %s: module %s: %v\n(work directory kept: %s)\n", u.design.Name, top, err, dir)
		return errReported
	}
	if failed {
		fmt.Fprintf(stderr, "lsugen verify: FAILED; work directory kept: %s (%s, %s)\n", dir, verify.TestbenchFileName(u.design), verify.VectorFileName(u.design))
		return errReported
	}
	if !keep {
		os.RemoveAll(dir)
	}
	sims := make([]string, len(engines))
	for i, e := range engines {
		sims[i] = string(e)
	}
	fmt.Fprintf(stdout, "module %s matches the %d golden %s of %s under %s\n", top, g.Len(), what, u.design.Name, strings.Join(sims, " and "))
	return nil
}
