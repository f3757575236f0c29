package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/lsugen/lsugen/gen"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/tools/search"
	"github.com/lsugen/lsugen/tools/trace"
)

// strideList collects --stride values, repeatable or comma-separated.
type strideList []uint64

func (s *strideList) String() string {
	parts := make([]string, len(*s))
	for i, v := range *s {
		parts[i] = strconv.FormatUint(v, 10)
	}
	return strings.Join(parts, ",")
}

func (s *strideList) Set(v string) error {
	for _, f := range strings.Split(v, ",") {
		n, err := strconv.ParseUint(strings.TrimSpace(f), 0, 64)
		if err != nil || n == 0 {
			return fmt.Errorf("%q is not a positive stride", f)
		}
		*s = append(*s, n)
	}
	return nil
}

// Type is the flag's type name in the help.
func (s *strideList) Type() string { return "strides" }

// searchJSON is the --json document of a search, or with --compare of
// the comparison of every method.
type searchJSON struct {
	// Version is lsugen's version.
	Version string `json:"version"`
	// Function and Method are the search's (absent with --compare).
	Function string `json:"function,omitempty"`
	Method   string `json:"method,omitempty"`
	// Config is the chosen configuration under the hash block's
	// attribute names (absent with --compare).
	Config              *searchConfig `json:"config,omitempty"`
	CandidatesEvaluated int64         `json:"candidates_evaluated,omitempty"`
	// ConflictsBefore is under bank = addr mod 2^m, over every kernel.
	ConflictsBefore int64 `json:"conflicts_before"`
	// ConflictsAfter is under the chosen configuration (absent with
	// --compare).
	ConflictsAfter *int64 `json:"conflicts_after,omitempty"`
	AddrBits       int    `json:"addr_bits"`
	BankBits       int    `json:"bank_bits"`
	Full           bool   `json:"full"`
	Accesses       int    `json:"accesses"`
	// Kernels are the accesses per kernel (Accel-Sim kernel, else input
	// file; the --stride accesses form one), in input order.
	Kernels []searchKernelJSON `json:"kernels"`
	// Compare is, with --compare, every function and method over all
	// kernels, each kernel configured on its own: conflicts left summed,
	// the percentage removed averaged per kernel (000_* Table 6) and
	// pooled.
	Compare []compareRowJSON `json:"compare,omitempty"`
}

// searchKernelJSON is one kernel's conflicts.
type searchKernelJSON struct {
	Name     string `json:"name"`
	Accesses int    `json:"accesses"`
	// ConflictsBefore is under bank = addr mod 2^m.
	ConflictsBefore int64 `json:"conflicts_before"`
	// ConflictsAfter and RemovedPercent are under the searched
	// configuration (absent with --compare).
	ConflictsAfter *int64   `json:"conflicts_after,omitempty"`
	RemovedPercent *float64 `json:"removed_percent,omitempty"`
	// Rows are, with --compare, every function and method configured for
	// this kernel.
	Rows []compareRowJSON `json:"rows,omitempty"`
}

// compareRowJSON is one function and method of a comparison.
type compareRowJSON struct {
	// Function is a searched function, or mod (bank = address mod
	// banks), ipoly (GPGPU-Sim's polynomial) or fixed_xor (bank =
	// addr[0..m-1] ^ addr[m..2m-1]).
	Function string `json:"function"`
	// Method is exhaustive, givargis or mih; absent for mod, ipoly and
	// fixed_xor.
	Method string `json:"method,omitempty"`
	// Config is the configuration found for the kernel (absent in the
	// totals, and for mod and ipoly).
	Config *searchConfig `json:"config,omitempty"`
	// Polynomial is ipoly's, as exponents.
	Polynomial []int `json:"polynomial,omitempty"`
	// Banks is mod's bank count.
	Banks          int   `json:"banks,omitempty"`
	ConflictsAfter int64 `json:"conflicts_after"`
	// RemovedPercent is 100·(before − after)/before, absent when there
	// were no conflicts before; negative when the function adds some. In
	// the totals (compare) it is the mean of the kernels' percentages
	// over the kernels with conflicts before, as 000_* Table 6 averages
	// per benchmark.
	RemovedPercent *float64 `json:"removed_percent,omitempty"`
	// PooledRemovedPercent is, in the totals only, the percentage of all
	// the kernels' conflicts removed, 100·(Σ before − Σ after)/Σ before,
	// where kernels weigh by their conflicts.
	PooledRemovedPercent *float64 `json:"pooled_removed_percent,omitempty"`
	// KernelsAveraged is, in the totals only, how many kernels (those
	// with conflicts before) removed_percent averages.
	KernelsAveraged int `json:"kernels_averaged,omitempty"`
}

