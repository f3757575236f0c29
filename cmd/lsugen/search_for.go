package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/lsugen/lsugen/csource"
	"github.com/lsugen/lsugen/gen"
	"github.com/lsugen/lsugen/model"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/tools/conflicts"
	"github.com/lsugen/lsugen/tools/search"
	"github.com/lsugen/lsugen/tools/trace"
)

// searchForDoc is the document of search --for: the register values of a
// configurable hash unit chosen for the whole trace set and for each kernel
// on its own. -o writes it and --json prints it.
type searchForDoc struct {
	// Version is lsugen's version.
	Version string `json:"version"`
	// Spec and Unit are the configured unit, as --for named it.
	Spec     string `json:"spec"`
	Unit     string `json:"unit"`
	Function string `json:"function"`
	Method   string `json:"method"`
	Full     bool   `json:"full"`
	AddrBits int    `json:"addr_bits"`
	BankBits int    `json:"bank_bits"`
	// Registers are the unit's configuration registers, in port order.
	Registers []searchForRegister `json:"registers"`
	// All is the configuration chosen for every access of the inputs.
	All searchForConfig `json:"all"`
	// Kernels are the configurations chosen for each kernel (Accel-Sim
	// kernel, else input file; the --stride accesses form one) on its own,
	// in input order.
	Kernels []searchForConfig `json:"kernels"`
}

// searchForRegister is one configuration register.
type searchForRegister struct {
	// Key is the register's name in --hash-config, Port its input port.
	Key  string `json:"key"`
	Port string `json:"port"`
	// Fields of FieldBits bits each, field 0 in the port's low bits.
	Fields    int `json:"fields"`
	FieldBits int `json:"field_bits"`
}

// searchForConfig is one chosen configuration and its conflicts.
type searchForConfig struct {
	// Kernel is the kernel's name (absent in "all").
	Kernel   string `json:"kernel,omitempty"`
	Accesses int    `json:"accesses"`
	// HashConfig is the configuration as conflicts --hash-config reads it.
	HashConfig string `json:"hash_config"`
	// Registers is each register's value by key: a number, or a list of
	// its fields' values (field 0 first) for a register of several fields.
	Registers map[string]any `json:"registers"`
	// Ports is each cfg_* input port's value as a Verilog literal.
	Ports               map[string]string `json:"ports"`
	CandidatesEvaluated int64             `json:"candidates_evaluated"`
	// ConflictsBefore is under bank = addr mod 2^bank_bits; ConflictsAfter
	// under this configuration, the unit's behavioural model computing the
	// banks: Σ (degree − 1) over the accesses as conflicts counts them
	// (its bank_conflicts), degree the most distinct addresses in one bank,
	// or lanes for an atomic. The search minimises the count over distinct
	// addresses, which differs only for atomics with lanes on one address.
	ConflictsBefore int64    `json:"conflicts_before"`
	ConflictsAfter  int64    `json:"conflicts_after"`
	RemovedPercent  *float64 `json:"removed_percent,omitempty"`
}

// checkSearchFor refuses the flags that --for replaces or does not use.
func checkSearchFor(given func(string) bool) error {
	var drop []string
	for _, n := range []string{"function", "addr-bits", "bank-bits", "name", "svg", "compare", "count", "banks"} {
		if given(n) {
			drop = append(drop, "--"+n)
		}
	}
	if len(drop) > 0 {
		return usagef("%s: --for takes the function, address and bank bits from the unit and writes its register values: drop %s", strings.Join(drop, ", "), strings.Join(drop, ", "))
	}
	return nil
}

