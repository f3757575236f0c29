package main

import (
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/lsugen/lsugen/gen"
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

var verilogIdent = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_$]*$`)

// Type is the flag's type name in the help.
func (s *strideList) Type() string { return "strides" }

// searchJSON is the --json document of a search.
type searchJSON struct {
	// Version is lsugen's version.
	Version  string `json:"version"`
	Function string `json:"function"`
	Method   string `json:"method"`
	// Config is the chosen configuration under the hash block's
	// attribute names.
	Config              searchConfig `json:"config"`
	CandidatesEvaluated int64        `json:"candidates_evaluated"`
	ConflictsBefore     int64        `json:"conflicts_before"`
	ConflictsAfter      int64        `json:"conflicts_after"`
	AddrBits            int          `json:"addr_bits"`
	BankBits            int          `json:"bank_bits"`
	Full                bool         `json:"full"`
	Accesses            int          `json:"accesses"`
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

const searchLong = `Chooses the hash configuration with the fewest bank conflicts for the warp
accesses of the traces (one access per line, word addresses, '#' comments,
'@name' lines naming the instruction) and of the --stride reference accesses.
A conflict-degree d access costs d-1: d is the most distinct addresses one
bank receives.

  lsugen search [--json] --function F --method exhaustive|givargis|mih --addr-bits n --bank-bits m
                [-o OUT.hcl] [--name NAME] [--full] [--svg FILE] [--stride S]... TRACE...
  lsugen search --count [--json] --addr-bits n --bank-bits m [--stride S]... [TRACE...]`

func newSearchCmd(a *app) *cobra.Command {
	var (
		asJSON, full, count              bool
		function, method, out, name, svg string
		n, m, lanes                      int
		strides                          strideList
	)
	cmd := &cobra.Command{
		Use:   "search [--json] --function F [--method M] --addr-bits n --bank-bits m [-o OUT.hcl] [flags] TRACE...",
		Short: "choose a hash configuration for access traces",
		Long:  searchLong,
		RunE: func(cmd *cobra.Command, inputs []string) error {
			if n == 0 || m == 0 {
				return usagef("--addr-bits and --bank-bits are required")
			}
			if err := search.CheckSizes(n, m); err != nil {
				return usagef("%v", err)
			}
			if lanes < 1 || lanes > 1<<16 {
				return usagef("--lanes %d: want 1..65536", lanes)
			}
			if !count {
				if err := checkSearchFlags(function, method, name, out, full, len(inputs)+len(strides)); err != nil {
					return err
				}
			}
			accesses, instrs, err := loadAccesses(inputs, strides, lanes)
			if err != nil {
				return err
			}
			if count {
				return printCount(a.stdout, n, m, asJSON, accesses)
			}
			p, err := search.Prepare(accesses, n, m)
			if err != nil {
				return err
			}
			res, err := search.Search(p, function, method, full)
			if err != nil {
				return usagef("%v", err)
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
				if err := writeAll(filepath.Dir(f.path), map[string][]byte{filepath.Base(f.path): f.data}); err != nil {
					return err
				}
			}
			if asJSON {
				return printJSON(a.stdout, searchJSON{
					Version: gen.Version, Function: res.Config.Function, Method: res.Method, Config: configJSON(res.Config),
					CandidatesEvaluated: res.CandidatesEvaluated, ConflictsBefore: res.ConflictsBefore,
					ConflictsAfter: res.ConflictsAfter, AddrBits: n, BankBits: m, Full: res.Full, Accesses: len(accesses),
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
			fmt.Fprintf(w, "conflicts   %d before (mod %d), %d after\n", res.ConflictsBefore, 1<<uint(m), res.ConflictsAfter)
			for _, f := range files {
				fmt.Fprintf(w, "wrote       %s\n", f.path)
			}
			return nil
		},
	}
	fs := cmd.Flags()
	addJSONFlag(fs, &asJSON)
	fs.StringVar(&function, "function", "", "hash function: bitvector_perm, bitvector_xor, bitwise_perm or bitwise_xor")
	fs.StringVar(&method, "method", search.Exhaustive, "exhaustive (bit-vector functions; bitwise ones when small), givargis or mih (bitwise functions)")
	fs.IntVar(&n, "addr-bits", 0, "word-address width n (required)")
	fs.IntVar(&m, "bank-bits", 0, "bank-index width m, 2^m banks (required)")
	addOutputFlag(fs, &out, "", "write the chosen configuration as a hash block to this HCL file")
	fs.StringVar(&name, "name", "searched_hash", "name of the hash block written by -o (a Verilog identifier)")
	fs.BoolVar(&full, "full", false, "exhaustive bitvector_xor: search all (n-m+1)*n*2^m candidates, not the pruned space of §5.1")
	fs.BoolVar(&count, "count", false, "print the number of hash functions per class (Table 1) for n and m, and no search")
	fs.StringVar(&svg, "svg", "", "write an SVG bank x instruction histogram before (mod 2^m) and after the chosen hash")
	fs.IntVar(&lanes, "lanes", 32, "lanes of the reference access of each --stride")
	fs.Var(&strides, "stride", "add the reference access of stride S: lane i reads word i*S (repeatable, or a comma list)")
	return cmd
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
	if out != "" && !verilogIdent.MatchString(name) {
		return usagef("--name %q is not a Verilog identifier", name)
	}
	return nil
}

type outFile struct {
	path string
	data []byte
}

// loadAccesses reads the traces and appends the stride reference accesses;
// instrs names each access's instruction for the histogram.
func loadAccesses(paths []string, strides []uint64, lanes int) ([][]uint64, []string, error) {
	var acc [][]uint64
	var instrs []string
	for _, path := range paths {
		tr, err := trace.ParseFile(path)
		if err != nil {
			return nil, nil, badInput(err)
		}
		for _, a := range tr.Accesses {
			name := a.Instr
			if name == "" {
				name = "(no @name)"
			}
			if len(paths) > 1 {
				name = filepath.Base(path) + ": " + name
			}
			acc = append(acc, a.Addrs)
			instrs = append(instrs, name)
		}
	}
	for _, s := range strides {
		acc = append(acc, search.StrideAccess(s, lanes))
		instrs = append(instrs, "stride "+strconv.FormatUint(s, 10))
	}
	return acc, instrs, nil
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
