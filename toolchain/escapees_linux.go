//go:build linux

package toolchain

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
)

// Escapees. A tool's child that leaves the tool's process group with
// setsid (a simulated design's $system("setsid sleep 600 &")) is out of
// reach of endGroup's kill of the group, and once its parent ends it
// would be init's. lsugen is therefore a child subreaper
// (PR_SET_CHILD_SUBREAPER): an orphan among its tools' descendants
// becomes lsugen's child instead. When a tool's run ends, lsugen kills and
// reaps each of its children in a session other than its own (no process
// lsugen starts changes session: only an escapee can be in another), and
// reaps the zombies that its tools' killed groups leave to it; the
// children it is waiting for (live) are never touched.

const prSetChildSubreaper = 36 // linux/prctl.h

func init() {
	_, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
}

// live are the pids of the tools lsugen has started and not yet waited for.
var live = struct {
	sync.Mutex
	pids map[int]bool
}{pids: map[int]bool{}}

// startLive starts cmd from the spawning thread (see sysProcAttr) and
// marks it live, under live's lock: endEscapees, which takes the lock,
// never sees a tool of lsugen's that is not marked.
func startLive(cmd *exec.Cmd) error {
	live.Lock()
	defer live.Unlock()
	done := make(chan error, 1)
	starts <- startReq{cmd, done}
	if err := <-done; err != nil {
		return err
	}
	live.pids[cmd.Process.Pid] = true
	return nil
}

// endLive unmarks a tool that has been waited for.
func endLive(pid int) {
	live.Lock()
	defer live.Unlock()
	delete(live.pids, pid)
}

// procStat is what /proc/PID/stat says of a process: its state, parent,
// process group and session.
type procStat struct {
	state               byte
	ppid, pgrp, session int
}

func readStat(pid string) (procStat, bool) {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return procStat{}, false
	}
	// The command name, in parentheses, may hold spaces and parentheses.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procStat{}, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 4 || len(f[0]) != 1 {
		return procStat{}, false
	}
	var s procStat
	s.state = f[0][0]
	var err1, err2, err3 error
	s.ppid, err1 = strconv.Atoi(string(f[1]))
	s.pgrp, err2 = strconv.Atoi(string(f[2]))
	s.session, err3 = strconv.Atoi(string(f[3]))
	return s, err1 == nil && err2 == nil && err3 == nil
}

// endEscapees kills and reaps lsugen's escaped children (see above) and
// reaps its orphaned zombies. Killing an escapee can orphan its own
// children to lsugen, so it looks again, a bounded number of times.
func endEscapees() {
	self, ok := readStat("self")
	if !ok {
		return
	}
	me := os.Getpid()
	live.Lock()
	defer live.Unlock()
	for pass := 0; pass < 8; pass++ {
		dirs, err := os.ReadDir("/proc")
		if err != nil {
			return
		}
		found := false
		for _, d := range dirs {
			pid, err := strconv.Atoi(d.Name())
			if err != nil {
				continue
			}
			s, ok := readStat(d.Name())
			if !ok || s.ppid != me {
				continue
			}
			switch {
			case live.pids[pid]:
			case s.session != self.session:
				_ = syscall.Kill(-s.pgrp, syscall.SIGKILL)
				_ = syscall.Kill(pid, syscall.SIGKILL)
				var ws syscall.WaitStatus
				_, _ = syscall.Wait4(pid, &ws, 0, nil)
				found = true
			case s.state == 'Z' && s.pgrp != self.pgrp:
				// A descendant of a tool, orphaned when its group was killed.
				var ws syscall.WaitStatus
				_, _ = syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
			}
		}
		if !found {
			return
		}
	}
}
