package packaging

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/lsugen/lsugen/timing"
	"github.com/lsugen/lsugen/timing/liberty"
)

// Library is the standard-cell library a unit's packaging files target
// (lsugen gen --liberty): the SDC's defaults come from it and the Yosys
// script maps onto it. A Unit without one gets generic files.
type Library struct {
	// Name is the library's name, e.g. "sky130_fd_sc_hd__tt_025C_1v80".
	Name string
	// Path is the absolute path of the plain Liberty file that the Yosys
	// script and the core name; no library is ever copied beside the
	// scripts. For a gzipped library, which Yosys 0.23's abc and
	// dfflibmap do not read, it is the gzipped file's path without .gz:
	// the library unpacked beside it (Gzipped is then the file given).
	Path string
	// Gzipped is the absolute path of the gzipped Liberty file given, ""
	// for a plain one.
	Gzipped string
	// DontUse are the cells whose Liberty sets dont_use : true, in the
	// file's order: the Yosys script names them (Yosys 0.23's abc and
	// dfflibmap skip them by that attribute; they take no -dont_use).
	DontUse []string
	// TimeUnitPS and CapUnitFF are the library's time and capacitance
	// units, in which SDC figures are read: 1000 and 1000 for ns and pF.
	TimeUnitPS, CapUnitFF float64
	// FO4PS is the library's FO4 delay in ps as `lsugen characterize`
	// computes it (liberty.Characterization.FO4PS): its unit inverter
	// driving four copies of itself and their wire.
	FO4PS float64
	// Inverter is the unit inverter (liberty.Characterization.Inverter,
	// by default the library's smallest), InverterIn and InverterOut its
	// pins, and InverterCap its input capacitance in the library's
	// capacitance unit.
	Inverter, InverterIn, InverterOut string
	InverterCap                       float64
	// Tech is the characterized gate table (EstimateOptions).
	Tech *timing.Tech
}

// LoadLibrary reads a Liberty file, plain or gzipped, and characterizes it
// with opt as `lsugen characterize` does (liberty.Options{}: the smallest
// inverter as the unit, liberty.DefaultDontUse left out).
func LoadLibrary(path string, opt liberty.Options) (*Library, error) {
	src, err := liberty.ReadFile(path)
	if err != nil {
		return nil, err
	}
	l, err := liberty.ParseLibrary(src)
	if err != nil {
		return nil, fmt.Errorf("liberty %s: %w", path, err)
	}
	ch, err := liberty.Characterize(l, opt)
	if err != nil {
		return nil, fmt.Errorf("liberty %s: %w", path, err)
	}
	inv := l.Cells[ch.Inverter]
	if inv == nil || len(inv.Inputs) != 1 || len(inv.Outputs) != 1 {
		return nil, fmt.Errorf("liberty %s: unit inverter %q has not one input and one output", path, ch.Inverter)
	}
	lib := &Library{
		Name: l.Name, TimeUnitPS: l.TimeUnitPS, CapUnitFF: l.CapUnitFF, FO4PS: ch.FO4PS,
		Inverter: inv.Name, InverterIn: inv.Inputs[0].Name, InverterOut: inv.Outputs[0].Name, InverterCap: inv.Inputs[0].Cap,
		Tech: ch.Tech,
	}
	for _, name := range l.Order {
		if l.Cells[name].DontUse {
			lib.DontUse = append(lib.DontUse, name)
		}
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	lib.Path = abs
	if gzipped, err := isGzip(path); err != nil {
		return nil, err
	} else if gzipped {
		lib.Gzipped = abs
		lib.Path = strings.TrimSuffix(abs, ".gz")
		if lib.Path == abs {
			lib.Path += ".lib"
		}
	}
	return lib, nil
}

// EstimateOptions are the timing options of the critical-path estimate
// that a unit's SDC states, the figures of `lsugen timing --timing-mode sized`:
// the default input driver and output load (timing.DefaultOptions), sized,
// and with lib its characterized gate table and wire load (`--liberty`).
func EstimateOptions(lib *Library) timing.Options {
	opt := timing.DefaultOptions()
	if lib != nil && lib.Tech != nil {
		opt = timing.OptionsFor(lib.Tech)
	}
	opt.Mode = timing.Sized
	return opt
}

// EstimateOf is the Estimate of res, a result of timing.Analyze under opt.
func EstimateOf(res *timing.Result, opt timing.Options) Estimate {
	return Estimate{FO4: res.FO4, Depth: res.Depth, Endpoint: res.Endpoint, Tech: res.Tech, Options: opt}
}

// isGzip tells a gzipped file by its magic number, as liberty.ReadFile does.
func isGzip(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	var magic [2]byte
	if _, err := io.ReadFull(f, magic[:]); err != nil {
		return false, nil // too short for gzip; ReadFile read it as plain
	}
	return magic == [2]byte{0x1f, 0x8b}, nil
}
