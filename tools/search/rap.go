package search

import (
	"encoding/binary"
	"fmt"
	"slices"
)

// RowDescent is the method of the RAP search: coordinate descent over the
// rows' shifts.
const RowDescent = "row_descent"

// rapSweeps bounds the passes of the descent over the rows, and
// MaxRAPWork the words one pass evaluates (each distinct access once per
// row it reads and shift tried), so that a search ends in seconds.
const (
	rapSweeps  = 8
	MaxRAPWork = 1 << 28
)

// rapAccess is one access's distinct addresses as (row, column) cells, in
// cell order; addresses that differ only above the 2L row and column bits
// are distinct words in one cell. Identical accesses are kept once with
// their weight.
type rapAccess struct {
	row, col []int
	rows     []int // the distinct rows it reads, sorted
	weight   int64
}

// SearchRAP chooses the row shifts r_i of a RAP unit of w = 2^l banks and
// n address bits (bank = (column + r_row) mod w, column = addr[l-1:0],
// row = addr[2l-1:l]) for the accesses, by coordinate descent: starting
// from every r_i = 0 (bank = addr mod w), each pass gives each row in turn
// the shift, of all w, with the fewest conflicts of the accesses that read
// it, then the fewest pairs of words sharing a bank, the others held (its
// current shift on a tie, else the smallest); it stops after a pass that
// changes nothing, or after rapSweeps passes. The conflicts never grow
// from pass to pass. It returns the shifts, the candidates evaluated and
// the conflicts (distinct addresses) before and after; more than
// MaxRAPWork words to evaluate per pass is an error.
func SearchRAP(accesses [][]uint64, w, n int) (perm []int, evaluated, before, after int64, err error) {
	l := 0
	for 1<<l < w {
		l++
	}
	if w < 2 || 1<<l != w || w > 1<<MaxBankBits || n < 2*l || n > MaxAddrBits {
		return nil, 0, 0, 0, fmt.Errorf("rap w = %d with %d address bits: want a power of two from 2 to 2^%d and at least 2·log2(w) address bits", w, n, MaxBankBits)
	}
	mask := uint64(w - 1)
	var accs []rapAccess
	index := map[string]int{}
	byRow := make([][]int, w) // the accesses that read each row
	var work int64
	var key []byte
	for _, acc := range accesses {
		d := slices.Clone(acc)
		slices.Sort(d)
		d = slices.Compact(d)
		if len(d) < 2 {
			continue
		}
		cells := make([]uint64, len(d))
		for i, x := range d {
			cells[i] = x & (mask<<uint(l) | mask)
		}
		slices.Sort(cells)
		key = key[:0]
		for _, c := range cells {
			key = binary.LittleEndian.AppendUint32(key, uint32(c))
		}
		if i, ok := index[string(key)]; ok {
			accs[i].weight++
			continue
		}
		a := rapAccess{weight: 1}
		for _, c := range cells {
			a.col = append(a.col, int(c&mask))
			a.row = append(a.row, int(c>>uint(l)))
		}
		a.rows = slices.Compact(slices.Clone(a.row))
		for _, r := range a.rows {
			byRow[r] = append(byRow[r], len(accs))
		}
		work += int64(w) * int64(len(a.rows)) * int64(len(cells))
		if work > MaxRAPWork {
			return nil, 0, 0, 0, fmt.Errorf("rap w = %d: more than %d word evaluations per pass of the row descent: too many distinct accesses; search fewer kernels at a time", w, MaxRAPWork)
		}
		index[string(key)] = len(accs)
		accs = append(accs, a)
	}
	perm = make([]int, w)
	count := make([]int, w)
	// cost is an access's conflicts and, to break the ties of a move that
	// lowers no access's largest bank, the pairs of its words sharing a
	// bank: without it the descent stops on a plateau (a column read of
	// every row gains nothing from the second row moved off bank 0).
	cost := func(a *rapAccess) (conflicts, pairs int64) {
		most := 0
		for k := range a.col {
			b := (a.col[k] + perm[a.row[k]]) & (w - 1)
			pairs += int64(count[b])
			count[b]++
			most = max(most, count[b])
		}
		for k := range a.col {
			count[(a.col[k]+perm[a.row[k]])&(w-1)] = 0
		}
		return a.weight * int64(most-1), a.weight * pairs
	}
	total := func() int64 {
		var t int64
		for i := range accs {
			c, _ := cost(&accs[i])
			t += c
		}
		return t
	}
	before = total()
	for range rapSweeps {
		changed := false
		for row := range w {
			if len(byRow[row]) == 0 {
				continue
			}
			cur := perm[row]
			type score struct{ conflicts, pairs int64 }
			less := func(a, b score) bool {
				return a.conflicts < b.conflicts || a.conflicts == b.conflicts && a.pairs < b.pairs
			}
			scores := make([]score, w)
			for r := range w {
				perm[row] = r
				for _, i := range byRow[row] {
					c, p := cost(&accs[i])
					scores[r].conflicts += c
					scores[r].pairs += p
				}
				evaluated++
			}
			best := cur // a change only for a better score: the descent ends
			for r := range w {
				if less(scores[r], scores[best]) {
					best = r
				}
			}
			changed = changed || best != cur
			perm[row] = best
		}
		if !changed {
			break
		}
	}
	return perm, evaluated, before, total(), nil
}