// searchConfig is a configuration under the hash block's attribute names:
// k (bitvector_perm); k1, k2 and mask (bitvector_xor); bits, a list of
// bit indices (bitwise_perm) or of index pairs (bitwise_xor).
type searchConfig struct {
	K    *int    `json:"k,omitempty"`
	K1   *int    `json:"k1,omitempty"`
	K2   *int    `json:"k2,omitempty"`
	Mask *uint64 `json:"mask,omitempty"`
	Bits any     `json:"bits,omitempty"`
}

// searchCountJSON is the --json document of search --count.
type searchCountJSON struct {
	// Version is lsugen's version.
	Version  string         `json:"version"`
	AddrBits int            `json:"addr_bits"`
	BankBits int            `json:"bank_bits"`
	Classes  []search.Class `json:"classes"`
	// Pruned is the §5.1 pruned bit-vector XOR space for the given
	// accesses, when there are any.
	Pruned *int64 `json:"bitvector_xor_pruned,omitempty"`
}

const searchLong = `Chooses the hash configuration with the fewest bank conflicts for warp
accesses: lsugen traces (one access per line, word addresses, '#' comments,
'@name' lines naming the instruction), the pattern blocks of spec files
(*.hcl), Accel-Sim traces (kernelslist.g, kernel-N.traceg[.xz], or a
kernel trace of any name, recognised by its header: their shared-memory
accesses) and the --stride reference accesses. A
conflict-degree d access costs d-1: d is the most distinct addresses one
bank receives. Conflicts are reported per kernel (an Accel-Sim kernel, else
an input file) and in total, before (bank = addr mod 2^m) and after.

--compare configures every function and method for each kernel on its own
(exhaustive bitvector_xor, Givargis and MIH over bitwise_perm and
bitwise_xor) beside reference hashes (mod N, ipoly, the fixed bit-vector
XOR) and prints the conflicts removed per kernel, and over the kernels
both pooled and as the mean of the kernels' percentages, which is what
000_* Table 6 gives (it averages per benchmark) and its form prints.

  lsugen search [--json] --function F --method exhaustive|givargis|mih --addr-bits n --bank-bits m
                [-o OUT.hcl] [--name NAME] [--full] [--svg FILE] [--stride S]... INPUT...
  lsugen search --compare [--json] --addr-bits n --bank-bits m [--banks N] [--full] INPUT...
  lsugen search --count [--json] --addr-bits n --bank-bits m [--stride S]... [INPUT...]
  lsugen search --for SPEC:UNIT [--json] [--method M] [--full] [-o OUT.json] [--c-header OUT.h] INPUT...

--for configures a configurable hash unit (configurable = true;
bitvector_perm, bitvector_xor, bitwise_perm, bitwise_xor, and rap by
row_descent): it searches that function at the unit's address and bank bits, for all the accesses together
and for each kernel on its own, and gives each configuration as the
unit's register values (as conflicts --hash-config reads them) and cfg_*
port values, with the conflicts the unit's behavioural model counts
under it. -o writes them as JSON (docs/tools.md), --c-header the unit's
C function taking the configuration as arguments.`

