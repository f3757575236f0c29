//go:build linux

package toolchain

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"unsafe"
)

// sysProcAttr puts the child in a process group of its own and asks the
// kernel to SIGKILL it when lsugen dies (Pdeathsig): a SIGKILLed lsugen,
// which can clean nothing up, still takes its direct children with it.
//
// Pdeathsig fires when the thread that started the child ends, not only
// the process: every child is therefore started by one goroutine locked
// to its thread for the life of the process (startCmd), whose thread never
// ends before lsugen does. It reaches the direct child only, not the
// child's own children (make's compilers under Verilator's build, Yosys's
// ABC, iverilog's ivlpp and ivl): those are killed with the process group,
// by lsugen when it is interrupted or a run is cancelled, and by the
// reaper when lsugen dies of SIGKILL.
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

// startCmd starts cmd from the spawning thread (see sysProcAttr), limits
// its address space to memLimit bytes (0: no limit) and gives its process
// group to the reaper. release, called once the command has been waited
// for, takes the group back.
//
// The program runs nothing before its group is with the reaper and its
// limit is set: it is started behind a gate, a shell that waits for a
// line on an inherited pipe and then execs the program (same pid, same
// group, same Pdeathsig). Without the gate a tool scheduled before lsugen
// could fork children that a SIGKILL of lsugen at that moment would leave
// running, unknown to the reaper. If lsugen dies at the gate, the pipe
// closes and the shell exits without running the program.
func startCmd(cmd *exec.Cmd, memLimit uint64) (release func(), err error) {
	open, err := gate(cmd)
	if err != nil {
		return func() {}, err
	}
	if err := startLive(cmd); err != nil {
		open(false)
		return func() {}, err
	}
	pid := cmd.Process.Pid
	if memLimit > 0 {
		// Inherited by the program the gate execs and its children.
		if err := limitAddressSpace(pid, memLimit); err != nil {
			open(false)
			_ = syscall.Kill(-pid, syscall.SIGKILL)
			_ = cmd.Wait()
			return func() {}, fmt.Errorf("limiting %s's memory: %w", cmd.Path, err)
		}
	}
	theReaper.tell(fmt.Sprintf("+%d\n", pid))
	open(true)
	return func() { theReaper.tell(fmt.Sprintf("-%d\n", pid)); endLive(pid) }, nil
}

// gateScript waits for the go-ahead on fd 3, closes it and becomes the
// program ($0) with its arguments.
const gateScript = `read -r go <&3 || exit 126; exec 3<&-; exec "$0" "$@"`

// gate rewrites cmd to start behind the gate. open(true) lets the program
// run and open(false) stops it; either is called once, after the start.
// Without /bin/sh cmd is left as it is (no gate, as without a reaper).
func gate(cmd *exec.Cmd) (open func(bool), err error) {
	if _, err := os.Stat("/bin/sh"); err != nil || len(cmd.ExtraFiles) > 0 {
		return func(bool) {}, nil
	}
	// The error Start would give for a program that is not there.
	prog := cmd.Path
	if cmd.Dir != "" && !filepath.IsAbs(prog) {
		prog = filepath.Join(cmd.Dir, prog)
	}
	if _, err := exec.LookPath(prog); err != nil {
		return nil, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Args = append([]string{"sh", "-c", gateScript, cmd.Path}, cmd.Args[1:]...)
	cmd.Path = "/bin/sh"
	cmd.ExtraFiles = []*os.File{r}
	return func(run bool) {
		r.Close()
		if run {
			_, _ = w.WriteString("go\n")
		}
		w.Close()
	}, nil
}

// limitAddressSpace sets pid's RLIMIT_AS to limit, or keeps a lower one.
func limitAddressSpace(pid int, limit uint64) error {
	var old syscall.Rlimit
	if _, _, e := syscall.RawSyscall6(syscall.SYS_PRLIMIT64, uintptr(pid), syscall.RLIMIT_AS, 0, uintptr(unsafe.Pointer(&old)), 0, 0); e != 0 {
		return e
	}
	lim := syscall.Rlimit{Cur: min(limit, old.Cur), Max: min(limit, old.Max)}
	if _, _, e := syscall.RawSyscall6(syscall.SYS_PRLIMIT64, uintptr(pid), syscall.RLIMIT_AS, uintptr(unsafe.Pointer(&lim)), 0, 0, 0); e != 0 {
		return e
	}
	return nil
}

// The reaper is a shell, started with the first tool, that outlives lsugen
// by a moment. lsugen writes the process group of every tool it starts
// ("+PGID") and of every tool that has ended ("-PGID") to a pipe; when the
// pipe closes, which the kernel does when lsugen exits or dies, even of
// SIGKILL, the reaper kills the groups still listed and exits. So no
// compiler, ABC or ivl outlives a killed lsugen. It ignores the terminal's
// signals (it is in a group of its own anyway): only the pipe ends it.
const reaperScript = `trap '' INT TERM HUP PIPE
g=' '
while read -r l; do
	case $l in
	+*) g="$g${l#+} " ;;
	-*) p=${l#-}; case "$g" in *" $p "*) g="${g%%" $p "*} ${g#*" $p "}" ;; esac ;;
	esac
done
for p in $g; do kill -s KILL -- "-$p" 2>/dev/null; done
exit 0
`

var theReaper reaper

type reaper struct {
	once sync.Once
	mu   sync.Mutex
	w    *os.File // the pipe's write end; nil when no reaper could start
}

func (r *reaper) tell(line string) {
	r.once.Do(r.start)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.w != nil {
		_, _ = r.w.WriteString(line)
	}
}

// start starts the reaper. Without /bin/sh lsugen runs without one:
// Pdeathsig still takes the direct children.
func (r *reaper) start() {
	pr, pw, err := os.Pipe() // close-on-exec: no tool inherits the write end
	if err != nil {
		return
	}
	defer pr.Close()
	cmd := exec.Command("/bin/sh", "-c", reaperScript)
	cmd.Stdin = pr
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		pw.Close()
		return
	}
	go func() { _ = cmd.Wait() }() // it ends with lsugen; reap it if not
	r.w = pw
}
