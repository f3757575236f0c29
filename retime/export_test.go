package retime

import "github.com/lsugen/lsugen/netlist"

// WordCutErr is why PipelineWords falls back for d at opt (nil: it does
// not).
func WordCutErr(d *netlist.Design, opt Options) error {
	fine, err := Pipeline(d, opt)
	if err != nil {
		return err
	}
	_, err = pipelineWords(d, opt, fine)
	return err
}
