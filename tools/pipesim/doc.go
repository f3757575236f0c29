// Package pipesim is a pipeline study of the elastic pipeline and the
// bank-conflict-aware warp scheduling of Gou and Gaydadjiev, "Elastic
// Pipeline" (001_*): it drives the cycle-accurate models of the
// elastic_pipeline and warp_ready_mask units (package verify/model) with a
// warp scheduler and a workload, and counts cycles, stalls, scheduling
// fails and writeback bubbles.
//
// # System model
//
// The models are the units' cycle semantics; this package adds the front
// end around them, kept simple and deterministic:
//
//   - Strict barrel processing (001_* §3.2.2, §6): a warp has at most one
//     instruction in flight. It is ready again in the cycle after the last
//     of its subwarps is written back (PipeOut.WBValid/WBTag; every subwarp
//     has a tag unique for the run, from its sequence number; the spec's
//     tag_bits is not used).
//   - A warp instruction is S = warp_size/simd_width subwarps, offered to
//     EXE (PipeIn) in consecutive cycles, the first in the cycle the warp
//     is scheduled. While PipeOut.Stall is true the same subwarp is offered
//     again and the front end is blocked. The next warp is scheduled only in
//     a cycle after all subwarps of the previous one were accepted.
//   - Scheduling is round robin among the ready warps, starting after the
//     last warp scheduled; with the ready mask, among the warps the mask
//     leaves ready (warp_ready_o).
//   - The ready mask model sees every cycle: warp_ready_i = the ready warps,
//     warp_is_mem_i = the warps whose next instruction is shmem or mem, the
//     scheduled warp (SchedValid, SchedShmem, SchedPC), and the measured
//     conflict degree of each shared-memory subwarp in the cycle it
//     finishes MEM0 (PipeOut.MEM0Done/MEM0Tag mapped back to the subwarp's
//     PC and degree: ResValid, ResPC, ResDegree). The kernel launch
//     (launch_i) is one cycle before cycle 0 and clears the history cache.
//     The ReadyMask API computes a cycle's outputs and its clock edge in one
//     call, so the scheduler mirrors the counter C (mask = C != 0, loaded
//     from ReadyOut.Pred) to know the mask before it chooses, and checks
//     every cycle that the model's ReadyOut agrees.
//   - A run ends when every instruction is written back; its cycles count
//     from cycle 0 to that writeback, both included. A run that has not
//     ended after Options.MaxCycles cycles (default CycleLimit) is an
//     error.
//
// Statistics per run: stalls are the cycles in which the pipeline refused
// the offered subwarp, by cause (bank conflict: a memory subwarp found
// MEM0, and the PREMEM queue, busy; writeback conflict: an alu subwarp
// found the NONMEM path held or full). Scheduling fails are the cycles in
// which the front end was free and some warp had instructions left, but no
// warp was ready: "masked" when some warp was ready before the mask, "none
// ready" otherwise. Writeback bubbles are the pipeline model's
// PipeOut.Bubble cycles. There is no register file and no instruction
// cache. Without Options.DRAM there is no global memory latency either:
// mem instructions are one MEM0 cycle. With it (see DRAM), a mem
// instruction is a load whose warp waits for its data, and the returned
// data takes the writeback port, stopping the pipeline when it was busy
// (System.ReturnStalls). Options.MemWhenIdle is §5.2's scheduling
// variant: while the mask is on and only memory warps are ready, one
// issues anyway.
//
// # Trace format
//
// One warp instruction per line:
//
//	# comment (also after the fields)
//	# warp kind  pc    [conflict degree per subwarp]
//	0      alu   0x10
//	0      shmem 0x11  2          # every subwarp 2-way
//	1      shmem 0x11  1 2 4 1    # subwarps 0..3
//	1      mem   17
//
// WARP is a decimal warp id 0..63 (below the ready mask's warp_contexts);
// KIND is alu (non-memory), shmem (shared memory) or mem (other memory:
// global, constant); PC is a decimal or 0x-hex number below 2^pc_bits of
// the ready mask. A shmem line ends with its subwarps' bank conflict
// degrees, each 1..simd_width: one value for all S subwarps or exactly S
// values; alu and mem lines have none. The lines of one warp are its
// program in order; lines of different warps may interleave in any way.
// Blank lines are ignored. Errors read FILE:LINE: message. A line holds at
// most MaxLineBytes bytes, a trace at most MaxInstructions instructions
// and MaxFileBytes bytes.
//
// # Synthetic workloads
//
// Synthetic describes a kernel of K static instructions (PCs 0..K-1) that
// all warps run in a loop, with a shared-memory and a global-memory
// intensity, a conflict-degree distribution (ParseDist: "1:0.5,2:0.3,4:0.2")
// and a seed; regular kernels fix each static shared-memory instruction's
// subwarp degrees, irregular ones draw them at every execution. Presets
// build one from the inputs of a row of the paper's Table 4 (shared-memory
// intensity, average bank conflict degree, irregular column, static
// instruction count, threads per core); the degree distribution is the one
// on the two whole degrees around the row's average with that mean
// (MeanDist). No result of the paper is used.
package pipesim
