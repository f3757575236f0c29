package search

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/plot/svgcheck"
)

// tinyTrace is a hand-made trace over 4 banks (m = 2, n = 4 address bits).
// Under bank = addr mod 4:
//
//	x: {0, 4, 8, 1}       banks 0:{0,4,8} 1:{1}          degree 3, 2 conflicts, both bank 0's
//	x: {0, 4, 1, 5, 2}    banks 0:{0,4} 1:{1,5} 2:{2}    degree 2, 1 conflict, 1/2 to banks 0 and 1
//	x: {3, 3, 7}          bank 3:{3,7} (3 once)          degree 2, 1 conflict, bank 3's
//	y: {0, 1, 2, 3}       one address a bank             no conflict
//	y: {0,4,8,12,1,5,9,2} banks 0:4 1:3 2:1              degree 4, 3 conflicts: cycle 2 and 3 shared
//	                                                      by banks 0 and 1, cycle 4 bank 0's
//
// so x's conflict cycles by bank are 2.5, 0.5, 0, 1 (4 in all) and y's 2,
// 1, 0, 0 (3 in all).
var (
	tinyAccesses = [][]uint64{{0, 4, 8, 1}, {0, 4, 1, 5, 2}, {3, 3, 7}, {0, 1, 2, 3}, {0, 4, 8, 12, 1, 5, 9, 2}}
	tinyInstr    = []string{"x", "x", "x", "y", "y"}
	modBanks     = Config{Function: BitvectorPerm}
	// bank = (addr ^ addr>>2) mod 4
	xorBanks = Config{Function: BitvectorXor, K1: 0, K2: 2, Mask: 3}
)

