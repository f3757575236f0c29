package pipesim

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/tools/conflicts"
)

func specUnits(t *testing.T, path string) []specs.Unit {
	t.Helper()
	file, diags := specs.NewLoader().Load(path)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return file.Units
}

// TestPick: the first elastic_pipeline and warp_ready_mask, or the named
// ones; a name of another kind or of no unit, and a spec without a
// pipeline, are errors that say so; a mask of other warps is refused.
func TestPick(t *testing.T) {
	us := specUnits(t, "../../specs/pipeline.hcl")
	p, err := PickPipeline(us, "", "p.hcl")
	if err != nil || p.Name != "ep_elastic_m4" {
		t.Fatalf("first pipeline: %v %v", p, err)
	}
	if p, err = PickPipeline(us, "ep_elastic_fig6", "p.hcl"); err != nil || p.WarpSize != 16 {
		t.Fatalf("named pipeline: %v %v", p, err)
	}
	m, err := PickMask(us, "", "p.hcl")
	if err != nil || m == nil || m.Name != "wrm_paper" {
		t.Fatalf("first mask: %v %v", m, err)
	}
	if err := CheckMask(p, m); err == nil || !strings.Contains(err.Error(), "does not match elastic_pipeline ep_elastic_fig6 (16, 8, 2)") {
		t.Errorf("a 32-lane mask with a 16-lane pipeline: %v", err)
	}
	first, _ := PickPipeline(us, "", "p.hcl")
	if err := CheckMask(first, m); err != nil {
		t.Errorf("matching mask: %v", err)
	}
	for _, c := range []struct {
		err  error
		want string
	}{
		{second(PickPipeline(us, "wrm_paper", "p.hcl")), "wrm_paper is a warp_ready_mask unit, not an elastic_pipeline"},
		{second(PickPipeline(us, "nope", "p.hcl")), `p.hcl declares no unit "nope". Its elastic_pipeline units: ep_elastic_m4, ep_unified_m4, ep_split_m4, ep_elastic_fig6.`},
		{second(PickPipeline(us, "ep_split_m", "p.hcl")), `p.hcl declares no unit "ep_split_m". Did you mean "ep_split_m4"? Its elastic_pipeline units: ep_elastic_m4, ep_unified_m4, ep_split_m4, ep_elastic_fig6.`},
		{second(PickPipeline(nil, "", "h.hcl")), "h.hcl declares no elastic_pipeline unit"},
		{second(PickMask(us, "ep_split_m4", "p.hcl")), "ep_split_m4 is an elastic_pipeline unit, not a warp_ready_mask"},
	} {
		if c.err == nil || c.err.Error() != c.want {
			t.Errorf("%v, want %q", c.err, c.want)
		}
	}
	if _, err := PickPipeline(nil, "", "h.hcl"); !errors.Is(err, ErrNoPipeline) {
		t.Errorf("no pipeline: %v is not ErrNoPipeline", err)
	}
	if m, err := PickMask(us[:1], "", "p.hcl"); m != nil || err != nil {
		t.Errorf("no mask: %v %v", m, err)
	}
}

func second[T any](_ T, err error) error { return err }

// TestShapeOf: subwarps from the pipeline, PC bits and warps from the
// mask, the default mask's 14-bit PCs without one; a one-lane warp has no
// default mask.
func TestShapeOf(t *testing.T) {
	us := specUnits(t, "../../specs/pipeline.hcl")
	p, _ := PickPipeline(us, "", "p.hcl")
	m, _ := PickMask(us, "", "p.hcl")
	if s, err := ShapeOf(p, m); err != nil || s != (Shape{Subwarps: 4, SIMDWidth: 8, PCBits: m.PCBits, Warps: 32}) {
		t.Errorf("with mask: %+v %v", s, err)
	}
	if s, err := ShapeOf(p, nil); err != nil || s != (Shape{Subwarps: 4, SIMDWidth: 8, PCBits: 14}) {
		t.Errorf("default mask: %+v %v", s, err)
	}
	if _, err := ShapeOf(&specs.ElasticPipeline{Name: "one", WarpSize: 1, SIMDWidth: 1}, nil); err == nil || !strings.Contains(err.Error(), "warp_size >= 2") {
		t.Errorf("one lane: %v", err)
	}
}

