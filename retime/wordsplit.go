package retime

// cutWords places the boundaries of an L-stage pipeline as cutAll does,
// but keeps each entry of the word-level view whole where the latency
// allows: at each boundary, an entry of which only some gates fit the
// stage moves whole to the next unless one of its gates must be in this
// stage (its latest stage for latency L); then, and only then, it is
// split, its gates placed one by one. Instances are never split. It
// returns each gate's stage, or false where the latency cannot be met
// this way.
func (s *scheduler) cutWords(w *wordGraph, L int32, budget float64) ([]int32, bool) {
	d := s.d
	late := s.backward(L, budget)
	stageOf := make([]int32, len(d.Gates))
	for i := range stageOf {
		stageOf[i] = -1
	}
	split := make([]bool, len(w.nodes))
	inst := make([]bool, len(w.nodes))
	for ni, nd := range w.nodes {
		inst[ni] = d.RTL.Assigns[nd.assign].Inst != nil
	}
	for k := int32(0); k < L; k++ {
		early, arr, err := s.forward(stageOf, k, budget)
		if err != nil {
			return nil, false
		}
		if k == L-1 {
			for gi := range stageOf {
				if stageOf[gi] < 0 && early[gi] != k {
					return nil, false
				}
			}
			if s.latency(early, arr, budget) > L {
				return nil, false
			}
			return early, true
		}
		fits := make([]bool, len(stageOf))
		for gi := range stageOf {
			fits[gi] = stageOf[gi] < 0 && early[gi] == k
		}
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
					if inst[ni] {
						return nil, false
					}
					split[ni], changed = true, true
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
		for gi := range stageOf {
			if stageOf[gi] < 0 && late[gi] <= k && !fits[gi] {
				return nil, false
			}
		}
		for gi, in := range s.minCut(stageOf, fits, late, k, groups) {
			if in {
				stageOf[gi] = k
			}
		}
	}
	return stageOf, true
}
