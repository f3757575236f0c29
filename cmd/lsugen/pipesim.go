package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/lsugen/lsugen/gen"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/tools/accelsim"
	"github.com/lsugen/lsugen/tools/conflicts"
	"github.com/lsugen/lsugen/tools/pipesim"
)

const pipesimLong = `  lsugen pipesim [--json] [-o FILE] [--unit NAME] [--mask NAME] SPEC --trace FILE
  lsugen pipesim [--json] [-o FILE] [--unit NAME] [--mask NAME] SPEC --accelsim TRACE
                 [--banks N | --hash SPEC:UNIT] [--bank-bytes 4|8] [--write-trace FILE]
  lsugen pipesim [--json] [-o FILE] [--unit NAME] [--mask NAME] SPEC --synthetic|--preset NAME
                 [--warps N] [--instructions N] [--shmem F] [--mem F] [--degrees D:P,...]
                 [--static K] [--irregular] [--seed S] [--write-trace FILE]

Runs the cycle-accurate model of the spec's elastic_pipeline unit (the first,
or --unit) as baseline_unified, baseline_split and elastic (its variant
attribute is ignored), each without and with the bank-conflict aware warp
ready mask (the spec's warp_ready_mask, or --mask; without one the paper's:
256 sets x 2 ways, 14-bit PCs), and reports cycles, IPC, stalls by cause,
scheduling fails and writeback bubbles per run.

System model: strict barrel processing (one instruction in flight per warp;
a warp is ready again the cycle after its last subwarp is written back);
each warp instruction is warp_size/simd_width subwarps offered in
consecutive cycles, a stalled subwarp is offered again; round robin among
the ready warps (after the mask).

Trace format (--trace), one warp instruction per line, '#' comments:
  WARP KIND PC [DEGREE...]
  0 alu 0x10
  0 shmem 0x11 2          # every subwarp 2-way conflicting
  1 shmem 0x11 1 2 4 1    # one degree per subwarp
  1 mem 0x12
WARP 0..63 (below warp_contexts), KIND alu|shmem|mem, PC decimal or 0x-hex
below 2^pc_bits; shmem lines carry 1 or warp_size/simd_width conflict
degrees, each 1..simd_width. A warp's lines are its program in order.

Accel-Sim traces (--accelsim kernelslist.g | kernel-N.traceg[.xz], streamed;
warp_size must be 32): every traced instruction is one instruction of its
warp's program: shared-memory ones shmem, other memory ones mem, the rest
alu. A shmem instruction's degree for subwarp s (lanes s*simd_width ..
(s+1)*simd_width-1) is the bank cycles of its active lanes under --banks N
(mod N, default 32) or --hash SPEC:UNIT, words of --bank-bytes bytes: the
sum of the degrees of the access's phases within the subwarp (64- and
128-bit accesses are served in phases, docs/traces.md), at least 1, at most
simd_width. PC = byte PC / the instruction size mod 2^pc_bits: 8 bytes
before Volta, 16 from Volta on, by the trace's -binary version (without it,
16 when every PC is a multiple of 16, else 8). The g-th warp of the trace
(in trace order over thread blocks and kernels) runs on warp context g mod
warp_contexts, after the warps before it there.

Synthetic workloads (--synthetic): all warps run one kernel of --static K
instructions (PCs 0..K-1) in a loop. --preset NAME takes warps, K, the
shared-memory intensity, the mean conflict degree and irregularity from a
row of the paper's Table 4 (` + "aes_encrypt, aes_decrypt, reduction, transpose,\ndct, idct, dct_short, idct_short" + `) and runs K x ceil(1000/K) instructions
per warp; flags given explicitly override the preset. The global-memory
intensity of the presets (--mem 0.05) is an assumption, not from the paper.

Work: the study's simulated cycles are estimated before it runs (from the
flags for a synthetic workload, from the workload read otherwise) and a
study whose CPU time would be over --work-budget (default 10m) is refused. A
study that takes longer than 2 s shows its progress on standard error
(--quiet: none).`

// pipesimFlags are the flags of lsugen pipesim.
type pipesimFlags struct {
	asJSON, synthetic, irregular, quiet                             bool
	out, unitName, maskName, tracePath, preset, degrees, writeTrace string
	accelSim, hash                                                  string
	hashConfig                                                      string // of a configurable --hash unit
	hashConfigGiven                                                 bool
	warps, instrs, static, banks, bankBytes                         int
	shmem, mem                                                      float64
	seed                                                            uint64
	maxCycles                                                       int64
	workBudget                                                      time.Duration
}

