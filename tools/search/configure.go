package search

import (
	"errors"
	"fmt"
	"strings"

	"github.com/lsugen/lsugen/model"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/tools/conflicts"
	"github.com/lsugen/lsugen/tools/trace"
)

// Kernel is the accesses of one kernel (or of a whole trace set) that a
// configurable unit is configured for.
type Kernel struct {
	Name     string
	Accesses [][]uint64
	Kinds    []trace.Kind // each access's; an atomic's lanes are counted apart
}

// UnitConfig is a configuration chosen for a configurable hash unit, as
// its register values, with the conflicts under it.
type UnitConfig struct {
	Kernel              string
	Accesses            int
	Config              *model.HashConfig
	CandidatesEvaluated int64
	// ConflictsBefore is under bank = addr mod 2^bank_bits, ConflictsAfter
	// under Config through the unit's behavioural model, both counted as
	// conflicts counts bank conflicts (conflicts.Counter.AccessDegree).
	ConflictsBefore, ConflictsAfter int64
}

// ErrModelDisagrees is wrapped by ConfigureUnit's error when the unit's
// model, at the register values of a configuration, does not count the
// conflicts the search counted: the values would not be the ones searched.
var ErrModelDisagrees = errors.New("the unit's model disagrees with the search")

// Configurable reports whether the search has a method for configurable
// unit h's function.
func Configurable(h *specs.Hash) bool {
	switch h.Function {
	case BitvectorPerm, BitvectorXor, BitwisePerm, BitwiseXor, specs.RAP:
		return h.Configurable
	}
	return false
}

// ConfigureUnit searches the configuration space of configurable hash
// unit h (its function at its address and bank bits) for the accesses of
// k with method (RowDescent for rap, SearchRAP), and returns the
// configuration as h's register values.
func ConfigureUnit(h *specs.Hash, k Kernel, method string, full bool) (*UnitConfig, error) {
	if !Configurable(h) {
		return nil, fmt.Errorf("hash %q (%s): no search for its configuration", h.Name, h.Function)
	}
	var (
		cfg             *model.HashConfig
		after, searched int64
		evaluated       int64
		err             error
	)
	if h.Function == specs.RAP {
		if method != RowDescent {
			return nil, fmt.Errorf("rap is searched by %s, not %s", RowDescent, method)
		}
		var perm []int
		if perm, evaluated, _, searched, err = SearchRAP(k.Accesses, h.W, h.AddrBits); err != nil {
			return nil, err
		}
		vals := make([]string, len(perm))
		for i, r := range perm {
			vals[i] = fmt.Sprint(r)
		}
		cfg, err = model.ParseHashConfig(h, "perm=["+strings.Join(vals, ",")+"]")
	} else {
		p, err := Prepare(k.Accesses, h.AddrBits, h.BankBits)
		if err != nil {
			return nil, err
		}
		res, err := Search(p, string(h.Function), method, full)
		if err != nil {
			return nil, err
		}
		searched, evaluated = res.ConflictsAfter, res.CandidatesEvaluated
		cfg, err = RegistersOf(h, res.Config)
	}
	if err != nil {
		return nil, fmt.Errorf("hash %q: %w", h.Name, err)
	}
	mapping, err := conflicts.HashUnitAt(h, cfg)
	if err != nil {
		return nil, err
	}
	mod, err := conflicts.Modulo(1 << uint(h.BankBits))
	if err != nil {
		return nil, err
	}
	// The search minimises distinct addresses per bank; the unit's model
	// must count the same at the configuration's register values.
	counter := conflicts.NewCounter(mapping)
	for _, acc := range k.Accesses {
		after += int64(max(counter.Degree(acc)-1, 0))
	}
	if after != searched {
		return nil, fmt.Errorf("hash %q at %s: %w: %d conflicts, the search %d", h.Name, cfg, ErrModelDisagrees, after, searched)
	}
	return &UnitConfig{Kernel: k.Name, Accesses: len(k.Accesses), Config: cfg, CandidatesEvaluated: evaluated,
		ConflictsBefore: bankConflicts(conflicts.NewCounter(mod), k), ConflictsAfter: bankConflicts(counter, k)}, nil
}

// bankConflicts is Σ (degree − 1) over k's accesses, each access's degree
// as conflicts counts it: an atomic's lanes on one address serialise.
func bankConflicts(c *conflicts.Counter, k Kernel) int64 {
	var total int64
	for i, acc := range k.Accesses {
		a := trace.Access{Addrs: acc}
		if i < len(k.Kinds) {
			a.Kind = k.Kinds[i]
		}
		total += int64(max(c.AccessDegree(&a)-1, 0))
	}
	return total
}

// RegistersOf is configuration c as the register values of configurable
// unit h. The search's values fit the registers (shifts and bit indices
// below addr_bits, masks of bank_bits bits); model.ParseHashConfig checks
// them again.
func RegistersOf(h *specs.Hash, c Config) (*model.HashConfig, error) {
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
	case BitvectorPerm:
		parts = append(parts, fmt.Sprintf("k=%d", c.K))
	case BitvectorXor:
		parts = append(parts, fmt.Sprintf("k1=%d", c.K1), fmt.Sprintf("k2=%d", c.K2), fmt.Sprintf("mask=%d", c.Mask))
	case BitwisePerm:
		list("sel", func(e []int) int { return e[0] })
	case BitwiseXor:
		for _, e := range c.Bits {
			if len(e) > 2 {
				return nil, fmt.Errorf("configuration %s XORs %d bits into one bank bit; the unit XORs two", c, len(e))
			}
		}
		// a single bit i is the pair (i, i): the unit XORs two different
		// selections only
		list("sel_a", func(e []int) int { return e[0] })
		list("sel_b", func(e []int) int { return e[len(e)-1] })
	default:
		return nil, fmt.Errorf("no registers for function %q", c.Function)
	}
	return model.ParseHashConfig(h, strings.Join(parts, ","))
}
