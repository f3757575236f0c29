package units

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/lsugen/lsugen/compose"
	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/retime"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/timing"
	"github.com/lsugen/lsugen/verify"
)

// The thesis's Tables 5.1 and 5.2 (003_* §5.1.2) at clocks of 40, 48 and
// 56 FO4, quoted: the naive (all-to-all) coalescer and the "fast
// coalescer (if monotonic)", which the thesis bounds by its monotonicity
// detector.
var thesisTables = map[int]struct{ a2a, fast [3]int }{
	32: {a2a: [3]int{2, 2, 1}, fast: [3]int{2, 1, 1}},
	64: {a2a: [3]int{3, 3, 3}, fast: [3]int{2, 2, 1}},
}

// thesisClocks are the clock periods of the thesis's tables, in FO4.
var thesisClocks = [3]float64{40, 48, 56}

// SpeculativeTables measures the thesis's Tables 5.1 and 5.2 for the
// speculative coalescers in us (structure speculative, without
// active_mask or requests; specs/coalescer_thesis.hcl has the thesis's
// two): at each clock it pipelines the all-to-all coalescer and the
// detector alone (package retime, under the sized and the unsized model)
// and builds the variable-latency unit (under each model), and counts on
// the netlist simulator the cycles from valid_i to valid_o: of a warp
// through each pipeline, and of a monotonic and a non-monotonic warp
// through the unit.
// Beside them it puts the model's figures (timing.CyclesAt of the
// combinational unsized delay, as `lsugen timing --clock` prints) and the
// thesis's. It returns a Markdown table and its notes.
func SpeculativeTables(us []specs.Unit) (string, error) {
	var cs []*specs.Coalescer
	for _, u := range us {
		if c, ok := u.(*specs.Coalescer); ok && c.Structure == specs.Speculative && !c.ActiveMask && !c.Requests {
			cs = append(cs, c)
		}
	}
	if len(cs) == 0 {
		return "", errors.New("no speculative coalescer without active_mask and requests")
	}
	slices.SortStableFunc(cs, func(a, b *specs.Coalescer) int { return a.Lanes - b.Lanes })
	var sb strings.Builder
	sb.WriteString("| lanes | clock (FO4) | all-to-all: thesis | model | simulated | simulated, unsized | detector: thesis | model | simulated | simulated, unsized | unit (sized): fast / slow | worst stage (FO4) | unit (unsized): fast / slow | worst stage (FO4) |\n")
	sb.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	// Refusals are numbered notes, one per unit and path.
	type refused struct {
		what    string
		periods []string
		reason  string
	}
	var notes []*refused
	var delays []string
	note := func(what string, P float64, reason string) string {
		i := slices.IndexFunc(notes, func(r *refused) bool { return r.what == what })
		if i < 0 {
			notes = append(notes, &refused{what: what, reason: reason})
			i = len(notes) - 1
		}
		notes[i].periods = append(notes[i].periods, fmt.Sprint(P))
		return fmt.Sprintf("— (%d)", i+1)
	}
	for _, c := range cs {
		paths, err := compose.SpeculativePaths(c, true)
		if err != nil {
			return "", err
		}
		unsized := timing.DefaultOptions()
		sized := timing.DefaultOptions()
		sized.Mode = timing.Sized
		combFO4 := func(d *netlist.Design) (float64, error) {
			r, err := timing.Analyze(d, unsized)
			if err != nil {
				return 0, err
			}
			return r.FO4, nil
		}
		a2aFO4, err := combFO4(paths.Slow)
		if err != nil {
			return "", err
		}
		detFO4, err := combFO4(paths.Det)
		if err != nil {
			return "", err
		}
		th, hasThesis := thesisTables[c.Lanes]
		quote := func(v [3]int, i int) string {
			if !hasThesis || c.AddrBits != 32 {
				return "–"
			}
			return fmt.Sprint(v[i])
		}
		for i, P := range thesisClocks {
			b, err := compose.SpeculativeBuild(c, retime.Options{PeriodFO4: P, Timing: sized})
			if err != nil {
				return "", err
			}
			a2aSim, err := pipelineCycles(b.AllToAll.Design)
			if err != nil {
				return "", err
			}
			detSim, err := pipelineCycles(b.Detector.Design)
			if err != nil {
				return "", err
			}
			fast, slow, err := unitCycles(b.Design, c)
			if err != nil {
				return "", err
			}
			ub, err := compose.SpeculativeBuild(c, retime.Options{PeriodFO4: P, Timing: unsized})
			unitUns, unitUnsWorst := "", ""
			switch {
			case errors.Is(err, retime.ErrPeriod):
				unitUns, unitUnsWorst = note(fmt.Sprintf("%d-lane unit", c.Lanes), P, err.Error()), "–"
			case err != nil:
				return "", err
			default:
				f, s, err := unitCycles(ub.Design, c)
				if err != nil {
					return "", err
				}
				unitUns, unitUnsWorst = fmt.Sprintf("%d / %d", f, s), fmt.Sprintf("%.2f", ub.Timing.WorstStageFO4)
			}
			uns := func(d *netlist.Design, what string) (string, error) {
				r, err := retime.Pipeline(d, retime.Options{PeriodFO4: P, Timing: unsized})
				if errors.Is(err, retime.ErrPeriod) {
					return note(fmt.Sprintf("%d-lane %s", c.Lanes, what), P, refusal(err)), nil
				}
				if err != nil {
					return "", err
				}
				n, err := pipelineCycles(r.Design)
				return fmt.Sprint(n), err
			}
			var a2aUns, detUns string
			if ub != nil { // the unit has pipelined both alone
				na, err := pipelineCycles(ub.AllToAll.Design)
				if err != nil {
					return "", err
				}
				nd, err := pipelineCycles(ub.Detector.Design)
				if err != nil {
					return "", err
				}
				a2aUns, detUns = fmt.Sprint(na), fmt.Sprint(nd)
			} else {
				if a2aUns, err = uns(paths.Slow, "all-to-all"); err != nil {
					return "", err
				}
				if detUns, err = uns(paths.Det, "detector"); err != nil {
					return "", err
				}
			}
			fmt.Fprintf(&sb, "| %d | %g | %s | %d | %d | %s | %s | %d | %d | %s | %d / %d | %.2f | %s | %s |\n",
				c.Lanes, P, quote(th.a2a, i), timing.CyclesAt(a2aFO4, P), a2aSim, a2aUns,
				quote(th.fast, i), timing.CyclesAt(detFO4, P), detSim, detUns, fast, slow, b.Timing.WorstStageFO4, unitUns, unitUnsWorst)
		}
		delays = append(delays, fmt.Sprintf("%d lanes %.2f FO4 (all-to-all) and %.2f FO4 (detector)", c.Lanes, a2aFO4, detFO4))
	}
	fmt.Fprintf(&sb, "\nThe model's cycles are those of the combinational delays under the unsized model: %s.\n", strings.Join(delays, ", "))
	for i, n := range notes {
		fmt.Fprintf(&sb, "\n(%d) The unsized model cannot pipeline the %s at %s FO4: %s.\n", i+1, n.what, strings.Join(n.periods, ", "), n.reason)
	}
	return sb.String(), nil
}