// TestSyntheticFor: a preset's row takes the pipeline's warps (512
// threads of aes_encrypt are 16 warps of 32, capped at the mask's 8
// contexts) and whole loops of its 534 static instructions; no preset
// is DefaultSynthetic; both take the seed.
func TestSyntheticFor(t *testing.T) {
	p := &specs.ElasticPipeline{Name: "p", WarpSize: 32, SIMDWidth: 8}
	pre, _ := LookupPreset("aes_encrypt")
	g := SyntheticFor(p, Shape{Subwarps: 4, SIMDWidth: 8, Warps: 8}, &pre, 7)
	if g.Warps != 8 || g.Static != 534 || g.Instructions != 1068 || g.Seed != 7 || g.Preset != "aes_encrypt" || !g.Irregular || g.Mem != PresetMem {
		t.Errorf("aes_encrypt: %+v", g)
	}
	if g := SyntheticFor(p, Shape{Subwarps: 4, SIMDWidth: 8}, &pre, 7); g.Warps != 16 {
		t.Errorf("aes_encrypt without a mask's contexts: %d warps, want 16", g.Warps)
	}
	d := SyntheticFor(p, Shape{Subwarps: 4, SIMDWidth: 8}, nil, 9)
	want := DefaultSynthetic
	want.Seed = 9
	if d.Warps != want.Warps || d.Seed != 9 || d.Preset != "" || d.Static != want.Static {
		t.Errorf("default: %+v", d)
	}
}

// TestSource_Workload: each source gives its workload, what the report
// says of it and the header of its trace: a trace file as read, a
// synthetic kernel of its warps and instructions, the example Accel-Sim
// trace's 4 warps of 17 instructions under mod 32 banks; the trace each
// writes reads back to the same workload.
func TestSource_Workload(t *testing.T) {
	us := specUnits(t, "../../specs/pipeline.hcl")
	p, _ := PickPipeline(us, "", "p.hcl")
	m, _ := PickMask(us, "", "p.hcl")
	shape, _ := ShapeOf(p, m)
	g := SyntheticFor(p, shape, nil, 3)
	g.Warps, g.Instructions = 4, 50
	banks, _ := conflicts.Modulo(32)
	dir := t.TempDir()
	for _, c := range []struct {
		src    Source
		source string
		warps  int
		instrs int
		header string
	}{
		{Source{Synthetic: &g}, "synthetic", 4, 200, "--warps 4 --instructions 50 "},
		{Source{AccelSim: exampleAccelSim, AccelSimOptions: AccelSimOptions{Banks: banks, BankBytes: 4}}, "accelsim", 4, 17, "banks mod 32 (32 banks) of 4 bytes; pc = byte PC / 16 mod 2^14"},
	} {
		wl, info, hdr, err := c.src.Workload(p, shape)
		if err != nil {
			t.Fatalf("%s: %v", c.source, err)
		}
		if info.Source != c.source || info.Warps != c.warps || info.WarpInstructions != c.instrs || !strings.Contains(strings.Join(hdr, "\n"), c.header) {
			t.Errorf("%s: info %+v, header %q", c.source, info, hdr)
		}
		var b bytes.Buffer
		if err := wl.WriteTrace(&b, hdr); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, c.source+".ptrace")
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		back, info2, _, err := Source{Trace: path}.Workload(p, shape)
		if err != nil || info2.Source != "trace" || info2.Trace != path || info2.Stats != info.Stats || back.Instructions() != wl.Instructions() {
			t.Errorf("%s read back: %+v %v", c.source, info2, err)
		}
	}
	if _, _, _, err := (Source{AccelSim: exampleAccelSim}).Workload(p, Shape{Subwarps: 2, SIMDWidth: 8}); err == nil || !strings.Contains(err.Error(), "Accel-Sim traces have warps of 32 lanes") {
		t.Errorf("16-lane warps: %v", err)
	}
	if _, _, _, err := (Source{}).Workload(p, shape); err == nil {
		t.Error("no source: no error")
	}
}
