//go:build unix && !linux

package toolchain

import (
	"os/exec"
	"syscall"
)

// sysProcAttr puts the child in a process group of its own. These systems
// have no Pdeathsig: a child of a SIGKILLed lsugen runs on until it ends.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// startCmd starts cmd.
func startCmd(cmd *exec.Cmd) error { return cmd.Start() }
