package sta

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestWriteMarkdown: one row per unit in the README's columns, ✗ after a
// sized error outside the band, n/a where the flow's delay was 0.
func TestWriteMarkdown(t *testing.T) {
	var r Report
	err := json.Unmarshal([]byte(`{"units": [
		{"name": "a", "gates": 432, "within_band": false,
		 "plain": {"fo4": 13.79}, "timing_driven": {"delay_ps": 1208.2, "fo4": 13.11}, "mapped": {"fo4": 12.13},
		 "lib": {"unsized_fo4": 10.34, "sized_fo4": 8.8, "unsized_error_pct": -25, "sized_error_pct": -32.9, "mapped_error_pct": -14.8},
		 "textbook": {"sized_fo4": 5.03, "sized_error_pct": -61.6}},
		{"name": "wires", "gates": 0, "within_band": true,
		 "plain": {"fo4": 0}, "timing_driven": {"delay_ps": 0, "fo4": 0}, "mapped": {"fo4": 0.55},
		 "lib": {"unsized_fo4": 0.62, "sized_fo4": 0.62, "mapped_error_pct": 13.1},
		 "textbook": {"sized_fo4": 0.31}}]}`), &r)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := r.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	want := []string{
		"| a | 432 | 12.13 | 10.34 | -14.8% | 13.79 | -25.0% | 13.11 (1208 ps) | 8.80 | -32.9% ✗ | 5.03 | -61.6% |",
		"| wires | 0 | 0.55 | 0.62 | +13.1% | 0.00 | n/a | 0.00 (0 ps) | 0.62 | n/a | 0.31 | n/a |",
	}
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "| unit | gates |") || strings.Count(lines[0], "|") != strings.Count(lines[1], "|") {
		t.Fatalf("table:\n%s", b.String())
	}
	for i, w := range want {
		if lines[2+i] != w {
			t.Errorf("row %d:\n got %s\nwant %s", i, lines[2+i], w)
		}
	}
}
