package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/lsugen/lsugen/gen"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/tools/accelsim"
	"github.com/lsugen/lsugen/tools/conflicts"
	"github.com/lsugen/lsugen/tools/trace"
)

const conflictsLong = `Bank conflicts of warp accesses: per access the largest number of distinct
addresses in one bank (its degree); conflicts = sum of (degree - 1). Inputs
are lsugen trace files, spec files (.hcl) whose pattern blocks are expanded,
or Accel-Sim (NVBit tracer) traces: a kernelslist.g, a kernel-N.traceg or
.traceg.xz (or a kernel trace of any name, recognised by its header; tracer
versions 1 to 5), streamed. Of those only shared-memory instructions (LDS*, STS*,
ATOMS*, LDSM) are counted, one instruction group per PC of each kernel; a
byte address becomes word address / --bank-bytes, and a 64- or 128-bit
access is served in phases of the lanes that fill the banks once, each
phase one access (docs/traces.md).
With --lock-bits N (lock = address bits N-1:0) or --lock-hash SPEC:UNIT (lock
= the bank output of that hash unit) the accesses are atomics: lock
conflicts (distinct addresses sharing a lock) and position conflicts (lanes
on one address) are counted too (for Accel-Sim traces, of ATOMS only). Conflicts are results, not failures: the
exit status is 0 whatever they count.`

func newConflictsCmd(a *app) *cobra.Command {
	var (
		asJSON, perAccess bool
		hash, lockHash    string
		banks, lockBits   int
		bankBytes         int
	)
	cmd := &cobra.Command{
		Use:   "conflicts [--json] [--accesses] [--hash SPEC:UNIT | --banks N] [--bank-bytes 4|8] [--lock-bits N | --lock-hash SPEC:UNIT] TRACE|SPEC|KERNELSLIST...",
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
			if bankBytes != 4 && bankBytes != 8 {
				return usagef("--bank-bytes %d: want 4 or 8", bankBytes)
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
			opt.KeepAccesses = perAccess
			rep, err := analyzeInputs(inputs, opt, inputOptions{BankBytes: bankBytes, Banks: opt.Banks.Size}, a.stderr)
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(a.stdout, conflictsDoc{Version: gen.Version, Report: rep})
			}
			return writeConflicts(a.stdout, rep, perAccess)
		},
	}
	fs := cmd.Flags()
	addJSONFlag(fs, &asJSON)
	addHashFlag(fs, &hash)
	fs.IntVar(&banks, "banks", 32, fmt.Sprintf("without --hash: bank = address mod N, any N from 1 to %d", conflicts.MaxMapSize))
	addBankBytesFlag(fs, &bankBytes)
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

// analyzeInputs counts the conflicts of every input, one access at a time.
func analyzeInputs(inputs []string, opt conflicts.Options, in inputOptions, stderr io.Writer) (*conflicts.Report, error) {
	in = in.withDefaults()
	for _, path := range inputs {
		if accelsim.IsTracePath(path) {
			opt.BankBytes = in.BankBytes // byte addresses were divided by it
		}
	}
	z := conflicts.NewAnalyzer(opt)
	err := streamTraces(inputs, in, z.Begin, func(a *trace.Access) error { z.Add(a); return nil }, z, stderr)
	if err != nil {
		return nil, err
	}
	return z.Report(), nil
}

// writeConflicts prints per input one row per instruction (and per access
// with --accesses), then the grand total.
func writeConflicts(w io.Writer, rep *conflicts.Report, perAccess bool) error {
	locks := rep.Locks != ""
	fmt.Fprintf(w, "banks: %s (%d banks)", rep.Banks, rep.NumBanks)
	if rep.BankBytes != 0 {
		fmt.Fprintf(w, " of %d bytes", rep.BankBytes)
	}
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
		if len(in.Kernels) > 0 {
			fmt.Fprintln(tw, "kernel"+header[len("instruction"):])
			for _, k := range in.Kernels {
				row(k.Kernel, k.Totals)
			}
			fmt.Fprintln(tw)
		}
		fmt.Fprintln(tw, header)
		for _, it := range in.Instrs {
			name := it.Instr
			if name == "" {
				name = "(unnamed)"
			}
			row(name, it.Totals)
		}
		row("total", in.Total)
		if in.SkippedNotShared > 0 || in.SkippedInactive > 0 {
			fmt.Fprintf(tw, "skipped: %d memory instructions not on shared memory, %d shared without an active lane\n", in.SkippedNotShared, in.SkippedInactive)
		}
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
