package pipesim

import (
	"errors"
	"fmt"

	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/tools/accelsim"
)

// The choice of a study's units and workload: which elastic_pipeline and
// warp_ready_mask of a spec, the shape they give the workload, and where
// the workload comes from (a trace, an Accel-Sim trace, or a synthetic
// kernel from a preset or parameters). The caller loads the spec and
// opens nothing else.

// ErrNoPipeline is PickPipeline's error when the units hold no
// elastic_pipeline and none was named.
var ErrNoPipeline = errors.New("declares no elastic_pipeline unit")

// PickPipeline returns the elastic_pipeline unit named name among us, or
// the first when name is ""; file names the spec in errors.
func PickPipeline(us []specs.Unit, name, file string) (*specs.ElasticPipeline, error) {
	for _, u := range us {
		if p, ok := u.(*specs.ElasticPipeline); ok && (name == "" || p.Name == name) {
			return p, nil
		}
	}
	if name == "" {
		return nil, fmt.Errorf("%s %w", file, ErrNoPipeline)
	}
	return nil, notKind(us, name, file, "elastic_pipeline")
}

// PickMask returns the warp_ready_mask unit named name among us, or the
// first when name is "", or nil when name is "" and us hold none.
func PickMask(us []specs.Unit, name, file string) (*specs.WarpReadyMask, error) {
	for _, u := range us {
		if m, ok := u.(*specs.WarpReadyMask); ok && (name == "" || m.Name == name) {
			return m, nil
		}
	}
	if name == "" {
		return nil, nil
	}
	return nil, notKind(us, name, file, "warp_ready_mask")
}

// CheckMask refuses a mask (nil: the default) whose warps are not pipe's.
func CheckMask(pipe *specs.ElasticPipeline, mask *specs.WarpReadyMask) error {
	if mask != nil && (mask.WarpSize != pipe.WarpSize || mask.SIMDWidth != pipe.SIMDWidth || mask.ShmemPorts != pipe.ShmemPorts) {
		return fmt.Errorf("warp_ready_mask %s (warp_size %d, simd_width %d, shmem_ports %d) does not match elastic_pipeline %s (%d, %d, %d)",
			mask.Name, mask.WarpSize, mask.SIMDWidth, mask.ShmemPorts, pipe.Name, pipe.WarpSize, pipe.SIMDWidth, pipe.ShmemPorts)
	}
	return nil
}

// notKind says why name is not a unit of kind among us, with the nearest
// name (specs.FindUnit).
func notKind(us []specs.Unit, name, file, kind string) error {
	_, err := specs.FindUnit(us, name, kind, file)
	return err
}

// ShapeOf is the shape of pipe's workloads: its subwarps, and the PC
// width and warp contexts of mask (the default mask's PC width when mask
// is nil, which needs warp_size >= 2).
func ShapeOf(pipe *specs.ElasticPipeline, mask *specs.WarpReadyMask) (Shape, error) {
	shape := Shape{Subwarps: pipe.WarpSize / pipe.SIMDWidth, SIMDWidth: pipe.SIMDWidth}
	if mask != nil {
		shape.PCBits, shape.Warps = mask.PCBits, mask.WarpContexts
		return shape, nil
	}
	if pipe.WarpSize < 2 {
		return shape, fmt.Errorf("elastic_pipeline %s: the warp ready mask needs warp_size >= 2", pipe.Name)
	}
	shape.PCBits = DefaultMask(pipe, MaxWarps).PCBits
	return shape, nil
}

// SyntheticFor is the synthetic kernel of a study of pipe at shape: the
// row of preset for pipe's warps and at most shape's warp contexts, or
// DefaultSynthetic when preset is nil, with seed. The caller then sets
// the parameters given explicitly.
func SyntheticFor(pipe *specs.ElasticPipeline, shape Shape, preset *Preset, seed uint64) Synthetic {
	g := DefaultSynthetic
	if preset != nil {
		maxWarps := MaxWarps
		if shape.Warps > 0 {
			maxWarps = shape.Warps
		}
		g = preset.Synthetic(pipe.WarpSize, maxWarps, seed)
	}
	g.Seed = seed
	return g
}

