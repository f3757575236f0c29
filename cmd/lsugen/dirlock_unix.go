//go:build unix

package main

import (
	"os"
	"syscall"
)

// lockDir takes an exclusive lock on directory dir (flock on the
// directory itself: no lock file appears among the outputs) and returns
// its release. Two lsugen runs writing into one directory rename their
// sets of files in turn, so that a unit's files never come from two runs.
// A directory that cannot be opened or locked (no read permission, a file
// system without flock) is written unlocked, as before: the lock orders
// runs, it is not needed to write.
func lockDir(dir string) func() {
	f, err := os.Open(dir)
	if err != nil {
		return func() {}
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return func() {}
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}
}
