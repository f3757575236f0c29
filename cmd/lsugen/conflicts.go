package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/lsugen/lsugen/gen"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/tools/conflicts"
)

const conflictsLong = `Bank conflicts of warp accesses: per access the largest number of distinct
addresses in one bank (its degree); conflicts = sum of (degree - 1). Inputs
are trace files, or spec files (.hcl) whose pattern blocks are expanded.
With --lock-bits N (lock = address bits N-1:0) or --lock-hash SPEC:UNIT (lock
= the bank output of that hash unit) the accesses are atomics: lock
conflicts (distinct addresses sharing a lock) and position conflicts (lanes
on one address) are counted too. Conflicts are results, not failures: the
exit status is 0 whatever they count.`

func newConflictsCmd(a *app) *cobra.Command {
	var (
		asJSON, perAccess bool
		hash, lockHash    string
		banks, lockBits   int
	)
	cmd := &cobra.Command{
		Use:   "conflicts [--json] [--accesses] [--hash SPEC:UNIT | --banks N] [--lock-bits N | --lock-hash SPEC:UNIT] TRACE|SPEC...",
		Short: "bank, lock and position conflicts of access traces",
		Long:  conflictsLong,
		RunE: func(cmd *cobra.Command, inputs []string) error {
			if len(inputs) == 0 {
				return usagef("no trace or spec files given")
			}
			fs := cmd.Flags()
			if fs.Changed("lock-bits") && fs.Changed("lock-hash") {
				return usagef("--lock-bits and --lock-hash both give the lock mapping: use one")
			}
			var opt conflicts.Options
			var err error
			if hash != "" {
				if opt.Banks, err = hashMapping("--hash", hash, a.stderr); err != nil {
					return err
				}
			} else if opt.Banks, err = conflicts.Modulo(banks); err != nil {
				return usagef("--banks: %v", err)
			}
			switch {
			case fs.Changed("lock-hash"):
				m, err := hashMapping("--lock-hash", lockHash, a.stderr)
				if err != nil {
					return err
				}
				opt.Locks = &m
			case fs.Changed("lock-bits"):
				m, err := conflicts.LowBits(lockBits)
				if err != nil {
					return usagef("--lock-bits: %v (lock = address bits N-1:0; Fermi: 10)", err)
				}
				opt.Locks = &m
			}
			traces, err := loadTraces(inputs, a.stderr)
			if err != nil {
				return err
			}
			rep := conflicts.Analyze(traces, opt)
			if asJSON {
				return printJSON(a.stdout, conflictsDoc{Version: gen.Version, Report: rep})
			}
			return writeConflicts(a.stdout, rep, perAccess)
		},
	}
	fs := cmd.Flags()
	addJSONFlag(fs, &asJSON)
	fs.StringVar(&hash, "hash", "", "map banks with the hash unit UNIT of spec file SPEC, written SPEC:UNIT")
	fs.IntVar(&banks, "banks", 32, "without --hash: bank = address mod N (a power of two)")
	fs.IntVar(&lockBits, "lock-bits", 0, fmt.Sprintf("count lock and position conflicts of atomics, lock = address bits N-1:0, N from 0 to %d (Fermi: 10)", conflicts.MaxMapBits))
	fs.StringVar(&lockHash, "lock-hash", "", "count lock and position conflicts of atomics, lock = the bank output of hash unit UNIT of spec file SPEC, written SPEC:UNIT")
	fs.BoolVar(&perAccess, "accesses", false, "list every access, not only the totals per instruction")
	return cmd
}

// hashMapping loads the hash unit named by flag's value SPEC:UNIT and
// returns its mapping; --hash (banks) and --lock-hash (locks) share it, so
// both accept and refuse the same units with the same messages.
func hashMapping(flag, ref string, stderr io.Writer) (conflicts.Mapping, error) {
	i := strings.LastIndexByte(ref, ':')
	if i <= 0 || i == len(ref)-1 {
		return conflicts.Mapping{}, usagef("%s %q: want SPEC:UNIT", flag, ref)
	}
	path, name := ref[:i], ref[i+1:]
	loader := specs.NewLoader()
	file, diags := loader.Load(path)
	if len(diags) > 0 {
		printDiagnostics(stderr, loader, diags)
	}
	if diags.HasErrors() {
		return conflicts.Mapping{}, errBadInput
	}
	for _, u := range file.Units {
		if u.UnitName() != name {
			continue
		}
		h, ok := u.(*specs.Hash)
		if !ok {
			return conflicts.Mapping{}, usagef("%s %s: %s is a %s unit, not a hash", flag, ref, name, u.UnitKind())
		}
		m, err := conflicts.HashUnit(h)
		if err != nil {
			return conflicts.Mapping{}, badInput(fmt.Errorf("%s %s: %w", flag, ref, err))
		}
		return m, nil
	}
	return conflicts.Mapping{}, usagef("%s %s: %s declares no unit %q", flag, ref, path, name)
}

// writeConflicts prints per input one row per instruction (and per access
// with --accesses), then the grand total.
func writeConflicts(w io.Writer, rep *conflicts.Report, perAccess bool) error {
	locks := rep.Locks != ""
	fmt.Fprintf(w, "banks: %s (%d banks)", rep.Banks, rep.NumBanks)
	if locks {
		fmt.Fprintf(w, "; locks: %s (%d locks)", rep.Locks, rep.NumLocks)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	header := "instruction\taccesses\tbank conflicts\tmax way\t"
	if locks {
		header += "lock conflicts\tmax lock way\tposition conflicts\t"
	}
	row := func(name string, t conflicts.Totals) {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t", name, t.Accesses, t.BankConflicts, t.MaxBankDegree)
		if locks {
			fmt.Fprintf(tw, "%d\t%d\t%d\t", t.LockConflicts, t.MaxLockDegree, t.PositionConflicts)
		}
		fmt.Fprintln(tw)
	}
	for _, in := range rep.Inputs {
		fmt.Fprintf(tw, "\n%s\n", in.File)
		fmt.Fprintln(tw, header)
		for _, it := range in.Instrs {
			name := it.Instr
			if name == "" {
				name = "(unnamed)"
			}
			row(name, it.Totals)
		}
		row("total", in.Total)
		if perAccess {
			fmt.Fprintln(tw, "\nline\tinstruction\tlanes\tbank way\t"+map[bool]string{true: "lock way\tposition way\t"}[locks])
			for _, a := range in.Accesses {
				fmt.Fprintf(tw, "%d\t%s\t%d\t%d\t", a.Line, a.Instr, a.Lanes, a.BankDegree)
				if locks {
					fmt.Fprintf(tw, "%d\t%d\t", a.LockDegree, a.PositionDegree)
				}
				fmt.Fprintln(tw)
			}
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	t := rep.Total
	fmt.Fprintf(w, "\ntotal: %d accesses, %d bank conflicts (max %d-way)", t.Accesses, t.BankConflicts, t.MaxBankDegree)
	if locks {
		fmt.Fprintf(w, ", %d lock conflicts (max %d-way), %d position conflicts", t.LockConflicts, t.MaxLockDegree, t.PositionConflicts)
	}
	_, err := fmt.Fprintln(w)
	return err
}
