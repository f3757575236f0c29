package main

import (
	"encoding/json"
	"io"
	"runtime"

	"github.com/lsugen/lsugen/gen"
	"github.com/lsugen/lsugen/retime/sweep"
	"github.com/lsugen/lsugen/timing"
	"github.com/lsugen/lsugen/timing/liberty"
	"github.com/lsugen/lsugen/tools/conflicts"
	"github.com/lsugen/lsugen/tools/pipesim"
	"github.com/lsugen/lsugen/tools/rapsim"
	"github.com/lsugen/lsugen/tools/replay"
	"github.com/lsugen/lsugen/verify/sta"
)

// The --json documents. Each is one JSON object, indented, with a final
// newline, whose first field is "version", lsugen's version; a report
// from a library package is embedded, so its fields follow at the top
// level as before. docs/json-reports.md describes them and docs/schema
// holds a JSON Schema of each, generated from these types
// (TestJSONSchemas_UpToDate).

// jsonDocs lists the documents: the schema file in docs/schema and a
// value of the Go type.
var jsonDocs = []struct {
	schema string // file name in docs/schema
	title  string // what prints it
	value  any
}{
	{"gen.json", "lsugen gen --json, lsugen fusesoc-gen --json", genReport{}},
	{"timing.json", "lsugen timing --json", timingDoc{}},
	{"timing-sweep.json", "lsugen timing --sweep-clock --json, lsugen timing --sweep-merge --json", sweepDoc{}},
	{"timing-sweep-point.json", "lsugen timing --sweep-point (one result file of a job list)", sweep.PointResult{}},
	{"verify.json", "lsugen verify --json", verifyReport{}},
	{"conflicts.json", "lsugen conflicts --json", conflictsDoc{}},
	{"conflicts-diff.json", "lsugen conflicts --diff --json", conflictsDiffDoc{}},
	{"replay.json", "lsugen replay --json", replayDoc{}},
	{"search.json", "lsugen search --json", searchJSON{}},
	{"search-count.json", "lsugen search --count --json", searchCountJSON{}},
	{"search-for.json", "lsugen search --for --json, the file of lsugen search --for -o", searchForDoc{}},
	{"rapsim.json", "lsugen rapsim --json", rapsimDoc{}},
	{"pipesim.json", "lsugen pipesim --json", pipesimDoc{}},
	{"profile.json", "lsugen profile --json", profileDoc{}},
	{"study.json", "lsugen study --json", studyDoc{}},
	{"crosscheck-timing.json", "lsugen crosscheck-timing --json", crosscheckDoc{}},
	{"characterize.json", "lsugen characterize --json", characterizeDoc{}},
	{"version.json", "lsugen version --json", versionDoc{}},
}

// timingDoc is `lsugen timing --json`.
type timingDoc struct {
	// Version is lsugen's version.
	Version string `json:"version"`
	*timing.Report
}

// conflictsDoc is `lsugen conflicts --json`.
type conflictsDoc struct {
	// Version is lsugen's version.
	Version string `json:"version"`
	*conflicts.Report
}

// conflictsDiffDoc is `lsugen conflicts --diff --json`.
type conflictsDiffDoc struct {
	// Version is lsugen's version.
	Version string `json:"version"`
	*conflicts.Diff
}

// replayDoc is `lsugen replay --json`.
type replayDoc struct {
	// Version is lsugen's version.
	Version string `json:"version"`
	*replay.Report
}

// rapsimDoc is `lsugen rapsim --json`.
type rapsimDoc struct {
	// Version is lsugen's version.
	Version string `json:"version"`
	*rapsim.Report
}

// pipesimDoc is `lsugen pipesim --json`.
type pipesimDoc struct {
	// Version is lsugen's version.
	Version string `json:"version"`
	*pipesim.Report
}

// crosscheckDoc is `lsugen crosscheck-timing --json`.
type crosscheckDoc struct {
	// Version is lsugen's version.
	Version string `json:"version"`
	*sta.Report
}

// characterizeDoc is `lsugen characterize --json`.
type characterizeDoc struct {
	// Version is lsugen's version.
	Version string `json:"version"`
	*liberty.Characterization
}

// versionDoc is `lsugen version --json`.
type versionDoc struct {
	// Version is lsugen's version.
	Version string `json:"version"`
	// Commit is the commit lsugen was built from (its first 12 hex
	// digits), "unknown" for a binary built outside a git checkout.
	Commit string `json:"commit"`
	// Dirty: built from a tree with uncommitted changes.
	Dirty bool `json:"dirty"`
	// Go is the Go release lsugen was built with.
	Go string `json:"go"`
}

func newVersionDoc() versionDoc {
	b := gen.ThisBuild()
	return versionDoc{Version: gen.Version, Commit: b.Commit, Dirty: b.Dirty, Go: runtime.Version()}
}

// marshalJSON renders a document indented, with a final newline.
func marshalJSON(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// printJSON writes a document to w.
func printJSON(w io.Writer, v any) error {
	b, err := marshalJSON(v)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}
