//go:build unix

package regfile

import (
	"os"
	"syscall"
)

// openFlags opens without waiting for a FIFO's writer.
const openFlags = os.O_RDONLY | syscall.O_NONBLOCK
