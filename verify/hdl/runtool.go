package hdl

import "context"

// RunTool runs tool t (from Find) with args in dir under ctx and returns
// its combined stdout and stderr (the first 4 MiB). A failure (start,
// non-zero exit, cancellation) is a *StepError whose Engine is the tool's
// name and whose Step is step, with the tail of the output; cancellation
// kills the tool's whole process group. It is the runner of the packages
// that drive tools other than the simulators (verify/formal: Yosys, ABC).
func RunTool(ctx context.Context, t *Tool, step, dir string, args ...string) ([]byte, error) {
	c := &command{engine: Engine(t.Name), step: step, dir: dir, path: t.Path, args: args}
	return c.run(ctx)
}
