package trace

import (
	"slices"
	"testing"

	"github.com/lsugen/lsugen/specs"
)

// TestFromPattern_Paper000 checks expansion and §3.1 class of the §3.2
// examples in patterns_000.hcl against the warp-0 addresses the paper lists.
func TestFromPattern_Paper000(t *testing.T) {
	f, diags := specs.NewLoader().Load("../../specs/patterns_000.hcl")
	if diags.HasErrors() || len(f.Units) != 0 {
		t.Fatalf("%v, %d units", diags, len(f.Units))
	}
	store := []uint64{0, 16, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240}
	for _, a := range slices.Clone(store) {
		store = append(store, a+1)
	}
	want := map[string]struct {
		class string
		warp0 []uint64
	}{
		"transpose_load":  {specs.ClassLinear, nil},
		"transpose_store": {specs.ClassBlock, store},
		"reduction_s1":    {specs.ClassStride, nil},
		"fwt_stride8":     {specs.ClassBlock, []uint64{0, 1, 2, 3, 4, 5, 6, 7, 32, 33, 34, 35, 36, 37, 38, 39, 64, 65, 66, 67, 68, 69, 70, 71, 96, 97, 98, 99, 100, 101, 102, 103}},
	}
	for _, p := range f.Patterns {
		w, ok := want[p.Name]
		if !ok {
			continue
		}
		if p.Class() != w.class {
			t.Errorf("%s: class %s, want %s", p.Name, p.Class(), w.class)
		}
		acc := FromPattern(p)
		if w.warp0 != nil && !slices.Equal(acc[0].Addrs, w.warp0) {
			t.Errorf("%s warp 0: %v", p.Name, acc[0].Addrs)
		}
		if acc[0].Instr != p.Name || acc[0].Line != p.Range.Start.Line {
			t.Errorf("%s: access labelled %q line %d", p.Name, acc[0].Instr, acc[0].Line)
		}
	}
}

// TestFromPattern_RandomDeterministic checks eq. (8) random patterns: same
// seed, same addresses, within [0, Zmax] per coefficient.
func TestFromPattern_RandomDeterministic(t *testing.T) {
	src := `pattern "r" {
  matrix      = [[3, 0], [0, 7]]
  cols        = 64
  block       = [8, 4]
  iterations  = 2
  random_seed = 42
}`
	f, diags := specs.NewLoader().Parse([]byte(src), "r.hcl")
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	p := f.Patterns[0]
	a, b := FromPattern(p), FromPattern(p)
	if p.Class() != specs.ClassRandom || len(a) != 2 || !slices.EqualFunc(a, b, func(x, y Access) bool { return slices.Equal(x.Addrs, y.Addrs) }) {
		t.Fatalf("class %s, %d accesses, repeatable %v", p.Class(), len(a), a)
	}
	for _, s := range a[0].Addrs {
		if s > 3*3*64+7*7 {
			t.Errorf("address %d beyond the Z ranges", s)
		}
	}
}
