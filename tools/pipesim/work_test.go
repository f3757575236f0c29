package pipesim

import (
	"context"
	"errors"
	"github.com/lsugen/lsugen/internal/testenv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lsugen/lsugen/specs"
)

// TestStudyWork_NearSimulated: the estimate of a study's cycles, from the
// workload and from the synthetic description alone, is within 25% of the
// cycles the study simulates, over the presets and pipelines that stress
// each bound (EXE, MEM0, one warp's latency); the warp instructions it
// counts are those Progress reports.
func TestStudyWork_NearSimulated(t *testing.T) {
	type cfg struct {
		name                 string
		m, warp, simd, ports int
		g                    Synthetic
	}
	var cases []cfg
	for _, name := range []string{"aes_encrypt", "reduction", "transpose", "dct"} {
		pre, _ := LookupPreset(name)
		g := pre.Synthetic(32, 32, 1)
		g.Instructions = g.Static * max(1, 300/g.Static)
		cases = append(cases, cfg{name, 4, 32, 8, 1, g})
	}
	cases = append(cases,
		cfg{"one warp", 4, 32, 8, 1, Synthetic{Warps: 1, Instructions: 2000, Shmem: 0.2, Mem: 0.05, Degrees: MeanDist(2), Static: 100, Seed: 1}},
		cfg{"64-way conflicts", 16, 1024, 64, 1, Synthetic{Warps: 8, Instructions: 20, Shmem: 1, Degrees: Dist{{64, 1}}, Static: 10, Seed: 1}},
		cfg{"two ports", 2, 16, 8, 2, Synthetic{Warps: 12, Instructions: 500, Shmem: 0.5, Mem: 0.1, Degrees: MeanDist(5), Static: 50, Irregular: true, Seed: 2}},
	)
	for _, c := range cases {
		p := specs.ElasticPipeline{Name: "t", MemStages: c.m, WarpSize: c.warp, SIMDWidth: c.simd, ShmemPorts: c.ports, TagBits: 16}
		shape := Shape{Subwarps: c.warp / c.simd, SIMDWidth: c.simd, PCBits: 14}
		wl, err := c.g.Generate(shape)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var progress atomic.Int64
		rep, err := Study(context.Background(), wl, &p, nil, Options{Progress: func(n int64) { progress.Add(n) }})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var cycles int64
		for _, r := range rep.Runs {
			cycles += r.Cycles
		}
		fromWl, fromFlags := StudyWork(wl, &p), c.g.StudyWork(shape, &p)
		for _, wk := range []Work{fromWl, fromFlags} {
			if r := float64(wk.Cycles) / float64(cycles); r < 0.75 || r > 1.25 {
				t.Errorf("%s: estimated %d cycles, simulated %d (ratio %.2f)", c.name, wk.Cycles, cycles, r)
			}
			if wk.WarpInstructions != progress.Load() || wk.Runs != 6 {
				t.Errorf("%s: estimate counts %d warp instructions in %d runs, Progress reported %d", c.name, wk.WarpInstructions, wk.Runs, progress.Load())
			}
			if want := time.Duration(wk.Cycles*CycleNs + wk.WarpInstructions*int64(shape.Subwarps)*SubwarpNs); absDur(wk.CPU-want) > time.Microsecond {
				t.Errorf("%s: CPU %v, want %v", c.name, wk.CPU, want)
			}
		}
	}
}

func absDur(d time.Duration) time.Duration { return max(d, -d) }

// TestStudy_CancelStops: a study of minutes stops soon after its
// context's cancellation, with the context's error. "Soon" is counted in
// work, not time: each of the study's runs polls its context every
// pollCycles cycles and reports progress only when it goes on, so after
// the cancellation each run reports at most once more.
func TestStudy_CancelStops(t *testing.T) {
	p := specs.ElasticPipeline{Name: "t", MemStages: 16, WarpSize: 1024, SIMDWidth: 64, ShmemPorts: 1, TagBits: 16}
	shape := Shape{Subwarps: 16, SIMDWidth: 64, PCBits: 14}
	g := Synthetic{Warps: 64, Instructions: 4096, Shmem: 1, Degrees: Dist{{64, 1}}, Static: 10, Seed: 1}
	wl, err := g.Generate(shape)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var polls atomic.Int64
	done := make(chan error, 1)
	go func() {
		_, err := Study(ctx, wl, &p, nil, Options{Progress: func(n int64) { polls.Add(1) }})
		done <- err
	}()
	for polls.Load() < 6 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	at := polls.Load()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
		runs := int64(2 * len(Variants))
		if after := polls.Load() - at; after > runs {
			t.Errorf("%d progress polls after the cancellation, want at most one per run (%d)", after, runs)
		}
	case <-time.After(testenv.Limit(5 * time.Minute)):
		t.Fatal("still running long after the cancellation")
	}
}