// refusal is the reason in retime's error, without the period's budget:
// "one XNOR2 needs 40.77 FO4 after its inputs' registers".
func refusal(err error) string {
	m := regexp.MustCompile(`gate g\d+ \((\w+), [^)]*\) (needs [\d.]+ FO4 after its inputs' registers)`).FindStringSubmatch(err.Error())
	if m == nil {
		return err.Error()
	}
	return fmt.Sprintf("one %s %s, more than a stage leaves", m[1], m[2])
}

// simPorts runs d on the netlist simulator, one lane.
type simPorts struct {
	d   *netlist.Design
	sim *netlist.Sim
}

func newSimPorts(d *netlist.Design) *simPorts { return &simPorts{d, netlist.NewSim(d)} }

func (s *simPorts) index(name string) int {
	for i := range s.d.Ports {
		if s.d.Ports[i].Name == name {
			return i
		}
	}
	return -1
}

// set puts value (its low bits, little-endian words) on input name.
func (s *simPorts) set(name string, value []uint64) {
	i := s.index(name)
	w := make([]uint64, s.d.Ports[i].Width())
	for b := range w {
		if b/64 < len(value) {
			w[b] = value[b/64] >> uint(b%64) & 1
		}
	}
	s.sim.SetInput(i, w)
}

func (s *simPorts) bit(name string) bool {
	w := make([]uint64, s.d.Ports[s.index(name)].Width())
	s.sim.Output(s.index(name), w)
	return w[0]&1 == 1
}

// answer presents in (input port -> value) with valid_i for one cycle
// after a reset cycle and returns the cycles until valid_o, and the
// simulator positioned at that cycle.
func (s *simPorts) answer(in map[string][]uint64) (int, error) {
	for _, p := range s.d.Inputs() {
		if p.Name != s.d.Clock {
			s.set(p.Name, nil)
		}
	}
	s.set(verify.ResetPort, []uint64{1})
	s.sim.Eval()
	s.sim.Step()
	s.set(verify.ResetPort, nil)
	s.set("valid_i", []uint64{1})
	for name, v := range in {
		s.set(name, v)
	}
	for t := 0; t <= retime.MaxLatency*2; t++ {
		s.sim.Eval()
		if s.bit("valid_o") {
			return t, nil
		}
		s.sim.Step()
		s.set("valid_i", nil)
	}
	return 0, fmt.Errorf("%s: no valid_o within %d cycles", s.d.Name, retime.MaxLatency*2)
}

// pipelineCycles counts the cycles a pipelined design takes from valid_i
// to valid_o.
func pipelineCycles(d *netlist.Design) (int, error) { return newSimPorts(d).answer(nil) }

// unitCycles counts the cycles the variable-latency unit takes for a
// monotonic warp (lane addresses ascending) and for a non-monotonic one
// (its first two lanes swapped), and checks fast_o.
func unitCycles(d *netlist.Design, c *specs.Coalescer) (fast, slow int, err error) {
	s := newSimPorts(d)
	warp := make([]uint64, c.Lanes)
	for i := range warp {
		warp[i] = uint64(i) << uint(c.BlockBits)
	}
	if fast, err = s.answer(map[string][]uint64{"addr_i": packWarp(warp, c.AddrBits)}); err != nil {
		return 0, 0, err
	}
	if !s.bit("fast_o") || !s.bit("monotonic_o") {
		return 0, 0, fmt.Errorf("%s: a monotonic warp answered with fast_o %v, monotonic_o %v", d.Name, s.bit("fast_o"), s.bit("monotonic_o"))
	}
	warp[0], warp[1] = warp[1], warp[0]
	if slow, err = s.answer(map[string][]uint64{"addr_i": packWarp(warp, c.AddrBits)}); err != nil {
		return 0, 0, err
	}
	if s.bit("fast_o") || s.bit("monotonic_o") {
		return 0, 0, fmt.Errorf("%s: a non-monotonic warp answered with fast_o %v, monotonic_o %v", d.Name, s.bit("fast_o"), s.bit("monotonic_o"))
	}
	return fast, slow, nil
}
