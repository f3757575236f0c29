package pipesim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Dist is a conflict-degree distribution: degree -> probability, in
// increasing degree order. The probabilities sum to 1.
type Dist []DegreeProb

// DegreeProb is one term of a Dist.
type DegreeProb struct {
	Degree int     `json:"degree"`
	Prob   float64 `json:"prob"`
}

// ParseDist reads "1:0.5,2:0.3,4:0.2": comma-separated DEGREE:WEIGHT terms,
// degrees distinct and at least 1, weights non-negative with a positive sum.
// The weights are normalised to sum to 1.
func ParseDist(s string) (Dist, error) {
	var d Dist
	sum := 0.0
	for _, term := range strings.Split(s, ",") {
		term = strings.TrimSpace(term)
		ds, ws, ok := strings.Cut(term, ":")
		if !ok {
			return nil, fmt.Errorf("term %q: want DEGREE:WEIGHT", term)
		}
		deg, err := strconv.Atoi(strings.TrimSpace(ds))
		if err != nil || deg < 1 || deg > 1024 {
			return nil, fmt.Errorf("term %q: degree %q is not a whole number 1..1024", term, ds)
		}
		w, err := strconv.ParseFloat(strings.TrimSpace(ws), 64)
		if err != nil || w < 0 || math.IsInf(w, 0) || math.IsNaN(w) {
			return nil, fmt.Errorf("term %q: weight %q is not a non-negative number", term, ws)
		}
		for _, e := range d {
			if e.Degree == deg {
				return nil, fmt.Errorf("degree %d given twice", deg)
			}
		}
		d = append(d, DegreeProb{deg, w})
		sum += w
	}
	if sum <= 0 {
		return nil, fmt.Errorf("%q: the weights sum to 0", s)
	}
	for i := range d {
		d[i].Prob /= sum
	}
	sort.Slice(d, func(i, j int) bool { return d[i].Degree < d[j].Degree })
	return d, nil
}

// MeanDist is the distribution on the two whole degrees around mean
// (floor and floor+1) whose mean is mean; mean >= 1.
func MeanDist(mean float64) Dist {
	lo := math.Floor(mean)
	p := mean - lo
	if p < 1e-9 {
		return Dist{{int(lo), 1}}
	}
	return Dist{{int(lo), 1 - p}, {int(lo) + 1, p}}
}

// Mean is the distribution's expected degree.
func (d Dist) Mean() float64 {
	m := 0.0
	for _, e := range d {
		m += float64(e.Degree) * e.Prob
	}
	return m
}

// Max is the largest degree with a positive probability.
func (d Dist) Max() int {
	m := 0
	for _, e := range d {
		if e.Prob > 0 {
			m = max(m, e.Degree)
		}
	}
	return m
}

func (d Dist) String() string {
	var b strings.Builder
	for i, e := range d {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%d:%s", e.Degree, strconv.FormatFloat(e.Prob, 'g', 4, 64))
	}
	return b.String()
}

// draw picks a degree with the distribution's probabilities.
func (d Dist) draw(r *rand.Rand) int {
	x := r.Float64()
	for _, e := range d {
		if x < e.Prob {
			return e.Degree
		}
		x -= e.Prob
	}
	return d.Max()
}

