package specs

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

func TestZZDump(t *testing.T) {
	files, _ := filepath.Glob(os.Getenv("DUMP"))
	for _, f := range files {
		l := NewLoader()
		out, diags := l.Load(f)
		fmt.Println("==", f)
		for _, d := range diags {
			fmt.Printf("  %v %d:%d: %s | %s\n", d.Severity, d.Subject.Start.Line, d.Subject.Start.Column, d.Summary, d.Detail)
		}
		for _, u := range out.Units {
			h := u.(*Hash)
			fmt.Printf("  unit %s %s addr=%d bank=%d cfg=%v k=%d k1=%d k2=%d mask=%d bits=%v adder=%q w=%d perm=%v seed=%d/%v attrs=%d\n", h.Name, h.Function, h.AddrBits, h.BankBits, h.Configurable, h.K, h.K1, h.K2, h.Mask, h.Bits, h.Adder, h.W, h.Permutation, h.Seed, h.HasSeed, len(h.AttrRanges))
		}
	}
}
