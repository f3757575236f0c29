package conflicts

import (
	"strings"
	"testing"

	"github.com/lsugen/lsugen/tools/trace"
)

// TestPasses_Ideal: the ideal passes of an access are its words (lanes,
// for an atomic) spread evenly over the banks, ceil(n / banks), and the
// degree never falls below them.
func TestPasses_Ideal(t *testing.T) {
	words := func(n, stride int) []uint64 {
		a := make([]uint64, n)
		for i := range a {
			a[i] = uint64(i * stride)
		}
		return a
	}
	for _, tc := range []struct {
		name          string
		banks         int
		a             trace.Access
		degree, ideal int
	}{
		{"32 consecutive words, 32 banks", 32, trace.Access{Addrs: words(32, 1)}, 1, 1},
		{"32 consecutive words, 16 banks", 16, trace.Access{Addrs: words(32, 1)}, 2, 2},
		{"a column, 32 banks", 32, trace.Access{Addrs: words(32, 32)}, 32, 1},
		{"32 lanes on one word: a broadcast", 32, trace.Access{Addrs: make([]uint64, 32)}, 1, 1},
		{"32 atomic lanes on one word", 32, trace.Access{Addrs: make([]uint64, 32), Kind: trace.KindAtomic}, 32, 1},
		{"40 atomic lanes, 17 banks", 17, trace.Access{Addrs: words(40, 1), Kind: trace.KindAtomic}, 3, 3},
		{"empty", 32, trace.Access{}, 0, 0},
	} {
		d, i := NewCounter(mod(t, tc.banks)).Passes(&tc.a)
		if d != tc.degree || i != tc.ideal {
			t.Errorf("%s: degree %d, ideal %d; want %d, %d", tc.name, d, i, tc.degree, tc.ideal)
		}
	}
}

// TestDemangle: CUDA kernels' Itanium names demangle; a name that is not
// mangled, a broken one and a long hostile one give "".
func TestDemangle(t *testing.T) {
	for name, want := range map[string]string{
		"_Z9transposePfS_":                      "transpose(float*, float*)",
		"_Z13lud_perimeterPfii":                 "lud_perimeter(float*, int, int)",
		"_Z8mult_gpuIfEvPT_S1_S1_ii":            "void mult_gpu<float>(float*, float*, float*, int, int)",
		"vectorAdd":                             "",
		"_Z":                                    "",
		"_Z9trans":                              "",
		"_Z" + strings.Repeat("P", 60000) + "i": "",
		"_Z1f" + strings.Repeat("S_", 8000):     "",
		"_Z9transposePfS_\x1b[31m":              "",
		"_Z4\x1b[2Jv":                           "",
	} {
		if got := Demangle(name); got != want {
			t.Errorf("Demangle(%.40q) = %.80q, want %q", name, got, want)
		}
	}
}

// TestSortCompare: Sort keeps ties in order and cuts to top; Compare
// sorts by the largest improvement and refuses reports of other inputs.
func TestSortCompare(t *testing.T) {
	rep := func(excess ...int) *Report {
		in := InputReport{File: "f"}
		for i, e := range excess {
			it := InstrTotals{InstrID: InstrID{Instr: string(rune('a' + i))}}
			it.ExcessWavefronts, it.Wavefronts = e, e+1
			in.Instrs = append(in.Instrs, it)
		}
		return &Report{Inputs: []InputReport{in}}
	}
	r := rep(1, 5, 3, 5)
	if err := r.Sort("excess", 3); err != nil {
		t.Fatal(err)
	}
	var got string
	for _, it := range r.Inputs[0].Instrs {
		got += it.Instr
	}
	if got != "bdc" || r.Inputs[0].InstrsOmitted != 1 {
		t.Errorf("sorted %s, %d omitted; want bdc, 1", got, r.Inputs[0].InstrsOmitted)
	}
	if err := r.Sort("size", 0); err == nil {
		t.Error("sort key size accepted")
	}
	d, err := Compare(rep(4, 6, 2), rep(4, 1, 0), 0)
	if err != nil {
		t.Fatal(err)
	}
	got = ""
	for _, row := range d.Inputs[0].Instrs {
		got += row.Instr
	}
	if got != "bca" || d.Inputs[0].Instrs[0].Change != -5 {
		t.Errorf("diff order %s (%+v), want bca", got, d.Inputs[0].Instrs)
	}
	if _, err := Compare(rep(1, 2), rep(1), 0); err == nil {
		t.Error("reports of different inputs compared")
	}
}
