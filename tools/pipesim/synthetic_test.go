package pipesim

import (
	"math"
	"strings"
	"testing"
)

func TestParseDist(t *testing.T) {
	d, err := ParseDist(" 4:2, 1:5 ,2:3")
	if err != nil {
		t.Fatal(err)
	}
	if d.String() != "1:0.5,2:0.3,4:0.2" || math.Abs(d.Mean()-1.9) > 1e-12 || d.Max() != 4 {
		t.Errorf("got %s, mean %v, max %d", d, d.Mean(), d.Max())
	}
	for _, c := range []struct{ in, want string }{
		{"1", `term "1": want DEGREE:WEIGHT`},
		{"0:1", `degree "0" is not a whole number 1..1024`},
		{"x:1", `degree "x"`},
		{"1:-1", `weight "-1" is not a non-negative number`},
		{"1:NaN", `weight "NaN"`},
		{"1:0,2:0", "the weights sum to 0"},
		{"1:1,1:2", "degree 1 given twice"},
	} {
		if _, err := ParseDist(c.in); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %q", c.in, err, c.want)
		}
	}
}

func TestMeanDist(t *testing.T) {
	for _, m := range []float64{1, 1.54, 3.07, 4.5, 8} {
		d := MeanDist(m)
		if math.Abs(d.Mean()-m) > 1e-9 || d[0].Degree != int(math.Floor(m)) {
			t.Errorf("MeanDist(%v) = %s, mean %v", m, d, d.Mean())
		}
	}
}

// TestGenerate_Deterministic: one seed, one workload; another seed, another.
func TestGenerate_Deterministic(t *testing.T) {
	for _, irregular := range []bool{false, true} {
		g := DefaultSynthetic
		g.Irregular = irregular
		trace := func(g Synthetic) string {
			wl, err := g.Generate(study)
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			if err := wl.WriteTrace(&b, nil); err != nil {
				t.Fatal(err)
			}
			return b.String()
		}
		a, b := trace(g), trace(g)
		g.Seed++
		c := trace(g)
		if a != b || a == c {
			t.Errorf("irregular %v: same seed differs %v, other seed equal %v", irregular, a != b, a == c)
		}
	}
}

// TestGenerate_Intensities: over a large sample the intensities and the
// mean degree are the requested ones.
func TestGenerate_Intensities(t *testing.T) {
	dist, _ := ParseDist("1:0.5,2:0.3,4:0.2") // mean 1.9
	for _, c := range []struct {
		static, instrs int
		irregular      bool
	}{
		{1000, 1000, false}, // whole kernel: exact counts
		{997, 1500, true},   // partial loop trip, degrees drawn per execution
		{37, 2000, true},
	} {
		g := Synthetic{Warps: 32, Instructions: c.instrs, Shmem: 0.3, Mem: 0.1, Degrees: dist, Static: c.static, Irregular: c.irregular, Seed: 7}
		wl, err := g.Generate(study)
		if err != nil {
			t.Fatal(err)
		}
		st := wl.Stats()
		tol := 0.01
		if c.static < 100 {
			tol = 0.02 // round(0.3*37) = 11 of 37
		}
		if st.WarpInstructions != 32*c.instrs || math.Abs(st.ShmemIntensity-0.3) > tol || math.Abs(st.MemIntensity-0.1) > tol {
			t.Errorf("%+v: %d instructions, shmem %.4f, mem %.4f", c, st.WarpInstructions, st.ShmemIntensity, st.MemIntensity)
		}
		if math.Abs(st.MeanDegree-1.9) > 0.03 {
			t.Errorf("%+v: mean degree %.4f, want 1.9", c, st.MeanDegree)
		}
		if st.StaticPCs != c.static {
			t.Errorf("%+v: %d PCs, want %d", c, st.StaticPCs, c.static)
		}
		// The degree frequencies follow the distribution.
		count := map[uint8]int{}
		n := 0
		for _, p := range wl.Programs {
			for _, in := range p {
				for _, d := range wl.Degrees(in) {
					count[d]++
					n++
				}
			}
		}
		for _, e := range dist {
			if f := float64(count[uint8(e.Degree)]) / float64(n); math.Abs(f-e.Prob) > 0.02 {
				t.Errorf("%+v: degree %d in %.4f of subwarps, want %.2f", c, e.Degree, f, e.Prob)
			}
		}
	}
}

