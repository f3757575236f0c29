//go:build !unix

package sta

import "os/exec"

func setProcessGroup(cmd *exec.Cmd) {}
