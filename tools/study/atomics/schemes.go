package atomics

import (
	"fmt"

	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/tools/conflicts"
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
