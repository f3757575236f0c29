package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"text/tabwriter"
	"time"

	"github.com/lsugen/lsugen/flow"
	"github.com/lsugen/lsugen/gen"
	"github.com/lsugen/lsugen/internal/atomicfile"
	"github.com/lsugen/lsugen/rtl"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/tools/replay"
	"github.com/lsugen/lsugen/units"
	"github.com/lsugen/lsugen/verify"
)

// The replay part runs `lsugen replay`'s library (tools/replay) on a
// shared memory: the same synthetic warp instructions (WriteRandomTrace,
// seed 1: random 32-lane loads, strided and scattered) in lockstep with
// the model on the netlist simulator and on Verilator, and on the model
// alone. Shorter runs use a prefix of the same trace.

const (
	defaultReplayUnit = "specs/large/shared_memory_fermi.hcl:shmem_fermi"
	// The goals of issue 29: the netlist simulator at least 50,000 warp
	// instructions per second and ahead of Verilator, the model a million
	// in at most 5 s on one core.
	replayGoal      = 50_000.0
	replayModelGoal = 5 * time.Second
)

// replayRow is one engine's best trial.
type replayRow struct {
	engine     string
	instrs     int
	cpu, wall  time.Duration // the best trial's
	segments   int
	cycles     int
	passes     int
	oneThread  bool
	checkedAll bool // in lockstep with the model, every output of every cycle
}

func (r replayRow) cpuRate() float64  { return float64(r.instrs) / r.cpu.Seconds() }
func (r replayRow) wallRate() float64 { return float64(r.instrs) / r.wall.Seconds() }