// newPipesimCmd runs the pipeline study.
func newPipesimCmd(a *app) *cobra.Command {
	f := &pipesimFlags{}
	cmd := &cobra.Command{
		Use:   "pipesim [--json] [-o FILE] SPEC --trace FILE | --accelsim TRACE | --synthetic|--preset NAME [flags]",
		Short: "cycles, stalls and IPC of the elastic pipeline and its baselines",
		Long:  pipesimLong,
		RunE: func(cmd *cobra.Command, pos []string) error {
			return runPipesim(a, cmd.Flags(), f, pos)
		},
	}
	fs := cmd.Flags()
	addJSONFlag(fs, &f.asJSON)
	addOutputFlag(fs, &f.out, "", "write the report to FILE (atomically) instead of standard output")
	fs.StringVar(&f.unitName, "unit", "", "the elastic_pipeline unit to study (default: the spec's first)")
	fs.StringVar(&f.maskName, "mask", "", "the warp_ready_mask unit (default: the spec's first, else the paper's)")
	fs.StringVar(&f.tracePath, "trace", "", "read the workload from this trace file")
	fs.StringVar(&f.accelSim, "accelsim", "", "read the workload from an Accel-Sim trace: kernelslist.g, kernel-N.traceg or .traceg.xz")
	fs.IntVar(&f.banks, "banks", 32, fmt.Sprintf("--accelsim without --hash: bank = word address mod N, any N from 1 to %d", conflicts.MaxMapSize))
	addHashFlag(fs, &f.hash)
	addHashConfigFlag(fs, &f.hashConfig)
	addBankBytesFlag(fs, &f.bankBytes)
	fs.BoolVar(&f.synthetic, "synthetic", false, "generate the workload (flags marked synthetic)")
	fs.StringVar(&f.preset, "preset", "", "synthetic workload from a row of Table 4: "+strings.Join(pipesim.PresetNames(), ", "))
	d := pipesim.DefaultSynthetic
	fs.IntVar(&f.warps, "warps", d.Warps, "synthetic: warps (at most the mask's warp contexts)")
	fs.IntVar(&f.instrs, "instructions", d.Instructions, "synthetic: warp instructions per warp")
	fs.Float64Var(&f.shmem, "shmem", d.Shmem, "synthetic: shared-memory intensity, the fraction of shmem instructions")
	fs.Float64Var(&f.mem, "mem", d.Mem, "synthetic: global-memory intensity, the fraction of mem instructions")
	fs.StringVar(&f.degrees, "degrees", d.Degrees.String(), "synthetic: conflict-degree distribution DEGREE:WEIGHT,...")
	fs.IntVar(&f.static, "static", d.Static, "synthetic: static instructions K of the kernel")
	fs.BoolVar(&f.irregular, "irregular", d.Irregular, "synthetic: draw each subwarp's degree at every execution, not once per static instruction")
	fs.Uint64Var(&f.seed, "seed", d.Seed, "synthetic: random seed of the workload; the same seed gives the same workload")
	fs.StringVar(&f.writeTrace, "write-trace", "", "synthetic and --accelsim: also write the workload as a trace file (--trace's format)")
	fs.Int64Var(&f.maxCycles, "max-cycles", 0, "stop a run that has not finished after N cycles with an error (0: a bound no terminating run reaches)")
	addWorkBudgetFlag(fs, &f.workBudget)
	addQuietFlag(fs, &f.quiet)
	return cmd
}

func runPipesim(a *app, fs *pflag.FlagSet, f *pipesimFlags, pos []string) error {
	pre, err := checkPipesimFlags(fs, f, pos)
	if err != nil {
		return err
	}
	spec := pos[0]
	pipe, mask, err := loadPipeline(spec, f.unitName, f.maskName, a.stderr)
	if err != nil {
		return err
	}
	shape, err := pipesim.ShapeOf(pipe, mask)
	if err != nil {
		return badInput(err)
	}
	wl, info, err := pipesimWorkload(a, fs, f, pre, pipe, shape)
	if err != nil {
		return err
	}
	wk := pipesim.StudyWork(wl, pipe)
	if info.Synthetic == nil {
		if err := checkPipesimWork(f.workBudget, wk, "a shorter trace"); err != nil {
			return err
		}
	}
	est := workEstimate{cpu: wk.CPU, longest: wk.Longest}
	prog := startProgress(a.context(), a.stderr, f.quiet, "lsugen pipesim", "warp instructions", wk.WarpInstructions, est.wall())
	rep, err := pipesim.Study(a.context(), wl, pipe, mask, pipesim.Options{MaxCycles: f.maxCycles, Progress: prog.Add})
	prog.Stop()
	if err != nil {
		return err
	}
	rep.Spec = spec
	rep.Workload.Source, rep.Workload.Trace, rep.Workload.Synthetic = info.Source, info.Trace, info.Synthetic
	rep.Workload.AccelSim = info.AccelSim
	var b bytes.Buffer
	if f.asJSON {
		j, err := marshalJSON(pipesimDoc{Version: gen.Version, Report: rep})
		if err != nil {
			return err
		}
		b.Write(j)
	} else if err := rep.WriteTable(&b); err != nil {
		return err
	}
	if f.out != "" {
		return writeFileAtomic(f.out, b.Bytes())
	}
	_, err = a.stdout.Write(b.Bytes())
	return err
}

