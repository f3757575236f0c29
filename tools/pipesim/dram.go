package pipesim

import "fmt"

// DRAM is the global-memory model around the pipeline: what 001_*'s
// GPGPU-Sim adds to the core (Table 3's DRAM and crossbar), kept to the
// two effects its Fig. 8 names besides bank conflicts: warps that wait
// for global memory (so no warp may be ready: scheduling fails), and
// returned data that competes with the pipeline for the writeback port
// ("other" stalls: writeback conflicts with data from the interconnect).
//
//   - Every mem instruction is a load. Its warp sends one request when
//     the pipeline has written back its last subwarp (the address), and
//     is ready again only when the data is back in its registers.
//   - At most Outstanding requests are in flight; later ones wait, in
//     order. A request in flight returns Latency cycles after it starts.
//   - Returned data is written back one subwarp a cycle through the
//     pipeline's writeback port, which the interconnect wins: a returned
//     subwarp takes a cycle in which the pipeline writes back nothing, and
//     when the pipeline wrote back in the cycle it could have gone, the
//     pipeline stops for the next cycle (nothing moves, nothing issues)
//     while it goes.
//
// The zero DRAM is no global memory: a mem instruction is done when the
// pipeline writes it back (pipesim's behaviour without it).
type DRAM struct {
	Latency     int `json:"latency"`     // cycles from a request's start to its data's return
	Outstanding int `json:"outstanding"` // requests in flight at most
}

// Limits of the DRAM model's parameters: bounds on run time, not on GPUs.
const (
	MaxDRAMLatency     = 100000
	MaxDRAMOutstanding = 1024
)

// On says whether the model is used.
func (d DRAM) On() bool { return d.Latency > 0 }

// Check reports why d cannot be simulated, or nil.
func (d DRAM) Check() error {
	if d.Latency < 0 || d.Latency > MaxDRAMLatency {
		return fmt.Errorf("DRAM latency %d: want 0..%d cycles (0: no DRAM model)", d.Latency, MaxDRAMLatency)
	}
	if d.On() && (d.Outstanding < 1 || d.Outstanding > MaxDRAMOutstanding) {
		return fmt.Errorf("DRAM outstanding requests %d: want 1..%d", d.Outstanding, MaxDRAMOutstanding)
	}
	return nil
}

// System counts what happened around the pipeline: the DRAM model and the
// §5.2 scheduling variant. Run.System is nil when neither was used.
type System struct {
	// Requests: global-memory warp instructions sent to DRAM.
	Requests int64 `json:"requests"`
	// QueueCycles: cycles requests waited for one of the Outstanding
	// places, summed.
	QueueCycles int64 `json:"queue_cycles"`
	// ReturnStalls: cycles the pipeline stopped so that returned data
	// could be written back (Fig. 8's "other" stalls).
	ReturnStalls int64 `json:"return_stalls"`
	// MemIssuedMasked: §5.2's variant: memory warps issued while the mask
	// was on, because no other warp was ready.
	MemIssuedMasked int64 `json:"mem_issued_masked"`
}

// request is one warp's global load: the warp, and the cycle it was sent
// (queued) or, once started, the cycle its data is back.
type request struct {
	warp int
	at   int64
}

// dram is the DRAM model's state in a run.
type dram struct {
	cfg      DRAM
	subs     int
	queued   []request // not started, oldest first
	inflight []request // started, at = return cycle; in start order, so in return order
	// back: the warp whose returned data is being written back, and how
	// many of its subwarps are left; waiting: the cycle since when the
	// next of them has waited for the port (-1: none waiting).
	back, left int
	waiting    int64
}

func newDRAM(cfg DRAM, subs int) *dram {
	return &dram{cfg: cfg, subs: subs, back: -1, waiting: -1}
}

// send queues warp w's request, made in cycle t.
func (d *dram) send(w int, t int64) { d.queued = append(d.queued, request{w, t}) }

// mustStop says whether returned data waited through cycle t-1, when the
// pipeline held the writeback port: cycle t is then the data's, and the
// pipeline stops.
func (d *dram) mustStop(t int64) bool { return d.waiting >= 0 && d.waiting < t }

// idle reports whether nothing is queued, in flight or being written back.
func (d *dram) idle() bool { return len(d.queued) == 0 && len(d.inflight) == 0 && d.back < 0 }

// advance ends cycle t of the DRAM: requests start while places are free,
// and the next returned data becomes due for writeback.
func (d *dram) advance(t int64, sys *System) {
	for len(d.queued) > 0 && len(d.inflight) < d.cfg.Outstanding {
		r := d.queued[0]
		d.queued = d.queued[1:]
		sys.QueueCycles += t - r.at
		d.inflight = append(d.inflight, request{r.warp, t + int64(d.cfg.Latency)})
	}
	if d.back < 0 && len(d.inflight) > 0 && d.inflight[0].at <= t+1 {
		d.back, d.left, d.waiting = d.inflight[0].warp, d.subs, max(d.inflight[0].at, t+1)
		d.inflight = d.inflight[1:]
	}
}

// writeOne writes back one subwarp of returned data in cycle t, if one is
// due; it returns the warp whose load is then complete, or -1.
func (d *dram) writeOne(t int64) int {
	if d.waiting < 0 || d.waiting > t {
		return -1
	}
	d.left--
	d.waiting = t + 1
	if d.left > 0 {
		return -1
	}
	w := d.back
	d.back, d.waiting = -1, -1
	return w
}
