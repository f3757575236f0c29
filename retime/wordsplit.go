package retime

import "fmt"

// cutWords places the boundaries of an L-stage pipeline as cutAll does,
// but keeps each entry of the word-level view whole where the latency
// allows: at each boundary, an entry of which only some gates fit the
// stage moves whole to the next unless one of its gates must be in this
// stage (its latest stage for latency L); then, and only then, it is
// split, its gates placed one by one. Instances are never split. It
// returns each gate's stage, or why the latency cannot be met this way.
func (s *scheduler) cutWords(w *wordGraph, L int32, budget float64) ([]int32, error) {
	d := s.d
	late := s.backward(L, budget)
	stageOf := make([]int32, len(d.Gates))
	for i := range stageOf {
		stageOf[i] = -1
	}
	split := make([]bool, len(w.nodes))
	inst := make([]bool, len(w.nodes))
	for ni, nd := range w.nodes {
		inst[ni] = w.d.RTL.Assigns[nd.assign].Inst != nil
	}
	for k := int32(0); k < L; k++ {
		early, arr, err := s.forward(stageOf, k, budget)
		if err != nil {
			return nil, err
		}
		if k == L-1 {
			if err := s.lastStage(stageOf, early, arr, L, budget); err != nil {
				return nil, fmt.Errorf("with whole entries, %w", err)
			}
			return early, nil
		}
		fitsEarly := make([]bool, len(stageOf))
		for gi := range stageOf {
			fitsEarly[gi] = stageOf[gi] < 0 && early[gi] == k
		}
		fits, err := s.wholeFits(w, fitsEarly, stageOf, late, k, split, inst)
		if err != nil {
			return nil, err
		}
		var groups [][]int32
		for ni, nd := range w.nodes {
			if split[ni] {
				continue
			}
			var grp []int32
			for _, gi := range nd.gates {
				if fits[gi] {
					grp = append(grp, gi)
				}
			}
			if len(grp) > 1 {
				groups = append(groups, grp)
			}
		}
		for gi, in := range s.minCut(stageOf, fits, late, k, groups) {
			if in {
				stageOf[gi] = k
			}
		}
	}
	return stageOf, nil
}

// wholeFits is which gates stage k takes (of those that fit it, fits)
// with entries kept whole: an entry only some of whose gates fit moves on
// whole, and the gates that read it with it, unless a gate that must be
// in stage k (late) would move; then the entries in the way are split
// (split, for good) and it tries again.
func (s *scheduler) wholeFits(w *wordGraph, fitsEarly []bool, stageOf, late []int32, k int32, split, inst []bool) ([]bool, error) {
	d := s.d
	for {
		fits := append([]bool(nil), fitsEarly...)
		s.moveWhole(w, fits, stageOf, late, k, split, inst)
		// A gate that must be in stage k and moved: split the entries
		// whose move took it (those in its fan-in that fit and moved).
		more := false
		seen := make([]bool, len(d.Gates))
		var walk func(gi int32)
		walk = func(gi int32) {
			if seen[gi] {
				return
			}
			seen[gi] = true
			for _, n := range d.Gates[gi].In {
				h := s.driver[n]
				if h < 0 || stageOf[h] >= 0 || !fitsEarly[h] || fits[h] {
					continue
				}
				if o := w.owner[h]; !split[o] && !inst[o] {
					split[o], more = true, true
				}
				walk(h)
			}
		}
		failed := int32(-1)
		for ni, nd := range w.nodes {
			if !inst[ni] {
				continue
			}
			some, all := false, true
			for _, gi := range nd.gates {
				if stageOf[gi] < 0 {
					some, all = some || fits[gi], all && fits[gi]
				}
			}
			if !some || all {
				continue
			}
			// An instance that must be in stage k, only in part.
			for _, gi := range nd.gates {
				if stageOf[gi] < 0 && !fits[gi] {
					failed = gi
					if fitsEarly[gi] {
						walk(gi)
					}
				}
			}
		}
		for gi := range stageOf {
			if stageOf[gi] < 0 && late[gi] <= k && !fits[gi] {
				failed = int32(gi)
				if fitsEarly[gi] {
					walk(int32(gi))
					if o := w.owner[gi]; !split[o] && !inst[o] {
						split[o], more = true, true
					}
				}
			}
		}
		if failed < 0 {
			return fits, nil
		}
		if !more {
			return nil, fmt.Errorf("with whole entries, gate g%d does not fit stage %d, its last", failed, k+1)
		}
	}
}

// moveWhole clears fits of the gates of every entry only some of whose
// gates fit, and of the gates that read them, marking split the entries
// that a gate which must be in stage k keeps.
func (s *scheduler) moveWhole(w *wordGraph, fits []bool, stageOf, late []int32, k int32, split, inst []bool) {
	d := s.d
	for changed := true; changed; {
		changed = false
		for ni, nd := range w.nodes {
			if split[ni] {
				continue
			}
			some, all, must := false, true, false
			for _, gi := range nd.gates {
				if stageOf[gi] >= 0 {
					continue
				}
				some = some || fits[gi]
				all = all && fits[gi]
				must = must || late[gi] <= k
			}
			if !some || all {
				continue
			}
			if must {
				if !inst[ni] { // an instance is left to wholeFits
					split[ni], changed = true, true
				}
				continue
			}
			for _, gi := range nd.gates {
				if fits[gi] {
					fits[gi], changed = false, true
				}
			}
		}
		if !changed {
			break
		}
		// A gate reading one that moved on moves on too (gates are in
		// topological order).
		for gi, g := range d.Gates {
			if !fits[gi] {
				continue
			}
			for _, n := range g.In {
				if h := s.driver[n]; h >= 0 && stageOf[h] < 0 && !fits[h] {
					fits[gi] = false
					break
				}
			}
		}
	}
}