// Source is where a study's workload comes from: a trace file (Trace), an
// Accel-Sim trace (AccelSim, converted with AccelSimOptions) or a
// synthetic kernel (Synthetic); exactly one.
type Source struct {
	Trace           string
	AccelSim        string
	AccelSimOptions AccelSimOptions
	Synthetic       *Synthetic
}

// Workload reads or generates the workload of src for pipe at shape. It
// returns what the report says of it and the header of its trace file
// (WriteTrace: the lines that say where it came from).
func (src Source) Workload(pipe *specs.ElasticPipeline, shape Shape) (*Workload, WorkloadInfo, []string, error) {
	wl, info, hdr, err := src.workload(pipe, shape)
	if err == nil {
		info.Stats = wl.Stats()
	}
	return wl, info, hdr, err
}

func (src Source) workload(pipe *specs.ElasticPipeline, shape Shape) (*Workload, WorkloadInfo, []string, error) {
	switch {
	case src.Synthetic != nil:
		return src.synthetic(pipe, shape)
	case src.AccelSim != "":
		return src.accelSim(pipe, shape)
	case src.Trace != "":
		wl, err := ParseFile(src.Trace, shape)
		return wl, WorkloadInfo{Source: "trace", Trace: src.Trace}, nil, err
	}
	return nil, WorkloadInfo{}, nil, errors.New("no workload: a trace, an Accel-Sim trace or a synthetic kernel")
}

func (src Source) synthetic(pipe *specs.ElasticPipeline, shape Shape) (*Workload, WorkloadInfo, []string, error) {
	g := *src.Synthetic
	if err := g.Check(shape); err != nil {
		return nil, WorkloadInfo{}, nil, err
	}
	wl, err := g.Generate(shape)
	if err != nil {
		return nil, WorkloadInfo{}, nil, err
	}
	hdr := []string{fmt.Sprintf("lsugen pipesim synthetic workload for %s (warp_size %d, simd_width %d)", pipe.Name, pipe.WarpSize, pipe.SIMDWidth)}
	if g.Preset != "" {
		hdr = append(hdr, "preset "+g.Preset)
	}
	hdr = append(hdr, fmt.Sprintf("--warps %d --instructions %d --shmem %v --mem %v --degrees %s --static %d --irregular=%v --seed %d",
		g.Warps, g.Instructions, g.Shmem, g.Mem, g.Degrees, g.Static, g.Irregular, g.Seed))
	return wl, WorkloadInfo{Source: "synthetic", Synthetic: &g}, hdr, nil
}

func (src Source) accelSim(pipe *specs.ElasticPipeline, shape Shape) (_ *Workload, _ WorkloadInfo, _ []string, err error) {
	if shape.Subwarps*shape.SIMDWidth != accelsim.WarpSize {
		return nil, WorkloadInfo{}, nil, fmt.Errorf("Accel-Sim traces have warps of %d lanes; the elastic_pipeline's warp_size is %d", accelsim.WarpSize, shape.Subwarps*shape.SIMDWidth)
	}
	r, err := accelsim.Open(src.AccelSim)
	if err != nil {
		return nil, WorkloadInfo{}, nil, err
	}
	defer r.Close()
	wl, info, err := FromAccelSim(r, src.AccelSim, shape, src.AccelSimOptions)
	if err != nil {
		return nil, WorkloadInfo{}, nil, err
	}
	pcBits := shape.PCBits
	if pcBits == 0 {
		pcBits = 32
	}
	hdr := []string{fmt.Sprintf("lsugen pipesim workload of Accel-Sim trace %s for %s (warp_size %d, simd_width %d)", src.AccelSim, pipe.Name, pipe.WarpSize, pipe.SIMDWidth),
		fmt.Sprintf("banks %s (%d banks) of %d bytes; pc = byte PC / %d mod 2^%d; traced warp g on warp g mod %d",
			info.Banks, info.NumBanks, info.BankBytes, info.InstrBytes, pcBits, max(info.Contexts, 1))}
	return wl, WorkloadInfo{Source: "accelsim", Trace: src.AccelSim, AccelSim: info}, hdr, nil
}
