//go:build unix

package cputime

import (
	"syscall"
	"time"
)

// Process returns the process's CPU time so far, user and system, all
// threads (rusage).
func Process() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
