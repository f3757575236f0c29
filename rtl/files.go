package rtl

import (
	"bytes"
	"fmt"

	"github.com/lsugen/lsugen/netlist"
)

// Files renders both Verilog files of a design: file name -> contents.
func Files(d *netlist.Design, info Info) (map[string][]byte, error) {
	var r, g bytes.Buffer
	if err := WriteRTL(&r, d, info); err != nil {
		return nil, fmt.Errorf("%s: %w", d.Name, err)
	}
	if err := WriteGates(&g, d, info); err != nil {
		return nil, fmt.Errorf("%s: %w", d.Name, err)
	}
	return map[string][]byte{RTLFileName(d): r.Bytes(), GatesFileName(d): g.Bytes()}, nil
}