// recount is the per-bank conflict count done the slow way, sharing no
// code with BankHistogram: each access is served cycle by cycle, every
// bank with an address left serving one; from the second cycle on, the
// cycle is split equally among the banks still serving.
func recount(accesses [][]uint64, instr []string, bank func(uint64) int, banks int) (rows map[string][]float64, loads map[string][]int64, totals map[string]int64) {
	rows, loads, totals = map[string][]float64{}, map[string][]int64{}, map[string]int64{}
	for k, acc := range accesses {
		name := instr[k]
		if rows[name] == nil {
			rows[name], loads[name] = make([]float64, banks), make([]int64, banks)
		}
		left := make([]int, banks)
		seen := map[uint64]bool{}
		for _, a := range acc {
			if !seen[a] {
				seen[a] = true
				left[bank(a)]++
				loads[name][bank(a)]++
			}
		}
		for cycle := 1; ; cycle++ {
			var serving []int
			for b, n := range left {
				if n > 0 {
					serving = append(serving, b)
					left[b]--
				}
			}
			if len(serving) == 0 {
				break
			}
			if cycle > 1 {
				totals[name]++
				for _, b := range serving {
					rows[name][b] += 1 / float64(len(serving))
				}
			}
		}
	}
	return rows, loads, totals
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// TestBankHistogram_Recount: the stated numbers of the tiny trace, and
// agreement with the slow recount under mod and XOR banks.
func TestBankHistogram_Recount(t *testing.T) {
	h := BankHistogram("before", tinyAccesses, tinyInstr, 4, 2, modBanks)
	if !slices.Equal(h.Instrs, []string{"x", "y"}) || h.Banks != 4 {
		t.Fatalf("instructions %v, %d banks", h.Instrs, h.Banks)
	}
	want := map[string]struct {
		conflict []float64
		load     []int64
		total    int64
		accesses int64
	}{
		"x": {[]float64{2.5, 0.5, 0, 1}, []int64{5, 3, 1, 2}, 4, 3},
		"y": {[]float64{2, 1, 0, 0}, []int64{5, 4, 2, 1}, 3, 2},
	}
	for i, name := range h.Instrs {
		w := want[name]
		if !slices.EqualFunc(h.Conflict[i], w.conflict, near) || !slices.Equal(h.Load[i], w.load) || h.Conflicts[i] != w.total || h.Accesses[i] != w.accesses {
			t.Errorf("%s: conflict %v load %v total %d accesses %d; want %v %v %d %d",
				name, h.Conflict[i], h.Load[i], h.Conflicts[i], h.Accesses[i], w.conflict, w.load, w.total, w.accesses)
		}
	}
	if h.Total() != 7 {
		t.Errorf("total %d, want 7", h.Total())
	}

	// The example of Histogram's comment: loads 3, 2, 1 give 1.5 and 0.5.
	ex := BankHistogram("", [][]uint64{{0, 4, 8, 1, 5, 2}}, []string{"e"}, 4, 2, modBanks)
	if !slices.EqualFunc(ex.Conflict[0], []float64{1.5, 0.5, 0, 0}, near) || ex.Conflicts[0] != 2 {
		t.Errorf("loads 3, 2, 1: %v, %d conflicts", ex.Conflict[0], ex.Conflicts[0])
	}

	for _, c := range []struct {
		cfg  Config
		bank func(uint64) int
	}{
		{modBanks, func(a uint64) int { return int(a & 3) }},
		{xorBanks, func(a uint64) int { return int((a ^ a>>2) & 3) }},
	} {
		h := BankHistogram("", tinyAccesses, tinyInstr, 4, 2, c.cfg)
		rows, loads, totals := recount(tinyAccesses, tinyInstr, c.bank, 4)
		for i, name := range h.Instrs {
			sum := 0.0
			for _, v := range h.Conflict[i] {
				sum += v
			}
			if !slices.EqualFunc(h.Conflict[i], rows[name], near) || !slices.Equal(h.Load[i], loads[name]) ||
				h.Conflicts[i] != totals[name] || !near(sum, float64(h.Conflicts[i])) {
				t.Errorf("%s %s: %v %v %d, recount %v %v %d", c.cfg, name, h.Conflict[i], h.Load[i], h.Conflicts[i], rows[name], loads[name], totals[name])
			}
		}
	}
}

func TestComparison(t *testing.T) {
	for _, c := range []struct {
		before, after int64
		want          string
	}{{1234, 142, "8.7× fewer"}, {124, 0, "all removed"}, {5, 5, "no change"}, {0, 3, "up from none"},
		{10, 25, "2.5× more"}, {2, 1, "2× fewer"}, {25000, 10, "2500× fewer"}} {
		if got := Comparison(c.before, c.after); got != c.want {
			t.Errorf("Comparison(%d, %d) = %q, want %q", c.before, c.after, got, c.want)
		}
	}
	if got := count(1234567); got != "1,234,567" {
		t.Errorf("count = %q", got)
	}
	if got := plural(1, "conflict", "conflicts") + ", " + plural(1234, "conflict", "conflicts"); got != "1 conflict, 1,234 conflicts" {
		t.Errorf("plural: %q", got)
	}
}

// checkSVG parses a heat map and fails the test on any layout fault.
func checkSVG(t *testing.T, name string, b []byte) *svgcheck.Doc {
	t.Helper()
	d, err := svgcheck.Parse(b)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	for _, f := range d.Faults() {
		t.Errorf("%s: %s", name, f)
	}
	return d
}

// TestSVG_TinyTrace: the figure of the tiny trace before and after the
// XOR hash: each cell's number is the recount's, the tooltips say
// instruction, bank, conflict cycles and load, the totals are in the
// titles, both panels have a colour scale to the same peak, and equal
// values have equal colours in both panels.
func TestSVG_TinyTrace(t *testing.T) {
	before := BankHistogram("before: bank = addr mod 4", tinyAccesses, tinyInstr, 4, 2, modBanks)
	after := BankHistogram("after: bitvector_xor, "+xorBanks.String(), tinyAccesses, tinyInstr, 4, 2, xorBanks)
	b := SVG(before, after)
	if !bytes.Equal(b, SVG(before, after)) {
		t.Fatal("not deterministic")
	}
	d := checkSVG(t, "tiny", b)

	afterTotal := after.Total()
	summary := strings.Join(d.TextsOf("summary"), " ")
	if want := fmt.Sprintf("before: 7 conflicts / after: %s (%s)", plural(afterTotal, "conflict", "conflicts"), Comparison(7, afterTotal)); summary != want {
		t.Errorf("summary %q, want %q", summary, want)
	}
	titles := strings.Join(d.TextsOf("panel-title"), " | ")
	if !strings.Contains(titles, "before: bank = addr mod 4: 7 conflicts") || !strings.Contains(titles, "after: bitvector_xor") {
		t.Errorf("panel titles %q", titles)
	}
	if !strings.Contains(strings.Join(d.TextsOf("caption"), " "), "shared equally by the banks") {
		t.Error("the caption does not define the cells")
	}

	recounts := []func(uint64) int{func(a uint64) int { return int(a & 3) }, func(a uint64) int { return int((a ^ a>>2) & 3) }}
	peak := 0.0
	colour := map[string]string{} // value -> fill, across panels
	cells := d.ByClass("cell")
	if len(cells) != 2*2*4 {
		t.Fatalf("%d cells, want 16", len(cells))
	}
	for _, e := range cells {
		p, _ := strconv.Atoi(e.Attr["data-panel"])
		bank, _ := strconv.Atoi(e.Attr["data-bank"])
		name := e.Attr["data-instr"]
		v, _ := strconv.ParseFloat(e.Attr["data-conflicts"], 64)
		rows, loads, _ := recount(tinyAccesses, tinyInstr, recounts[p], 4)
		if !near(v, rows[name][bank]) || e.Attr["data-load"] != strconv.FormatInt(loads[name][bank], 10) {
			t.Errorf("panel %d %s bank %d: %v conflict cycles, load %s; recount %v, %d", p, name, bank, v, e.Attr["data-load"], rows[name][bank], loads[name][bank])
		}
		tip := fmt.Sprintf("%s, bank %d: %s conflict cycles; load %s", name, bank, value(v), plural(loads[name][bank], "address", "addresses"))
		if !strings.HasPrefix(e.Title, tip) {
			t.Errorf("tooltip %q, want it to start %q", e.Title, tip)
		}
		fill := e.Attr["fill"]
		if (v == 0) != (fill == "#ffffff") {
			t.Errorf("%s bank %d: %v conflict cycles drawn %s", name, bank, v, fill)
		}
		key := strconv.FormatFloat(v, 'g', -1, 64)
		if c, ok := colour[key]; ok && c != fill {
			t.Errorf("value %v drawn %s and %s", v, c, fill)
		}
		colour[key] = fill
		peak = max(peak, v)
	}
	if colour[strconv.FormatFloat(peak, 'g', -1, 64)] != "#800026" {
		t.Errorf("the peak %v is drawn %s, want the darkest colour", peak, colour[strconv.FormatFloat(peak, 'g', -1, 64)])
	}
	scales := d.ByClass("colour-scale")
	if len(scales) != 2 || !strings.Contains(string(b), `<linearGradient id="conflict-scale"`) {
		t.Fatalf("%d colour scales", len(scales))
	}
	for _, s := range scales {
		if s.Attr["fill"] != "url(#conflict-scale)" || s.Attr["data-max"] != strconv.FormatFloat(peak, 'g', -1, 64) {
			t.Errorf("colour scale %v, want to the peak %v", s.Attr, peak)
		}
	}
	if ticks := d.TextsOf("legend-tick"); len(ticks) < 4 || !slices.Contains(ticks, value(peak)) {
		t.Errorf("legend ticks %q", ticks)
	}
	// Row totals, then the panel total, per panel.
	totals := d.TextsOf("row-total")
	wantTotals := []string{"4", count(after.Conflicts[0]), "3", count(after.Conflicts[1])}
	if !slices.Equal(totals, wantTotals) {
		t.Errorf("row totals %q, want %q", totals, wantTotals)
	}
	if got := d.TextsOf("panel-total"); !slices.Equal(got, []string{"7", count(afterTotal)}) {
		t.Errorf("panel totals %q", got)
	}
}

// TestSVG_Layouts: heat maps of many shapes (2 to 1024 banks, one to
// three panels, long instruction names and titles, no conflicts at all)
// have no text outside the figure and no overlapping text, and a colour
// scale under every panel.
func TestSVG_Layouts(t *testing.T) {
	long := strings.Repeat("very_long_instruction_name_", 3)
	var accs [][]uint64
	var instr []string
	for i := 0; i < 40; i++ {
		var a []uint64
		for l := uint64(0); l < 32; l++ {
			a = append(a, l*uint64(i+1)*33%4096)
		}
		accs = append(accs, a)
		instr = append(instr, fmt.Sprintf("%s%d", long[:(i%3+1)*9], i%7))
	}
	bitwise := Config{Function: BitwiseXor, Bits: [][]int{{0, 5}, {1, 6}, {2, 7}, {3, 8}, {4, 9}, {5, 10}, {6, 11}, {7, 11}, {8, 11}, {9, 11}}}
	for _, m := range []int{1, 2, 5, 8, 10} {
		for panels := 1; panels <= 3; panels++ {
			if m == 10 && panels != 2 {
				continue // 1024 banks: slow to parse, once is enough
			}
			var hs []Histogram
			for p := 0; p < panels; p++ {
				cfg := Config{Function: BitvectorPerm, K: p}
				title := fmt.Sprintf("panel %d: bank = addr bits %d up", p, p)
				if p == 2 {
					cfg, title = bitwise, "after: bitwise_xor, "+bitwise.String()
				}
				hs = append(hs, BankHistogram(title, accs, instr, 12, m, cfg))
			}
			name := fmt.Sprintf("m=%d, %d panels", m, panels)
			d := checkSVG(t, name, SVG(hs...))
			if got := d.Classes["colour-scale"]; got != panels {
				t.Errorf("%s: %d colour scales", name, got)
			}
		}
	}
	// No conflicts anywhere.
	h := BankHistogram("before: none", [][]uint64{{0, 1, 2, 3}}, []string{"flat"}, 4, 2, modBanks)
	d := checkSVG(t, "no conflicts", SVG(h, h))
	if got := strings.Join(d.TextsOf("summary"), " "); got != "before: 0 conflicts / before: 0 conflicts (no change)" {
		t.Errorf("summary %q", got)
	}
}