// benchReplay times the replay on each engine.
func benchReplay(ctx context.Context, c *config, tmp string, stdout, stderr io.Writer) error {
	fu, err := generateUnit(c.replayUnit, stderr)
	if err != nil {
		return err
	}
	sm, ok := fu.Spec.(*specs.SharedMemory)
	if !ok {
		return fmt.Errorf("%s: a %s unit; the replay takes a shared_memory", c.replayUnit, fu.Spec.UnitKind())
	}
	d := fu.Design
	nlJob, err := units.Job(fu.Spec, fu.Built)
	if err != nil {
		return err
	}
	trace := func(n int) (string, error) {
		path := filepath.Join(tmp, fmt.Sprintf("random_%d.trace", n))
		f, err := os.Create(path)
		if err != nil {
			return "", err
		}
		err = replay.WriteRandomTrace(f, n, sm.Lanes, sm.Words(), 1)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return path, err
	}
	workload := func(path string) (*replay.Workload, error) {
		w, err := replay.NewWorkload(sm)
		if err != nil {
			return nil, err
		}
		return w, w.AddFile(path)
	}

	// In lockstep: reading the trace, planning, recording the model's
	// stream and the engine's run, as `lsugen replay` does after
	// generating the unit.
	lockstep := func(engine verify.Engine, n int, job verify.Job) (replayRow, error) {
		path, err := trace(n)
		if err != nil {
			return replayRow{}, err
		}
		row := replayRow{engine: string(engine), instrs: n, checkedAll: true}
		for range c.trials {
			w0, c0 := time.Now(), processCPU()+childrenCPU()
			w, err := workload(path)
			if err != nil {
				return row, err
			}
			rep, err := replay.Run(ctx, job, w, engine)
			if err != nil {
				return row, fmt.Errorf("%s on %s: %w", c.replayUnit, engine, err)
			}
			if !rep.Agree() || rep.Total.Instructions != n {
				return row, fmt.Errorf("%s on %s: %d of %d instructions disagree", c.replayUnit, engine, len(rep.Disagreements), rep.Total.Instructions)
			}
			cpu, wall := processCPU()+childrenCPU()-c0, time.Since(w0)
			if row.cpu == 0 || cpu < row.cpu {
				row.cpu = cpu
			}
			if row.wall == 0 || wall < row.wall {
				row.wall = wall
			}
			row.segments, row.cycles, row.passes = rep.Segments, rep.StreamCycles, rep.Total.Measured
		}
		return row, nil
	}

	var rows []replayRow
	fmt.Fprintf(stderr, "lsugen-bench: replay of %s instructions on the netlist simulator ...\n", count(c.replayInstrs))
	nl, err := lockstep(verify.Netlist, c.replayInstrs, nlJob)
	if err != nil {
		return err
	}
	rows = append(rows, nl)

	// Verilator runs the readable and the gate-level module side by side
	// on the files `lsugen replay --sim verilator` writes (the unit's and
	// its hash's, stamped by gen.GeneratedBy as lsugen stamps them), so that its
	// model comes from lsugen's cache after the first build of either.
	dir := filepath.Join(tmp, "replay")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, x := range flow.WithSubunits([]flow.Unit{fu}) {
		files, err := rtl.Files(x.Design, rtl.Info{Version: gen.GeneratedBy(), Source: flow.Source(x.Spec)})
		if err != nil {
			return err
		}
		for name, b := range files {
			if err := atomicfile.Write(filepath.Join(dir, name), b); err != nil {
				return err
			}
		}
	}
	job := nlJob
	rtlFiles, gateFiles := rtl.Sources(d)
	for _, f := range append(rtlFiles, gateFiles...) {
		job.Sources = append(job.Sources, filepath.Join(dir, f))
	}
	job.Modules = []string{d.Name, rtl.GatesModuleName(d)}
	job.Dir = dir
	fmt.Fprintf(stderr, "lsugen-bench: replay of %s instructions on Verilator (its first build of a large unit takes minutes) ...\n", count(c.replayVerilatorInstrs))
	vl, err := lockstep(verify.Verilator, c.replayVerilatorInstrs, job)
	if err != nil {
		return err
	}
	rows = append(rows, vl)

	// The model alone: the run that plans the replay (Workload.Cycles),
	// on one thread, the trace read beforehand.
	path, err := trace(c.replayModelInstrs)
	if err != nil {
		return err
	}
	w, err := workload(path)
	if err != nil {
		return err
	}
	var cerr error
	cycles := 0
	t := measure(0, c.trials, true, func() {
		if n, err := w.Cycles(0); err != nil {
			cerr = err
		} else {
			cycles = n
		}
	})
	if cerr != nil {
		return cerr
	}
	rows = append(rows, replayRow{engine: "model alone", instrs: c.replayModelInstrs, cpu: t.cpu, wall: t.wall, segments: 1, cycles: cycles, oneThread: true})

	fmt.Fprintf(stdout, "Replay: `lsugen replay` of %s's random 32-lane warp loads (tools/replay.WriteRandomTrace, seed 1;\n"+
		"a shorter run replays a prefix), reading the trace, planning and recording the model's stream included;\n"+
		"in lockstep with the model, every output of every cycle compared. CPU time of lsugen and its child\n"+
		"processes (all threads), and wall time, best of %d trials; the model alone on one thread.\n", d.Name, c.trials)
	tw := tabwriter.NewWriter(stdout, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "engine\tinstructions\tcycles\tsegments\tCPU\twall\tinstructions/s (CPU)\tinstructions/s (wall)")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s/s\t%s/s\n", r.engine, count(r.instrs), count(r.cycles), r.segments,
			dur(r.cpu), dur(r.wall), rate(r.cpuRate()), rate(r.wallRate()))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	perMillion := time.Duration(float64(rows[2].cpu) * 1e6 / float64(rows[2].instrs))
	fmt.Fprintf(stdout, "netlist simulator / Verilator: %s (CPU), %s (wall)\n", times(nl.cpuRate()/vl.cpuRate()), times(nl.wallRate()/vl.wallRate()))
	fmt.Fprintf(stdout, "goal: the netlist simulator at least %s instructions/s (wall, %d cores) and ahead of Verilator: %s\n",
		rate(replayGoal), runtime.GOMAXPROCS(0), metWord(nl.wallRate() >= replayGoal && nl.cpuRate() > vl.cpuRate()))
	_, err = fmt.Fprintf(stdout, "goal: the model alone, one million instructions in at most %s on one core: %s (%s per million)\n",
		dur(replayModelGoal), metWord(perMillion <= replayModelGoal), dur(perMillion))
	return err
}
