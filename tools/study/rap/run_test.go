package rap

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/tools/rapsim"
	"github.com/lsugen/lsugen/tools/study"
)

// small is a quick configuration of rap-dmm for the tests.
var small = map[string]string{"w": "16", "trials": "20", "mc-w": "16,32", "mc-trials": "300"}

func with(extra map[string]string) study.Options {
	set := map[string]string{}
	for k, v := range small {
		set[k] = v
	}
	for k, v := range extra {
		set[k] = v
	}
	return study.Options{Set: set}
}

// TestDMMTime_Figure3 is the paper's Figure 3: W(0)'s requests take two
// stages (m[7] and m[15] share bank 3), W(1)'s one, so 3 + 5 − 1 = 7.
func TestDMMTime_Figure3(t *testing.T) {
	tab := timingTable(32, 5)
	want := [][]string{
		{"Figure 3's two warps", "4", "5", "2", "3", "7", "7"},
		{"contiguous access", "32", "5", "32", "32", "36", "36"},
		{"stride access", "32", "5", "32", "1024", "1028", "1028"},
		{"diagonal access", "32", "5", "32", "32", "36", "36"},
	}
	for i, row := range want {
		if strings.Join(tab.Rows[i], "|") != strings.Join(row, "|") {
			t.Errorf("row %d = %v, want %v", i, tab.Rows[i], row)
		}
	}
}

// TestDMMTime_Waits checks the cases where k + l − 1 does not hold: a
// thread waits for its previous request, and the pipeline idles.
func TestDMMTime_Waits(t *testing.T) {
	cases := []struct {
		stages [][]int
		l      int
		want   int
	}{
		{[][]int{{1, 1}}, 5, 10},         // second access sent at 6, when the first completed
		{[][]int{{2}, {1}}, 5, 7},        // Figure 3
		{[][]int{{1, 1}, {1, 1}}, 2, 5},  // units 1..4 back to back: 4 + 2 − 1
		{[][]int{{3, 1}, {0, 2}}, 4, 10}, // W1's empty access is skipped; W0 waits until 7
		{nil, 5, 0},
	}
	for _, c := range cases {
		if got := dmmTime(c.stages, c.l); got != c.want {
			t.Errorf("dmmTime(%v, %d) = %d, want %d", c.stages, c.l, got, c.want)
		}
	}
}

func TestCongestion_MergesEqualAddresses(t *testing.T) {
	cc := newCongestionCounter(4, 16)
	// Figure 2 (3): every thread reads m[5]: one request.
	if got := cc.of([]request{{5, 1}, {5, 1}, {5, 1}, {5, 1}}); got != 1 {
		t.Errorf("same address: %d, want 1", got)
	}
	// Figure 2 (2): four addresses in bank 1.
	if got := cc.of([]request{{1, 1}, {5, 1}, {9, 1}, {13, 1}}); got != 4 {
		t.Errorf("one bank: %d, want 4", got)
	}
}

