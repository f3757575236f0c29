package sta

import (
	"context"
	"fmt"

	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/timing/liberty"
)

// MappedStages times the stages of pipelined design d as the user's flow
// would check the period it was cut for: lsugen's own gates in the
// library's cells (MappedVerilog, characterization ch), OpenSTA with the
// clock at periodPS, every flip-flop D pin grouped by the stage its
// register ends. It runs no synthesis, so it suits units of any size; the
// stages' FO4 are in the characterized model's FO4 (ch.FO4PS).
func (f *Flow) MappedStages(ctx context.Context, d *netlist.Design, ch *liberty.Characterization, periodPS float64) ([]StageTiming, error) {
	if !staged(d) {
		return nil, fmt.Errorf("sta: %s: not a pipelined design with its registers' stages", d.Name)
	}
	dir, n, err := f.writeMapped(d, ch)
	if err != nil {
		return nil, err
	}
	eps, err := f.timeRegisters(ctx, dir, n, d.Clock, "mapped_stages", periodPS)
	if err != nil {
		return nil, err
	}
	st, none := groupStages(eps, d.Pipeline.Latency, ch.FO4PS, periodPS,
		func(e regEndpoint) string { return e.Pin },
		func(e regEndpoint) int { return mappedStage(d, e.Instance) })
	if len(none) > 0 {
		return nil, fmt.Errorf("sta: %s: %d flip-flops of no stage, e.g. %s", d.Name, len(none), none[0])
	}
	return st, nil
}
