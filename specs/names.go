package specs

import (
	"fmt"

	"github.com/lsugen/lsugen/verilog"
)

// maxUnitNameLen bounds unit names, which become module and file names.
const maxUnitNameLen = 64

// checkUnitName returns why name cannot be a unit name, or "" if it can:
// it must be a simple Verilog identifier that is not a keyword.
func checkUnitName(name string) string {
	switch {
	case name == "":
		return "A unit name must not be empty"
	case len(name) > maxUnitNameLen:
		return fmt.Sprintf("The unit name %q is longer than %d characters", name[:maxUnitNameLen]+"...", maxUnitNameLen)
	case verilog.IsReserved(name):
		// One list, the Verilog writer's: what it refuses, specs refuse.
		return fmt.Sprintf("%q is a reserved Verilog keyword and cannot be a unit name", name)
	}
	for i, c := range name {
		letter := c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		digit := c >= '0' && c <= '9'
		if !letter && !(digit && i > 0) {
			return fmt.Sprintf("%q is not a Verilog identifier: use letters, digits and _, starting with a letter or _", name)
		}
	}
	return ""
}

// CheckUnitName returns why name cannot be a unit name (a block's label),
// or "" if it can: the loader's rule, for the commands that write spec
// files (search -o --name), so that they refuse before work a name the
// loader would refuse.
func CheckUnitName(name string) string { return checkUnitName(name) }
