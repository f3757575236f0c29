package atomics

import (
	"fmt"
	"strings"

	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/tools/conflicts"
	"github.com/lsugen/lsugen/tools/study"
)

// Fermi's shared memory (§II): 48 KB of 4-byte words in 32 banks, 1024
// locks.
const (
	Banks     = 32
	BankBits  = 5
	LockBits  = 10
	Words     = 48 * 1024 / 4
	wordBits  = 14 // 12288 words need 14 address bits
	lockWidth = 15 // the lock hash XORs or adds address bits 14:10 into lock bits 4:0
)

// Scheme is one addressing of banks and locks of §IV.
type Scheme struct {
	Name string
	// About says what it computes, for the report.
	About string
	bank  *specs.Hash // nil: the word address mod 32
	lock  *specs.Hash // nil: address bits 9:0
	// lockAdd: the lock is the bank hash's ADD applied to address bits
	// 4:0 and 14:10, bits 9:5 kept (no ADD lock unit is among the specs).
	lockAdd bool
}

// Schemes are the paper's three: the baseline and its two hashes (Table I,
// Fig. 6). The hashes are lsugen's hash units, evaluated by their
// behavioural models (conflicts.HashUnit): the bank hash is
// specs/hash_atomics.hcl's atomic_xor or atomic_add_ripple, the XOR lock
// hash specs/locks_002.hcl's lock_xor.
var Schemes = []Scheme{
	{Name: "baseline", About: "bank = addr mod 32, lock = addr bits 9:0"},
	{
		Name: "xor", About: "bank = addr[4:0] ^ addr[9:5], lock = {addr[9:5], addr[4:0] ^ addr[14:10]}",
		bank: &specs.Hash{Name: "atomic_xor", Function: specs.FixedXor, AddrBits: wordBits, BankBits: BankBits},
		lock: &specs.Hash{Name: "lock_xor", Function: specs.XorMatrix, AddrBits: lockWidth, BankBits: LockBits,
			Bits: [][]int{{0, 10}, {1, 11}, {2, 12}, {3, 13}, {4, 14}, {5}, {6}, {7}, {8}, {9}}},
	},
	{
		Name: "add", About: "bank = addr[4:0] + addr[9:5] mod 32, lock = {addr[9:5], addr[4:0] + addr[14:10] mod 32}",
		bank:    &specs.Hash{Name: "atomic_add_ripple", Function: specs.Add, AddrBits: wordBits, BankBits: BankBits, Adder: specs.AdderRipple},
		lockAdd: true,
	},
}

// Memory is a new Memory under s with latencies lat. Each call builds its
// own mappings (a hash unit's mapping memoizes and is not safe to share).
func (s Scheme) Memory(lat Latencies) (*Memory, error) {
	var bank, lock conflicts.Mapping
	var err error
	if s.bank == nil {
		bank, err = conflicts.Modulo(Banks)
	} else {
		bank, err = conflicts.HashUnit(s.bank)
	}
	if err != nil {
		return nil, fmt.Errorf("%s bank hash: %w", s.Name, err)
	}
	switch {
	case s.lockAdd:
		add, err := conflicts.HashUnit(s.bank)
		if err != nil {
			return nil, err
		}
		lock = conflicts.Mapping{Name: "add lock", Size: 1 << LockBits, Map: func(a uint64) uint32 {
			// atomic_add adds its address bits 4:0 and 9:5.
			lo := add.Map(a&0x1f | (a>>10&0x1f)<<5)
			return uint32(a&0x3e0) | lo
		}}
	case s.lock == nil:
		lock, err = conflicts.LowBits(LockBits)
	default:
		lock, err = conflicts.HashUnit(s.lock)
	}
	if err != nil {
		return nil, fmt.Errorf("%s lock hash: %w", s.Name, err)
	}
	return &Memory{Bank: bank, Lock: lock, Lat: lat}, nil
}

// hashParams are the parameters that add the user's own scheme beside
// the paper's three: a bank hash unit and a lock hash unit of a spec
// file, SPEC:UNIT (or SPEC alone when it declares one hash).
var hashParams = []study.Param{
	{Name: "bank_hash", Default: "", Help: "SPEC:UNIT, a constant hash unit: adds a scheme \"user\" with its banks (locks: lock_hash, else address bits 9:0)"},
	{Name: "lock_hash", Default: "", Help: "SPEC:UNIT, a constant hash unit: the user scheme's locks, 2^bank_bits of them (Fermi: 1024)"},
}

// runSchemes are the paper's three and, with bank_hash or lock_hash, the
// user's.
func runSchemes(opt study.Options, ps []study.Param) ([]Scheme, error) {
	bankRef, lockRef := opt.Value(ps, "bank_hash"), opt.Value(ps, "lock_hash")
	if bankRef == "" && lockRef == "" {
		return Schemes, nil
	}
	user := Scheme{Name: "user"}
	var about []string
	var err error
	if bankRef != "" {
		if user.bank, err = loadHash("bank_hash", bankRef); err != nil {
			return nil, err
		}
		about = append(about, "bank = hash "+user.bank.Name)
	} else {
		about = append(about, "bank = addr mod 32")
	}
	if lockRef != "" {
		if user.lock, err = loadHash("lock_hash", lockRef); err != nil {
			return nil, err
		}
		about = append(about, "lock = hash "+user.lock.Name)
	} else {
		about = append(about, "lock = addr bits 9:0")
	}
	user.About = strings.Join(about, ", ")
	if _, err := user.Memory(Fermi); err != nil { // a configurable unit, a bad width
		return nil, study.Paramf("%v", err)
	}
	return append(append([]Scheme{}, Schemes...), user), nil
}

// loadHash loads the hash unit ref names.
func loadHash(param, ref string) (*specs.Hash, error) {
	path, name := specs.SplitUnitRef(ref)
	if path == "" {
		return nil, study.Paramf("%s %q: want SPEC:UNIT", param, ref)
	}
	file, diags := specs.NewLoader().Load(path)
	if diags.HasErrors() {
		return nil, study.Paramf("%s: %s", param, diags.Error())
	}
	u, err := specs.FindUnit(file.Units, name, "hash", path)
	if err != nil {
		return nil, study.Paramf("%s: %v", param, err)
	}
	h, ok := u.(*specs.Hash)
	if !ok {
		return nil, study.Paramf("%s: %s is not a hash unit", param, ref)
	}
	return h, nil
}

// names are the schemes' names.
func names(ss []Scheme) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s.Name
	}
	return out
}