// loadSearchFor loads the configurable hash unit of --for.
func loadSearchFor(ref string, stderr io.Writer) (*specs.Hash, []model.HashRegister, error) {
	u, err := loadUnitRef("--for", ref, "hash", true, stderr)
	if err != nil {
		return nil, nil, err
	}
	h := u.(*specs.Hash)
	if !h.Configurable {
		return nil, nil, usagef("--for %s: hash %q is constant: --for configures a configurable unit (configurable = true); search a constant one with --function", ref, h.Name)
	}
	switch h.Function {
	case search.BitvectorPerm, search.BitvectorXor, search.BitwisePerm, search.BitwiseXor:
	default:
		return nil, nil, usagef("--for %s: hash %q is %s: the search has methods for bitvector_perm, bitvector_xor, bitwise_perm and bitwise_xor only; give its configuration to conflicts --hash-config", ref, h.Name, h.Function)
	}
	if err := search.CheckSizes(h.AddrBits, h.BankBits); err != nil {
		return nil, nil, usagef("--for %s: %v", ref, err)
	}
	regs, err := model.HashRegisters(h)
	if err != nil {
		return nil, nil, badInput(fmt.Errorf("--for %s: %w", ref, err))
	}
	return h, regs, nil
}

// registersOf is a searched configuration as the unit's register values.
// The search's values fit the registers (shifts and bit indices below
// addr_bits, masks of bank_bits bits); ParseHashConfig checks them again.
func registersOf(h *specs.Hash, c search.Config) (*model.HashConfig, error) {
	var parts []string
	list := func(key string, pick func(e []int) int) {
		vals := make([]string, h.BankBits)
		for b := range vals {
			vals[b] = "0"
			if b < len(c.Bits) && len(c.Bits[b]) > 0 {
				vals[b] = fmt.Sprint(pick(c.Bits[b]))
			}
		}
		parts = append(parts, key+"=["+strings.Join(vals, ",")+"]")
	}
	switch c.Function {
	case search.BitvectorPerm:
		parts = append(parts, fmt.Sprintf("k=%d", c.K))
	case search.BitvectorXor:
		parts = append(parts, fmt.Sprintf("k1=%d", c.K1), fmt.Sprintf("k2=%d", c.K2), fmt.Sprintf("mask=%d", c.Mask))
	case search.BitwisePerm:
		list("sel", func(e []int) int { return e[0] })
	case search.BitwiseXor:
		// a single bit i is the pair (i, i): the unit XORs two different
		// selections only
		list("sel_a", func(e []int) int { return e[0] })
		list("sel_b", func(e []int) int { return e[len(e)-1] })
		for _, e := range c.Bits {
			if len(e) > 2 {
				return nil, fmt.Errorf("configuration %s XORs %d bits into one bank bit; the unit XORs two", c, len(e))
			}
		}
	default:
		return nil, fmt.Errorf("no registers for function %q", c.Function)
	}
	return model.ParseHashConfig(h, strings.Join(parts, ","))
}

// searchForConfigOf searches the accesses of one kernel (or all of them)
// and evaluates the configuration found through the unit's model.
func searchForConfigOf(h *specs.Hash, k *searchKernel, method string, full bool) (searchForConfig, error) {
	n, m := h.AddrBits, h.BankBits
	var out searchForConfig
	p, err := search.Prepare(k.accesses, n, m)
	if err != nil {
		return out, err
	}
	res, err := search.Search(p, string(h.Function), method, full)
	if err != nil {
		return out, usagef("%v", err)
	}
	cfg, err := registersOf(h, res.Config)
	if err != nil {
		return out, fmt.Errorf("hash %q: %w", h.Name, err)
	}
	mapping, err := conflicts.HashUnitAt(h, cfg)
	if err != nil {
		return out, err
	}
	mod, err := conflicts.Modulo(1 << uint(m))
	if err != nil {
		return out, err
	}
	// The search minimises distinct addresses per bank; the unit's model
	// must agree with it on the configuration's register values.
	counter := conflicts.NewCounter(mapping)
	var searched int64
	for _, acc := range k.accesses {
		searched += int64(max(counter.Degree(acc)-1, 0))
	}
	if searched != res.ConflictsAfter {
		return out, fmt.Errorf("hash %q at %s: the model counts %d conflicts, the search %d", h.Name, cfg, searched, res.ConflictsAfter)
	}
	// Reported as conflicts counts them: an atomic's lanes on one address
	// serialise too.
	before, after := bankConflicts(conflicts.NewCounter(mod), k), bankConflicts(counter, k)
	out = searchForConfig{Accesses: len(k.accesses), HashConfig: cfg.String(), Registers: map[string]any{}, Ports: map[string]string{},
		CandidatesEvaluated: res.CandidatesEvaluated, ConflictsBefore: before, ConflictsAfter: after,
		RemovedPercent: removed(before, after)}
	for i, r := range cfg.Regs {
		if r.Fields == 1 {
			out.Registers[r.Key] = cfg.Values[i][0]
		} else {
			out.Registers[r.Key] = cfg.Values[i]
		}
		out.Ports[r.Port] = cfg.PortLiteral(i)
	}
	return out, nil
}

