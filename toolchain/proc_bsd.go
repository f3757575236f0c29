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

// startCmd starts cmd. There is no memory limit and no reaper here:
// memLimit is ignored.
func startCmd(cmd *exec.Cmd, memLimit uint64) (release func(), err error) {
	return func() {}, cmd.Start()
}

// endEscapees does nothing here: there is no child subreaper to make the
// children that leave a tool's group (setsid) lsugen's.
func endEscapees() {}
