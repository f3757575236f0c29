package atomics

import (
	"context"
	"errors"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/tools/conflicts"
	"github.com/lsugen/lsugen/tools/study"
)

func memory(t *testing.T, name string) *Memory {
	t.Helper()
	for _, s := range Schemes {
		if s.Name == name {
			m, err := s.Memory(Fermi)
			if err != nil {
				t.Fatal(err)
			}
			return m
		}
	}
	t.Fatalf("no scheme %q", name)
	return nil
}

// The FSM's cycles on Eq. 1's patterns, worked by hand from §III: one
// iteration is Read 32·levels + Update 18 + Write 36·levels + Branch 32.
func TestAtomic_Eq1ByHand(t *testing.T) {
	base, xor := memory(t, "baseline"), memory(t, "xor")
	for _, c := range []struct {
		m                  *Memory
		stride, conflicts  int
		cycles, iterations int
		name               string
	}{
		{base, 0, 1, 118, 1, "no conflict: the paper's base latency"},
		{base, 0, 5, 5 * 118, 5, "five lanes on word 0: five iterations of one level"},
		{base, 32, 7, 32*7 + 18 + 36*7 + 32, 1, "seven words in bank 0, seven locks"},
		// Stride 256: words 0, 256, 512, 768 have four locks, the fifth
		// (1024) shares word 0's: 5 levels then 4 at the write, then one
		// iteration of one level.
		{base, 256, 5, (32*5 + 18 + 36*4 + 32) + 118, 2, "a lock conflict every four bank conflicts"},
		{xor, 32, 32, 118, 1, "the XOR hash removes stride 32's conflicts"},
		// §V.A: with the hash, word 256 moves to bank 8, where lane 8 is.
		{xor, 256, 2, 32*2 + 18 + 36*2 + 32, 1, "word 256 meets lane 8 in bank 8"},
	} {
		r := c.m.Atomic(Eq1(32, c.stride, c.conflicts))
		if r.Cycles != c.cycles || r.Iterations != c.iterations {
			t.Errorf("%s: stride %d, %d conflicts: %d cycles in %d iterations, want %d in %d",
				c.name, c.stride, c.conflicts, r.Cycles, r.Iterations, c.cycles, c.iterations)
		}
	}
}

// The iterations are the most lanes on one lock, and the first read's
// level the bank-conflict degree, as tools/conflicts counts them
// independently.
func TestAtomic_AgreesWithConflictCounters(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for _, s := range Schemes {
		m, err := s.Memory(Fermi)
		if err != nil {
			t.Fatal(err)
		}
		banks, locks := conflicts.NewCounter(m.Bank), conflicts.NewCounter(m.Lock)
		for range 2000 {
			lanes := 1 + rng.IntN(32)
			addrs := make([]uint64, lanes)
			span := uint64(1) << (1 + rng.IntN(14))
			for i := range addrs {
				addrs[i] = rng.Uint64N(min(span, Words))
			}
			r := m.Atomic(addrs)
			if want := locks.LaneDegree(addrs); r.Iterations != want {
				t.Fatalf("%s %v: %d iterations, conflicts counts %d lanes on one lock", s.Name, addrs, r.Iterations, want)
			}
			first := m.Atomic(addrs) // deterministic: the same again
			if first != r {
				t.Fatalf("%s: two runs differ: %+v, %+v", s.Name, r, first)
			}
			if r.Iterations == 1 && r.ReadLevels != banks.Degree(addrs) {
				t.Fatalf("%s %v: read level %d, bank degree %d", s.Name, addrs, r.ReadLevels, banks.Degree(addrs))
			}
		}
	}
}

