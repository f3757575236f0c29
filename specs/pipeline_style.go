package specs

// Pipeline styles, the values of `pipeline` (with clock_fo4 or clock).
const (
	// PipelineStages places the registers in the logic so that every
	// stage fits the period (the default).
	PipelineStages = "stages"
	// PipelineRetime writes the combinational logic followed by the same
	// number of register stages, for a flow whose synthesis retimes.
	PipelineRetime = "retime"
)

// PipelineStyles are the values of pipeline.
var PipelineStyles = []string{PipelineStages, PipelineRetime}

var pipelineAttr = Attr{Name: "pipeline", Type: "string", Doc: "With clock_fo4 or clock: where the registers go. `stages` (default) places them in the logic so that every stage fits the period; `retime` writes the combinational logic followed by L register stages, L the latency `stages` gives, with the same ports and protocol, for a flow that retimes the registers into the logic (each stage's delay is then the synthesis tool's to meet)."}

// pipelineStyle decodes pipeline; clocked says clock_fo4 or clock is
// given.
func (bd *blockDecoder) pipelineStyle(clocked bool) string {
	if !bd.has("pipeline") {
		if clocked {
			return PipelineStages
		}
		return ""
	}
	s, ok := bd.str("pipeline")
	switch {
	case !ok:
	case !bd.has("clock_fo4") && !bd.has("clock"):
		bd.errorf(bd.rng("pipeline"), "Argument not allowed", "pipeline chooses where pipeline registers go; it needs clock_fo4 or clock.")
	case !oneOf(s, PipelineStyles):
		bd.errorf(bd.rng("pipeline"), "Unsupported pipeline", "%q is not a pipeline style.%s The styles are stages and retime.", s, didYouMean(s, PipelineStyles))
	default:
		return s
	}
	return ""
}
