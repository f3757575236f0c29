package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"time"

	"github.com/lsugen/lsugen/rtl"
	"github.com/lsugen/lsugen/units"
	"github.com/lsugen/lsugen/verify"
)

func cmdVerify(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("verify", flag.ContinueOnError)
	plan := verify.DefaultPlan()
	sims := fs.String("sim", "netlist,icarus,verilator", "engines to run, comma-separated: netlist, icarus, verilator")
	fs.IntVar(&plan.Random, "vectors", plan.Random, "random vectors per unit when exhaustive enumeration does not fit\n(default: fewer for large units, about 2^27 gate-vectors, at least 256)")
	fs.Uint64Var(&plan.Seed, "seed", plan.Seed, "seed of the random vectors and configurations, and of sequential units' stimulus")
	fs.IntVar(&plan.Configs, "configs", plan.Configs, "random configurations of a configurable unit")
	fs.IntVar(&plan.MaxVectors, "max-vectors", plan.MaxVectors, "inputs that number no more than this are enumerated exhaustively")
	seqPlan := verify.DefaultSeqPlan()
	fs.IntVar(&seqPlan.Cycles, "cycles", seqPlan.Cycles, "clock cycles per sequential (clocked) unit")
	work := fs.String("work", "", "work directory for testbenches, vectors and VCDs (default: a temporary directory, kept only on failure)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: lsugen verify [flags] SPEC...\n\nRuns the same vectors through the behavioural model, the netlist simulator\nand the RTL and gate-level Verilog under Icarus Verilog and Verilator, and\ncompares every output with the model. Clocked units run a stream of --cycles\ncycles in lockstep with their sequential model, every output compared in\nevery cycle. Exits 1 after the units are checked if any mismatched, having\nprinted the vector (cycle) and left a VCD of it.")
		fs.PrintDefaults()
	}
	rtlf := addRTLFlags(fs)
	ff := addFormalFlags(fs)
	paths, err := parseFlags(fs, args, stderr)
	if err != nil {
		return err
	}
	if ff.formal {
		return verifyFormal(fs, ff, *work, paths, stdout, stderr) // formal.go
	}
	if rtlf.active() {
		return verifyRTL(fs, rtlf, paths, stdout, stderr) // verify_rtl.go
	}
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "vectors" {
			plan.GateVectors = 0 // an explicit count is taken as given
		}
	})
	engines, err := verify.ParseEngines(*sims)
	if err != nil {
		fmt.Fprintf(stderr, "lsugen verify: %v\n", err)
		return errUsage
	}
	if plan.Random < 1 || plan.Configs < 1 || plan.MaxVectors < 1 || seqPlan.Cycles < 1 {
		fmt.Fprintln(stderr, "lsugen verify: --vectors, --configs, --max-vectors and --cycles must be positive")
		return errUsage
	}
	seqPlan.Seed = plan.Seed
	loaded, err := loadAndGenerate(paths, stderr)
	if err != nil {
		return err
	}
	dir, keep, err := workDir(*work, "lsugen-verify-")
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

	failed := false
	for _, u := range loaded {
		// A design with a clock is sequential: it runs a stream of
		// cycles against its sequential model.
		sequential := u.design.Clock != ""
		job, err := units.Job(u.spec, u.design)
		if err != nil {
			return err
		}
		udir := filepath.Join(dir, u.design.Name)
		set, err := verilogFiles([]unit{u})
		if err != nil {
			return err
		}
		if err := writeAll(udir, set); err != nil {
			return err
		}
		job.Sources = []string{filepath.Join(udir, rtl.RTLFileName(u.design)), filepath.Join(udir, rtl.GatesFileName(u.design))}
		job.Modules = []string{u.design.Name, rtl.GatesModuleName(u.design)}
		job.Dir = udir
		var res *verify.Result
		if sequential {
			res, err = verify.RunSequential(ctx, job, seqPlan, engines)
		} else {
			res, err = verify.Run(ctx, job, plan, engines)
		}
		if err != nil {
			fmt.Fprintf(stderr, "lsugen verify: %v\n(work directory kept: %s)\n", err, dir)
			return errReported
		}
		if sequential {
			// The stream's coverage is long: one line of its own.
			fmt.Fprintf(stdout, "%-24s stream: %s\n", u.design.Name, res.Coverage)
		}
		for _, c := range res.Checks {
			status := "ok"
			if c.Mismatch != nil {
				status = "MISMATCH"
				failed = true
			}
			if sequential {
				fmt.Fprintf(stdout, "%-24s %-10s %-8s %8d cycles,  %-34s %s\n", u.design.Name, c.Engine, status, c.Vectors, "lockstep with the sequential model", c.Elapsed.Round(time.Millisecond))
			} else {
				fmt.Fprintf(stdout, "%-24s %-10s %-8s %8d vectors, %-34s %s\n", u.design.Name, c.Engine, status, c.Vectors, res.Coverage, c.Elapsed.Round(time.Millisecond))
			}
			if c.Mismatch != nil {
				fmt.Fprintf(stderr, "lsugen verify: %s: %s\n", u.design.Name, c.Mismatch)
			}
		}
	}
	if failed {
		fmt.Fprintf(stderr, "lsugen verify: FAILED; work directory kept: %s\n", dir)
		return errReported
	}
	if !keep {
		os.RemoveAll(dir)
	}
	fmt.Fprintf(stdout, "verified %d units: model = %s\n", len(loaded), engineList(engines))
	return nil
}

func engineList(es []verify.Engine) string {
	s := ""
	for i, e := range es {
		if i > 0 {
			s += " = "
		}
		s += string(e)
	}
	return s
}
