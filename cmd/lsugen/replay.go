package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/lsugen/lsugen/flow"
	"github.com/lsugen/lsugen/gen"
	"github.com/lsugen/lsugen/rtl"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/tools/replay"
	"github.com/lsugen/lsugen/units"
	"github.com/lsugen/lsugen/verify"
)

const replayLong = `Replay the shared-memory instructions (loads, stores, atomics) of traces
through a generated shared_memory unit, in lockstep with its behavioural
model, and report per instruction group (one PC of one kernel) and per
kernel the passes lsugen conflicts predicts under the unit's hash and bank
width beside the passes (rsp_passes_o) and bank cycles measured on the unit.
TRACE is an Accel-Sim trace (kernelslist.g, kernel-N.traceg, .traceg.xz, or
a kernel trace of any name, recognised by its header) or an lsugen trace (word addresses, replayed as loads of the bank width).
The replay first stores every byte of the storage (the fill, reported
apart), then offers the trace's warp instructions one after another with
data of its own making. A warp lane the unit lacks, a width or atomic it
does not support, or an address past its capacity is refused. The exit
status is 1 when an instruction disagrees with the prediction
(docs/shared-memory.md, Replay).`

func newReplayCmd(a *app) *cobra.Command {
	var (
		asJSON    bool
		sim, work string
	)
	cmd := &cobra.Command{
		Use:   "replay [--json] [--sim netlist|verilator] [--work DIR] SPEC:UNIT TRACE...",
		Short: "replay traces' shared-memory instructions through a generated shared_memory unit",
		Long:  replayLong,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runReplay(a, args, sim, work, asJSON)
		},
	}
	fs := cmd.Flags()
	addJSONFlag(fs, &asJSON)
	fs.StringVar(&sim, "sim", "netlist", simUsage)
	addWorkFlag(fs, &work)
	return cmd
}

func runReplay(a *app, args []string, sim, work string, asJSON bool) error {
	engine, err := replayEngine(args, sim, work)
	if err != nil {
		return err
	}
	u, err := loadSharedMemory(args[0], a)
	if err != nil {
		return err
	}
	w, err := replay.NewWorkload(u.Spec.(*specs.SharedMemory))
	if err != nil {
		return badInput(err)
	}
	for _, path := range args[1:] {
		if err := w.AddFile(path); err != nil {
			return badInput(err)
		}
	}
	job, dir, err := replayJob(u, engine, work)
	if err != nil {
		return err
	}
	rep, err := replay.Run(a.context(), job, w, engine)
	if err != nil {
		fmt.Fprintf(a.stderr, "lsugen replay: %v\n", err)
		return errReported
	}
	if dir != "" {
		os.RemoveAll(dir)
	}
	if asJSON {
		err = printJSON(a.stdout, replayDoc{Version: gen.Version, Report: rep})
	} else {
		err = rep.Write(a.stdout)
	}
	if err == nil && !rep.Agree() {
		return errReported
	}
	return err
}

// replayEngine checks replay's arguments and flags and returns the engine.
func replayEngine(args []string, sim, work string) (verify.Engine, error) {
	if len(args) < 2 {
		return "", usagef("want SPEC:UNIT and at least one trace")
	}
	engine := verify.Engine(sim)
	if engine != verify.Netlist && engine != verify.Verilator {
		return "", usagef("--sim %s: want netlist or verilator", sim)
	}
	if work != "" && engine == verify.Netlist {
		return "", usagef("--work keeps the Verilog and build of --sim verilator; --sim netlist writes none")
	}
	return engine, nil
}

// loadSharedMemory generates the shared_memory unit ref names (SPEC:UNIT,
// or SPEC alone when it declares one).
func loadSharedMemory(ref string, a *app) (unit, error) {
	su, err := loadUnitRef("", ref, "shared_memory", false, a.stderr)
	if err != nil {
		return unit{}, err
	}
	path, _ := specs.SplitUnitRef(ref)
	loaded, err := loadAndGenerate([]string{path}, budget{Unit: su.UnitName()}, a.stderr)
	if err != nil {
		return unit{}, err
	}
	return loaded[0], nil
}

// replayJob is u's verification job; for an HDL engine its Verilog is
// written into a work directory (returned when it is a temporary one, to
// remove after the run).
func replayJob(u flow.Unit, engine verify.Engine, work string) (verify.Job, string, error) {
	job, err := units.Job(u.Spec, u.Built)
	if err != nil || engine == verify.Netlist {
		return job, "", err
	}
	dir, keep, err := workDir(work, "lsugen-replay-")
	if err != nil {
		return job, "", err
	}
	set, err := verilogFiles([]unit{u})
	if err != nil {
		return job, "", err
	}
	udir := filepath.Join(dir, u.Design.Name)
	if err := writeAll(udir, set); err != nil {
		return job, "", err
	}
	rtlFiles, gateFiles := rtl.Sources(u.Design)
	job.Sources = joinAll(udir, append(rtlFiles, gateFiles...))
	job.Modules = []string{u.Design.Name, rtl.GatesModuleName(u.Design)}
	job.Dir = udir
	if keep {
		dir = ""
	}
	return job, dir, nil
}
