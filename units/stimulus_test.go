package units

import (
	"slices"
	"strings"
	"testing"

	"github.com/lsugen/lsugen/model"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/verify"
)

// The stimulus tests drive the generators with small stand-in models that
// have the units' ports and a crude version of their behaviour (enough to
// stall and to mask), and check the streams: the protocol is followed and
// the phases reach what they are for.

// recording is a stream of a unit's stimulus over a stand-in model.
type recording struct{ ins, outs [][][]uint64 }

func (r *recording) inView(v [][]uint64, c int)  { copy(v, r.ins[c]) }
func (r *recording) outView(v [][]uint64, c int) { copy(v, r.outs[c]) }

// flat is every input word of the stream in order, to compare streams.
func (r *recording) flat() []uint64 {
	var out []uint64
	for _, cyc := range r.ins {
		for _, p := range cyc {
			out = append(out, p...)
		}
	}
	return out
}

// drive records a stream of the unit's stimulus over m, uncut.
func drive(t *testing.T, stimulus verify.StimulusFunc, m model.Sequential, cycles int, seed uint64) (*recording, verify.Stimulus) {
	t.Helper()
	stim, err := stimulus(m.Ports(), seed)
	if err != nil {
		t.Fatal(err)
	}
	in, out := verify.Record(m, stim, cycles)
	return &recording{in, out}, stim
}

// fakePipe has the elastic pipeline's ports; MEM0 holds every instruction
// for max(1, ceil(degree/P)) cycles (shmem) or 1 cycle, and an offered
// instruction stalls while MEM0 is busy beyond this cycle.
type fakePipe struct {
	db, tb      int
	ports, left uint64
	tag         uint64
	busy        bool
}

func (f *fakePipe) Ports() []model.Port {
	return []model.Port{
		{Name: "rst", Width: 1}, {Name: "in_valid_i", Width: 1}, {Name: "in_kind_i", Width: 2},
		{Name: "in_degree_i", Width: f.db}, {Name: "in_tag_i", Width: f.tb},
		{Name: "stall_o", Width: 1, Output: true}, {Name: "wb_valid_o", Width: 1, Output: true},
		{Name: "wb_tag_o", Width: f.tb, Output: true},
	}
}

func (f *fakePipe) Reset() { f.left, f.busy = 0, false }

func (f *fakePipe) Cycle(in, out [][]uint64) {
	valid, kind, deg, tag := in[1][0]&1 == 1, in[2][0]&3, in[3][0], in[4][0]
	free := f.left <= 1
	out[0][0], out[1][0], out[2][0] = 0, 0, 0
	if valid && !free {
		out[0][0] = 1
	}
	if f.busy && f.left == 1 {
		out[1][0], out[2][0] = 1, f.tag
	}
	if in[0][0]&1 == 1 {
		f.Reset()
		return
	}
	if f.left > 0 {
		f.left--
	}
	f.busy = f.left > 0
	if valid && free {
		c := uint64(1)
		if kind == 1 {
			c = max(1, (deg+f.ports-1)/f.ports)
		}
		f.left, f.tag, f.busy = c, tag, true
	}
}

