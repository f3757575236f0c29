package replay

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/flow"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/units"
	"github.com/lsugen/lsugen/verify"
)

const examples = "../../specs/shared_memory.hcl"

// load generates unit name of spec file path and returns its spec and
// verification job.
func load(t testing.TB, path, name string) (*specs.SharedMemory, verify.Job) {
	t.Helper()
	s, err := flow.Load([]string{path}, flow.Options{Unit: name})
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	u := s.Units[0]
	sm, ok := u.Spec.(*specs.SharedMemory)
	if !ok {
		t.Fatalf("%s is a %s", name, u.Spec.UnitKind())
	}
	job, err := units.Job(u.Spec, u.Built)
	if err != nil {
		t.Fatal(err)
	}
	return sm, job
}

// writeTrace writes an lsugen trace into a temporary file.
func writeTrace(t testing.TB, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "t.trace")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func replayText(t *testing.T, unit, text string) *Report {
	t.Helper()
	u, job := load(t, examples, unit)
	w, err := NewWorkload(u)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.AddFile(writeTrace(t, text)); err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), job, w, verify.Netlist)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestReplay_SmallPasses replays hand-made accesses on the 8-lane,
// 8-bank memory: conflict-free, broadcast, a stride of 8 words (one
// bank, 8 passes), a partial mask; the fill stores all 512 bytes in 16
// conflict-free stores.
func TestReplay_SmallPasses(t *testing.T) {
	rep := replayText(t, "shmem_small", "@free\n0 1 2 3 4 5 6 7\n@bcast\n5 5 5 5 5 5 5 5\n@stride8\n0 8 16 24 32 40 48 56\n@two\n3 11\n")
	want := map[string]int{"free": 1, "bcast": 1, "stride8": 8, "two": 2}
	for _, r := range rep.Inputs[0].Instrs {
		if r.Predicted != want[r.Name] || r.Measured != want[r.Name] || r.Cycles != want[r.Name] {
			t.Errorf("%s: %+v, want %d passes", r.Name, r, want[r.Name])
		}
	}
	if !rep.Agree() || rep.Fill.Instructions != 16 || rep.Fill.Measured != 16 || rep.Total.Measured != 12 {
		t.Errorf("report %+v", rep)
	}
}

// smallKernel is an Accel-Sim kernel (tracer version 3) of 8-lane
// instructions for shmem_small (8 four-byte banks): a conflict-free
// store, a load at stride 32 bytes (one bank: 8 passes), an atomic add of
// every lane on one word (no broadcast: 8), a 128-bit load at stride 16
// (phases of 2 lanes: 4), a 64-bit load at stride 8 (phases of 4: 2), a
// 16-bit load (as 32-bit, two lanes per word: 1) and a global load
// (skipped).
const smallKernel = "testdata/kernel-3.traceg"

// TestReplay_AccelSimSmall: every kind of shared-memory instruction of an
// Accel-Sim kernel takes the passes its cost model says on the 8-lane
// memory, and lsugen conflicts' prediction says the same.
func TestReplay_AccelSimSmall(t *testing.T) {
	u, job := load(t, examples, "shmem_small")
	w, err := NewWorkload(u)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.AddFile(smallKernel); err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), job, w, verify.Netlist)
	if err != nil {
		t.Fatal(err)
	}
	want := []int{1, 8, 8, 4, 2, 1}
	in := rep.Inputs[0]
	if len(in.Instrs) != len(want) || in.SkippedNotShared != 1 || !rep.Agree() {
		t.Fatalf("report %+v", rep)
	}
	for i, r := range in.Instrs {
		if r.Predicted != want[i] || r.Measured != want[i] || r.Cycles != want[i] {
			t.Errorf("%s: %+v, want %d passes", r.Name, r, want[i])
		}
	}
	if len(in.Kernels) != 1 || in.Kernels[0].Name != "k3 small" || in.Kernels[0].Measured != 24 {
		t.Errorf("kernels %+v", in.Kernels)
	}
}

// TestReplay_ListsDisagreements: lsugen conflicts counts an lsugen trace's
// access as one, whatever the bank count, but a unit with fewer banks
// than the access has lanes serves it in phases. On shmem_wide (32 lanes,
// 8 banks) lanes 0-7 on eight words of bank 0 and lanes 8-15 on eight of
// bank 1 take 8 + 8 passes, where conflicts predicts 8; the replay lists
// the instruction.
func TestReplay_ListsDisagreements(t *testing.T) {
	var words []string
	for b := 0; b < 2; b++ {
		for i := 0; i < 8; i++ {
			words = append(words, fmt.Sprint(b+8*i))
		}
	}
	rep := replayText(t, "shmem_wide", "@split\n"+strings.Join(words, " ")+"\n@fine\n0 1 2 3 4 5 6 7\n")
	if len(rep.Disagreements) != 1 {
		t.Fatalf("disagreements %+v", rep.Disagreements)
	}
	d := rep.Disagreements[0]
	if d.Instr != "split" || d.Predicted != 8 || d.Measured != 16 || d.Cycles != 16 || d.Line != 2 {
		t.Errorf("disagreement %+v", d)
	}
	var b strings.Builder
	if err := rep.Write(&b); err != nil || !strings.Contains(b.String(), "DISAGREE: 1 of 2 instructions") {
		t.Errorf("report:\n%s", b.String())
	}
}

