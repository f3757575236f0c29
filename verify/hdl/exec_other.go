//go:build !unix

package hdl

import "os/exec"

func setProcessGroup(cmd *exec.Cmd) {}