func TestPipelineStimulus_FollowsProtocol(t *testing.T) {
	u := &specs.ElasticPipeline{Name: "p", MemStages: 2, WarpSize: 32, SIMDWidth: 8, ShmemPorts: 2, TagBits: 6, PipeVariant: specs.PipeElastic}
	const cycles = 60_000
	s, stim := drive(t, pipelineStimulus(u), &fakePipe{db: u.DegreeBits(), tb: u.TagBits, ports: 2}, cycles, 1)
	in, out := make([][]uint64, len(s.ins[0])), make([][]uint64, len(s.outs[0]))
	prev := make([][]uint64, len(s.ins[0]))
	var kinds [4]int
	degrees := map[uint64]int{}
	stalls, resets, idle, maxIdle, shmemRun, maxShmemRun := 0, 0, 0, 0, 0, 0
	stalled := false
	for c := 0; c < cycles; c++ {
		s.inView(in, c)
		s.outView(out, c)
		rst, valid := in[0][0] == 1, in[1][0] == 1
		if stalled && (!valid || in[2][0] != prev[2][0] || in[3][0] != prev[3][0] || in[4][0] != prev[4][0]) {
			t.Fatalf("cycle %d: the instruction stalled in cycle %d is not offered again: %v after %v", c, c-1, in, prev)
		}
		if rst {
			resets++
		}
		stalled = valid && out[0][0] == 1 && !rst
		if stalled {
			stalls++
		}
		if valid && out[0][0] == 0 && !rst {
			kinds[in[2][0]]++
			if in[2][0] == 1 {
				degrees[in[3][0]]++
			}
		}
		if valid {
			idle = 0
		} else {
			idle++
			maxIdle = max(maxIdle, idle)
		}
		if valid && in[2][0] == 1 {
			shmemRun++
			maxShmemRun = max(maxShmemRun, shmemRun)
		} else {
			shmemRun = 0
		}
		for j := range in {
			prev[j] = slices.Clone(in[j])
		}
	}
	t.Logf("coverage: %s", stim.Coverage())
	for k, n := range kinds {
		if n < 100 {
			t.Errorf("kind %d accepted %d times", k, n)
		}
	}
	for d := uint64(0); d <= 15; d++ {
		if degrees[d] == 0 {
			t.Errorf("no shmem instruction of degree %d", d)
		}
	}
	if stalls < 1000 || resets == 0 || maxIdle < 10 || maxShmemRun < 20 {
		t.Errorf("%d stalls, %d resets, longest idle gap %d, longest shmem run %d", stalls, resets, maxIdle, maxShmemRun)
	}
	cov := stim.Coverage()
	for _, ph := range pipePhaseNames {
		if !strings.Contains(cov, ph) {
			t.Errorf("phase %s never ran: %s", ph, cov)
		}
	}

	// The same seed gives the same stream, another seed another.
	again, _ := drive(t, pipelineStimulus(u), &fakePipe{db: u.DegreeBits(), tb: u.TagBits, ports: 2}, cycles, 1)
	other, _ := drive(t, pipelineStimulus(u), &fakePipe{db: u.DegreeBits(), tb: u.TagBits, ports: 2}, cycles, 2)
	if !slices.Equal(s.flat(), again.flat()) {
		t.Error("the stream is not deterministic")
	}
	if slices.Equal(s.flat(), other.flat()) {
		t.Error("seeds 1 and 2 give the same stream")
	}
}

// fakeMask has the warp ready mask's ports: mask_o holds for 3 cycles
// after a shared-memory warp is scheduled.
type fakeMask struct {
	w, pcb, db int
	c          int
}

func (f *fakeMask) Ports() []model.Port {
	return []model.Port{
		{Name: "rst", Width: 1}, {Name: "launch_i", Width: 1}, {Name: "warp_ready_i", Width: f.w},
		{Name: "warp_is_mem_i", Width: f.w}, {Name: "sched_valid_i", Width: 1}, {Name: "sched_shmem_i", Width: 1},
		{Name: "sched_pc_i", Width: f.pcb}, {Name: "res_valid_i", Width: 1}, {Name: "res_pc_i", Width: f.pcb},
		{Name: "res_degree_i", Width: f.db},
		{Name: "warp_ready_o", Width: f.w, Output: true}, {Name: "mask_o", Width: 1, Output: true},
	}
}

func (f *fakeMask) Reset() { f.c = 0 }

func (f *fakeMask) Cycle(in, out [][]uint64) {
	m := uint64(0)
	if f.c > 0 {
		m = 1
	}
	out[1][0] = m
	out[0][0] = in[2][0] &^ (in[3][0] & -m) & verify.Mask(f.w)
	switch {
	case in[0][0]&1 == 1 || in[1][0]&1 == 1:
		f.c = 0
	case in[4][0]&1 == 1 && in[5][0]&1 == 1:
		f.c = 3
	case f.c > 0:
		f.c--
	}
}