// checkPipesimFlags refuses, before any work, flags that exclude each
// other or apply to another workload, and returns the --preset.
func checkPipesimFlags(fs *pflag.FlagSet, f *pipesimFlags, pos []string) (*pipesim.Preset, error) {
	if len(pos) != 1 {
		return nil, usagef("want exactly one SPEC file, got %d", len(pos))
	}
	if err := checkPipesimSource(fs, f); err != nil {
		return nil, err
	}
	var pre *pipesim.Preset
	if f.preset != "" {
		p, ok := pipesim.LookupPreset(f.preset)
		if !ok {
			return nil, usagef("--preset %q: want one of %s", f.preset, strings.Join(pipesim.PresetNames(), ", "))
		}
		pre = &p
	}
	if _, err := pipesim.ParseDist(f.degrees); err != nil {
		return nil, usagef("--degrees: %v", err)
	}
	if f.maxCycles < 0 {
		return nil, usagef("--max-cycles %d: want 0 or more", f.maxCycles)
	}
	return pre, checkWorkBudgetFlag(f.workBudget)
}

// checkPipesimSource wants one workload source and no flag of another.
func checkPipesimSource(fs *pflag.FlagSet, f *pipesimFlags) error {
	isSynth := f.synthetic || f.preset != ""
	var given []string
	for _, src := range []struct {
		on   bool
		name string
	}{{f.tracePath != "", "--trace"}, {f.accelSim != "", "--accelsim"}, {isSynth, "--synthetic/--preset"}} {
		if src.on {
			given = append(given, src.name)
		}
	}
	switch {
	case len(given) > 1:
		return usagef("%s exclude each other", strings.Join(given, " and "))
	case len(given) == 0:
		return usagef("no workload: give --trace FILE or --synthetic/--preset NAME, or --accelsim TRACE")
	}
	return checkPipesimSourceFlags(fs, f)
}

// checkPipesimSourceFlags refuses the flags of another workload source.
func checkPipesimSourceFlags(fs *pflag.FlagSet, f *pipesimFlags) error {
	if f.accelSim == "" {
		for _, n := range []string{"banks", "hash", "hash-config", "bank-bytes"} {
			if fs.Changed(n) {
				return usagef("--%s applies to --accelsim workloads only", n)
			}
		}
	} else if f.bankBytes != 4 && f.bankBytes != 8 {
		return usagef("--bank-bytes %d: want 4 or 8", f.bankBytes)
	} else if fs.Changed("banks") && f.hash != "" {
		return usagef("--banks and --hash both give the bank mapping: use one")
	} else if err := refuseLoneConfig(fs, "hash", f.hash); err != nil {
		return err
	}
	f.hashConfigGiven = fs.Changed("hash-config")
	if f.synthetic || f.preset != "" {
		return nil
	}
	return checkNotSynthetic(fs, f)
}

// checkNotSynthetic refuses the synthetic workload's flags with a trace.
func checkNotSynthetic(fs *pflag.FlagSet, f *pipesimFlags) error {
	for _, n := range []string{"warps", "instructions", "shmem", "mem", "degrees", "static", "irregular", "seed", "write-trace"} {
		if n == "write-trace" && fs.Changed(n) && f.accelSim == "" {
			return usagef("--write-trace applies to synthetic and --accelsim workloads only")
		}
		if n != "write-trace" && fs.Changed(n) {
			return usagef("--%s applies to synthetic workloads only", n)
		}
	}
	return nil
}