// TestTransposes_TableIII checks the cells of Table III that hold in every
// draw, and that RAS's and RAP's random ones lie where the paper puts them.
func TestTransposes_TableIII(t *testing.T) {
	const w, l = 16, 3
	tr, err := Transposes(context.Background(), w, l, 40, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	get := func(a Algorithm, m rapsim.Mapping) TransposeResult {
		for _, r := range tr {
			if r.Algorithm == a && r.Mapping == m {
				return r
			}
		}
		t.Fatalf("no %s %s", a, m)
		return TransposeResult{}
	}
	exact := []struct {
		a           Algorithm
		m           rapsim.Mapping
		read, write int
		time        float64
	}{
		{CRSW, rapsim.RAW, 1, w, w + w*w + l - 1},
		{SRCW, rapsim.RAW, w, 1, w*w + w + l - 1},
		{DRDW, rapsim.RAW, 1, 1, 2*w + l - 1},
		{CRSW, rapsim.RAP, 1, 1, 2*w + l - 1},
		{SRCW, rapsim.RAP, 1, 1, 2*w + l - 1},
	}
	for _, e := range exact {
		r := get(e.a, e.m)
		if r.ReadCongestion != float64(e.read) || r.ReadMax != e.read || r.WriteCongestion != float64(e.write) || r.WriteMax != e.write || r.Time != e.time {
			t.Errorf("%s %s: read %v (max %d), write %v (max %d), time %v; want %d, %d, %v", e.a, e.m,
				r.ReadCongestion, r.ReadMax, r.WriteCongestion, r.WriteMax, r.Time, e.read, e.write, e.time)
		}
	}
	// Random cells: Table II's stride and diagonal means at w = 16 are
	// about 3.1 and 3.2; 40 draws of 16 warps put the mean within ±0.3.
	random := []struct {
		a    Algorithm
		m    rapsim.Mapping
		read bool
	}{{CRSW, rapsim.RAS, false}, {SRCW, rapsim.RAS, true}, {DRDW, rapsim.RAS, true}, {DRDW, rapsim.RAP, true}, {DRDW, rapsim.RAP, false}}
	for _, c := range random {
		r := get(c.a, c.m)
		g := r.WriteCongestion
		if c.read {
			g = r.ReadCongestion
		}
		if g < 2.8 || g > 3.5 {
			t.Errorf("%s %s: congestion %v, want about 3.1", c.a, c.m, g)
		}
	}
}

func TestRandomNumbers_TableIV(t *testing.T) {
	want := map[rapsim.Mapping]int{rapsim.RAW: 0, rapsim.RAS: 32768, rapsim.P1: 32, rapsim.R1P: 32, rapsim.P3: 96, rapsim.W2P: 32768, rapsim.P1W2R: 1056}
	for _, m := range rapsim.Array4Mappings {
		if _, n := RandomNumbers(m, 32); n != want[m] {
			t.Errorf("%s: %d random numbers, want %d", m, n, want[m])
		}
	}
}

// TestTheorem2 checks the bound against values worked by hand:
// e²·ln 32 / ln ln 32 = 7.389·3.466/1.243 = 20.60.
func TestTheorem2(t *testing.T) {
	th, b := theorem2(32)
	if th < 20.59 || th > 20.61 || b < 42.2 || b > 42.22 {
		t.Errorf("theorem2(32) = %v, %v; want 20.60, 42.21", th, b)
	}
}

func TestRun_RefusesBadParameters(t *testing.T) {
	cases := map[string]string{
		"w=24":        "w = 24: want a power of two in 4..256",
		"w=512":       `w = "512": want a whole number in 4..256`,
		"latency=0":   `latency = "0": want a whole number in 1..1000`,
		"trials=x":    `trials = "x"`,
		"mc-w=16,16":  "mc-w: 16 given twice",
		"mc-w=2":      `mc-w = "2": want a whole number in 4..1024`,
		"mc-w=48":     "mc-w = 48: want powers of two",
		"mc-trials=0": `mc-trials = "0"`,
		"seed=-1":     `seed = "-1"`,
		"banks=4":     `unknown parameter "banks"`,
	}
	_, err := DMM{}.Run(context.Background(), with(map[string]string{"w": "256", "trials": "10000"}))
	if err == nil || !strings.Contains(err.Error(), "trials·w² = 655360000 requests, want at most") {
		t.Errorf("w=256 trials=10000: error %v, want the request limit", err)
	}
	for kv, want := range cases {
		k, v, _ := strings.Cut(kv, "=")
		_, err := DMM{}.Run(context.Background(), with(map[string]string{k: v}))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one containing %q", kv, err, want)
		}
	}
}

func TestRun_DeterministicAndComplete(t *testing.T) {
	run := func(seed string) []byte {
		r, err := DMM{}.Run(context.Background(), with(map[string]string{"seed": seed}))
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Tables) != 5 || len(r.Charts) != 1 {
			t.Fatalf("%d tables, %d charts; want 5 and 1", len(r.Tables), len(r.Charts))
		}
		if _, err := r.SVG(); err != nil {
			t.Fatal(err)
		}
		b, err := r.JSON()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	a, b, c := run("7"), run("7"), run("8")
	if !bytes.Equal(a, b) {
		t.Error("two runs with seed 7 differ")
	}
	if bytes.Equal(a, c) {
		t.Error("seeds 7 and 8 give the same result")
	}
}

func TestRun_Cancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := (DMM{}).Run(ctx, with(nil)); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled run: error %v, want context.Canceled", err)
	}
}

func TestRun_Progress(t *testing.T) {
	opt := with(nil)
	last, total := 0, 0
	opt.Progress = func(done, tot int) { last, total = max(last, done), tot }
	if _, err := (DMM{}).Run(context.Background(), opt); err != nil {
		t.Fatal(err)
	}
	if total == 0 || last != total {
		t.Errorf("progress ended at %d of %d", last, total)
	}
}
