package replay

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
)

// WriteRandomTrace writes an lsugen trace of n random warp accesses of the
// given lanes over words words, in groups of 100 (@g0, @g1, ...): two in
// three at a random base with a stride of 1 to 32 words, one in three at
// random words. It is the synthetic workload of the replay's benchmarks
// (tools/replay, lsugen-bench); the same seed gives the same trace, and a
// shorter trace of the same seed is a prefix of a longer one.
func WriteRandomTrace(w io.Writer, n, lanes, words int, seed uint64) error {
	if n < 0 || lanes < 1 || words < 1 {
		return fmt.Errorf("random trace: %d accesses of %d lanes over %d words", n, lanes, words)
	}
	r := rand.New(rand.NewPCG(seed, 2))
	b := bufio.NewWriter(w)
	var line []byte
	for i := 0; i < n; i++ {
		if i%100 == 0 {
			fmt.Fprintf(b, "@g%d\n", i/100)
		}
		base, stride := r.IntN(words), 1<<r.IntN(6)
		line = line[:0]
		for l := 0; l < lanes; l++ {
			a := base + l*stride
			if i%3 == 2 {
				a = r.IntN(words)
			}
			line = strconv.AppendInt(line, int64(a%words), 10)
			line = append(line, ' ')
		}
		line = append(line, '\n')
		b.Write(line)
	}
	return b.Flush()
}
