package gen

import (
	"context"
	"fmt"
	"github.com/lsugen/lsugen/internal/testenv"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lsugen/lsugen/rtl"
	"github.com/lsugen/lsugen/verify/formal"
)

// TestMod_GatesEqualVerilogDivision proves with Yosys and ABC that the
// gate netlist of two mod units over 9 address bits equals a behavioural
// module that says only `addr_i % BANKS` and `addr_i / BANKS`, which Yosys
// turns into its own divider: 24 banks (3 bits passed through, folding by
// 3) and 17 (folding by 255, then restoring division of the residue by
// 17: every kind of stage). With the RTL = gates proof of `lsugen verify
// --formal`, the readable RTL is then proven too. About a second each
// (Yosys), so two units, in parallel.
func TestMod_GatesEqualVerilogDivision(t *testing.T) {
	for _, banks := range []int{17, 24} {
		t.Run(fmt.Sprint(banks), func(t *testing.T) {
			t.Parallel()
			const addrBits = 9
			h := modSpec(addrBits, banks)
			d, diags := Hash(h)
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			dir := t.TempDir()
			var gates strings.Builder
			if err := rtl.WriteGates(&gates, d, rtl.Info{Version: "lsugen test", Source: "hash_mod_formal_test.go"}); err != nil {
				t.Fatal(err)
			}
			bank, index := d.Port("bank_o").Width(), d.Port("index_o").Width()
			ref := fmt.Sprintf(`module %s (
    input  wire [%d:0] addr_i,
    output wire [%d:0] bank_o,
    output wire [%d:0] index_o
);
    assign bank_o = addr_i %% %d'd%d;
    assign index_o = addr_i / %d'd%d;
endmodule
`, d.Name, addrBits-1, bank-1, index-1, addrBits, banks, addrBits, banks)
			u := formal.Unit{Design: d, RTL: filepath.Join(dir, "reference.v"), Gates: filepath.Join(dir, rtl.GatesFileName(d))}
			if err := os.WriteFile(u.RTL, []byte(ref), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(u.Gates, []byte(gates.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			res, err := formal.Prove(context.Background(), u, formal.Options{Dir: dir, Timeout: testenv.Limit(10 * time.Minute), NoCache: true})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Equivalent {
				t.Fatalf("%d banks: gates differ from %% and /:\n%s", banks, res.Cex)
			}
			t.Logf("%d banks: %s in %v", banks, res.Method, res.Elapsed.Round(time.Millisecond))
		})
	}
}