func newSearchCmd(a *app) *cobra.Command {
	var (
		asJSON, full, count, compare     bool
		function, method, out, name, svg string
		forRef, cHeader                  string
		n, m, lanes, banks, bankBytes    int
		strides                          strideList
	)
	cmd := &cobra.Command{
		Use:   "search [--json] (--function F [--method M] | --compare) --addr-bits n --bank-bits m [-o OUT.hcl] [flags] INPUT...",
		Short: "choose a hash configuration for access traces",
		Long:  searchLong,
		RunE: func(cmd *cobra.Command, inputs []string) error {
			if forRef != "" {
				return searchFor(a, cmd.Flags(), forRef, inputs, strides, lanes, bankBytes, method, full, asJSON, out, cHeader)
			}
			if cHeader != "" {
				return usagef("--c-header writes the C function of the configurable unit of --for: give --for SPEC:UNIT")
			}
			if n == 0 || m == 0 {
				return usagef("--addr-bits and --bank-bits are required")
			}
			if err := search.CheckSizes(n, m); err != nil {
				return usagef("%v", err)
			}
			if lanes < 1 || lanes > 1<<16 {
				return usagef("--lanes %d: want 1..65536", lanes)
			}
			if bankBytes != 4 && bankBytes != 8 {
				return usagef("--bank-bytes %d: want 4 or 8", bankBytes)
			}
			if err := checkSearchApplies(cmd.Flags(), inputs, len(strides) > 0, count, compare); err != nil {
				return err
			}
			if !cmd.Flags().Changed("banks") {
				banks = 1 << uint(min(m, 10))
			}
			if banks < 2 || banks > search.MaxModBanks {
				return usagef("--banks %d: want 2..%d", banks, search.MaxModBanks)
			}
			switch {
			case count:
			case compare:
				if cmd.Flags().Changed("function") || cmd.Flags().Changed("method") || out != "" || svg != "" {
					return usagef("--compare runs every function and method: drop --function, --method, -o and --svg")
				}
				if len(inputs)+len(strides) == 0 {
					return usagef("no accesses: give traces, spec files or --stride")
				}
			default:
				if err := checkSearchFlags(function, method, name, out, full, len(inputs)+len(strides)); err != nil {
					return err
				}
				if full && function != search.BitvectorXor {
					return usagef("--full applies to bitvector_xor, whose whole space it searches instead of the pruned one of §5.1")
				}
			}
			// Wide Accel-Sim accesses split into phases over the 2^m banks the
			// searched hashes map to.
			kernels, err := loadKernels(inputs, strides, lanes, inputOptions{BankBytes: bankBytes, Banks: 1 << uint(m)}, a.stderr)
			if err != nil {
				return err
			}
			var accesses [][]uint64
			var instrs []string
			for _, k := range kernels {
				accesses = append(accesses, k.accesses...)
				instrs = append(instrs, k.instrs...)
			}
			if count {
				return printCount(a.stdout, n, m, asJSON, accesses)
			}
			if compare {
				return runCompare(a.stdout, kernels, n, m, banks, full, asJSON)
			}
			p, err := search.Prepare(accesses, n, m)
			if err != nil {
				return err
			}
			res, err := search.Search(p, function, method, full)
			if err != nil {
				return usagef("%v", err)
			}
			perKernel, err := kernelConflicts(kernels, n, m, res.Config)
			if err != nil {
				return err
			}
			var files []outFile
			if out != "" {
				files = append(files, outFile{out, []byte(hashHCL(name, n, m, res, inputs, strides))})
			}
			if svg != "" {
				before := search.BankHistogram(fmt.Sprintf("before: bank = addr mod %d", 1<<uint(m)), accesses, instrs, n, m, search.Config{Function: search.BitvectorPerm})
				after := search.BankHistogram(fmt.Sprintf("after: %s, %s", res.Config.Function, res.Config), accesses, instrs, n, m, res.Config)
				files = append(files, outFile{svg, search.SVG(before, after)})
			}
			for _, f := range files {
				if err := writeFileAtomic(f.path, f.data); err != nil {
					return err
				}
			}
			if asJSON {
				cfg := configJSON(res.Config)
				after := res.ConflictsAfter
				return printJSON(a.stdout, searchJSON{
					Version: gen.Version, Function: res.Config.Function, Method: res.Method, Config: &cfg,
					CandidatesEvaluated: res.CandidatesEvaluated, ConflictsBefore: res.ConflictsBefore,
					ConflictsAfter: &after, AddrBits: n, BankBits: m, Full: res.Full, Accesses: len(accesses),
					Kernels: perKernel,
				})
			}
			space := ""
			if method == search.Exhaustive && function == search.BitvectorXor {
				space = " (pruned, §5.1)"
				if full {
					space = " (full space)"
				}
			}
			w := a.stdout
			fmt.Fprintf(w, "function    %s\n", res.Config.Function)
			fmt.Fprintf(w, "method      %s%s\n", res.Method, space)
			fmt.Fprintf(w, "accesses    %d (%d distinct up to an XOR offset, with two or more addresses)\n", len(accesses), p.Unique())
			fmt.Fprintf(w, "candidates  %d evaluated\n", res.CandidatesEvaluated)
			fmt.Fprintf(w, "config      %s\n", res.Config)
			fmt.Fprintf(w, "conflicts   %d before (mod %d), %d after (%s removed)\n", res.ConflictsBefore, 1<<uint(m), res.ConflictsAfter,
				percentText(search.RemovedPercent(res.ConflictsBefore, res.ConflictsAfter)))
			if len(perKernel) > 1 {
				writeKernelTable(w, perKernel)
			}
			for _, f := range files {
				fmt.Fprintf(w, "wrote       %s\n", f.path)
			}
			return nil
		},
	}
	fs := cmd.Flags()
	addJSONFlag(fs, &asJSON)
	fs.StringVar(&function, "function", "", "hash function: bitvector_perm, bitvector_xor, bitwise_perm or bitwise_xor")
	fs.StringVar(&method, "method", search.Exhaustive, "exhaustive (bit-vector functions; bitwise ones when small), givargis or mih (bitwise functions); with --for a rap unit: row_descent, its only method")
	fs.IntVar(&n, "addr-bits", 0, "word-address width n (required)")
	fs.IntVar(&m, "bank-bits", 0, "bank-index width m, 2^m banks (required)")
	addOutputFlag(fs, &out, "", "write the chosen configuration as a hash block to this HCL file")
	fs.StringVar(&name, "name", "searched_hash", "name of the hash block written by -o (a Verilog identifier)")
	fs.BoolVar(&full, "full", false, "exhaustive bitvector_xor: search all (n-m+1)*n*2^m candidates, not the pruned space of §5.1")
	fs.BoolVar(&count, "count", false, "print the number of hash functions per class (Table 1) for n and m, and no search")
	fs.BoolVar(&compare, "compare", false, "configure every function and method per kernel and print the conflicts each removes (Table 6's form)")
	fs.IntVar(&banks, "banks", 0, fmt.Sprintf("--compare: the mod N reference row, bank = word mod N, N from 2 to %d (default 2^m, at most 1024)", search.MaxModBanks))
	addBankBytesFlag(fs, &bankBytes)
	fs.StringVar(&forRef, "for", "", "search the configuration space of configurable hash unit SPEC:UNIT (its function, address and bank bits) for all the accesses and per kernel; -o writes the register values as JSON")
	fs.StringVar(&cHeader, "c-header", "", "with --for: write a C/C++/CUDA header with the unit's bank function, its configuration as arguments")
	fs.StringVar(&svg, "svg", "", "write an SVG bank x instruction histogram before (mod 2^m) and after the chosen hash")
	fs.IntVar(&lanes, "lanes", 32, "lanes of the reference access of each --stride")
	fs.Var(&strides, "stride", "add the reference access of stride S: lane i reads word i*S (repeatable, or a comma list)")
	return cmd
}

