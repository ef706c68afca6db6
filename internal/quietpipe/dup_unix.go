//go:build unix

package quietpipe

import (
	"os"
	"syscall"
)

// dupStderr returns a new descriptor of the standard error, or nil.
func dupStderr() *os.File {
	syscall.ForkLock.RLock() // no child inherits it between the dup and close-on-exec
	fd, err := syscall.Dup(2)
	if err == nil {
		syscall.CloseOnExec(fd)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil
	}
	return os.NewFile(uintptr(fd), "/dev/stderr")
}
