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

// RunDelay returns the time the calling thread has spent runnable on the
// kernel's run queues, waiting for a CPU (the second field of its
// schedstat); 0 if the kernel does not say. With Thread, it brackets a
// locked goroutine's time on its thread: a goroutine the Go scheduler
// runs is on CPU or, while the system runs other threads, waiting for
// one. It reads through raw system calls, as Thread does.
func RunDelay() time.Duration {
	b, ok := schedstat()
	if !ok {
		return 0
	}
	return time.Duration(schedstatField(b, 1))
}

// schedstat reads the calling thread's schedstat line.
func schedstat() ([]byte, bool) {
	path := [...]byte{'/', 'p', 'r', 'o', 'c', '/', 't', 'h', 'r', 'e', 'a', 'd', '-', 's', 'e', 'l', 'f', '/', 's', 'c', 'h', 'e', 'd', 's', 't', 'a', 't', 0}
	fd, _, errno := syscall.RawSyscall6(unix.SYS_OPENAT, uintptr(atFDCWD), uintptr(unsafe.Pointer(&path[0])), unix.O_RDONLY|unix.O_CLOEXEC, 0, 0, 0)
	if errno != 0 {
		return nil, false
	}
	var buf [96]byte
	n, _, errno := syscall.RawSyscall(unix.SYS_READ, fd, uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)))
	syscall.RawSyscall(unix.SYS_CLOSE, fd, 0, 0)
	if errno != 0 {
		return nil, false
	}
	return buf[:n], true
}

// Slices returns how many times the calling thread has been given a CPU
// (the third field of its schedstat): a locked goroutine's thread is
// given one each time the goroutine runs again after the Go scheduler or
// the system stopped it. 0 if the kernel does not say.
func Slices() int64 {
	b, ok := schedstat()
	if !ok {
		return 0
	}
	return schedstatField(b, 2)
}

// atFDCWD is AT_FDCWD as a system call's argument.
var atFDCWD = unix.AT_FDCWD

// schedstatField returns the i-th space-separated number of b.
func schedstatField(b []byte, i int) int64 {
	var v int64
	field := 0
	for _, c := range b {
		switch {
		case c == ' ' || c == '\n':
			if field == i {
				return v
			}
			field++
			v = 0
		case c >= '0' && c <= '9':
			v = v*10 + int64(c-'0')
		}
	}
	if field == i {
		return v
	}
	return 0
}