// searchFor is search --for: checks the flags, loads the unit and the
// inputs, and configures the unit (runSearchFor).
func searchFor(a *app, fs *pflag.FlagSet, ref string, inputs []string, strides strideList, lanes, bankBytes int, method string, full, asJSON bool, out, cHeader string) error {
	if err := checkSearchFor(fs.Changed); err != nil {
		return err
	}
	if err := checkBankBytes(fs, inputs); err != nil {
		return err
	}
	if fs.Changed("lanes") && len(strides) == 0 {
		return usagef("--lanes applies to the reference accesses of --stride only")
	}
	if lanes < 1 || lanes > 1<<16 {
		return usagef("--lanes %d: want 1..65536", lanes)
	}
	if bankBytes != 4 && bankBytes != 8 {
		return usagef("--bank-bytes %d: want 4 or 8", bankBytes)
	}
	if len(inputs)+len(strides) == 0 {
		return usagef("no accesses: give traces, spec files or --stride")
	}
	h, regs, err := loadSearchFor(ref, a.stderr)
	if err != nil {
		return err
	}
	switch {
	case h.Function == specs.RAP:
		if fs.Changed("method") && method != search.RowDescent {
			return usagef("--method %s: rap's row shifts are searched by %s only", method, search.RowDescent)
		}
		method = search.RowDescent
	case method == search.Exhaustive, method == search.Givargis, method == search.MIH:
	default:
		return usagef("--method %q: want exhaustive, givargis or mih (%s for rap)", method, search.RowDescent)
	}
	if method != search.Exhaustive && (h.Function == search.BitvectorPerm || h.Function == search.BitvectorXor) {
		return usagef("--method %s selects individual bits: hash %q is %s, searched exhaustively", method, h.Name, h.Function)
	}
	if full && (method != search.Exhaustive || h.Function != search.BitvectorXor) {
		return usagef("--full applies to exhaustive bitvector_xor, whose whole space it searches instead of the pruned one of §5.1")
	}
	for _, p := range []string{out, cHeader} {
		if p != "" {
			if err := checkOutputFile(p); err != nil {
				return err
			}
		}
	}
	kernels, err := loadKernels(inputs, strides, lanes, inputOptions{BankBytes: bankBytes, Banks: 1 << uint(h.BankBits)}, a.stderr)
	if err != nil {
		return err
	}
	return runSearchFor(a, ref, h, regs, kernels, method, full, asJSON, out, cHeader)
}

