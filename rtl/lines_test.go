package rtl_test

import (
	"bufio"
	"bytes"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/flow"
	"github.com/lsugen/lsugen/rtl"
)

// TestFiles_NoLineOverMaxOnExamples writes the readable and gate-level
// Verilog of every example unit (combinational, clocked and pipelined,
// with the units they instantiate) and fails on any line longer than
// rtl.MaxLineLength.
func TestFiles_NoLineOverMaxOnExamples(t *testing.T) {
	us, err := flow.ExampleUnits()
	if err != nil {
		t.Fatal(err)
	}
	if len(us) == 0 {
		t.Fatal("no example units")
	}
	for _, u := range us {
		files, err := rtl.FilesWithSubmodules(u.Design, rtl.Info{Version: "lsugen test", Source: u.Source()})
		if err != nil {
			t.Fatal(err)
		}
		for name, b := range files {
			sc := bufio.NewScanner(bytes.NewReader(b))
			sc.Buffer(nil, len(b)+1)
			for n := 1; sc.Scan(); n++ {
				if l := sc.Text(); len(l) > rtl.MaxLineLength {
					t.Errorf("%s (%s) line %d: %d characters: %.80s...", name, u.Source(), n, len(l), strings.TrimSpace(l))
					break
				}
			}
		}
	}
}
