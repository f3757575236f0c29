//go:build unix

package toolchain

import (
	"os/exec"
	"syscall"
)

// setProcessGroup starts cmd in a process group of its own and makes
// cancellation kill the whole group: killing only the direct child would
// leave make's compilers or Yosys's ABC running, holding the output pipes.
// On Linux the child is also killed when lsugen dies, even by SIGKILL
// (see sysProcAttr in proc_linux.go).
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = sysProcAttr()
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

// endGroup kills what is left of cmd's process group once its leader has
// been waited for: a tool's background children (a simulated design's
// $system("... &")) do not outlive its run. A child that left the group
// (setsid) is reached on Linux, where lsugen is their subreaper
// (endEscapees).
func endGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	endEscapees()
}