// TestGenerate_Regular: every execution of a static instruction has the
// same kind and degrees; irregular ones vary.
func TestGenerate_Regular(t *testing.T) {
	g := Synthetic{Warps: 4, Instructions: 200, Shmem: 0.5, Degrees: MeanDist(2.5), Static: 20, Seed: 3}
	for _, irregular := range []bool{false, true} {
		g.Irregular = irregular
		wl, err := g.Generate(study)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[uint32]string{}
		varies := false
		for _, p := range wl.Programs {
			for i, in := range p {
				if int(in.PC) != i%20 {
					t.Fatalf("instruction %d has PC %d", i, in.PC)
				}
				key := in.Kind.String() + string(wl.Degrees(in))
				if k, ok := seen[in.PC]; ok && k != key {
					varies = true
				}
				seen[in.PC] = key
			}
		}
		if varies != irregular {
			t.Errorf("irregular %v: degrees vary between executions: %v", irregular, varies)
		}
	}
}

func TestSynthetic_Check(t *testing.T) {
	for _, c := range []struct {
		mod  func(*Synthetic)
		want string
	}{
		{func(g *Synthetic) { g.Warps = 0 }, "warps = 0: want 1..32"},
		{func(g *Synthetic) { g.Warps = 33 }, "warps = 33"},
		{func(g *Synthetic) { g.Instructions = 0 }, "instructions = 0"},
		{func(g *Synthetic) { g.Instructions = MaxInstructions }, "at most 4194304 warp instructions"},
		{func(g *Synthetic) { g.Shmem = 1.5 }, "shmem intensity = 1.5"},
		{func(g *Synthetic) { g.Mem = -0.1 }, "mem intensity = -0.1"},
		{func(g *Synthetic) { g.Static = 1<<14 + 1 }, "static instructions = 16385: want 1..16384"},
		{func(g *Synthetic) { g.Static, g.Shmem, g.Mem = 1, 0.5, 0.5 }, "cannot hold 1 shmem and 1 mem"},
		{func(g *Synthetic) { g.Degrees = Dist{{9, 1}} }, "conflict degree 9: want 1..8"},
		{func(g *Synthetic) { g.Degrees = nil }, "no conflict-degree distribution"},
	} {
		g := DefaultSynthetic
		c.mod(&g)
		err := g.Check(study)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
		if _, err := g.Generate(study); err == nil {
			t.Errorf("Generate accepted %+v", g)
		}
	}
}

// TestPresets: every preset generates for the paper's core with its
// row's intensity, mean degree and irregularity.
func TestPresets(t *testing.T) {
	if len(Presets) != 8 {
		t.Fatalf("%d presets", len(Presets))
	}
	for _, p := range Presets {
		g := p.Synthetic(32, 32, 1)
		if g.Warps != min(p.ThreadsPerCore/32, 32) || g.Instructions%p.Static != 0 || g.Instructions < PresetInstructions {
			t.Errorf("%s: %+v", p.Name, g)
		}
		wl, err := g.Generate(study)
		if err != nil {
			t.Fatalf("%s: %v", p.Name, err)
		}
		st := wl.Stats()
		if math.Abs(st.ShmemIntensity-p.Shmem) > 0.5/float64(p.Static) || math.Abs(st.MemIntensity-PresetMem) > 0.5/float64(p.Static) {
			t.Errorf("%s: shmem %.4f (want %.3f), mem %.4f", p.Name, st.ShmemIntensity, p.Shmem, st.MemIntensity)
		}
		tol := 0.05 // irregular: degrees drawn at every execution
		if !p.Irregular {
			// Every static instruction runs equally often, so the mean is
			// that of the static subwarp degrees: within one subwarp's
			// worth of the row's.
			slots := st.Shmem / (g.Warps * g.Instructions / p.Static) * wl.Subwarps
			tol = 1 / float64(slots)
		}
		if math.Abs(st.MeanDegree-p.MeanDegree) > tol {
			t.Errorf("%s: mean degree %.4f, want %.2f", p.Name, st.MeanDegree, p.MeanDegree)
		}
		if q, ok := LookupPreset(p.Name); !ok || q != p {
			t.Errorf("LookupPreset(%s)", p.Name)
		}
	}
	if _, ok := LookupPreset("nope"); ok {
		t.Error("unknown preset found")
	}
	// Narrow warps: more warps, capped at the contexts.
	if g := Presets[2].Synthetic(8, 64, 1); g.Warps != 64 {
		t.Errorf("reduction with warp_size 8: %d warps", g.Warps)
	}
}

// TestPreset_PerWarp: Table 4's total spread over 16 cores and a core's
// warps, by hand: AES encryption 35,132,928 / 32 / 16 / 16 warps = 4288.5;
// Reduction 415,170,560 / 32 / 16 / 32 = 25,340.
func TestPreset_PerWarp(t *testing.T) {
	for _, c := range []struct {
		name        string
		warps, want int
	}{{"aes_encrypt", 16, 4288}, {"reduction", 32, 25340}, {"transpose", 32, 216}} {
		p, _ := LookupPreset(c.name)
		if got := p.PerWarp(32, c.warps); got != c.want {
			t.Errorf("%s: %d per warp, want %d", c.name, got, c.want)
		}
	}
}
