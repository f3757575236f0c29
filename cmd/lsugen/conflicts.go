package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/lsugen/lsugen/gen"
	"github.com/lsugen/lsugen/model"
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
Per instruction, kernel and input the report gives requests (warp
instructions executed), wavefronts (bank passes), ideal wavefronts (what a
conflict-free layout needs) and excess wavefronts (the bank conflicts), as
Nsight Compute's shared-memory metrics count them, with each instruction's
share of its kernel's excess, its PC, opcode and CUDA source line, and
demangled kernel names. --sort and --top choose the instructions shown,
--csv prints CSV, --diff SPEC:UNIT compares the excess per instruction
under the banks of --hash or --banks and under that hash unit.
A configurable --hash unit is counted at the register values of
--hash-config (k1=0,k2=5,mask=31; a register of several fields as a list,
sel=[3,4,5,6,7]), its behavioural model computing the banks; search --for
chooses them. A configurable --diff or --lock-hash unit takes its
configuration alike, from --diff-config or --lock-hash-config.
With --lock-bits N (lock = address bits N-1:0) or --lock-hash SPEC:UNIT (lock
= the bank output of that hash unit) the accesses are atomics: lock
conflicts (distinct addresses sharing a lock) and position conflicts (lanes
on one address) are counted too (for Accel-Sim traces, of ATOMS only). Conflicts are results, not failures: the
exit status is 0 whatever they count.`

// conflictsFlags are the flags of conflicts.
type conflictsFlags struct {
	asJSON, perAccess, asCSV bool
	hash, lockHash, diffHash string
	// The configurations of configurable units of --hash, --lock-hash
	// and --diff.
	hashConfig, lockConfig, diffConfig string
	diffConfigGiven                    bool
	banks, lockBits                    int
	bankBytes, top                     int
	sortKey                            string
}

func newConflictsCmd(a *app) *cobra.Command {
	var f conflictsFlags
	cmd := &cobra.Command{
		Use:   "conflicts [--json | --csv] [--accesses] [--sort KEY] [--top N] [--hash SPEC:UNIT [--hash-config K=V,...] | --banks N] [--diff SPEC:UNIT [--diff-config K=V,...]] [--bank-bytes 4|8] [--lock-bits N | --lock-hash SPEC:UNIT [--lock-hash-config K=V,...]] TRACE|SPEC|KERNELSLIST...",
		Short: "bank, lock and position conflicts of access traces",
		Long:  conflictsLong,
		RunE: func(cmd *cobra.Command, inputs []string) error {
			if len(inputs) == 0 {
				return usagef("no trace or spec files given")
			}
			opt, err := f.options(cmd.Flags(), a.stderr)
			if err != nil {
				return err
			}
			if err := checkBankBytes(cmd.Flags(), inputs); err != nil {
				return err
			}
			return runConflicts(a, &f, opt, inputs)
		},
	}
	fs := cmd.Flags()
	addJSONFlag(fs, &f.asJSON)
	addHashFlag(fs, &f.hash)
	addHashConfigFlag(fs, &f.hashConfig)
	fs.IntVar(&f.banks, "banks", 32, fmt.Sprintf("without --hash: bank = address mod N, any N from 1 to %d", conflicts.MaxMapSize))
	addBankBytesFlag(fs, &f.bankBytes)
	fs.IntVar(&f.lockBits, "lock-bits", 0, fmt.Sprintf("count lock and position conflicts of atomics, lock = address bits N-1:0, N from 0 to %d (Fermi: 10)", conflicts.MaxMapBits))
	fs.StringVar(&f.lockHash, "lock-hash", "", "count lock and position conflicts of atomics, lock = the bank output of hash unit UNIT of spec file SPEC, written SPEC:UNIT")
	fs.StringVar(&f.lockConfig, "lock-hash-config", "", "the configuration of a configurable --lock-hash unit, as --hash-config")
	fs.BoolVar(&f.perAccess, "accesses", false, "list every access, not only the totals per instruction")
	fs.BoolVar(&f.asCSV, "csv", false, "print the report as CSV: a header row, a row per instruction, then per kernel and per input (docs/traces.md)")
	fs.StringVar(&f.sortKey, "sort", "", "order the instructions by "+strings.Join(conflicts.SortKeys, ", ")+" (the largest first; pc: by kernel and PC); default: first appearance")
	fs.IntVar(&f.top, "top", 0, "show only the first N instructions of each input (sorted by --sort, by excess without it); 0: all")
	fs.StringVar(&f.diffHash, "diff", "", "compare the excess wavefronts per instruction under the banks of --hash or --banks (A) with those of hash unit SPEC:UNIT (B), the largest improvement first")
	fs.StringVar(&f.diffConfig, "diff-config", "", "the configuration of a configurable --diff unit, as --hash-config")
	return cmd
}

// options checks the flags and loads the bank and lock mappings.
func (f *conflictsFlags) options(fs *pflag.FlagSet, stderr io.Writer) (conflicts.Options, error) {
	var opt conflicts.Options
	if fs.Changed("lock-bits") && fs.Changed("lock-hash") {
		return opt, usagef("--lock-bits and --lock-hash both give the lock mapping: use one")
	}
	if err := conflictsFlagsAgree(fs); err != nil {
		return opt, err
	}
	var err error
	f.diffConfigGiven = fs.Changed("diff-config")
	for _, c := range [][2]string{{"hash", f.hash}, {"lock-hash", f.lockHash}, {"diff", f.diffHash}} {
		if err := refuseLoneConfig(fs, c[0], c[1]); err != nil {
			return opt, err
		}
	}
	if f.hash != "" {
		if opt.Banks, err = configuredHashMapping("--hash", f.hash, f.hashConfig, fs.Changed("hash-config"), stderr); err != nil {
			return opt, err
		}
	} else if opt.Banks, err = conflicts.Modulo(f.banks); err != nil {
		return opt, usagef("--banks: %v", err)
	}
	if f.bankBytes != 4 && f.bankBytes != 8 {
		return opt, usagef("--bank-bytes %d: want 4 or 8", f.bankBytes)
	}
	if f.top < 0 {
		return opt, usagef("--top %d: want 1 or more (0: every instruction)", f.top)
	}
	if f.sortKey == "" && f.top > 0 && f.diffHash == "" {
		f.sortKey = "excess" // the top N are the N with most conflicts
	}
	if f.sortKey != "" && !slices.Contains(conflicts.SortKeys, f.sortKey) {
		return opt, usagef("--sort %q: want one of %s", f.sortKey, strings.Join(conflicts.SortKeys, ", "))
	}
	switch {
	case fs.Changed("lock-hash"):
		m, err := configuredHashMapping("--lock-hash", f.lockHash, f.lockConfig, fs.Changed("lock-hash-config"), stderr)
		if err != nil {
			return opt, err
		}
		opt.Locks = &m
	case fs.Changed("lock-bits"):
		m, err := conflicts.LowBits(f.lockBits)
		if err != nil {
			return opt, usagef("--lock-bits: %v (lock = address bits N-1:0; Fermi: 10)", err)
		}
		opt.Locks = &m
	}
	opt.KeepAccesses = f.perAccess
	return opt, nil
}

// runConflicts analyses the inputs (twice with --diff) and prints the
// report.
func runConflicts(a *app, f *conflictsFlags, opt conflicts.Options, inputs []string) error {
	optB := opt
	if f.diffHash != "" { // loaded first: a bad unit is refused before any trace is read
		var err error
		if optB.Banks, err = configuredHashMapping("--diff", f.diffHash, f.diffConfig, f.diffConfigGiven, a.stderr); err != nil {
			return err
		}
	}
	rep, err := analyzeInputs(inputs, opt, inputOptions{BankBytes: f.bankBytes, Banks: opt.Banks.Size}, a.stderr)
	if err != nil {
		return err
	}
	if f.diffHash != "" {
		repB, err := analyzeInputs(inputs, optB, inputOptions{BankBytes: f.bankBytes, Banks: optB.Banks.Size}, a.stderr)
		if err != nil {
			return err
		}
		d, err := conflicts.Compare(rep, repB, f.top)
		if err != nil {
			return err
		}
		switch {
		case f.asJSON:
			return printJSON(a.stdout, conflictsDiffDoc{Version: gen.Version, Diff: d})
		case f.asCSV:
			return writeConflictsDiffCSV(a.stdout, d)
		}
		return writeConflictsDiff(a.stdout, d)
	}
	if f.sortKey != "" {
		if err := rep.Sort(f.sortKey, f.top); err != nil {
			return usagef("--sort: %v", err)
		}
	}
	switch {
	case f.asJSON:
		return printJSON(a.stdout, conflictsDoc{Version: gen.Version, Report: rep})
	case f.asCSV:
		return writeConflictsCSV(a.stdout, rep)
	}
	return writeConflicts(a.stdout, rep, f.perAccess)
}

// conflictsFlagsAgree refuses the combinations of conflicts' flags of
// which one would be ignored.
func conflictsFlagsAgree(fs *pflag.FlagSet) error {
	pairs := [][3]string{
		{"banks", "hash", "--banks and --hash both give the bank mapping: use one"},
		{"json", "csv", "--json and --csv both choose the format: use one"},
		{"csv", "accesses", "--accesses lists accesses in the text and JSON reports, not in CSV"},
		{"diff", "accesses", "--diff compares instructions; --accesses lists accesses of one mapping: use one"},
		{"diff", "sort", "--diff sorts by the largest improvement; --sort orders the report of one mapping"},
		{"diff", "lock-bits", "--diff compares bank mappings; lock conflicts are counted without it"},
		{"diff", "lock-hash", "--diff compares bank mappings; lock conflicts are counted without it"},
	}
	for _, p := range pairs {
		if fs.Changed(p[0]) && fs.Changed(p[1]) {
			return usagef("%s", p[2])
		}
	}
	return nil
}

// configuredHashMapping is the mapping of the hash unit that flag
// (--hash, --lock-hash, --diff; pipesim's --hash) names, SPEC:UNIT (SPEC
// alone for a spec with one hash unit), so that all accept and refuse the
// same units with the same messages: a constant unit, or a
// configurable one at the configuration of flag's -config flag (cfgText,
// given when that flag was set), evaluated by its behavioural model.
func configuredHashMapping(flag, ref, cfgText string, given bool, stderr io.Writer) (conflicts.Mapping, error) {
	cfgFlag := flag + "-config"
	u, err := loadUnitRef(flag, ref, "hash", true, stderr)
	if err != nil {
		return conflicts.Mapping{}, err
	}
	h := u.(*specs.Hash)
	var cfg *model.HashConfig
	switch {
	case h.Configurable && !given:
		regs, err := model.HashRegisters(h)
		if err != nil {
			return conflicts.Mapping{}, badInput(fmt.Errorf("%s %s: %w", flag, ref, err))
		}
		return conflicts.Mapping{}, usagef("%s %s: hash %q is configurable: give its configuration with %s %s", flag, ref, h.Name, cfgFlag, registersHint(regs))
	case !h.Configurable && given:
		return conflicts.Mapping{}, usagef("%s: hash %q of %s %s is constant, with no configuration registers: drop %s or name a configurable unit", cfgFlag, h.Name, flag, ref, cfgFlag)
	case given:
		if cfg, err = model.ParseHashConfig(h, cfgText); err != nil {
			return conflicts.Mapping{}, usagef("%s %s: %v", cfgFlag, cfgText, err)
		}
	}
	m, err := conflicts.HashUnitAt(h, cfg)
	if err != nil {
		return conflicts.Mapping{}, badInput(fmt.Errorf("%s %s: %w", flag, ref, err))
	}
	return m, nil
}

// registersHint is the registers of a configurable unit as a user writes
// them, with their ranges: k1=0..15,k2=0..15,mask=0..31.
func registersHint(regs []model.HashRegister) string {
	parts := make([]string, len(regs))
	for i, r := range regs {
		v := fmt.Sprintf("0..%d", r.Max())
		if r.Fields > 1 {
			v = fmt.Sprintf("[%d values %s]", r.Fields, v)
		}
		parts[i] = r.Key + "=" + v
	}
	return strings.Join(parts, ",")
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
	n, file := 0, ""
	begin := func(f string) { file = f; z.Begin(f) }
	add := func(a *trace.Access) error {
		if n++; opt.KeepAccesses && n > conflicts.MaxKeptAccesses {
			return fmt.Errorf("%s: --accesses lists at most %d accesses and the inputs hold more; the totals per instruction have no such limit (leave out --accesses)",
				file, conflicts.MaxKeptAccesses)
		}
		z.Add(a)
		return nil
	}
	err := streamTraces(inputs, in, begin, add, z, stderr)
	if err != nil {
		return nil, err
	}
	return z.Report(), nil
}

// writeConflicts prints per input a row per kernel and per instruction
// (and per access with --accesses), then the grand total; the names the
// inputs give (files, kernels, opcodes) escaped for the terminal.
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
	counts := "requests\twavefronts\tideal\texcess\t"
	lockCols := "lock conflicts\tmax lock way\tposition conflicts\t"
	row := func(lead string, t conflicts.Totals, share string) {
		fmt.Fprintf(tw, "%s%d\t%d\t%d\t%d\t%s%d\t", lead, t.Requests, t.Wavefronts, t.IdealWavefronts, t.ExcessWavefronts, share, t.MaxBankDegree)
		if locks {
			fmt.Fprintf(tw, "%d\t%d\t%d\t", t.LockConflicts, t.MaxLockDegree, t.PositionConflicts)
		}
	}
	header := func(lead string, share bool) {
		h := lead + counts
		if share {
			h += "share\t"
		}
		h += "max way\t"
		if locks {
			h += lockCols
		}
		fmt.Fprint(tw, h)
	}
	for _, in := range rep.Inputs {
		fmt.Fprintf(tw, "\n%s\n", escapeText(in.File))
		// An Accel-Sim input: the kernels, named once, then the
		// instructions by kernel id, PC, opcode and source line.
		accel := len(in.Kernels) > 0
		if accel {
			header("kernel\t", false)
			fmt.Fprintln(tw, "  name")
			for _, k := range in.Kernels {
				row(kernelID(k.KernelID, k.Kernel)+"\t", k.Totals, "")
				fmt.Fprintln(tw, "  "+escapeText(kernelNames(k.KernelName, k.KernelDemangled, k.Kernel)))
			}
			fmt.Fprintln(tw)
			header("kernel\tpc\topcode\tsource\t", true)
		} else {
			header("instruction\t", true)
		}
		fmt.Fprintln(tw)
		for _, it := range in.Instrs {
			lead := it.Instr
			if lead == "" {
				lead = "(unnamed)"
			}
			if accel {
				lead = instrLead(&it.InstrID)
			}
			row(escapeText(lead)+"\t", it.Totals, fmt.Sprintf("%.1f%%\t", 100*it.ExcessShare))
			fmt.Fprintln(tw)
		}
		lead := "total\t"
		if accel {
			lead = "\t\t\ttotal\t"
		}
		row(lead, in.Total, "\t")
		fmt.Fprintln(tw)
		if in.InstrsOmitted > 0 {
			fmt.Fprintf(tw, "(%d more instructions, in the totals; --top)\n", in.InstrsOmitted)
		}
		if in.SkippedNotShared > 0 || in.SkippedInactive > 0 {
			fmt.Fprintf(tw, "skipped: %d memory instructions not on shared memory, %d shared without an active lane\n", in.SkippedNotShared, in.SkippedInactive)
		}
		if perAccess {
			fmt.Fprintln(tw, "\ntrace line\tsource\tinstruction\tlanes\tbank way\t"+map[bool]string{true: "lock way\tposition way\t"}[locks])
			for _, a := range in.Accesses {
				fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%d\t", a.Line, sourceCell(a.SourceLine), escapeText(a.Instr), a.Lanes, a.BankDegree)
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
	_, err := fmt.Fprintf(w, "\nwavefronts: %d requests, %d wavefronts, %d ideal, %d excess\n", t.Requests, t.Wavefronts, t.IdealWavefronts, t.ExcessWavefronts)
	return err
}

// kernelID is a kernel's column: k<id>, or its label without an id.
func kernelID(id *int, label string) string {
	if id == nil {
		return label
	}
	return fmt.Sprintf("k%d", *id)
}

// kernelNames is the name column of a kernel: the traced (mangled) name,
// then the demangled one.
func kernelNames(name, demangled, label string) string {
	if name == "" {
		name = label
	}
	if demangled == "" {
		return name
	}
	return name + "  " + demangled
}

// instrLead is the kernel, PC, opcode and source cells of an Accel-Sim
// instruction group.
func instrLead(it *conflicts.InstrID) string {
	if it.PC == nil {
		return it.Instr + "\t\t\t"
	}
	return fmt.Sprintf("k%d\t0x%04x\t%s\t%s", *it.KernelID, *it.PC, it.Opcode, sourceCell(it.SourceLine))
}

// sourceCell is a CUDA source line, "-" without line info.
func sourceCell(line int) string {
	if line == 0 {
		return "-"
	}
	return fmt.Sprintf("line %d", line)
}

// conflictsCSVHead are the first columns of both CSV reports: where a row
// belongs and which instruction it is.
var conflictsCSVHead = []string{"input", "row", "kernel_id", "kernel", "kernel_demangled", "pc", "opcode", "source_line", "instr"}

// csvInstr is the leading cells of an instruction row.
func csvInstr(file string, it conflicts.InstrID) []string {
	id, p, src := "", "", ""
	if it.KernelID != nil {
		id = strconv.Itoa(*it.KernelID)
	}
	if it.PC != nil {
		p = fmt.Sprintf("0x%04x", *it.PC)
	}
	if it.SourceLine > 0 {
		src = strconv.Itoa(it.SourceLine)
	}
	return []string{file, "instr", id, it.Kernel, it.KernelDemangled, p, it.Opcode, src, it.Instr}
}

// writeConflictsCSV prints the report as one CSV table: per input its
// instruction rows (row = instr), then its kernels' totals (row = kernel,
// pc empty), then its total (row = total); the lock columns only with
// --lock-bits or --lock-hash.
func writeConflictsCSV(w io.Writer, rep *conflicts.Report) error {
	locks := rep.Locks != ""
	cw := csv.NewWriter(w)
	head := append(slices.Clone(conflictsCSVHead), "requests", "wavefronts", "ideal_wavefronts", "excess_wavefronts",
		"excess_share", "max_way", "accesses", "bank_conflicts")
	if locks {
		head = append(head, "atomics", "lock_conflicts", "max_lock_way", "position_conflicts")
	}
	cw.Write(head)
	counts := func(t conflicts.Totals, share string) []string {
		c := []string{strconv.Itoa(t.Requests), strconv.Itoa(t.Wavefronts), strconv.Itoa(t.IdealWavefronts), strconv.Itoa(t.ExcessWavefronts),
			share, strconv.Itoa(t.MaxBankDegree), strconv.Itoa(t.Accesses), strconv.Itoa(t.BankConflicts)}
		if locks {
			c = append(c, strconv.Itoa(t.Atomics), strconv.Itoa(t.LockConflicts), strconv.Itoa(t.MaxLockDegree), strconv.Itoa(t.PositionConflicts))
		}
		return c
	}
	for _, in := range rep.Inputs {
		for _, it := range in.Instrs {
			lead := csvInstr(in.File, it.InstrID)
			cw.Write(append(lead, counts(it.Totals, strconv.FormatFloat(it.ExcessShare, 'f', 4, 64))...))
		}
		for _, k := range in.Kernels {
			lead := csvInstr(in.File, conflicts.InstrID{Instr: k.Kernel, KernelID: k.KernelID, Kernel: k.KernelName, KernelDemangled: k.KernelDemangled})
			lead[1] = "kernel"
			cw.Write(append(lead, counts(k.Totals, "")...))
		}
		lead := csvInstr(in.File, conflicts.InstrID{})
		lead[1] = "total"
		cw.Write(append(lead, counts(in.Total, "")...))
	}
	cw.Flush()
	return cw.Error()
}

// writeConflictsDiff prints per input the excess wavefronts of each
// instruction under the two mappings, the largest improvement first.
func writeConflictsDiff(w io.Writer, d *conflicts.Diff) error {
	fmt.Fprintf(w, "A: %s (%d banks); B: %s (%d banks)", d.BanksA, d.NumBanksA, d.BanksB, d.NumBanksB)
	if d.BankBytes != 0 {
		fmt.Fprintf(w, "; banks of %d bytes", d.BankBytes)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	row := func(lead string, r conflicts.DiffRow) {
		fmt.Fprintf(tw, "%s%d\t%d\t%d\t%+d\t%d\t%d\t\n", lead, r.Requests, r.ExcessA, r.ExcessB, r.Change, r.WavefrontsA, r.WavefrontsB)
	}
	for _, in := range d.Inputs {
		fmt.Fprintf(tw, "\n%s\n", in.File)
		accel := slices.ContainsFunc(in.Instrs, func(r conflicts.DiffRow) bool { return r.PC != nil })
		cols := "requests\texcess A\texcess B\tchange\twavefronts A\twavefronts B\t"
		if accel {
			fmt.Fprintln(tw, "kernel\tpc\topcode\tsource\t"+cols)
		} else {
			fmt.Fprintln(tw, "instruction\t"+cols)
		}
		for _, r := range in.Instrs {
			lead := r.Instr + "\t"
			if accel {
				lead = instrLead(&r.InstrID) + "\t"
			}
			row(lead, r)
		}
		if accel {
			row("\t\t\ttotal\t", in.Total)
		} else {
			row("total\t", in.Total)
		}
		if in.InstrsOmitted > 0 {
			fmt.Fprintf(tw, "(%d more instructions, in the totals; --top)\n", in.InstrsOmitted)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	t := d.Total
	_, err := fmt.Fprintf(w, "\ntotal: %d excess wavefronts under A, %d under B (%+d)\n", t.ExcessA, t.ExcessB, t.Change)
	return err
}

// writeConflictsDiffCSV prints the comparison as one CSV table: per input
// its instruction rows, the largest improvement first, then its total.
func writeConflictsDiffCSV(w io.Writer, d *conflicts.Diff) error {
	cw := csv.NewWriter(w)
	cw.Write(append(slices.Clone(conflictsCSVHead), "requests", "excess_a", "excess_b", "change", "wavefronts_a", "wavefronts_b"))
	counts := func(r conflicts.DiffRow) []string {
		return []string{strconv.Itoa(r.Requests), strconv.Itoa(r.ExcessA), strconv.Itoa(r.ExcessB), strconv.Itoa(r.Change),
			strconv.Itoa(r.WavefrontsA), strconv.Itoa(r.WavefrontsB)}
	}
	for _, in := range d.Inputs {
		for _, r := range in.Instrs {
			cw.Write(append(csvInstr(in.File, r.InstrID), counts(r)...))
		}
		lead := csvInstr(in.File, conflicts.InstrID{})
		lead[1] = "total"
		cw.Write(append(lead, counts(in.Total)...))
	}
	cw.Flush()
	return cw.Error()
}