// allocate returns n degrees whose counts follow the distribution as
// closely as whole numbers allow (largest remainder), shuffled.
func (d Dist) allocate(n int, r *rand.Rand) []int {
	counts := make([]int, len(d))
	type rem struct {
		i int
		f float64
	}
	var rems []rem
	left := n
	for i, e := range d {
		x := e.Prob * float64(n)
		counts[i] = int(math.Floor(x))
		left -= counts[i]
		rems = append(rems, rem{i, x - math.Floor(x)})
	}
	sort.SliceStable(rems, func(a, b int) bool { return rems[a].f > rems[b].f })
	for k := 0; k < left; k++ {
		counts[rems[k%len(rems)].i]++
	}
	out := make([]int, 0, n)
	for i, c := range counts {
		for range c {
			out = append(out, d[i].Degree)
		}
	}
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// Synthetic describes a generated workload. All warps run the same kernel
// of Static static instructions, PCs 0..Static-1, in a loop: instruction i
// of every warp is static instruction i mod Static. The kernel holds
// round(Shmem*Static) shared-memory and round(Mem*Static) other memory
// instructions (at least one of a kind whose intensity is not 0), at
// places drawn from the seed; the rest are alu. A regular kernel fixes the
// degree of every subwarp of every static shared-memory instruction, their
// counts following Degrees as closely as whole numbers allow; an irregular
// one draws every subwarp's degree from Degrees at every execution.
type Synthetic struct {
	Warps        int     `json:"warps"`
	Instructions int     `json:"instructions_per_warp"`
	Shmem        float64 `json:"shmem_intensity"`
	Mem          float64 `json:"mem_intensity"`
	Degrees      Dist    `json:"degrees"`
	Static       int     `json:"static_instructions"`
	Irregular    bool    `json:"irregular"`
	Seed         uint64  `json:"seed"`
	Preset       string  `json:"preset"` // the preset it came from, "" if none
}

// Defaults of a synthetic workload without a preset.
var DefaultSynthetic = Synthetic{
	Warps: 32, Instructions: 1000, Shmem: 0.2, Mem: 0.05,
	Degrees: Dist{{1, 0.5}, {2, 0.3}, {4, 0.2}}, Static: 100, Seed: 1,
}

// Check reports why g cannot be generated for shape, or nil.
func (g *Synthetic) Check(shape Shape) error {
	var errs []string
	bad := func(format string, a ...any) { errs = append(errs, fmt.Sprintf(format, a...)) }
	warps := shape.Warps
	if warps == 0 {
		warps = MaxWarps
	}
	if g.Warps < 1 || g.Warps > warps {
		bad("warps = %d: want 1..%d", g.Warps, warps)
	}
	if g.Instructions < 1 || g.Instructions > MaxInstructions {
		bad("instructions = %d: want 1..%d per warp", g.Instructions, MaxInstructions)
	} else if g.Warps >= 1 && g.Warps*g.Instructions > MaxInstructions {
		bad("warps x instructions = %d: at most %d warp instructions", g.Warps*g.Instructions, MaxInstructions)
	}
	if !(g.Shmem >= 0 && g.Shmem <= 1) {
		bad("shmem intensity = %v: want 0..1", g.Shmem)
	}
	if !(g.Mem >= 0 && g.Mem <= 1) {
		bad("mem intensity = %v: want 0..1", g.Mem)
	}
	pcBits := shape.PCBits
	if pcBits == 0 {
		pcBits = 32
	}
	if g.Static < 1 || int64(g.Static) > int64(1)<<uint(pcBits) || g.Static > MaxInstructions {
		bad("static instructions = %d: want 1..%d (PCs 0..K-1 must fit in %d bits)", g.Static, min(int64(1)<<uint(pcBits), MaxInstructions), pcBits)
	} else if len(errs) == 0 {
		s, m := g.counts()
		if s+m > g.Static {
			bad("a kernel of %d static instructions cannot hold %d shmem and %d mem instructions: raise the static size", g.Static, s, m)
		}
	}
	if len(g.Degrees) == 0 {
		bad("no conflict-degree distribution")
	}
	for _, e := range g.Degrees {
		if e.Prob > 0 && (e.Degree < 1 || e.Degree > shape.SIMDWidth) {
			bad("conflict degree %d: want 1..%d (simd_width)", e.Degree, shape.SIMDWidth)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return nil
}

// counts is the number of shmem and mem static instructions.
func (g *Synthetic) counts() (shmem, mem int) {
	n := func(f float64) int {
		if f <= 0 {
			return 0
		}
		return max(1, int(math.Round(f*float64(g.Static))))
	}
	return n(g.Shmem), n(g.Mem)
}

// Generate builds the workload for warps of shape.Subwarps subwarps of
// shape.SIMDWidth lanes. The same Synthetic and shape give the same
// workload.
func (g *Synthetic) Generate(shape Shape) (*Workload, error) {
	if err := shape.check(); err != nil {
		return nil, err
	}
	if err := g.Check(shape); err != nil {
		return nil, err
	}
	r := rand.New(rand.NewPCG(g.Seed, 0x706970657369_6d)) // "pipesim"
	S := shape.Subwarps
	nShmem, nMem := g.counts()
	kinds := make([]Kind, g.Static)
	for i := range kinds {
		switch {
		case i < nShmem:
			kinds[i] = Shmem
		case i < nShmem+nMem:
			kinds[i] = Mem
		}
	}
	r.Shuffle(len(kinds), func(i, j int) { kinds[i], kinds[j] = kinds[j], kinds[i] })

	wl := NewWorkload(S, shape.SIMDWidth)
	// Regular kernels: the fixed degrees of every static shmem instruction,
	// stored once and shared by all its executions.
	static := make([]uint32, g.Static)
	if !g.Irregular {
		all := g.Degrees.allocate(nShmem*S, r)
		for i, k := range kinds {
			if k == Shmem {
				static[i] = uint32(len(wl.degrees))
				for _, d := range all[:S] {
					wl.degrees = append(wl.degrees, uint8(d))
				}
				all = all[S:]
			}
		}
	}
	degs := make([]int, S)
	for w := range g.Warps {
		wl.Programs = append(wl.Programs, make([]Instr, 0, g.Instructions))
		for i := range g.Instructions {
			s := i % g.Static
			switch {
			case kinds[s] != Shmem:
				if err := wl.Add(w, kinds[s], uint64(s), nil); err != nil {
					return nil, err
				}
			case g.Irregular:
				for j := range degs {
					degs[j] = g.Degrees.draw(r)
				}
				if err := wl.Add(w, Shmem, uint64(s), degs); err != nil {
					return nil, err
				}
			default:
				wl.addShared(w, uint32(s), static[s])
			}
		}
	}
	return wl, nil
}

// Preset is a synthetic kernel built from the inputs of one row of the
// paper's Table 4 (001_*): its shared-memory intensity, average bank
// conflict degree, irregular column, static (ptx) instruction count and
// threads per core (CTAs per core x CTA size). Nothing the paper measured
// on its pipelines is used.
type Preset struct {
	Name           string
	Source         string  // the Table 4 row
	ThreadsPerCore int     // CTAs per core x threads per CTA
	Static         int     // ptx instructions of the kernel
	Shmem          float64 // shared memory intensity
	MeanDegree     float64 // average bank conflict degree
	Irregular      bool
	// Total is the kernel's dynamic instructions over all lanes of the
	// paper's 16 cores (the first number of Table 4's total column).
	Total int64
}

// Table3Cores is the number of cores of the paper's GPU (Table 3), over
// which a Preset's Total is spread.
const Table3Cores = 16

// PerWarp is how many instructions each of warps warp contexts of one
// core runs, about, for the kernel's Total: Total / warpSize thread
// instructions a warp instruction / Table3Cores cores / warps; at least 1.
func (p Preset) PerWarp(warpSize, warps int) int {
	return int(max(1, p.Total/int64(max(warpSize, 1))/Table3Cores/int64(max(warps, 1))))
}

// Presets are the rows of Table 4.
var Presets = []Preset{
	{"aes_encrypt", "AES_encypt", 2 * 256, 534, 0.361, 1.54, true, 35132928},
	{"aes_decrypt", "AES_decypt", 2 * 256, 540, 0.359, 1.53, true, 35527680},
	{"reduction", "Reduction", 4 * 256, 49, 0.040, 3.07, true, 415170560},
	{"transpose", "Transpose*", 4 * 16 * 16, 54, 0.037, 4.50, false, 3538944},
	{"dct", "DCT*", 7 * 8 * 4 * 2, 222, 0.216, 3.33, false, 7274496},
	{"idct", "IDCT*", 7 * 8 * 4 * 2, 226, 0.212, 3.33, false, 7405568},
	{"dct_short", "DCT_short*", 7 * 8 * 4 * 4, 337, 0.103, 2.75, false, 10223616},
	{"idct_short", "IDCT_short*", 7 * 8 * 4 * 4, 336, 0.103, 2.75, false, 10190848},
}

// PresetMem is the global-memory intensity of the presets. Table 4 does not
// give one; this is an assumption of the study, not a figure of the paper.
const PresetMem = 0.05

// PresetInstructions is about how many instructions each warp of a preset
// executes: the kernel's static size times the smallest whole number of
// loop trips that reaches it, so every static instruction runs equally
// often.
const PresetInstructions = 1000

// LookupPreset returns the named preset.
func LookupPreset(name string) (Preset, bool) {
	i := slices.IndexFunc(Presets, func(p Preset) bool { return p.Name == name })
	if i < 0 {
		return Preset{}, false
	}
	return Presets[i], true
}

// PresetNames lists the presets' names.
func PresetNames() []string {
	var s []string
	for _, p := range Presets {
		s = append(s, p.Name)
	}
	return s
}

// Synthetic returns the preset's workload description for warps of
// warpSize threads and at most maxWarps warp contexts: warps =
// min(threads per core / warp_size, maxWarps), at least 1.
func (p Preset) Synthetic(warpSize, maxWarps int, seed uint64) Synthetic {
	return p.SyntheticN(warpSize, maxWarps, seed, PresetInstructions)
}

// SyntheticN is Synthetic with about n instructions per warp (the
// kernel's static size times the fewest loop trips that reach n).
func (p Preset) SyntheticN(warpSize, maxWarps int, seed uint64, n int) Synthetic {
	warps := max(1, min(p.ThreadsPerCore/max(warpSize, 1), maxWarps))
	trips := max(1, (n+p.Static-1)/p.Static)
	return Synthetic{
		Warps: warps, Instructions: trips * p.Static, Shmem: p.Shmem, Mem: PresetMem,
		Degrees: MeanDist(p.MeanDegree), Static: p.Static, Irregular: p.Irregular,
		Seed: seed, Preset: p.Name,
	}
}