func run(t *testing.T, s study.Study, set map[string]string) *study.Result {
	t.Helper()
	r, err := s.Run(context.Background(), study.Options{Set: set})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// cell is the value in column col of the row whose first cells are key.
func cell(t *testing.T, tb study.Table, col string, key ...string) string {
	t.Helper()
	v, err := tb.Cell(col, key...)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func speed(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return v
}

// Fig. 7's qualitative claims on a small image: the hash speeds up the
// 256-bin histogram at small replication, the XOR hash slows the padded
// 32-bin one, and the 64-bin baseline is fastest at R between 8 and 32
// (Fig. 4: 16).
func TestHistogram_PaperClaims(t *testing.T) {
	r := run(t, Histogram{}, map[string]string{"width": "256", "height": "256",
		"bins": "32,64,256", "replication": "1,2,4,8,16,32,64"})
	var repl, pad study.Table
	for _, tb := range r.Tables {
		switch {
		case strings.HasPrefix(tb.Title, "replication:"):
			repl = tb
		case strings.HasPrefix(tb.Title, "padding:"):
			pad = tb
		}
	}
	for _, rr := range []string{"2", "4"} {
		if sp := speed(t, cell(t, repl, "xor", "256", rr)); sp <= 1.2 {
			t.Errorf("256 bins, R = %s: XOR speed-up %.2f, want > 1.2", rr, sp)
		}
	}
	slowed := false
	for _, rr := range []string{"2", "4", "8", "16", "32"} {
		slowed = slowed || speed(t, cell(t, pad, "xor", "32", rr)) < 1
	}
	if !slowed {
		t.Error("the XOR hash never slows the padded 32-bin histogram")
	}
	best, bestR := 0.0, ""
	for _, rr := range []string{"1", "2", "4", "8", "16", "32", "64"} {
		c := speed(t, cell(t, repl, "baseline Mcyc", "64", rr))
		if bestR == "" || c < best {
			best, bestR = c, rr
		}
	}
	if bestR != "8" && bestR != "16" && bestR != "32" {
		t.Errorf("the 64-bin baseline is fastest at R = %s, want 8 to 32", bestR)
	}
}

func TestHough_ReplicationSpeedsUpStretchingDoesNot(t *testing.T) {
	r := run(t, Hough{}, map[string]string{"angles": "16", "replication": "1,6"})
	if len(r.Tables) != 2 {
		t.Fatalf("%d tables, want replication and bin-stretching", len(r.Tables))
	}
	if sp := speed(t, cell(t, r.Tables[0], "xor", "6")); sp <= 1.02 {
		t.Errorf("replication R = 6: XOR speed-up %.2f, want > 1.02", sp)
	}
	if sp := speed(t, cell(t, r.Tables[0], "xor", "1")); sp < 0.98 || sp > 1.02 {
		t.Errorf("R = 1: XOR speed-up %.2f, want about 1 (position conflicts only)", sp)
	}
}

func TestStudies_RefuseBadParams(t *testing.T) {
	for _, c := range []struct {
		s    study.Study
		set  map[string]string
		want string
	}{
		{Fig5{}, map[string]string{"stride": "3"}, `unknown parameter "stride"`},
		{Fig5{}, map[string]string{"strides": "0,x"}, `strides: "x" is not an integer`},
		{Fig5{}, map[string]string{"strides": "2000"}, "out of range 0..1024"},
		{Histogram{}, map[string]string{"width": "0"}, "width: 0 is out of range"},
		{Histogram{}, map[string]string{"block": "100"}, "not a multiple of 32"},
		{Histogram{}, map[string]string{"bins": "12288", "replication": "2"}, "no (bins, replication) pair fits"},
		{Hough{}, map[string]string{"replication": "64", "width": "4096", "height": "4096"}, "no replication factor fits"},
		{Hough{}, map[string]string{"angles": "-1"}, "angles: -1 is out of range"},
		{Histogram{}, map[string]string{"width": "8192", "height": "8192", "bins": "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16",
			"replication": "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16"}, "over the limit of"},
	} {
		_, err := c.s.Run(context.Background(), study.Options{Set: c.set})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %v: %v, want an error with %q", c.s.Name(), c.set, err, c.want)
		}
	}
}

func TestHistogram_Cancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Histogram{}.Run(ctx, study.Options{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("%v, want context.Canceled", err)
	}
}

func TestStudies_Deterministic(t *testing.T) {
	set := map[string]string{"angles": "8", "replication": "1,3"}
	a, b := run(t, Hough{}, set), run(t, Hough{}, set)
	ja, _ := a.JSON()
	jb, _ := b.JSON()
	if string(ja) != string(jb) {
		t.Error("two runs of the same parameters differ")
	}
	if _, err := a.SVG(); err != nil {
		t.Error(err)
	}
}

// The paper's XOR scheme is specs/hash_atomics.hcl's atomic_xor with
// specs/locks_002.hcl's lock_xor: given as the user's scheme, they give
// the xor column exactly.
func TestUserScheme_SpecUnitsEqualTheXorScheme(t *testing.T) {
	r := run(t, Fig5{}, map[string]string{"strides": "32,256",
		"bank_hash": "../../../specs/hash_atomics.hcl:atomic_xor", "lock_hash": "../../../specs/locks_002.hcl:lock_xor"})
	tb := r.Tables[0]
	for _, st := range []string{"s32", "s256"} {
		for c := 1; c <= 32; c++ {
			k := strconv.Itoa(c)
			if x, u := cell(t, tb, st+" xor", k), cell(t, tb, st+" user", k); x != u {
				t.Errorf("%s, %d conflicts: xor %s, user %s", st, c, x, u)
			}
		}
	}
	for _, bad := range []map[string]string{
		{"bank_hash": "../../../specs/hash_atomics.hcl:nosuch"},
		{"lock_hash": "../../../specs/hash_configurable.hcl:cfg_rap_w32"},
		{"bank_hash": "nofile.hcl:x"},
	} {
		if _, err := (Fig5{}).Run(context.Background(), study.Options{Set: bad}); !study.IsParamError(err) {
			t.Errorf("%v: %v, want a parameter error", bad, err)
		}
	}
}

// An lsugen trace's accesses are warp atomics: Fig. 5's patterns as
// traces (specs/traces/fig5*_002.trace) take, in all, the cycles of
// Fig. 5's columns summed; an Accel-Sim trace contributes its ATOMS only.
func TestTraces_Fig5TracesSumFig5(t *testing.T) {
	const root = "../../../"
	fig5 := run(t, Fig5{}, map[string]string{"strides": "0,32,256"}).Tables[0]
	var inputs []string
	for _, p := range ExampleTraces {
		inputs = append(inputs, root+p)
	}
	inputs = append(inputs, root+"specs/traces/accelsim/kernelslist.g")
	r, err := Traces{}.Run(context.Background(), study.Options{Inputs: inputs})
	if err != nil {
		t.Fatal(err)
	}
	tb := r.Tables[0]
	for i, st := range []string{"s0", "s32", "s256"} {
		var want int64
		for c := 1; c <= 32; c++ {
			v, _ := strconv.ParseInt(cell(t, fig5, st+" baseline", strconv.Itoa(c)), 10, 64)
			want += v
		}
		name := filepath.Base(ExampleTraces[i])
		if got := cell(t, tb, "baseline kcyc", name); got != strconv.FormatFloat(float64(want)/1e3, 'f', 1, 64) {
			t.Errorf("%s: %s kcycles, want %d cycles (Fig. 5's %s column)", name, got, want, st)
		}
		if got := cell(t, tb, "atomics", name); got != "32" {
			t.Errorf("%s: %s atomics, want 32", name, got)
		}
	}
	// The reduce kernel's two ATOMS; the transpose kernel has none.
	if got := cell(t, tb, "atomics", "kernelslist.g: k2 _Z6reducePi"); got != "2" {
		t.Errorf("reduce kernel: %s atomics, want 2", got)
	}
	if !strings.Contains(strings.Join(r.Notes, "\n"), "no shared-memory atomics in 1 workload (") {
		t.Errorf("the transpose kernel's lack of atomics is not noted: %v", r.Notes)
	}
	_, err = Traces{}.Run(context.Background(), study.Options{Inputs: []string{root + "specs/traces/accelsim/profile_copy.traceg"}})
	if err == nil || !strings.Contains(err.Error(), "no shared-memory atomics") {
		t.Errorf("a trace without atomics: %v", err)
	}
	_, err = Traces{}.Run(context.Background(), study.Options{Set: map[string]string{"bank_bytes": "6"}, Inputs: inputs})
	if !study.IsParamError(err) {
		t.Errorf("bank_bytes=6: %v, want a parameter error", err)
	}
}
