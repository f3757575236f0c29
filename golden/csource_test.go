package golden

import (
	"path/filepath"
	"strconv"
	"testing"

	"github.com/sebdah/goldie/v2"

	"github.com/lsugen/lsugen/csource"
	"github.com/lsugen/lsugen/gen"
	"github.com/lsugen/lsugen/specs"
)

// cHeaderUnits are the example units whose C headers are kept in
// golden/csource, one for each way a header computes the bank: shifts and
// masks of the whole address, one shifted XOR a bank bit, the parity
// helper (an XOR matrix and an ipoly), an add, rap's table with its
// permuted address, and mod's division.
var cHeaderUnits = map[string]string{
	"transpose_bvxor":   "specs/hash_table5.hcl",
	"hist256_bwxor":     "specs/hash_table5.hcl",
	"ipoly_x5_x2_1":     "specs/hash_atomics.hcl",
	"atomic_add_ripple": "specs/hash_atomics.hcl",
	"rap_w4_fig6":       "specs/rap.hcl",
	"ipoly16_gpgpusim":  "specs/hash_ipoly_mod.hcl",
	"mod17":             "specs/hash_ipoly_mod.hcl",
}

// TestGolden_CHeaders compares the headers `lsugen gen --c` writes for
// cHeaderUnits, run from the repository root, with golden/csource.
func TestGolden_CHeaders(t *testing.T) {
	t.Chdir("..")
	g := goldie.New(t, goldie.WithFixtureDir("golden/csource"), goldie.WithNameSuffix(".golden"))
	want := map[string]bool{}
	defer func() { checkNoStale(t, want, "golden/csource") }()
	for name, path := range cHeaderUnits {
		file, diags := specs.NewLoader().Load(path)
		if diags.HasErrors() {
			t.Fatalf("%s: %s", path, diags.Error())
		}
		var h *specs.Hash
		for _, u := range file.Units {
			if u.UnitName() == name {
				h, _ = u.(*specs.Hash)
			}
		}
		if h == nil {
			t.Fatalf("%s declares no hash unit %s", path, name)
		}
		r := h.DeclRange()
		b, err := csource.Header(h, csource.Info{Version: "lsugen " + gen.Version, Source: filepath.ToSlash(r.Filename) + ":" + strconv.Itoa(r.Start.Line)})
		if err != nil {
			t.Fatal(err)
		}
		g.Assert(t, csource.FileName(h), b)
		want["golden/csource/"+csource.FileName(h)+".golden"] = true
	}
}
