package timing

import (
	"math"

	"github.com/lsugen/lsugen/netlist"
)

// PathResult is the delay of one of the design's named paths (see
// netlist.Path): the worst arrival at its endpoints over paths that start
// at its start points only.
type PathResult struct {
	Name string  `json:"name"`
	Doc  string  `json:"doc,omitempty"`
	FO4  float64 `json:"fo4"`
	// Cells lists the cells of the worst such path, start point first
	// ("input" for a primary input's driver, "DFF" for clock to Q, the
	// bank module for a memory's read data).
	Cells []string `json:"cells"`
}

// namedPaths times d.Paths with the loads and stage delays of the full
// analysis. A To net driven by a DFF stands for that DFF's D input.
func namedPaths(d *netlist.Design, opt Options, load []float64, driver *Cell, tauPerFO4 float64) []PathResult {
	if len(d.Paths) == 0 {
		return nil
	}
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
	var out []PathResult
	arr := make([]float64, d.NumNets)
	from := make([]int32, d.NumNets) // worst input net, -1 at start points
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
		out = append(out, r)
	}
	return out
}
