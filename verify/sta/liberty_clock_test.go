package sta

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/flow"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/timing"
	"github.com/lsugen/lsugen/timing/liberty"
	"github.com/lsugen/lsugen/units"
)

var (
	clockAll = flag.Bool("clock-all", false, "TestLibertyClock: every combinational example unit, not only the small ones (make clock-check)")
	clockDoc = flag.String("clock-doc", "", "TestLibertyClock: write the table of its units to this Markdown file")
)

// smallGates bounds the units TestLibertyClock checks by default.
const smallGates = 1500

// TestLibertyClock: every combinational example unit (the small ones
// unless -clock-all) pipelined at 1 GHz and at 500 MHz on sky130 with
// timing_mode "liberty" meets the period on every stage in OpenSTA, on
// lsugen's own gates mapped to the library's cells, or is refused with
// the shortest period it can meet (or, where the search for it stopped at
// its work limit, a period it meets), which is longer than the one asked
// for.
func TestLibertyClock(t *testing.T) {
	libPath := needFlow(t)
	lib, err := flow.LoadLibrary(libPath)
	if err != nil {
		t.Fatal(err)
	}
	l, err := liberty.Load(libPath)
	if err != nil {
		t.Fatal(err)
	}
	ch, err := liberty.Characterize(l, liberty.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := New(Config{Liberty: libPath, WorkDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	us, _, err := flow.DistinctExamples()
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	checked := 0
	for _, u := range us {
		d := u.Design
		if d.Clock != "" || (!*clockAll && len(d.Gates) > smallGates) {
			continue
		}
		if _, ok := u.Spec.(specs.Pipelinable); !ok {
			continue
		}
		for _, ps := range []float64{1000, 2000} {
			name := fmt.Sprintf("%s/%gps", d.Name, ps)
			c := specs.Clocking{ClockFO4: ps / lib.FO4PS, TimingMode: timing.Liberty}
			b, diags := units.Pipeline(u.Spec, d, c, lib.Tech, nil)
			if diags.HasErrors() {
				msg := diags.Error()
				// The shortest period, or where the search for it stopped
				// at its work limit, a period it can meet.
				what, least := "shortest period", 0.0
				const shortest, met = "shortest period it can be pipelined at under the liberty model is about ", "It can be pipelined at "
				i := strings.Index(msg, shortest)
				switch {
				case i >= 0:
					fmt.Sscan(strings.Fields(msg[i+len(shortest):])[0], &least)
				case strings.Contains(msg, "the search for a shorter period stopped"):
					i = strings.Index(msg, met)
					fmt.Sscan(strings.Fields(msg[i+len(met):])[0], &least)
					what = "meets"
				default:
					t.Errorf("%s: refused without the shortest period: %s", name, msg)
					continue
				}
				if !(least*lib.FO4PS > ps) {
					t.Errorf("%s: refused, but the period stated, %.2f FO4, is not longer: %s", name, least, msg)
				}
				rows = append(rows, fmt.Sprintf("| %s | %s | refused | | %s %.0f ps | |", d.Name, specs.FormatPS(ps), what, least*lib.FO4PS))
				continue
			}
			pd := b.Design
			if pd.Pipeline == nil || pd.Pipeline.RegStage == nil {
				continue // a variable-latency unit: its stages are no one chain
			}
			st, err := f.MappedStages(context.Background(), pd, ch, ps)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			checked++
			worst := st[0]
			for i, s := range st {
				if s.Endpoints == 0 {
					t.Errorf("%s: stage %d has no flip-flop timed", name, i+1)
					continue
				}
				if !s.WithinPeriod {
					t.Errorf("%s: stage %d of %d misses the period in OpenSTA: arrival %.1f ps + setup %.1f ps, slack %.1f ps (%s)",
						name, i+1, len(st), s.ArrivalPS, s.SetupPS, s.SlackPS, s.Register)
				}
				if s.SlackPS < worst.SlackPS {
					worst = s
				}
			}
			rows = append(rows, fmt.Sprintf("| %s | %s | %d | %.0f | %.0f | %d |", d.Name, specs.FormatPS(ps), len(st), worst.ArrivalPS+worst.SetupPS, worst.SlackPS, len(pd.Gates)))
		}
	}
	if checked == 0 {
		t.Fatal("no unit checked")
	}
	t.Logf("%d pipelines timed by OpenSTA", checked)
	if *clockDoc != "" {
		sort.Strings(rows)
		var b strings.Builder
		fmt.Fprintf(&b, "| unit | period | stages | worst stage ps (arrival + setup) | OpenSTA slack ps | gates |\n|---|---|---:|---:|---:|---:|\n")
		b.WriteString(strings.Join(rows, "\n") + "\n")
		if err := os.WriteFile(filepath.Clean(*clockDoc), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
