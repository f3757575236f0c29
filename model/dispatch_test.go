package model

import (
	"errors"
	"fmt"

	"github.com/lsugen/lsugen/specs"
)

// forUnit and forSequential pick a test unit's constructor by its type, as
// the family table (package units) does for the tool.
func forUnit(u specs.Unit) (Model, error) {
	switch u := u.(type) {
	case *specs.Hash:
		return ForHash(u)
	case *specs.Coalescer:
		return ForCoalescer(u)
	case *specs.MonotonicityDetector:
		return ForMonotonicityDetector(u)
	case nil:
		return nil, errors.New("model: nil unit")
	}
	return nil, fmt.Errorf("model: unit %q: kind %q is not modelled", u.UnitName(), u.UnitKind())
}

func forSequential(u specs.Unit) (Sequential, error) {
	switch u := u.(type) {
	case *specs.ElasticPipeline:
		return ForPipeline(u)
	case *specs.WarpReadyMask:
		return ForReadyMask(u)
	case nil:
		return nil, errors.New("model: nil unit")
	}
	return nil, fmt.Errorf("model: unit %q: kind %q is not a sequential unit", u.UnitName(), u.UnitKind())
}
