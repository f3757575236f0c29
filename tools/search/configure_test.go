package search

import (
	"math/rand/v2"
	"testing"

	"github.com/lsugen/lsugen/model"
	"github.com/lsugen/lsugen/specs"
)

// TestRegistersOf_MatchesColumns: a configuration of each searched
// function, as a configurable unit's register values, makes the unit's
// model compute the bank the search's columns give, on random addresses,
// for random configurations from the search's spaces (a bitwise_xor pair
// (i, i) included).
func TestRegistersOf_MatchesColumns(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 1))
	const n, m = 14, 5
	for _, fn := range []string{BitvectorPerm, BitvectorXor, BitwisePerm, BitwiseXor} {
		h := &specs.Hash{Name: "u", Function: specs.HashFunction(fn), AddrBits: n, BankBits: m, Configurable: true}
		mod, err := model.ForHash(h)
		if err != nil {
			t.Fatal(err)
		}
		for range 50 {
			c := Config{Function: fn, K: rng.IntN(n - m + 1), K1: rng.IntN(n), K2: rng.IntN(n), Mask: rng.Uint64N(1 << m)}
			for range m {
				i, j := rng.IntN(n), rng.IntN(n)
				if rng.IntN(4) == 0 {
					j = i
				}
				if fn == BitwisePerm {
					c.Bits = append(c.Bits, []int{i})
				} else {
					c.Bits = append(c.Bits, []int{min(i, j), max(i, j)})
				}
			}
			cfg, err := RegistersOf(h, c)
			if err != nil {
				t.Fatalf("%s %s: %v", fn, c, err)
			}
			in := [][]uint64{{0}}
			for i := range cfg.Regs {
				in = append(in, cfg.Port(i))
			}
			out := [][]uint64{{0}}
			cols := c.Columns(n, m)
			for range 200 {
				a := rng.Uint64()
				in[0][0] = a & (1<<n - 1)
				mod.Eval(in, out)
				if want := BankOf(cols, a); out[0][0] != want {
					t.Fatalf("%s %s (%s): addr %#x: model bank %d, columns %d", fn, c, cfg, a, out[0][0], want)
				}
			}
		}
	}
}
