package units

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/specs"
)

const timingModelPath = "../docs/timing-model.md"

const (
	tablesBegin = "<!-- units.SpeculativeTables: begin -->\n"
	tablesEnd   = "<!-- units.SpeculativeTables: end -->"
)

// TestSpeculativeTables_DocUpToDate measures Tables 5.1 and 5.2 for
// specs/coalescer_thesis.hcl and fails when docs/timing-model.md's block
// differs; -update-docs rewrites the block. It also checks the table's
// shape: six rows, and the unit answers slow warps no sooner than fast
// ones.
func TestSpeculativeTables_DocUpToDate(t *testing.T) {
	f, diags := specs.NewLoader().Load("../specs/coalescer_thesis.hcl")
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	table, err := SpeculativeTables(f.Units)
	if err != nil {
		t.Fatal(err)
	}
	rows := 0
	for _, line := range strings.Split(table, "\n") {
		if !strings.HasPrefix(line, "| 32 |") && !strings.HasPrefix(line, "| 64 |") {
			continue
		}
		rows++
		cells := strings.Split(line, " | ")
		if len(cells) != 14 {
			t.Errorf("row %q", line)
			continue
		}
		var fast, slow int
		if n, err := fmt.Sscanf(cells[10], "%d / %d", &fast, &slow); n != 2 || err != nil || fast < 1 || slow < fast {
			t.Errorf("row %q: unit fast / slow %q", line, cells[10])
		}
	}
	if rows != 6 {
		t.Errorf("%d rows, want 6:\n%s", rows, table)
	}
	page, err := os.ReadFile(timingModelPath)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(page)
	i, j := strings.Index(doc, tablesBegin), strings.Index(doc, tablesEnd)
	if i < 0 || j < i {
		t.Fatalf("%s has no %q ... %q block", timingModelPath, strings.TrimSpace(tablesBegin), tablesEnd)
	}
	want := doc[:i+len(tablesBegin)] + table + doc[j:]
	if *updateDocs {
		if err := os.WriteFile(timingModelPath, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if want != doc {
		t.Errorf("%s: the Tables 5.1/5.2 block is stale: go test ./units -run TestSpeculativeTables -update-docs\n%s", timingModelPath, table)
	}
}