// checkSearchApplies refuses the flags that the inputs or the mode
// (--count, --compare, a search) would not use, so none is ignored.
func checkSearchApplies(fs *pflag.FlagSet, inputs []string, strides, count, compare bool) error {
	if err := checkBankBytes(fs, inputs); err != nil {
		return err
	}
	if fs.Changed("lanes") && !strides {
		return usagef("--lanes applies to the reference accesses of --stride only")
	}
	if count {
		var given []string
		for _, n := range []string{"function", "method", "output", "name", "full", "compare", "banks", "svg"} {
			if fs.Changed(n) {
				given = append(given, "--"+n)
			}
		}
		if len(given) > 0 {
			return usagef("%s: --count counts the hash functions of each class and searches nothing", strings.Join(given, ", "))
		}
		return nil
	}
	if fs.Changed("banks") && !compare {
		return usagef("--banks applies to --compare only (its mod N row); a search maps to the 2^m banks of --bank-bits")
	}
	if fs.Changed("name") && !fs.Changed("output") {
		return usagef("--name names the hash block that -o writes: give -o OUT.hcl")
	}
	return nil
}

// checkSearchFlags refuses a search the flags do not describe, before any
// work.
func checkSearchFlags(function, method, name, out string, full bool, sources int) error {
	switch function {
	case search.BitvectorPerm, search.BitvectorXor, search.BitwisePerm, search.BitwiseXor:
	case "":
		return usagef("--function is required: bitvector_perm, bitvector_xor, bitwise_perm or bitwise_xor")
	default:
		return usagef("--function %q: want bitvector_perm, bitvector_xor, bitwise_perm or bitwise_xor", function)
	}
	switch method {
	case search.Exhaustive, search.Givargis, search.MIH:
	default:
		return usagef("--method %q: want exhaustive, givargis or mih", method)
	}
	if method != search.Exhaustive && (function == search.BitvectorPerm || function == search.BitvectorXor) {
		return usagef("--method %s selects individual bits: use it with bitwise_perm or bitwise_xor (bit-vector functions are searched exhaustively)", method)
	}
	if full && method != search.Exhaustive {
		return usagef("--full applies to --method exhaustive only")
	}
	if sources == 0 {
		return usagef("no accesses: give trace files or --stride")
	}
	// The loader's rule for unit names, so that gen reads what -o writes.
	if problem := specs.CheckUnitName(name); problem != "" {
		return usagef("--name: %s", problem)
	}
	return nil
}

type outFile struct {
	path string
	data []byte
}

// searchKernel is the accesses of one kernel: an Accel-Sim kernel, else
// one input file (a trace, or a spec's pattern blocks), and the --stride
// accesses together; instrs names each access's instruction for the
// histogram.
type searchKernel struct {
	name     string
	accesses [][]uint64
	instrs   []string
	kinds    []trace.Kind // each access's, for the count of conflicts (search --for)
}

