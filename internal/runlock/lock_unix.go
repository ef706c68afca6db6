//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package runlock

import (
	"os"

	"golang.org/x/sys/unix"
)

// lock takes an exclusive lock on f, waiting for none.
func lock(f *os.File) error {
	return flock(f, unix.LOCK_EX|unix.LOCK_NB)
}

// tryLock reports whether it took an exclusive lock on f.
func tryLock(f *os.File) bool {
	return flock(f, unix.LOCK_EX|unix.LOCK_NB) == nil
}

func flock(f *os.File, how int) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) {
		for {
			ferr = unix.Flock(int(fd), how)
			if ferr != unix.EINTR {
				return
			}
		}
	}); err != nil {
		return err
	}
	return ferr
}
