package verify

import (
	"context"
	"slices"
	"sync"
)

// Task is one job to check with its engines: Plan for a combinational
// design, SeqPlan for a clocked one.
type Task struct {
	Job     Job
	Plan    Plan
	SeqPlan SeqPlan
	Engines []Engine
}

// Outcome is one engine's check of one task.
type Outcome struct {
	Task     int // index in the tasks given to RunTasks
	Unit     string
	Engine   Engine
	Vectors  int    // vectors, or cycles of a sequential run
	Coverage string // how they cover the input space
	Check    Check  // valid when Err is nil
	Err      error  // the check could not run (a missing tool, a failed build)
}

// Hooks report a RunTasks run as it goes; either may be nil. Calls are
// serialised, so they may print without locking.
type Hooks struct {
	Started  func(task int, e Engine)
	Finished func(Outcome)
}

// RunTasks runs every engine of every task, at most jobs checks at a time
// (jobs < 1 means 1), and returns the outcomes per task, in the order of
// its engines. Each task's vectors (stream) and expected outputs are
// computed once, by the first of its checks to start. The checks start
// with the most expensive ones, Verilator builds of the largest designs
// first, so that a long one does not start last and run alone.
// Cancelling ctx stops the checks; those not run carry ctx's error.
func RunTasks(ctx context.Context, tasks []Task, jobs int, hooks Hooks) [][]Outcome {
	type pair struct {
		task int
		e    Engine
		cost float64
	}
	var pairs []pair
	out := make([][]Outcome, len(tasks))
	for i, t := range tasks {
		out[i] = make([]Outcome, len(t.Engines))
		for _, e := range t.Engines {
			pairs = append(pairs, pair{i, e, t.cost(e)})
		}
	}
	// Longest first; ties keep the given order, so runs are repeatable.
	slices.SortStableFunc(pairs, func(a, b pair) int {
		switch {
		case a.cost > b.cost:
			return -1
		case a.cost < b.cost:
			return 1
		}
		return 0
	})

	preps := make([]struct {
		once sync.Once
		p    *prepared
		err  error
	}, len(tasks))
	prepare := func(i int) (*prepared, error) {
		pr := &preps[i]
		pr.once.Do(func() {
			t := tasks[i]
			if t.Job.Design.Clock != "" {
				pr.p, pr.err = prepareSeq(t.Job, t.SeqPlan)
			} else {
				pr.p, pr.err = prepareComb(t.Job, t.Plan)
			}
		})
		return pr.p, pr.err
	}

	var mu sync.Mutex // serialises the hooks and writes to out
	record := func(o Outcome) {
		mu.Lock()
		defer mu.Unlock()
		out[o.Task][slices.Index(tasks[o.Task].Engines, o.Engine)] = o
		if hooks.Finished != nil {
			hooks.Finished(o)
		}
	}
	Parallel(len(pairs), jobs, func(k int) {
		pr := pairs[k]
		o := Outcome{Task: pr.task, Unit: tasks[pr.task].Job.Design.Name, Engine: pr.e}
		if err := ctx.Err(); err != nil {
			o.Err = err
			record(o)
			return
		}
		if hooks.Started != nil {
			mu.Lock()
			hooks.Started(pr.task, pr.e)
			mu.Unlock()
		}
		p, err := prepare(pr.task)
		if err == nil {
			o.Vectors, o.Coverage = p.vectors, p.coverage
			o.Check, err = p.run(ctx, pr.e)
		}
		o.Err = err
		record(o)
	})
	return out
}

// cost estimates an engine's time on the task, in arbitrary units, for
// ordering only: a Verilator build grows with the gates, a simulation run
// with gates times vectors (cycles); the netlist simulator evaluates 64
// vectors at once in compiled Go.
func (t Task) cost(e Engine) float64 {
	gates := float64(len(t.Job.Design.Gates) + 100)
	n := float64(t.SeqPlan.Cycles)
	if t.Job.Design.Clock == "" {
		bits := 0
		for _, p := range t.Job.Design.Inputs() {
			bits += p.Width()
		}
		switch {
		case bits < 62 && 1<<bits <= t.Plan.MaxVectors:
			n = float64(int(1) << bits)
		case t.Plan.GateVectors > 0:
			n = float64(min(t.Plan.Random, max(256, t.Plan.GateVectors/int(gates))))
		default:
			n = float64(t.Plan.Random)
		}
	}
	switch e {
	case Verilator:
		return gates*50 + gates*n/1000
	case Icarus:
		return gates * n / 200
	}
	return gates * n / 50000
}

// Parallel calls f(0), ..., f(n-1), at most jobs at a time (jobs < 1 means
// 1), taking them in order, and returns when all have returned.
func Parallel(n, jobs int, f func(i int)) {
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(max(1, jobs), max(1, n)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				f(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}
