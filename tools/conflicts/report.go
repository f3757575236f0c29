package conflicts

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	// The demangler of the Go project's own pprof and cmd tools, by the
	// author of the Go runtime's C++ support: kept up to date with the
	// Itanium C++ ABI that nvcc mangles kernel names in, fuzzed, and with
	// a limit on its output, so that a hostile kernel name stays bounded.
	"github.com/ianlancetaylor/demangle"
)

// maxDemangleInput bounds the kernel names Demangle tries: a kernel name
// of real templates (CUTLASS) runs to a few KiB; a longer one is left as
// traced.
const maxDemangleInput = 16 << 10

// Demangle returns the C++ name a mangled kernel name stands for
// (_Z9transposePfS_ -> transpose(float*, float*)), or "" when name is
// not a mangled C++ name (an extern "C" kernel, a hand-written trace's
// name). The result is at most 64 KiB.
func Demangle(name string) (out string) {
	if !strings.HasPrefix(name, "_Z") || len(name) > maxDemangleInput {
		return ""
	}
	// Itanium names are printable ASCII: anything else (a terminal escape
	// in a hostile trace) is not demangled into a second copy.
	for i := 0; i < len(name); i++ {
		if name[i] <= ' ' || name[i] > '~' {
			return ""
		}
	}
	defer func() {
		if recover() != nil { // the library's bug must not end the report
			out = ""
		}
	}()
	s, err := demangle.ToString(name, demangle.NoRust, demangle.MaxLength(16))
	if err != nil || s == name {
		return ""
	}
	return s
}

// SortKeys are the orders Sort takes, each with what it sorts by: the
// larger first, but "pc", by kernel id then PC.
var SortKeys = []string{"excess", "wavefronts", "requests", "pc", "way"}

// Sort orders each input's instructions by key (one of SortKeys; ties
// keep their order of first appearance) and keeps the first top of them
// (all when top is 0), counting the others in InstrsOmitted. The kernels'
// and inputs' totals are not changed.
func (r *Report) Sort(key string, top int) error {
	var less func(a, b *InstrTotals) int
	desc := func(f func(*InstrTotals) int) func(a, b *InstrTotals) int {
		return func(a, b *InstrTotals) int { return cmp.Compare(f(b), f(a)) }
	}
	switch key {
	case "excess":
		less = desc(func(t *InstrTotals) int { return t.ExcessWavefronts })
	case "wavefronts":
		less = desc(func(t *InstrTotals) int { return t.Wavefronts })
	case "requests":
		less = desc(func(t *InstrTotals) int { return t.Requests })
	case "way":
		less = desc(func(t *InstrTotals) int { return t.MaxBankDegree })
	case "pc":
		less = comparePC
	default:
		return fmt.Errorf("sort key %q: want one of %s", key, strings.Join(SortKeys, ", "))
	}
	if top < 0 {
		return fmt.Errorf("top %d: want 0 (all) or more", top)
	}
	for i := range r.Inputs {
		in := &r.Inputs[i]
		slices.SortStableFunc(in.Instrs, func(a, b InstrTotals) int { return less(&a, &b) })
		if top > 0 && len(in.Instrs) > top {
			in.InstrsOmitted += len(in.Instrs) - top
			in.Instrs = in.Instrs[:top]
		}
	}
	return nil
}

// comparePC orders by kernel id, then PC; groups without a PC (lsugen
// traces and patterns) keep their order after those with one.
func comparePC(a, b *InstrTotals) int {
	if (a.PC == nil) != (b.PC == nil) {
		if a.PC == nil {
			return 1
		}
		return -1
	}
	if a.PC == nil {
		return 0
	}
	return cmp.Or(cmp.Compare(*a.KernelID, *b.KernelID), cmp.Compare(*a.PC, *b.PC))
}

