package retime

import (
	"errors"

	"github.com/lsugen/lsugen/netlist"
)

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

// PipelineByGates is PipelineWords writing the gate-level placement's
// readable module by stage, as it does where no placement of whole
// entries costs no register more.
func PipelineByGates(d *netlist.Design, opt Options) (*Result, error) {
	fine, err := Pipeline(d, opt)
	if err != nil {
		return nil, err
	}
	w, err := newWordGraph(d)
	if err != nil {
		return nil, err
	}
	return w.viewFine(opt, fine, errors.New("the gate-level placement by stage asked for"))
}
