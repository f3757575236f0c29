//go:build !unix

package toolchain

import "os/exec"

// setProcessGroup does nothing where there are no process groups: the
// default cancellation kills the direct child only.
func setProcessGroup(cmd *exec.Cmd) {}

// startCmd starts cmd; memLimit is ignored.
func startCmd(cmd *exec.Cmd, memLimit uint64) (release func(), err error) {
	return func() {}, cmd.Start()
}

// endGroup does nothing where there are no process groups.
func endGroup(cmd *exec.Cmd) {}
