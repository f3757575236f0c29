package pipesim

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
)

// Kind is the kind of a warp instruction.
type Kind uint8

const (
	ALU   Kind = iota // non-memory: takes the NONMEM path where there is one
	Shmem             // shared memory: MEM0 for ceil(degree/ports) cycles per subwarp
	Mem               // other memory (global, constant): one MEM0 cycle per subwarp
)

var kindNames = [...]string{ALU: "alu", Shmem: "shmem", Mem: "mem"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Limits of a workload, whether read from a trace or generated. They bound
// memory and run time, not what a GPU can do: MaxWarps is the width of the
// ready mask's warp bit vectors.
const (
	MaxWarps        = 64      // warp ids 0..63
	MaxInstructions = 1 << 22 // warp instructions in one workload
	MaxPC           = 1<<32 - 1
)

// Instr is one warp instruction.
type Instr struct {
	Kind Kind
	PC   uint32
	Line int32  // source line of a trace, 0 when generated
	deg  uint32 // shmem: offset of its Subwarps degrees in Workload.degrees
}

// Workload is the programs of the warps of one kernel: Programs[w] is warp
// w's instructions in program order. Each shared-memory instruction has one
// conflict degree per subwarp.
type Workload struct {
	Subwarps  int // S = warp_size / simd_width
	SIMDWidth int // degrees are 1..SIMDWidth
	Programs  [][]Instr
	degrees   []uint8
	total     int
}

// NewWorkload returns an empty workload for warps of subwarps subwarps of
// simdWidth lanes.
func NewWorkload(subwarps, simdWidth int) *Workload {
	return &Workload{Subwarps: subwarps, SIMDWidth: simdWidth}
}

// Add appends an instruction to warp w's program. degrees is nil for alu
// and mem; for shmem it holds one degree for all subwarps or exactly
// Subwarps degrees, each 1..SIMDWidth.
func (wl *Workload) Add(w int, k Kind, pc uint64, degrees []int) error {
	if w < 0 || w >= MaxWarps {
		return fmt.Errorf("warp id %d out of range: want 0..%d", w, MaxWarps-1)
	}
	if k > Mem {
		return fmt.Errorf("unknown instruction kind %d", k)
	}
	if pc > MaxPC {
		return fmt.Errorf("pc %#x does not fit in 32 bits", pc)
	}
	if wl.total >= MaxInstructions {
		return fmt.Errorf("more than %d warp instructions", MaxInstructions)
	}
	in := Instr{Kind: k, PC: uint32(pc)}
	if k == Shmem {
		if len(degrees) != 1 && len(degrees) != wl.Subwarps {
			return fmt.Errorf("shmem wants one conflict degree for all %d subwarps or exactly %d, got %d", wl.Subwarps, wl.Subwarps, len(degrees))
		}
		for _, d := range degrees {
			if d < 1 || d > wl.SIMDWidth {
				return fmt.Errorf("conflict degree %d out of range: want 1..%d (simd_width)", d, wl.SIMDWidth)
			}
		}
		in.deg = uint32(len(wl.degrees))
		for i := 0; i < wl.Subwarps; i++ {
			d := degrees[0]
			if len(degrees) > 1 {
				d = degrees[i]
			}
			wl.degrees = append(wl.degrees, uint8(d))
		}
	} else if len(degrees) > 0 {
		return fmt.Errorf("%s takes no conflict degree", k)
	}
	for len(wl.Programs) <= w {
		wl.Programs = append(wl.Programs, nil)
	}
	wl.Programs[w] = append(wl.Programs[w], in)
	wl.total++
	return nil
}

// addShared appends a shmem instruction that reuses the degrees at offset
// off (a static instruction's fixed degrees).
func (wl *Workload) addShared(w int, pc uint32, off uint32) {
	for len(wl.Programs) <= w {
		wl.Programs = append(wl.Programs, nil)
	}
	wl.Programs[w] = append(wl.Programs[w], Instr{Kind: Shmem, PC: pc, deg: off})
	wl.total++
}

// Degrees returns the per-subwarp conflict degrees of a shmem instruction
// (nil for others). The slice must not be modified.
func (wl *Workload) Degrees(in Instr) []uint8 {
	if in.Kind != Shmem {
		return nil
	}
	return wl.degrees[in.deg : in.deg+uint32(wl.Subwarps)]
}

// Instructions is the number of warp instructions of all warps.
func (wl *Workload) Instructions() int { return wl.total }

// Stats summarises a workload.
type Stats struct {
	Warps               int     `json:"warps"`
	WarpInstructions    int     `json:"warp_instructions"`
	SubwarpInstructions int     `json:"subwarp_instructions"`
	Shmem               int     `json:"shmem_instructions"`
	Mem                 int     `json:"mem_instructions"`
	ShmemIntensity      float64 `json:"shmem_intensity"` // shmem / all warp instructions
	MemIntensity        float64 `json:"mem_intensity"`
	MeanDegree          float64 `json:"mean_degree"` // over the subwarps of shmem instructions; 0 without any
	StaticPCs           int     `json:"static_pcs"`  // distinct PCs
}

// Stats counts the workload's instructions.
func (wl *Workload) Stats() Stats {
	s := Stats{Warps: len(wl.Programs), WarpInstructions: wl.total, SubwarpInstructions: wl.total * wl.Subwarps}
	pcs := map[uint32]struct{}{}
	degSum := 0
	for _, p := range wl.Programs {
		for _, in := range p {
			pcs[in.PC] = struct{}{}
			switch in.Kind {
			case Shmem:
				s.Shmem++
				for _, d := range wl.Degrees(in) {
					degSum += int(d)
				}
			case Mem:
				s.Mem++
			}
		}
	}
	s.StaticPCs = len(pcs)
	if wl.total > 0 {
		s.ShmemIntensity = float64(s.Shmem) / float64(wl.total)
		s.MemIntensity = float64(s.Mem) / float64(wl.total)
	}
	if s.Shmem > 0 {
		s.MeanDegree = float64(degSum) / float64(s.Shmem*wl.Subwarps)
	}
	return s
}

// WriteTrace writes the workload in the trace format, warp by warp, after
// the comment lines of header (each prefixed with "# "). Parse reads it
// back to an equal workload.
func (wl *Workload) WriteTrace(w io.Writer, header []string) error {
	bw := bufio.NewWriter(w)
	for _, h := range header {
		bw.WriteString("# " + h + "\n")
	}
	bw.WriteString("# warp kind pc [conflict degree per subwarp]\n")
	var buf []byte
	for warp, p := range wl.Programs {
		for _, in := range p {
			buf = strconv.AppendInt(buf[:0], int64(warp), 10)
			buf = append(buf, ' ')
			buf = append(buf, in.Kind.String()...)
			buf = append(buf, " 0x"...)
			buf = strconv.AppendUint(buf, uint64(in.PC), 16)
			if in.Kind == Shmem {
				ds := wl.Degrees(in)
				same := true
				for _, d := range ds {
					same = same && d == ds[0]
				}
				if same {
					ds = ds[:1]
				}
				for _, d := range ds {
					buf = append(buf, ' ')
					buf = strconv.AppendInt(buf, int64(d), 10)
				}
			}
			buf = append(buf, '\n')
			if _, err := bw.Write(buf); err != nil {
				return err
			}
		}
	}
	return bw.Flush()
}
