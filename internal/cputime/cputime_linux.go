package cputime

import (
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Thread returns the calling thread's CPU time. It uses a raw system call
// (clock_gettime never blocks) so that the workload does not itself produce
// a stream of syscall transitions for the sampler to see.
func Thread() time.Duration {
	var ts unix.Timespec
	_, _, errno := syscall.RawSyscall(unix.SYS_CLOCK_GETTIME, unix.CLOCK_THREAD_CPUTIME_ID, uintptr(unsafe.Pointer(&ts)), 0)
	if errno != 0 {
		return time.Duration(time.Now().UnixNano())
	}
	return time.Duration(ts.Nano())
}
