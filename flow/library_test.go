package flow

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/hcl/v2"

	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/timing"
)

// sky130 is the reference cell library beside the repository, which the
// project does not copy: the tests that need it skip when it is absent.
const sky130 = "../../shared/liberty/sky130_fd_sc_hd__tt_025C_1v80.lib.gz"

var sky130Lib = sync.OnceValues(func() (*Library, error) { return LoadLibrary(sky130) })

func loadSky130(t *testing.T) *Library {
	t.Helper()
	if _, err := os.Stat(sky130); err != nil {
		t.Skipf("cell library not found: %v", err)
	}
	lib, err := sky130Lib()
	if err != nil {
		t.Fatal(err)
	}
	return lib
}

// loadSpec writes src as a spec file and loads it with o.
func loadSpec(t *testing.T, src string, o Options) (*Session, error) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "clock.hcl")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	o.Gates = DefaultGateBudget
	return Load([]string{p}, o)
}

// TestDefaultLibrary_IsSky130sFO4: the figure that converts clocks in
// time units without a library is the characterization of the default
// library, to a thousandth of a ps.
func TestDefaultLibrary_IsSky130sFO4(t *testing.T) {
	lib := loadSky130(t)
	if lib.Name != DefaultLibraryName {
		t.Errorf("library %s, want %s", lib.Name, DefaultLibraryName)
	}
	if math.Abs(lib.FO4PS-DefaultLibraryFO4PS) > 0.001 {
		t.Errorf("characterized FO4 %.4f ps, DefaultLibraryFO4PS %.4f ps", lib.FO4PS, DefaultLibraryFO4PS)
	}
	if s := lib.Tech.SetupPS; !(s > 20 && s < 300) {
		t.Errorf("flip-flop setup %.1f ps: want a setup time of a real flip-flop", s)
	}
}

const hashAt = `hash "h" {
  function  = "bitvector_xor"
  addr_bits = 32
  bank_bits = 5
  k1        = 0
  k2        = 5
  mask      = 31
  clock     = "%s"%s
}
`

func hashSpec(clock, extra string) string {
	return strings.Replace(strings.Replace(hashAt, "%s", clock, 1), "%s", extra, 1)
}

// TestClock_TimeUnits: clock = "2GHz" is 500 ps in the default library's
// FO4 without a library (sized textbook model), and in the library's with
// one (its own model, the default mode then); every stage fits the
// period under the model that placed it.
func TestClock_TimeUnits(t *testing.T) {
	s, err := loadSpec(t, hashSpec("2GHz", ""), Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := s.Units[0].Design.Pipeline
	if p == nil || math.Abs(p.PeriodFO4-500/DefaultLibraryFO4PS) > 1e-9 || p.Mode != "sized" || p.Library != "" {
		t.Fatalf("without a library: pipeline %+v, want %.4f FO4 sized", p, 500/DefaultLibraryFO4PS)
	}
	lib := loadSky130(t)
	s, err = loadSpec(t, hashSpec("500ps", ""), Options{Library: lib})
	if err != nil {
		t.Fatal(err)
	}
	d := s.Units[0].Design
	p = d.Pipeline
	if p == nil || math.Abs(p.PeriodFO4-500/lib.FO4PS) > 1e-9 || p.Mode != timing.Liberty || p.Library != lib.Name {
		t.Fatalf("with %s: pipeline %+v, want %.4f FO4 liberty", lib.Name, p, 500/lib.FO4PS)
	}
	if got := PeriodPS(p.PeriodFO4, lib); got != 500 {
		t.Errorf("PeriodPS = %v, want 500", got)
	}
	opt, err := timing.PipelineOptionsIn(timing.Liberty, lib.Tech)
	if err != nil {
		t.Fatal(err)
	}
	st, err := timing.StageDelays(d, opt)
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range st {
		if x > p.PeriodFO4 {
			t.Errorf("stage %d: %.2f FO4 in the library's model, over the period %.2f", i+1, x, p.PeriodFO4)
		}
	}
	if setup := opt.SetupFO4(); math.Abs(setup-lib.Tech.SetupPS/lib.FO4PS) > 1e-12 || setup == timing.SetupFO4 {
		t.Errorf("setup under the library's model %.4f FO4, want its flip-flop's %.1f ps", setup, lib.Tech.SetupPS)
	}
}

// TestClock_Errors: a clock the library cannot express in range, and
// timing_mode liberty without a library, are refused at the clock's
// location before anything is generated.
func TestClock_Errors(t *testing.T) {
	for _, tc := range []struct {
		name, src, summary string
		line               int
	}{
		{"liberty without a library", hashSpec("1GHz", "\n  timing_mode = \"liberty\""), "Library needed", 8},
		{"under 4 FO4", hashSpec("3GHz", ""), "Invalid clock", 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := loadSpec(t, tc.src, Options{})
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("err %v, want ErrInvalid", err)
			}
			if len(s.Units) != 0 {
				t.Errorf("%d units generated", len(s.Units))
			}
			found := false
			for _, d := range s.Diags {
				if d.Severity == hcl.DiagError && d.Summary == tc.summary && d.Subject != nil && d.Subject.Start.Line == tc.line {
					found = true
				}
			}
			if !found {
				t.Errorf("no %q error at line %d in %v", tc.summary, tc.line, s.Diags)
			}
		})
	}
	if _, err := loadSpec(t, hashSpec("1GHz", ""), Options{Clock: specs.Clocking{ClockFO4: 20, PeriodPS: 1000}}); err == nil || !strings.Contains(err.Error(), "once") {
		t.Errorf("--clock-fo4 with --clock: %v, want a refusal", err)
	}
	if _, err := loadSpec(t, hashSpec("1GHz", ""), Options{Clock: specs.Clocking{PeriodPS: 1000, TimingMode: "liberty"}}); err == nil || !strings.Contains(err.Error(), "--liberty") {
		t.Errorf("--timing-mode liberty without --liberty: %v, want a refusal", err)
	}
}

