package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/lsugen/lsugen/csource"
	"github.com/lsugen/lsugen/gen"
	"github.com/lsugen/lsugen/model"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/tools/search"
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
	switch {
	case !h.Configurable:
		return nil, nil, usagef("--for %s: hash %q is constant: --for configures a configurable unit (configurable = true); search a constant one with --function", ref, h.Name)
	case !search.Configurable(h):
		return nil, nil, usagef("--for %s: hash %q is %s: the search configures bitvector_perm, bitvector_xor, bitwise_perm, bitwise_xor and rap only", ref, h.Name, h.Function)
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

// configureFor configures h for all the kernels together and for each on
// its own (search.ConfigureUnit) and returns the document.
func configureFor(ref string, h *specs.Hash, regs []model.HashRegister, kernels []*searchKernel, method string, full bool) (searchForDoc, error) {
	path, _ := specs.SplitUnitRef(ref)
	doc := searchForDoc{Version: gen.Version, Spec: path, Unit: h.Name, Function: string(h.Function), Method: method, Full: full,
		AddrBits: h.AddrBits, BankBits: h.BankBits}
	for _, r := range regs {
		doc.Registers = append(doc.Registers, searchForRegister{Key: r.Key, Port: r.Port, Fields: r.Fields, FieldBits: r.FieldBits})
	}
	var all search.Kernel
	jobs := []search.Kernel{{}} // all, then each kernel
	for _, k := range kernels {
		all.Accesses = append(all.Accesses, k.accesses...)
		all.Kinds = append(all.Kinds, k.kinds...)
		jobs = append(jobs, search.Kernel{Name: k.name, Accesses: k.accesses, Kinds: k.kinds})
	}
	jobs[0] = all
	for i, k := range jobs {
		c, err := search.ConfigureUnit(h, k, method, full)
		if errors.Is(err, search.ErrModelDisagrees) {
			return doc, err
		} else if err != nil {
			return doc, usagef("%v", err)
		}
		if i == 0 {
			doc.All = searchForConfigOf(c)
		} else {
			doc.Kernels = append(doc.Kernels, searchForConfigOf(c))
		}
	}
	return doc, nil
}

// searchForConfigOf is a configuration in the document's form.
func searchForConfigOf(c *search.UnitConfig) searchForConfig {
	out := searchForConfig{Kernel: c.Kernel, Accesses: c.Accesses, HashConfig: c.Config.String(), Registers: map[string]any{}, Ports: map[string]string{},
		CandidatesEvaluated: c.CandidatesEvaluated, ConflictsBefore: c.ConflictsBefore, ConflictsAfter: c.ConflictsAfter,
		RemovedPercent: search.RemovedPercent(c.ConflictsBefore, c.ConflictsAfter)}
	for i, r := range c.Config.Regs {
		if r.Fields == 1 {
			out.Registers[r.Key] = c.Config.Values[i][0]
		} else {
			out.Registers[r.Key] = c.Config.Values[i]
		}
		out.Ports[r.Port] = c.Config.PortLiteral(i)
	}
	return out
}

// runSearchFor configures hash unit h, writes the document (-o) and the C
// header (--c-header) and prints the report.
func runSearchFor(a *app, ref string, h *specs.Hash, regs []model.HashRegister, kernels []*searchKernel, method string, full, asJSON bool, out, cHeader string) error {
	doc, err := configureFor(ref, h, regs, kernels, method, full)
	if err != nil {
		return err
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
		hdr, err := csource.ConfigurableHeader(h, csource.Info{Version: gen.GeneratedBy(), Source: source(h)})
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
	return writeSearchFor(a.stdout, h, doc, files)
}

// writeSearchFor prints the configuration for all kernels, its port
// values and conflicts, then each kernel's own.
func writeSearchFor(w io.Writer, h *specs.Hash, doc searchForDoc, files []outFile) error {
	fmt.Fprintf(w, "unit        %s (%s, %d address bits, %d bank bits)\n", h.Name, h.Function, h.AddrBits, h.BankBits)
	fmt.Fprintf(w, "method      %s\n", doc.Method)
	fmt.Fprintf(w, "accesses    %d\n", doc.All.Accesses)
	fmt.Fprintf(w, "config      %s\n", doc.All.HashConfig)
	var ports []string
	for _, r := range doc.Registers {
		ports = append(ports, r.Port+" = "+doc.All.Ports[r.Port])
	}
	fmt.Fprintf(w, "ports       %s\n", strings.Join(ports, ", "))
	fmt.Fprintf(w, "conflicts   %d before (mod %d), %d after (%s removed)\n", doc.All.ConflictsBefore, 1<<uint(h.BankBits), doc.All.ConflictsAfter,
		percentText(doc.All.RemovedPercent))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "\nkernel\taccesses\tbefore\tafter\tremoved\tconfig (its own)")
	for _, k := range doc.Kernels {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\t%s\n", escapeText(k.Kernel), k.Accesses, k.ConflictsBefore, k.ConflictsAfter, percentText(k.RemovedPercent), k.HashConfig)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, f := range files {
		if _, err := fmt.Fprintf(w, "wrote       %s\n", f.path); err != nil {
			return err
		}
	}
	return nil
}
