package timing

import (
	"math"

	"github.com/lsugen/lsugen/netlist"
)

// PathResult is the delay and the size of one of the design's named paths
// (see netlist.Path): the worst arrival at its endpoints over paths that
// start at its start points only, and the logic those paths run through.
type PathResult struct {
	Name string  `json:"name"`
	Doc  string  `json:"doc,omitempty"`
	FO4  float64 `json:"fo4"`
	// DelayPS is FO4 in ps at the library's FO4 delay, in a report with
	// a library (UnitReport).
	DelayPS float64 `json:"delay_ps,omitempty"`
	// Cells lists the cells of the worst such path, start point first
	// ("input" for a primary input's driver, "DFF" for clock to Q, the
	// bank module for a memory's read data).
	Cells []string `json:"cells"`
	// Gates counts the combinational gates that lie on some path from
	// its start points to its endpoints; flip-flops and memories are not
	// counted. Two paths may share gates (e.g. a select that both
	// crossbars use), so the paths' figures do not add up.
	Gates int `json:"gates"`
	// AreaGE is those gates' area in NAND2 equivalents, counted as the
	// unit's AreaGE counts it: in Sized mode with the inverters that
	// buffer each gate's output.
	AreaGE float64 `json:"area_ge"`
}

// namedPaths times d.Paths with the loads and stage delays of the full
// analysis nt, and sizes each one's logic; gates and area are those of
// the gates on at least one path. A To net driven by a DFF stands for
// that DFF's D input.
func namedPaths(d *netlist.Design, opt Options, nt *netTiming) (out []PathResult, gates int, area float64) {
	if len(d.Paths) == 0 {
		return nil, 0, 0
	}
	load, driver, tauPerFO4 := nt.load, &nt.driver, nt.tauPerFO4
	dffOf := map[netlist.Net]netlist.Net{} // Q -> D
	for _, g := range d.Gates {
		if g.Kind == netlist.DFF {
			dffOf[g.Out] = g.In[0]
		}
	}
	memOf := map[netlist.Net]*netlist.Memory{} // read data -> its memory
	for i := range d.Memories {
		for _, n := range d.Memories[i].RData {
			memOf[n] = &d.Memories[i]
		}
	}
	isInput := make([]bool, d.NumNets)
	for _, p := range d.Inputs() {
		for _, b := range p.Bits {
			isInput[b] = true
		}
	}
	cells := opt.cells()
	dff := &cells[netlist.DFF]
	arr := make([]float64, d.NumNets)
	from := make([]int32, d.NumNets) // worst input net, -1 at start points
	fwd, bwd := make([]bool, d.NumNets), make([]bool, d.NumNets)
	onSome := make([]bool, len(d.Gates))
	for _, p := range d.Paths {
		for i := range arr {
			arr[i], from[i] = math.Inf(-1), -1
		}
		for _, n := range p.From {
			var dl float64
			switch {
			case isInput[n]:
				dl, _, _ = opt.stage(driver, 0, load[n])
			case memOf[n] != nil:
				dl = memOf[n].AccessFO4 * tauPerFO4
			default:
				if _, ok := dffOf[n]; ok {
					dl, _, _ = opt.stage(dff, 0, load[n])
				}
			}
			arr[n] = dl
		}
		driverOf := make(map[netlist.Net]int, 0)
		for gi, g := range d.Gates {
			if g.Kind == netlist.DFF {
				continue
			}
			c := &cells[g.Kind]
			best, bestIn := math.Inf(-1), int32(-1)
			for pin, in := range g.In {
				if math.IsInf(arr[in], -1) {
					continue
				}
				dl, _, _ := opt.stage(c, pin, load[g.Out])
				if t := arr[in] + dl; t > best {
					best, bestIn = t, int32(in)
				}
			}
			if bestIn >= 0 && best > arr[g.Out] {
				arr[g.Out], from[g.Out] = best, bestIn
				driverOf[g.Out] = gi
			}
		}
		end := netlist.Net(-1)
		for _, n := range p.To {
			if dn, ok := dffOf[n]; ok {
				n = dn
			}
			if !math.IsInf(arr[n], -1) && (end < 0 || arr[n] > arr[end]) {
				end = n
			}
		}
		r := PathResult{Name: p.Name, Doc: p.Doc, Cells: []string{}}
		if end >= 0 {
			r.FO4 = round4(arr[end] / tauPerFO4)
			var cells []string
			for n := end; ; n = netlist.Net(from[n]) {
				if gi, ok := driverOf[n]; ok && from[n] >= 0 {
					cells = append(cells, d.Gates[gi].Kind.String())
					continue
				}
				if isInput[n] {
					cells = append(cells, "input")
				} else if m := memOf[n]; m != nil {
					cells = append(cells, m.Module)
				} else {
					cells = append(cells, "DFF")
				}
				break
			}
			for i, j := 0, len(cells)-1; i < j; i, j = i+1, j-1 {
				cells[i], cells[j] = cells[j], cells[i]
			}
			r.Cells = cells
		}
		r.Gates, r.AreaGE = pathLogic(d, opt, nt, &p, dffOf, fwd, bwd, onSome)
		out = append(out, r)
	}
	for gi, on := range onSome {
		if on {
			gates++
			area += nt.areaOf(opt, d.Gates[gi])
		}
	}
	return out, gates, round4(area)
}

// pathLogic is the number and area in GE of the combinational gates of d
// that lie on some path from p.From to p.To: a gate one of whose inputs is
// reached forward from From and whose output reaches To backward, neither
// walk passing through a flip-flop (a To net driven by one stands for its
// D input). fwd and bwd are scratch, one flag per net; pathLogic sets
// onSome for each gate it counts.
func pathLogic(d *netlist.Design, opt Options, nt *netTiming, p *netlist.Path, dffOf map[netlist.Net]netlist.Net, fwd, bwd, onSome []bool) (int, float64) {
	clear(fwd)
	clear(bwd)
	for _, n := range p.From {
		fwd[n] = true
	}
	for _, n := range p.To {
		if dn, ok := dffOf[n]; ok {
			n = dn
		}
		bwd[n] = true
	}
	in := make([]bool, len(d.Gates)) // a gate's input is reached from From
	for gi, g := range d.Gates {
		if g.Kind == netlist.DFF {
			continue
		}
		for _, n := range g.In {
			if fwd[n] {
				in[gi], fwd[g.Out] = true, true
				break
			}
		}
	}
	gates, area := 0, 0.0
	for gi := len(d.Gates) - 1; gi >= 0; gi-- {
		g := d.Gates[gi]
		if g.Kind == netlist.DFF || !bwd[g.Out] {
			continue
		}
		for _, n := range g.In {
			bwd[n] = true
		}
		if in[gi] {
			onSome[gi] = true
			gates++
			area += nt.areaOf(opt, g)
		}
	}
	return gates, round4(area)
}

// areaOf is combinational gate g's area in GE: its cell's, and in Sized
// mode the inverters that buffer its output, as the analysis counted them
// (the tree propagate chose for the gate's worst pin and load).
func (nt *netTiming) areaOf(opt Options, g netlist.Gate) float64 {
	c := &nt.cells[g.Kind]
	a := c.Area
	if opt.Mode == Sized {
		_, _, sz := opt.stage(c, int(nt.pin[g.Out]), nt.load[g.Out])
		a += sz * nt.cells[netlist.INV].Area
	}
	return a
}