const arbiterAt = `bank_arbiter "arb" {
  lanes       = 8
  addr_bits   = 32
  bank_bits   = 4
  broadcast   = true
  clock       = "%s"
  timing_mode = "%s"
}
`

// TestClock_InTheLibrary: a unit pipelined at 1 GHz under the sized
// textbook model is warned about when its stages miss 1 GHz in the given
// library; under the library's own model, at 1.5 GHz, it is refused, with
// the shortest period it can meet, which then works.
func TestClock_InTheLibrary(t *testing.T) {
	lib := loadSky130(t)
	spec := func(clock, mode string) string {
		return strings.Replace(strings.Replace(arbiterAt, "%s", clock, 1), "%s", mode, 1)
	}
	s, err := loadSpec(t, spec("1GHz", "sized"), Options{Library: lib})
	if err != nil {
		t.Fatal(err)
	}
	warned := false
	for _, d := range s.Diags {
		if d.Severity == hcl.DiagWarning && d.Summary == "Period missed in the library" && d.Subject != nil && d.Subject.Start.Line == 6 {
			warned = true
		}
	}
	if !warned {
		t.Errorf("no warning for a sized pipeline that misses 1 GHz in %s: %v", lib.Name, s.Diags)
	}
	s, err = loadSpec(t, spec("1.5GHz", "liberty"), Options{Library: lib})
	if !errors.Is(err, ErrInvalid) {
		t.Fatalf("arbiter at 1.5 GHz in the library's model: err %v, want a refusal", err)
	}
	msg := s.Diags.Error()
	i := strings.Index(msg, "The shortest period it can be pipelined at under the liberty model is about ")
	if i < 0 {
		t.Fatalf("refusal without the shortest period: %s", msg)
	}
	var least float64
	rest := msg[i+len("The shortest period it can be pipelined at under the liberty model is about "):]
	if _, err := fmtSscan(rest, &least); err != nil {
		t.Fatalf("%q: %v", rest, err)
	}
	if _, err := loadSpec(t, spec(fmtPS(least*lib.FO4PS), "liberty"), Options{Library: lib}); err != nil {
		t.Errorf("at the stated shortest period %.2f FO4: %v", least, err)
	}
}

func fmtSscan(s string, x *float64) (int, error) { return fmt.Sscan(strings.Fields(s)[0], x) }

func fmtPS(ps float64) string { return fmt.Sprintf("%.3fps", math.Ceil(ps*1000)/1000) }
