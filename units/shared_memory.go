package units

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"

	"github.com/lsugen/lsugen/netlist"
	"github.com/lsugen/lsugen/specs"
	"github.com/lsugen/lsugen/timing"
)

// sharedMemoryAtClock refuses a shared memory generated with a clock
// when a register-to-register path (the banks' access and setup
// included) does not fit the period under timing_mode's model (library
// tech's under "liberty"): the memory's clock is a promise its report and
// SDC repeat, so it is checked where the unit is built.
func sharedMemoryAtClock(u *specs.SharedMemory, d *netlist.Design, tech *timing.Tech, diags hcl.Diagnostics) (Built, hcl.Diagnostics) {
	c := u.Clock
	if c.ClockFO4 == 0 {
		return Built{Design: d}, diags
	}
	opt, err := timing.PipelineOptionsIn(c.TimingMode, tech)
	if err != nil {
		return Built{}, append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Cannot time the shared memory",
			Detail: err.Error(), Subject: c.Range.Ptr()})
	}
	if c.TimingMode == timing.Liberty {
		// lsugen builds no buffer trees in the memory's control nets (as
		// retime does in a pipeline's): the library's model times them
		// as a synthesis flow that buffers them would, sized.
		opt.Mode = timing.Sized
		if d.Protocol != nil {
			d.Protocol.Library = tech.Name
		}
	}
	worst, err := timing.SlowestPath(d, opt)
	if err != nil {
		return Built{}, append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Cannot time the shared memory",
			Detail: err.Error(), Subject: c.Range.Ptr()})
	}
	if worst > c.ClockFO4 {
		res, err := timing.Analyze(d, opt)
		where := ""
		if err == nil {
			where = fmt.Sprintf(" The slowest path ends at %s; `lsugen timing --timing-mode %s` without a clock shows it.", res.Endpoint, c.TimingMode)
		}
		least := fmt.Sprintf("give clock_fo4 of at least %.2f%s", worst, inPS(worst, tech, c.TimingMode))
		if worst > specs.MaxClockFO4 {
			// The unsized model charges each control net's whole fanout to
			// one gate: no period in range fits, and the sized model is the
			// one a synthesis tool's buffering resembles.
			least = fmt.Sprintf("no clock_fo4 up to %d fits under this model; use timing_mode = \"sized\"", specs.MaxClockFO4)
		}
		return Built{}, append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Cannot meet clock_fo4",
			Detail: fmt.Sprintf("With its pipelined front end, %s's slowest register-to-register path is %.2f FO4 under the %s model (the bank macros' access time %g FO4 and setup %g FO4 included), more than the period, %.4g FO4%s. The pass loop (pending lane words, bank leaders, lanes served) cannot be cut by registers without a cycle per pass; %s, or fewer lanes or banks, or a faster bank macro (bank_access_fo4).%s",
				u.Name, worst, c.TimingMode, u.BankAccessFO4, u.BankSetupFO4, c.ClockFO4, inPS(c.ClockFO4, tech, c.TimingMode), least, where),
			Subject: c.Range.Ptr()})
	}
	return Built{Design: d}, diags
}
