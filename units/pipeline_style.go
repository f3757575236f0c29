package units

import (
	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/retime"
	"github.com/lsugen/lsugen/specs"
)

// pipelineStyle is the pipeliner of the spec's `pipeline`: registers
// placed in the logic, between word-level signals where they allow it
// (retime.PipelineWords), or, for a flow that retimes, the
// logic followed by as many register stages (retime.PipelineForRetiming).
func pipelineStyle(c specs.Clocking) func(*netlist.Design, retime.Options) (*retime.Result, error) {
	if c.Style == specs.PipelineRetime {
		return retime.PipelineForRetiming
	}
	return retime.PipelineWords
}
