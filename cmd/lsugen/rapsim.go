package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/lsugen/lsugen/gen"
	"github.com/lsugen/lsugen/tools/rapsim"
)

const rapsimLong = `Monte Carlo of the memory access congestion (the most distinct addresses one
warp sends to one bank) of the RAW, RAS and RAP mappings: Table II (w×w matrix;
contiguous, stride, diagonal, random) and Table IV (w⁴ array; RAP variants 1P,
R1P, 3P, w2P, 1Pw2R) of Nakano, Matsumae and Ito, "Random Address Permute-Shift
Technique for the Shared Memory on GPUs".

A trial of width w costs about w steps; a run is estimated from its flags
(trials x w, summed over the cells) and refused before it starts when its
CPU time would be over --work-budget (default 10m). A run that takes longer than
2 s shows its progress on standard error (--quiet: none).`

// newRapsimCmd runs the Monte Carlo of RAW, RAS and RAP congestion
// (Nakano et al., Tables II and IV).
func newRapsimCmd(a *app) *cobra.Command {
	var (
		asJSON, quiet bool
		wList, table  string
		trials        int
		seed          uint64
		workBudget    time.Duration
	)
	cmd := &cobra.Command{
		Use:   "rapsim [--json] [--w 16,32,64,128,256] [--trials N] [--seed S] [--table II|IV|both] [--work-budget D] [--quiet]",
		Short: "Monte Carlo congestion of RAW, RAS, RAP and the w^4 variants",
		Long:  rapsimLong,
		RunE: func(cmd *cobra.Command, pos []string) error {
			if len(pos) > 0 {
				return usagef("unexpected argument %q", pos[0])
			}
			opt := rapsim.Options{Trials: trials, Seed: seed}
			switch strings.ToUpper(table) {
			case "II", "2":
				opt.Matrix = true
			case "IV", "4":
				opt.Array4 = true
			case "BOTH":
				opt.Matrix, opt.Array4 = true, true
			default:
				return usagef("--table %q: want II, IV or both", table)
			}
			var err error
			if opt.W, err = parseRapsimWidths(wList); err != nil {
				return usagef("--w: %v", err)
			}
			if err := opt.Validate(); err != nil {
				lines := strings.Split(err.Error(), "\n")
				return usagef("%s", strings.Join(lines, "\n"+cmd.CommandPath()+": "))
			}
			if err := checkWorkBudgetFlag(workBudget); err != nil {
				return err
			}
			wk := opt.Work()
			if err := checkWork(workBudget, workEstimate{
				size: formatCount(wk.Steps) + " trial steps, trials x w over " + strconv.Itoa(wk.Cells) + " cells",
				cpu:  wk.CPU, longest: wk.Longest, shrink: "--trials, --w or --table",
			}); err != nil {
				return err
			}
			est := workEstimate{cpu: wk.CPU, longest: wk.Longest}
			prog := startProgress(a.context(), a.stderr, quiet, cmd.CommandPath(), "steps", wk.Steps, est.wall())
			opt.Progress = prog.Add
			rep, err := rapsim.Run(a.context(), opt)
			prog.Stop()
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(a.stdout, rapsimDoc{Version: gen.Version, Report: rep})
			}
			return rep.WriteTable(a.stdout)
		},
	}
	fs := cmd.Flags()
	addJSONFlag(fs, &asJSON)
	fs.StringVar(&wList, "w", joinRapsimWidths(rapsim.DefaultW), fmt.Sprintf("comma-separated bank counts w: powers of two in %d..%d", rapsim.MinW, rapsim.MaxW))
	fs.IntVar(&trials, "trials", rapsim.DefaultTrials, fmt.Sprintf("trials per cell, 1..%d", rapsim.MaxTrials))
	fs.Uint64Var(&seed, "seed", rapsim.DefaultSeed, "random seed of the trials; the same seed gives the same output")
	fs.StringVar(&table, "table", "both", "II: the w×w matrix, IV: the w×w×w×w array, both")
	addWorkBudgetFlag(fs, &workBudget)
	addQuietFlag(fs, &quiet)
	return cmd
}

// parseRapsimWidths reads --w "16,32,64" into integers.
func parseRapsimWidths(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("%q is not an integer", f)
		}
		out = append(out, n)
	}
	return out, nil
}

func joinRapsimWidths(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}