// loadKernels reads the inputs with the loader `conflicts` uses and groups
// the accesses by kernel, in input order.
func loadKernels(paths []string, strides []uint64, lanes int, opt inputOptions, stderr io.Writer) ([]*searchKernel, error) {
	traces, err := loadTracesWith(paths, opt, stderr)
	if err != nil {
		return nil, err
	}
	var out []*searchKernel
	byName := map[string]*searchKernel{}
	group := func(name string) *searchKernel {
		k := byName[name]
		if k == nil {
			k = &searchKernel{name: name}
			byName[name] = k
			out = append(out, k)
		}
		return k
	}
	for _, tr := range traces {
		for _, a := range tr.Accesses {
			kname := a.Kernel
			if kname == "" {
				kname = tr.File
			} else if len(traces) > 1 {
				kname = tr.File + ": " + kname
			}
			k := group(kname)
			name := a.Instr
			if name == "" {
				name = "(no @name)"
			}
			if len(paths) > 1 {
				name = filepath.Base(tr.File) + ": " + name
			}
			k.accesses = append(k.accesses, a.Addrs)
			k.instrs = append(k.instrs, name)
			k.kinds = append(k.kinds, a.Kind)
		}
	}
	if len(strides) > 0 {
		k := group("--stride " + (*strideList)(&strides).String())
		for _, s := range strides {
			k.accesses = append(k.accesses, search.StrideAccess(s, lanes))
			k.instrs = append(k.instrs, "stride "+strconv.FormatUint(s, 10))
			k.kinds = append(k.kinds, trace.KindAny)
		}
	}
	return out, nil
}

func percentText(p *float64) string {
	if p == nil {
		return "-"
	}
	return strconv.FormatFloat(*p, 'f', 1, 64) + "%"
}

// kernelConflicts is each kernel's conflicts before and under cfg.
func kernelConflicts(kernels []*searchKernel, n, m int, cfg search.Config) ([]searchKernelJSON, error) {
	var out []searchKernelJSON
	for _, k := range kernels {
		p, err := search.Prepare(k.accesses, n, m)
		if err != nil {
			return nil, err
		}
		before, after := p.Conflicts(search.Config{Function: search.BitvectorPerm}), p.Conflicts(cfg)
		out = append(out, searchKernelJSON{Name: k.name, Accesses: len(k.accesses), ConflictsBefore: before,
			ConflictsAfter: &after, RemovedPercent: search.RemovedPercent(before, after)})
	}
	return out, nil
}

// writeKernelTable prints the per-kernel conflicts of one search and their
// total.
func writeKernelTable(w io.Writer, ks []searchKernelJSON) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "\nkernel\taccesses\tbefore\tafter\tremoved")
	var acc int
	var before, after int64
	for _, k := range ks {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\n", k.Name, k.Accesses, k.ConflictsBefore, *k.ConflictsAfter, percentText(k.RemovedPercent))
		acc += k.Accesses
		before += k.ConflictsBefore
		after += *k.ConflictsAfter
	}
	fmt.Fprintf(tw, "total\t%d\t%d\t%d\t%s\n", acc, before, after, percentText(search.RemovedPercent(before, after)))
	tw.Flush()
}

// compareRowOf is a comparison row in the document's form.
func compareRowOf(r search.Row, before int64) compareRowJSON {
	row := compareRowJSON{Function: r.Function, Method: r.Method, ConflictsAfter: r.ConflictsAfter,
		RemovedPercent: search.RemovedPercent(before, r.ConflictsAfter)}
	switch r.Function {
	case search.Mod:
		row.Banks = r.Banks
	case search.Ipoly:
		row.Polynomial = r.Config.Poly
	default:
		cfg := configJSON(r.Config)
		row.Config = &cfg
	}
	return row
}

