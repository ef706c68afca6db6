//go:build !linux

package sampler

import "syscall"

// rawClock makes a short raw system call (the thread CPU clock's is
// Linux's).
//
//go:noinline
func rawClock() { syscall.RawSyscall(syscall.SYS_GETPID, 0, 0, 0) }