// pipesimWorkload builds the source of the workload from the flags, has
// package pipesim read or generate it, and writes it to --write-trace.
func pipesimWorkload(a *app, fs *pflag.FlagSet, f *pipesimFlags, pre *pipesim.Preset, pipe *specs.ElasticPipeline, shape pipesim.Shape) (*pipesim.Workload, pipesim.WorkloadInfo, error) {
	src := pipesim.Source{Trace: f.tracePath}
	switch {
	case f.synthetic || pre != nil:
		g, err := syntheticOf(fs, f, pre, pipe, shape)
		if err != nil {
			return nil, pipesim.WorkloadInfo{}, err
		}
		src = pipesim.Source{Synthetic: &g}
	case f.accelSim != "":
		opt, err := accelSimOptions(a, f)
		if err != nil {
			return nil, pipesim.WorkloadInfo{}, err
		}
		src = pipesim.Source{AccelSim: f.accelSim, AccelSimOptions: opt}
	}
	wl, info, hdr, err := src.Workload(pipe, shape)
	if err != nil {
		if src.Synthetic == nil {
			err = badInput(err)
		}
		return nil, info, err
	}
	if f.writeTrace != "" {
		var b bytes.Buffer
		if err := wl.WriteTrace(&b, hdr); err != nil {
			return nil, info, err
		}
		if err := writeFileAtomic(f.writeTrace, b.Bytes()); err != nil {
			return nil, info, err
		}
	}
	return wl, info, nil
}

// syntheticOf is the synthetic kernel of the flags: the preset's (or the
// defaults), and the flags given explicitly (all of them without a
// preset), checked and within --work-budget.
func syntheticOf(fs *pflag.FlagSet, f *pipesimFlags, pre *pipesim.Preset, pipe *specs.ElasticPipeline, shape pipesim.Shape) (pipesim.Synthetic, error) {
	g := pipesim.SyntheticFor(pipe, shape, pre, f.seed)
	dist, _ := pipesim.ParseDist(f.degrees) // checked by checkPipesimFlags
	override := func(name string, apply func()) {
		if fs.Changed(name) || pre == nil {
			apply()
		}
	}
	override("warps", func() { g.Warps = f.warps })
	override("instructions", func() { g.Instructions = f.instrs })
	override("shmem", func() { g.Shmem = f.shmem })
	override("mem", func() { g.Mem = f.mem })
	override("degrees", func() { g.Degrees = dist })
	override("static", func() { g.Static = f.static })
	override("irregular", func() { g.Irregular = f.irregular })
	if err := g.Check(shape); err != nil {
		return g, usagef("%v", err)
	}
	return g, checkPipesimWork(f.workBudget, g.StudyWork(shape, pipe), "--instructions or --warps")
}

// checkPipesimWork refuses a study estimated over --work-budget.
func checkPipesimWork(limit time.Duration, wk pipesim.Work, shrink string) error {
	return checkWork(limit, workEstimate{
		size: fmt.Sprintf("%s simulated cycles in %d runs of %s warp instructions", formatCount(wk.Cycles), wk.Runs, formatCount(wk.WarpInstructions/int64(max(wk.Runs, 1)))),
		cpu:  wk.CPU, longest: wk.Longest, shrink: shrink,
	})
}

// accelSimOptions checks --accelsim and builds its bank mapping as
// conflicts takes it (--banks, --hash and --hash-config).
func accelSimOptions(a *app, f *pipesimFlags) (pipesim.AccelSimOptions, error) {
	opt := pipesim.AccelSimOptions{BankBytes: f.bankBytes}
	if !accelsim.IsTracePath(f.accelSim) {
		return opt, usagef("--accelsim %s: not an Accel-Sim trace (want a kernelslist.g, or a kernel trace that starts with its \"-kernel name\" header, plain or xz)", f.accelSim)
	}
	var err error
	if f.hash != "" {
		opt.Banks, err = configuredHashMapping("--hash", f.hash, f.hashConfig, f.hashConfigGiven, a.stderr)
		return opt, err
	}
	if opt.Banks, err = conflicts.Modulo(f.banks); err != nil {
		return opt, usagef("--banks: %v", err)
	}
	return opt, nil
}

// loadPipeline loads one spec file and returns its elastic_pipeline unit
// (named, or the first) and its warp_ready_mask (named, or the first, or
// nil when it has none).
func loadPipeline(path, unitName, maskName string, stderr io.Writer) (*specs.ElasticPipeline, *specs.WarpReadyMask, error) {
	loader := specs.NewLoader()
	file, diags := loader.Load(path)
	if len(diags) > 0 {
		printDiagnostics(stderr, loader, diags)
	}
	if diags.HasErrors() {
		return nil, nil, errBadInput
	}
	pipe, err := pipesim.PickPipeline(file.Units, unitName, path)
	if errors.Is(err, pipesim.ErrNoPipeline) {
		return nil, nil, badInput(err)
	}
	if err != nil {
		return nil, nil, usagef("--unit %s: %v", unitName, err)
	}
	mask, err := pipesim.PickMask(file.Units, maskName, path)
	if err != nil {
		return nil, nil, usagef("--mask %s: %v", maskName, err)
	}
	if err := pipesim.CheckMask(pipe, mask); err != nil {
		return nil, nil, usagef("%v", err)
	}
	return pipe, mask, nil
}
