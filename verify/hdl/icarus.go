package hdl

import (
	"context"
	"os"
	"path/filepath"

	"github.com/lsugen/lsugen/internal/atomicfile"
	"github.com/lsugen/lsugen/toolchain"
)

// icarusCmdFile holds the iverilog options that only a command file can
// give: the default timescale for modules without a `timescale.
const icarusCmdFile = "+timescale+1ns/1ps\n"

// icarusTools finds what an Icarus build and run use: iverilog and vvp.
func icarusTools() (iverilog, vvp *toolchain.Tool, err error) {
	if iverilog, err = findFor(Icarus, "iverilog"); err != nil {
		return nil, nil, err
	}
	if vvp, err = findFor(Icarus, "vvp"); err != nil {
		return nil, nil, err
	}
	return iverilog, vvp, nil
}

// buildIcarus compiles the testbench and sources with iverilog into
// sim_icarus.vvp, unless the last build had the same inputs, and returns the
// vvp command that runs it (plusargs to be added).
func (p *prepared) buildIcarus(ctx context.Context) (*command, error) {
	iverilog, vvp, err := icarusTools()
	if err != nil {
		return nil, err
	}
	const vvpFile = "sim_icarus.vvp"
	cmdFile := filepath.Join(p.dir, "iverilog.cmd")
	if err := atomicfile.Write(cmdFile, []byte(icarusCmdFile)); err != nil {
		return nil, err
	}
	args := []string{"-g2005", "-Wall", "-c", "iverilog.cmd", "-o", vvpFile, "-s", TopModule, p.tbPath}
	args = append(args, p.sources...)
	build := newCommand(Icarus, "build (iverilog)", p.dir, iverilog.Path, args...)

	sim := newCommand(Icarus, "run (vvp)", p.dir, vvp.Path, "-n", vvpFile)

	stamp := filepath.Join(p.dir, vvpFile+".stamp")
	fp := p.fingerprint(iverilog.Path, iverilog.Version, vvp.Version, build.String(), icarusCmdFile)
	if upToDate(stamp, fp, filepath.Join(p.dir, vvpFile)) {
		return sim, nil
	}
	os.Remove(stamp)
	out, err := build.run(ctx)
	if err != nil {
		return nil, err
	}
	if w := warningLines(out); len(w) > 0 {
		return nil, build.fail(errWarnings, out)
	}
	if err := os.WriteFile(stamp, []byte(fp+"\n"), 0o666); err != nil {
		return nil, err
	}
	return sim, nil
}