func TestReadyMaskStimulus_ReachesPhases(t *testing.T) {
	u := &specs.WarpReadyMask{Name: "m", WarpContexts: 8, HistorySets: 16, HistoryWays: 2, PCBits: 10, WarpSize: 32, SIMDWidth: 8, ShmemPorts: 2}
	const cycles = 100_000
	f := &fakeMask{w: 8, pcb: 10, db: u.DegreeBits()}
	s, stim := drive(t, readyMaskStimulus(u), f, cycles, 1)
	in := make([][]uint64, len(s.ins[0]))
	S := u.Subwarps()
	scheduled := map[uint64]bool{} // shmem PCs scheduled since the last reset or launch
	perSet := map[uint64]map[uint64]bool{}
	degrees := map[uint64]int{}
	pulses, known, launches, resets, run, groupsOfS := 0, 0, 0, 0, 0, 0
	var runPC uint64
	for c := 0; c < cycles; c++ {
		s.inView(in, c)
		if in[0][0] == 1 || in[1][0] == 1 {
			if in[0][0] == 1 {
				resets++
			} else {
				launches++
			}
			clear(scheduled)
			run = 0
			continue
		}
		if in[7][0] == 1 {
			pc := in[8][0]
			pulses++
			degrees[in[9][0]]++
			if scheduled[pc] {
				known++
			}
			if run > 0 && pc == runPC {
				run++
			} else {
				run, runPC = 1, pc
			}
			if run == S {
				groupsOfS++
				run = 0
			}
		}
		if in[4][0] == 1 && in[5][0] == 1 {
			pc := in[6][0]
			scheduled[pc] = true
			set := pc & 15
			if perSet[set] == nil {
				perSet[set] = map[uint64]bool{}
			}
			perSet[set][pc] = true
		}
	}
	t.Logf("coverage: %s", stim.Coverage())
	crowded := 0
	for _, pcs := range perSet {
		if len(pcs) > u.HistoryWays {
			crowded++
		}
	}
	if crowded < 2 {
		t.Errorf("%d sets with more scheduled PCs than ways", crowded)
	}
	if known < pulses*9/10 || groupsOfS < pulses/S*9/10 {
		t.Errorf("%d result pulses, %d of scheduled PCs, %d groups of %d", pulses, known, groupsOfS, S)
	}
	for d := uint64(0); d <= 15; d++ {
		if degrees[d] == 0 {
			t.Errorf("no result of degree %d", d)
		}
	}
	if launches == 0 || resets == 0 {
		t.Errorf("%d launches, %d resets", launches, resets)
	}
	cov := stim.Coverage()
	for _, ph := range maskPhaseNames {
		if !strings.Contains(cov, ph) {
			t.Errorf("phase %s never ran: %s", ph, cov)
		}
	}
}

func TestStimulus_WrongPorts(t *testing.T) {
	u := &specs.ElasticPipeline{Name: "p", MemStages: 2, WarpSize: 32, SIMDWidth: 8, ShmemPorts: 2, TagBits: 6}
	f := &fakePipe{db: u.DegreeBits() + 1, tb: 6}
	if _, err := pipelineStimulus(u)(f.Ports(), 1); err == nil || !strings.Contains(err.Error(), "in_degree_i is 5 bits wide, want 4") {
		t.Errorf("wrong degree width: %v", err)
	}
	w := &specs.WarpReadyMask{Name: "m", WarpContexts: 8, HistorySets: 16, HistoryWays: 2, PCBits: 10, WarpSize: 32, SIMDWidth: 8, ShmemPorts: 2}
	ports := (&fakeMask{w: 8, pcb: 10, db: 4}).Ports()
	ports[1].Name = "kernel_launch_i"
	if _, err := readyMaskStimulus(w)(ports, 1); err == nil || !strings.Contains(err.Error(), "no input launch_i") {
		t.Errorf("missing launch_i: %v", err)
	}
}
