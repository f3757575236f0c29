//go:build linux

package toolchain

import (
	"os/exec"
	"runtime"
	"syscall"
)

// sysProcAttr puts the child in a process group of its own and asks the
// kernel to SIGKILL it when lsugen dies (Pdeathsig): a SIGKILLed lsugen,
// which can clean nothing up, still takes its direct children with it.
//
// Limits. Pdeathsig fires when the thread that started the child ends, not
// only the process: every child is therefore started by one goroutine
// locked to its thread for the life of the process (startCmd), whose
// thread never ends before lsugen does. It reaches the direct child only:
// the child's own children (make's compilers under Verilator's build,
// Yosys's ABC, iverilog's ivlpp and ivl) are killed with the process group
// when lsugen is interrupted or a run is cancelled, but after a SIGKILL of
// lsugen they are orphaned and run on until they finish or, like ABC,
// die of SIGPIPE when they next write to their dead parent. Simulations
// (vvp, Verilator's model) are direct children: no shell is put between
// lsugen and a tool.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// starts carries cmd.Start calls to the goroutine that makes every child.
var starts = make(chan startReq)

type startReq struct {
	cmd  *exec.Cmd
	done chan error
}

func init() {
	go func() {
		// Never unlocked: this thread lives as long as lsugen, so the
		// children it starts get their Pdeathsig only when lsugen dies.
		runtime.LockOSThread()
		for r := range starts {
			r.done <- r.cmd.Start()
		}
	}()
}

// startCmd starts cmd from the spawning thread (see sysProcAttr).
func startCmd(cmd *exec.Cmd) error {
	done := make(chan error, 1)
	starts <- startReq{cmd, done}
	return <-done
}
