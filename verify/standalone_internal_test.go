package verify

import (
	"strings"
	"testing"
)

// TestWrapText_NoLineStartsWithVerilator: the testbench header's wrapped
// prose never starts a comment line with the word verilator (a Verilator
// metacomment, an error), and no line is longer than the width unless one
// word is.
func TestWrapText_NoLineStartsWithVerilator(t *testing.T) {
	text := "runs under vvp and Verilator. Then verilator again, and VERILATOR, and verilator_coverage too"
	for width := 8; width <= 40; width++ {
		lines := wrapText(text, width)
		if got := strings.Join(lines, " "); got != text {
			t.Fatalf("width %d: words changed: %q", width, got)
		}
		for _, l := range lines {
			if strings.HasPrefix(strings.ToLower(l), "verilator") {
				t.Errorf("width %d: line %q starts with verilator", width, l)
			}
			if len(l) > width && strings.Contains(l, " ") && !strings.Contains(strings.ToLower(l), " verilator") {
				t.Errorf("width %d: line %q is too long", width, l)
			}
		}
	}
}
