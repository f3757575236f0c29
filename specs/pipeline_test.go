package specs

import "testing"

func TestPipelineSpecs(t *testing.T) {
	f, diags := NewLoader().Load("pipeline.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	units := map[string]Unit{}
	for _, u := range f.Units {
		units[u.UnitName()] = u
	}
	ep := units["ep_elastic_m4"].(*ElasticPipeline)
	if ep.MemStages != 4 || ep.WarpSize != 32 || ep.SIMDWidth != 8 || ep.ShmemPorts != 1 || ep.TagBits != 10 || ep.PipeVariant != PipeElastic {
		t.Errorf("ep_elastic_m4 = %+v", ep)
	}
	if ep.PremDepth() != 3 || ep.DegreeBits() != 4 {
		t.Errorf("ep_elastic_m4: N = %d, degree bits %d; want 3, 4", ep.PremDepth(), ep.DegreeBits())
	}
	if u := units["ep_unified_m4"].(*ElasticPipeline); u.PremDepth() != 0 || u.Variant() != string(PipeUnified) {
		t.Errorf("baseline: N = %d, variant %s", u.PremDepth(), u.Variant())
	}
	if f6 := units["ep_elastic_fig6"].(*ElasticPipeline); f6.PremDepth() != 1 || f6.ShmemPorts != 2 {
		t.Errorf("Figure 6 config: N = %d, ports %d", f6.PremDepth(), f6.ShmemPorts)
	}
	w := units["wrm_paper"].(*WarpReadyMask)
	if w.IndexBits() != 8 || w.TagBits() != 6 || w.HistoryBits() != 5 || w.Subwarps() != 4 || w.DegreeBits() != 4 {
		t.Errorf("wrm_paper: index %d tag %d degree %d subwarps %d input degree %d; want 8 6 5 4 4",
			w.IndexBits(), w.TagBits(), w.HistoryBits(), w.Subwarps(), w.DegreeBits())
	}
	// The paper's 704 bytes: 2 ways x 256 sets x (6 + 5) bits.
	if bits := w.HistorySets * w.HistoryWays * (w.TagBits() + w.HistoryBits()); bits != 704*8 {
		t.Errorf("history cache: %d bits, want %d", bits, 704*8)
	}
}