// TestReplay_SegmentsRefill: a long replay on the netlist simulator is cut
// into segments, one per bit lane, each starting from reset with a refill
// of the storage; it agrees as the uncut replay does, and the dropped
// instructions are offered again (every instruction answered once).
func TestReplay_SegmentsRefill(t *testing.T) {
	u, job := load(t, examples, "shmem_small")
	w, err := NewWorkload(u)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.AddFile(writeTrace(t, randomTrace(3000, 8, 128))); err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), job, w, verify.Netlist)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Segments < 2 || rep.Refills == 0 || !rep.Agree() || rep.Total.Instructions != 3000 || rep.Total.Measured != rep.Total.Predicted {
		t.Errorf("%d segments, %d refill stores, total %+v, %d disagreements", rep.Segments, rep.Refills, rep.Total, len(rep.Disagreements))
	}
}

// TestReplay_PartsAgreeWithOneRun: a replay split between two simulator
// instances, each after its own fill, measures every instruction as one
// run of the whole does; the later part's fill counts as refill stores.
func TestReplay_PartsAgreeWithOneRun(t *testing.T) {
	u, job := load(t, examples, "shmem_small")
	w, err := NewWorkload(u)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.AddFile(writeTrace(t, randomTrace(6000, 8, 128))); err != nil {
		t.Fatal(err)
	}
	if n, err := w.parts(verify.Netlist); err != nil || n != Parts {
		t.Fatalf("%d parts (%v), want %d", n, err, Parts)
	}
	one, err := w.run(context.Background(), job, verify.Netlist, 1)
	if err != nil {
		t.Fatal(err)
	}
	two, err := w.run(context.Background(), job, verify.Netlist, Parts)
	if err != nil {
		t.Fatal(err)
	}
	if !one.Agree() || !two.Agree() {
		t.Fatalf("disagreements: %d in one run, %d in two", len(one.Disagreements), len(two.Disagreements))
	}
	if !reflect.DeepEqual(one.Inputs, two.Inputs) || one.Total != two.Total || one.Fill != two.Fill {
		t.Errorf("two parts: total %+v, fill %+v; one run: total %+v, fill %+v", two.Total, two.Fill, one.Total, one.Fill)
	}
	if two.Segments <= one.Segments || two.Refills < one.Refills+len(w.Fill) {
		t.Errorf("two parts: %d segments, %d refill stores; one run: %d, %d", two.Segments, two.Refills, one.Segments, one.Refills)
	}
}

// randomTrace is WriteRandomTrace's trace of seed 1.
func randomTrace(n, lanes, words int) string {
	var b strings.Builder
	if err := WriteRandomTrace(&b, n, lanes, words, 1); err != nil {
		panic(err)
	}
	return b.String()
}

// BenchmarkReplay_FermiNetlist replays 20,000 warp instructions on the
// Fermi-like memory on the netlist simulator, in lockstep with the model
// (the target: 50,000 warp instructions per second), reading the
// trace and planning included: one simulator of 64 segments, a third of
// each the refill.
func BenchmarkReplay_FermiNetlist(b *testing.B) { benchFermiNetlist(b, 20_000, 0) }

// BenchmarkReplay_FermiNetlistLong replays 100,000: two simulators of 64
// segments each (Parts), the refill a tenth of each segment.
func BenchmarkReplay_FermiNetlistLong(b *testing.B) { benchFermiNetlist(b, 100_000, 0) }

// BenchmarkReplay_FermiNetlistLongOnePart replays the same 100,000 in one
// part: one simulator, one goroutine, the replay's speed on one core.
func BenchmarkReplay_FermiNetlistLongOnePart(b *testing.B) { benchFermiNetlist(b, 100_000, 1) }

// benchFermiNetlist replays n instructions in parts parts (0: as Run picks).
func benchFermiNetlist(b *testing.B, n, parts int) {
	u, job := load(b, "../../specs/large/shared_memory_fermi.hcl", "shmem_fermi")
	path := writeTrace(b, randomTrace(n, 32, 12288))
	b.ResetTimer()
	cpu0 := processCPU()
	for range b.N {
		w, err := NewWorkload(u)
		if err != nil {
			b.Fatal(err)
		}
		if err := w.AddFile(path); err != nil {
			b.Fatal(err)
		}
		var rep *Report
		if parts > 0 {
			rep, err = w.run(context.Background(), job, verify.Netlist, parts)
		} else {
			rep, err = Run(context.Background(), job, w, verify.Netlist)
		}
		if err != nil || !rep.Agree() {
			b.Fatal(err, rep.Disagreements)
		}
		b.ReportMetric(float64(rep.Total.Instructions)/rep.Seconds, "trace-instrs/s(engine)")
		b.ReportMetric(float64(rep.Segments), "segments")
		b.ReportMetric(float64(rep.Total.Measured)/float64(rep.Total.Instructions), "passes/instr")
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "trace-instrs/s(all)")
	if cpu := processCPU() - cpu0; cpu > 0 {
		b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
	}
}

// BenchmarkReplay_FermiModel replays 100,000 warp instructions on the
// model alone (the target: 1 M in 5 s on one core).
func BenchmarkReplay_FermiModel(b *testing.B) {
	u, _ := load(b, "../../specs/large/shared_memory_fermi.hcl", "shmem_fermi")
	w, err := NewWorkload(u)
	if err != nil {
		b.Fatal(err)
	}
	if err := w.AddFile(writeTrace(b, randomTrace(100_000, 32, 12288))); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		if _, err := w.Cycles(0); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(w.Instrs)+len(w.Fill))*float64(b.N)/b.Elapsed().Seconds(), "warp-instrs/s")
}
