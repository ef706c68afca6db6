package sampler

import (
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// rawClock reads the thread's CPU clock with a raw system call, as a
// program timing its own work does.
//
//go:noinline
func rawClock() {
	var ts unix.Timespec
	syscall.RawSyscall(unix.SYS_CLOCK_GETTIME, unix.CLOCK_THREAD_CPUTIME_ID, uintptr(unsafe.Pointer(&ts)), 0)
}