// DiffRow is one instruction group under two bank mappings, A and B.
type DiffRow struct {
	InstrID
	// Requests is the warp-level instructions executed, the same under
	// both mappings.
	Requests int `json:"requests"`
	// ExcessA and ExcessB are the excess wavefronts under mapping A and
	// under B; Change is ExcessB - ExcessA (negative: B removes conflicts).
	ExcessA int `json:"excess_a"`
	ExcessB int `json:"excess_b"`
	Change  int `json:"change"`
	// WavefrontsA and WavefrontsB are the bank passes under A and B.
	WavefrontsA int `json:"wavefronts_a"`
	WavefrontsB int `json:"wavefronts_b"`
}

// DiffInput is the comparison of one input.
type DiffInput struct {
	File string `json:"file"`
	// Instrs are the instruction groups, the largest improvement (most
	// negative Change) first; ties in order of first appearance.
	Instrs []DiffRow `json:"instrs"`
	// InstrsOmitted counts the groups --top left out of Instrs.
	InstrsOmitted int `json:"instrs_omitted,omitempty"`
	// Total compares the whole input.
	Total DiffRow `json:"total"`
}

// Diff compares two analyses of the same inputs under bank mappings A and
// B (conflicts --diff).
type Diff struct {
	BanksA    string      `json:"banks_a"`
	NumBanksA int         `json:"num_banks_a"`
	BanksB    string      `json:"banks_b"`
	NumBanksB int         `json:"num_banks_b"`
	BankBytes int         `json:"bank_bytes,omitempty"`
	Inputs    []DiffInput `json:"inputs"`
	// Total compares every input together.
	Total DiffRow `json:"total"`
}

// Compare joins a and b, two reports of the same inputs in the same order
// under two mappings, per instruction group, sorted by the largest
// improvement from a to b, and keeps the first top groups of each input
// (all when top is 0). a and b must not have been cut by Sort.
func Compare(a, b *Report, top int) (*Diff, error) {
	if len(a.Inputs) != len(b.Inputs) {
		return nil, fmt.Errorf("compare: %d inputs against %d", len(a.Inputs), len(b.Inputs))
	}
	d := &Diff{BanksA: a.Banks, NumBanksA: a.NumBanks, BanksB: b.Banks, NumBanksB: b.NumBanks, BankBytes: a.BankBytes,
		Inputs: []DiffInput{}, Total: diffTotals("total", a.Total, b.Total)}
	for i := range a.Inputs {
		ia, ib := &a.Inputs[i], &b.Inputs[i]
		if ia.File != ib.File || len(ia.Instrs) != len(ib.Instrs) {
			return nil, fmt.Errorf("compare: input %d differs (%s, %d groups; %s, %d groups)", i, ia.File, len(ia.Instrs), ib.File, len(ib.Instrs))
		}
		inB := make(map[string]*InstrTotals, len(ib.Instrs))
		for j := range ib.Instrs {
			inB[ib.Instrs[j].Instr] = &ib.Instrs[j]
		}
		out := DiffInput{File: ia.File, Instrs: make([]DiffRow, 0, len(ia.Instrs)), Total: diffTotals("total", ia.Total, ib.Total)}
		for j := range ia.Instrs {
			x := &ia.Instrs[j]
			y, ok := inB[x.Instr]
			if !ok {
				return nil, fmt.Errorf("compare: %s: group %q under one mapping only", ia.File, x.Instr)
			}
			r := diffTotals(x.Instr, x.Totals, y.Totals)
			r.InstrID = x.InstrID
			out.Instrs = append(out.Instrs, r)
		}
		slices.SortStableFunc(out.Instrs, func(p, q DiffRow) int { return cmp.Compare(p.Change, q.Change) })
		if top > 0 && len(out.Instrs) > top {
			out.InstrsOmitted = len(out.Instrs) - top
			out.Instrs = out.Instrs[:top]
		}
		d.Inputs = append(d.Inputs, out)
	}
	return d, nil
}

// diffTotals compares the totals of one group (or input) under A and B.
func diffTotals(name string, a, b Totals) DiffRow {
	return DiffRow{InstrID: InstrID{Instr: name}, Requests: a.Requests, ExcessA: a.ExcessWavefronts, ExcessB: b.ExcessWavefronts,
		Change: b.ExcessWavefronts - a.ExcessWavefronts, WavefrontsA: a.Wavefronts, WavefrontsB: b.Wavefronts}
}