// runCompare configures every function and method per kernel and prints
// each kernel's rows, the totals (pooled and the kernels' mean), and the
// means in Table 6's form.
func runCompare(w io.Writer, kernels []*searchKernel, n, m, banks int, full, asJSON bool) error {
	doc, err := compareReport(kernels, n, m, banks, full)
	if err != nil {
		return err
	}
	if asJSON {
		return printJSON(w, doc)
	}
	for _, k := range doc.Kernels {
		if err := writeCompareKernel(w, k, m); err != nil {
			return err
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "total: %d kernels, %d accesses, %d conflicts under addr mod %d\n", len(doc.Kernels), doc.Accesses, doc.ConflictsBefore, 1<<uint(m))
	fmt.Fprintln(tw, "  function\tmethod\tconflicts\tremoved (pooled)\tremoved (mean per kernel)")
	for _, r := range doc.Compare {
		fmt.Fprintf(tw, "  %s\t%s\t%d\t%s\t%s\n", functionText(r), r.Method, r.ConflictsAfter, percentText(r.PooledRemovedPercent), percentText(r.RemovedPercent))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	averaged := 0
	if len(doc.Compare) > 0 {
		averaged = doc.Compare[0].KernelsAveraged
	}
	return writeTable6(w, doc.Compare, averaged)
}

// compareReport configures every function and method per kernel
// (search.CompareKernels) and totals each row over the kernels: the
// conflicts left summed, the percentage removed averaged per kernel
// (Table 6) and pooled.
func compareReport(kernels []*searchKernel, n, m, banks int, full bool) (searchJSON, error) {
	doc := searchJSON{Version: gen.Version, AddrBits: n, BankBits: m, Full: full}
	ks := make([]search.Kernel, len(kernels))
	for i, k := range kernels {
		ks[i] = search.Kernel{Name: k.name, Accesses: k.accesses, Kinds: k.kinds}
	}
	cmp, err := search.CompareKernels(context.Background(), ks, n, m, banks, full)
	if err != nil {
		return doc, usagef("%v", err)
	}
	for _, k := range cmp.Kernels {
		kj := searchKernelJSON{Name: k.Name, Accesses: k.Accesses, ConflictsBefore: k.Before}
		for _, r := range k.Rows {
			kj.Rows = append(kj.Rows, compareRowOf(r, k.Before))
		}
		doc.Kernels = append(doc.Kernels, kj)
		doc.Accesses += k.Accesses
		doc.ConflictsBefore += k.Before
	}
	for _, t := range cmp.Totals {
		row := compareRowOf(t.Row, t.Before)
		row.Config = nil
		row.RemovedPercent = t.MeanRemoved
		row.PooledRemovedPercent = t.PooledRemoved
		row.KernelsAveraged = t.Averaged
		doc.Compare = append(doc.Compare, row)
	}
	return doc, nil
}

// writeCompareKernel prints one kernel's rows.
func writeCompareKernel(w io.Writer, k searchKernelJSON, m int) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "%s: %d accesses, %d conflicts under addr mod %d\n", k.Name, k.Accesses, k.ConflictsBefore, 1<<uint(m))
	fmt.Fprintln(tw, "  function\tmethod\tconflicts\tremoved\tconfiguration")
	for _, r := range k.Rows {
		cfg := ""
		switch r.Function {
		case search.Mod:
		case search.Ipoly:
			cfg = search.Config{Function: search.Ipoly, Poly: r.Polynomial}.String()
		default:
			cfg = rowConfigText(r)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%d\t%s\t%s\n", functionText(r), r.Method, r.ConflictsAfter, percentText(r.RemovedPercent), cfg)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	return nil
}

// functionText names a row's function as the report prints it.
func functionText(r compareRowJSON) string {
	switch r.Function {
	case search.Mod:
		return fmt.Sprintf("mod %d", r.Banks)
	case search.FixedXor:
		return "fixed bit-vector XOR"
	}
	return r.Function
}

// rowConfigText is a row's configuration in HCL attribute syntax.
func rowConfigText(r compareRowJSON) string {
	c := r.Config
	switch {
	case c == nil:
		return ""
	case c.K1 != nil:
		return fmt.Sprintf("k1 = %d, k2 = %d, mask = %d", *c.K1, *c.K2, *c.Mask)
	case c.K != nil:
		return fmt.Sprintf("k = %d", *c.K)
	}
	b, _ := json.Marshal(c.Bits)
	return "bits = " + strings.ReplaceAll(string(b), ",", ", ")
}

// writeTable6 prints the totals as 000_* Table 6 does: a row per function,
// a column per configuration method (none for the fixed functions), each
// cell the mean of the percentages of the averaged kernels.
func writeTable6(w io.Writer, rows []compareRowJSON, averaged int) error {
	fmt.Fprintf(w, "\nconflicts removed, mean of the %d kernels with conflicts (000_* Table 6's form)\n", averaged)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "hash function\tnone\texhaustive\tgivargis\tmih\t")
	var order []string
	cells := map[string]map[string]string{}
	for _, r := range rows {
		name := functionText(r)
		if r.Function == search.Ipoly {
			name = "ipoly"
		}
		if cells[name] == nil {
			cells[name] = map[string]string{}
			order = append(order, name)
		}
		method := r.Method
		if method == "" {
			method = "none"
		}
		cells[name][method] = percentText(r.RemovedPercent)
	}
	for _, name := range order {
		fmt.Fprintf(tw, "%s\t", name)
		for _, method := range []string{"none", search.Exhaustive, search.Givargis, search.MIH} {
			v, ok := cells[name][method]
			if !ok {
				v = "-"
			}
			fmt.Fprintf(tw, "%s\t", v)
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

// configJSON is the configuration under the hash block's attribute names.
func configJSON(c search.Config) searchConfig {
	switch c.Function {
	case search.BitvectorPerm:
		return searchConfig{K: &c.K}
	case search.BitvectorXor:
		return searchConfig{K1: &c.K1, K2: &c.K2, Mask: &c.Mask}
	case search.BitwisePerm:
		bits := make([]int, len(c.Bits))
		for i, b := range c.Bits {
			bits[i] = b[0]
		}
		return searchConfig{Bits: bits}
	default:
		return searchConfig{Bits: c.Bits}
	}
}

// hashHCL is the hash block of the chosen configuration, in the form
// `lsugen gen` and `lsugen verify` read.
func hashHCL(name string, n, m int, res *search.Result, inputs []string, strides []uint64) string {
	var b strings.Builder
	var src []string
	for _, in := range inputs {
		src = append(src, filepath.Base(in))
	}
	if len(strides) > 0 {
		src = append(src, "--stride "+(*strideList)(&strides).String())
	}
	fmt.Fprintf(&b, "# Written by lsugen search --method %s from %s:\n", res.Method, strings.Join(src, ", "))
	fmt.Fprintf(&b, "# %d candidates evaluated; bank conflicts %d under addr mod 2^%d, %d with this hash.\n",
		res.CandidatesEvaluated, res.ConflictsBefore, m, res.ConflictsAfter)
	fmt.Fprintf(&b, "hash %q {\n", name)
	fmt.Fprintf(&b, "  function  = %q\n", res.Config.Function)
	fmt.Fprintf(&b, "  addr_bits = %d\n", n)
	fmt.Fprintf(&b, "  bank_bits = %d\n", m)
	switch res.Config.Function {
	case search.BitvectorPerm:
		fmt.Fprintf(&b, "  k         = %d\n", res.Config.K)
	case search.BitvectorXor:
		fmt.Fprintf(&b, "  k1        = %d\n", res.Config.K1)
		fmt.Fprintf(&b, "  k2        = %d\n", res.Config.K2)
		fmt.Fprintf(&b, "  mask      = %d\n", res.Config.Mask)
	default:
		fmt.Fprintf(&b, "  bits      = %s\n", res.Config.BitsHCL())
	}
	b.WriteString("}\n")
	return b.String()
}

// printCount prints Table 1 for n and m and, when accesses are given, the
// size of the §5.1 pruned bit-vector XOR space for them.
func printCount(w io.Writer, n, m int, asJSON bool, accesses [][]uint64) error {
	classes, err := search.Table1(n, m)
	if err != nil {
		return err
	}
	var pruned int64 = -1
	if len(accesses) > 0 {
		p, err := search.Prepare(accesses, n, m)
		if err != nil {
			return err
		}
		s, err := search.NewSpace(p, n, m, search.BitvectorXor, false)
		if err != nil {
			return err
		}
		pruned = s.Count()
	}
	if asJSON {
		doc := searchCountJSON{Version: gen.Version, AddrBits: n, BankBits: m, Classes: classes}
		if pruned >= 0 {
			doc.Pruned = &pruned
		}
		return printJSON(w, doc)
	}
	if _, err := io.WriteString(w, search.FormatTable1(n, m, classes)); err != nil {
		return err
	}
	if pruned >= 0 {
		_, err = fmt.Fprintf(w, "%-30s %-24s %d\n", "Bit-vector XOR, pruned", "§5.1, these accesses", pruned)
	}
	return err
}
