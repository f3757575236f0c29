package latency

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func workload(warps ...[]Op) *Workload { return &Workload{Name: "w", Warps: warps} }

// TestSimulate_OneWarpChain: one warp on one context runs its
// instructions back to back, each after the previous completes: ALU 4,
// then a monotonic access (fast path 1 + memory 10), then a
// non-monotonic one (slow path 3 + memory 10): 4 + 11 + 13 = 28 cycles.
func TestSimulate_OneWarpChain(t *testing.T) {
	w := workload([]Op{Other, Monotonic, NonMonotonic})
	r, err := Simulate(context.Background(), w, Config{Contexts: 1, ALULatency: 4, MemLatency: 10, Coalescer: Coalescer{Fast: 1, Slow: 3}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Cycles != 28 || r.Instructions != 3 || r.Accesses != 2 || r.CoalescerBusy != 4 {
		t.Errorf("%+v, want 28 cycles, 3 instructions, 2 accesses, the coalescer busy 4 cycles", r)
	}
}

// TestSimulate_CoalescerHeld: eight warps of one access each, eight
// contexts, a 3-cycle coalescer and 100 cycles of memory. Pipelined, the
// coalescer takes an access a cycle: warp k issues at k, the last
// completes at 7 + 3 + 100 = 110. Held for its latency, warp k issues at
// 3k: 21 + 103 = 124. On one context the warps run one after another:
// 8 × 103 = 824.
func TestSimulate_CoalescerHeld(t *testing.T) {
	var ws [][]Op
	for range 8 {
		ws = append(ws, []Op{NonMonotonic})
	}
	w := workload(ws...)
	for _, c := range []struct {
		contexts  int
		pipelined bool
		want      int64
	}{{8, true, 110}, {8, false, 124}, {1, true, 824}, {1, false, 824}} {
		r, err := Simulate(context.Background(), w, Config{Contexts: c.contexts, ALULatency: 1, MemLatency: 100, Coalescer: Coalescer{Fast: 1, Slow: 3}, Pipelined: c.pipelined})
		if err != nil {
			t.Fatal(err)
		}
		if r.Cycles != c.want {
			t.Errorf("%d contexts, pipelined %v: %d cycles, want %d", c.contexts, c.pipelined, r.Cycles, c.want)
		}
	}
}

// TestSimulate_WarpsLaunchedAgain: Warps launches the workload's warps
// again in order; two warps of one ALU instruction (latency 5) launched
// 6 times on 2 contexts: each context takes a new warp as its warp
// completes, the first context's warps issuing at 0, 5 and 10, the
// second's a cycle later (one issue a cycle): the last completes at 16.
func TestSimulate_WarpsLaunchedAgain(t *testing.T) {
	w := workload([]Op{Other}, []Op{Other})
	r, err := Simulate(context.Background(), w, Config{Contexts: 2, Warps: 6, ALULatency: 5, Coalescer: Coalescer{Fast: 1, Slow: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Cycles != 16 || r.Instructions != 6 {
		t.Errorf("%+v, want 16 cycles, 6 instructions", r)
	}
}

// TestSimulate_HidesLatency: with memory answering at once, a 3-cycle
// coalescer on one context costs each access 2 cycles more than the
// ideal one; with 16 contexts the other warps fill the issue slots and
// most of it is hidden.
func TestSimulate_HidesLatency(t *testing.T) {
	var ws [][]Op
	for range 16 {
		ws = append(ws, []Op{Other, Monotonic, Other, NonMonotonic, Monotonic})
	}
	w := workload(ws...)
	slowdown := func(contexts int) float64 {
		cyc := func(c Coalescer) int64 {
			r, err := Simulate(context.Background(), w, Config{Contexts: contexts, ALULatency: 1, Coalescer: c, Pipelined: true})
			if err != nil {
				t.Fatal(err)
			}
			return r.Cycles
		}
		return float64(cyc(Coalescer{Fast: 3, Slow: 3})) / float64(cyc(Coalescer{Fast: 1, Slow: 1}))
	}
	// One context: 16 × (2 + 3 × 3) against 16 × (2 + 3 × 1).
	if got, want := slowdown(1), 11.0/5.0; got != want {
		t.Errorf("one context: slowdown %v, want %v", got, want)
	}
	if got := slowdown(16); !(got < 1.2) {
		t.Errorf("16 contexts: slowdown %v, want under 1.2: the warps hide the coalescer", got)
	}
}

func TestSimulate_Errors(t *testing.T) {
	w := workload([]Op{Other})
	ok := Config{Contexts: 1, ALULatency: 1, Coalescer: Coalescer{Name: "c", Fast: 1, Slow: 1}}
	for _, c := range []struct {
		edit func(*Config)
		want string
	}{
		{func(c *Config) { c.Contexts = 0 }, "0 warp contexts: want 1 to 1024"},
		{func(c *Config) { c.Contexts = MaxContexts + 1 }, "want 1 to 1024"},
		{func(c *Config) { c.Warps = -1 }, "-1 warps"},
		{func(c *Config) { c.ALULatency = 0 }, "ALU latency 0"},
		{func(c *Config) { c.MemLatency = MaxLatency + 1 }, "memory latency 100001"},
		{func(c *Config) { c.Coalescer.Slow = 0 }, "coalescer c: 1 / 0 cycles"},
	} {
		cfg := ok
		c.edit(&cfg)
		if _, err := Simulate(context.Background(), w, cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", cfg, err, c.want)
		}
	}
	if _, err := Simulate(context.Background(), &Workload{}, ok); !errors.Is(err, errNoWarps) {
		t.Errorf("no warps: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Simulate(ctx, w, ok); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