// bankConflicts is Σ (degree − 1) over k's accesses, each access's degree
// as conflicts counts it (conflicts.Counter.AccessDegree).
func bankConflicts(c *conflicts.Counter, k *searchKernel) int64 {
	var total int64
	for i, acc := range k.accesses {
		a := trace.Access{Addrs: acc, Kind: k.kinds[i]}
		total += int64(max(c.AccessDegree(&a)-1, 0))
	}
	return total
}

// runSearchFor configures hash unit h for all the kernels together and for
// each on its own, writes the document (-o) and C header (--c-header) and
// prints the report.
func runSearchFor(a *app, ref string, h *specs.Hash, regs []model.HashRegister, kernels []*searchKernel, method string, full, asJSON bool, out, cHeader string) error {
	path, _ := specs.SplitUnitRef(ref)
	doc := searchForDoc{Version: gen.Version, Spec: path, Unit: h.Name, Function: string(h.Function), Method: method, Full: full,
		AddrBits: h.AddrBits, BankBits: h.BankBits}
	for _, r := range regs {
		doc.Registers = append(doc.Registers, searchForRegister{Key: r.Key, Port: r.Port, Fields: r.Fields, FieldBits: r.FieldBits})
	}
	all := &searchKernel{}
	for _, k := range kernels {
		all.accesses = append(all.accesses, k.accesses...)
		all.kinds = append(all.kinds, k.kinds...)
	}
	var err error
	if doc.All, err = searchForConfigOf(h, all, method, full); err != nil {
		return err
	}
	for _, k := range kernels {
		c, err := searchForConfigOf(h, k, method, full)
		if err != nil {
			return err
		}
		c.Kernel = k.name
		doc.Kernels = append(doc.Kernels, c)
	}
	var files []outFile
	if out != "" {
		var b strings.Builder
		if err := printJSON(&b, doc); err != nil {
			return err
		}
		files = append(files, outFile{out, []byte(b.String())})
	}
	if cHeader != "" {
		hdr, err := csource.ConfigurableHeader(h, csource.Info{Version: generatedBy(), Source: source(h)})
		if err != nil {
			return badInput(err)
		}
		files = append(files, outFile{cHeader, hdr})
	}
	for _, f := range files {
		if err := writeFileAtomic(f.path, f.data); err != nil {
			return err
		}
	}
	if asJSON {
		return printJSON(a.stdout, doc)
	}
	w := a.stdout
	fmt.Fprintf(w, "unit        %s (%s, %d address bits, %d bank bits)\n", h.Name, h.Function, h.AddrBits, h.BankBits)
	fmt.Fprintf(w, "method      %s\n", method)
	fmt.Fprintf(w, "accesses    %d\n", doc.All.Accesses)
	fmt.Fprintf(w, "config      %s\n", doc.All.HashConfig)
	var ports []string
	for _, r := range regs {
		ports = append(ports, r.Port+" = "+doc.All.Ports[r.Port])
	}
	fmt.Fprintf(w, "ports       %s\n", strings.Join(ports, ", "))
	fmt.Fprintf(w, "conflicts   %d before (mod %d), %d after (%s removed)\n", doc.All.ConflictsBefore, 1<<uint(h.BankBits), doc.All.ConflictsAfter,
		percentText(doc.All.RemovedPercent))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "\nkernel\taccesses\tbefore\tafter\tremoved\tconfig (its own)")
	for _, k := range doc.Kernels {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\t%s\n", k.Kernel, k.Accesses, k.ConflictsBefore, k.ConflictsAfter, percentText(k.RemovedPercent), k.HashConfig)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, f := range files {
		fmt.Fprintf(w, "wrote       %s\n", f.path)
	}
	return nil
}
