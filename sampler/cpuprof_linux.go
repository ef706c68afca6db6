package sampler

import (
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// cpuTimerHz returns the rate of the runtime's CPU profiling timer
// (ITIMER_PROF, which the runtime sets while a CPU profile runs): 0 while
// no CPU profile runs. A raw system call (getitimer never blocks) leaves
// no system-call events in the trace.
func cpuTimerHz() int {
	var it unix.Itimerval
	_, _, errno := syscall.RawSyscall(unix.SYS_GETITIMER, unix.ITIMER_PROF, uintptr(unsafe.Pointer(&it)), 0)
	if errno != 0 {
		return unknownHz
	}
	us := it.Interval.Sec*1_000_000 + it.Interval.Usec
	if us <= 0 {
		return 0
	}
	return int((1_000_000 + us/2) / us)
}
