//go:build unix

package profiler

import (
	"fmt"
	"os"
	"strings"
	"syscall"
)

// captureSignal reports whether sig may take captures.
func captureSignal(sig os.Signal) bool { return sig == syscall.SIGUSR1 || sig == syscall.SIGUSR2 }

// parseSignal reads PROFILE_RECENT_SIGNAL: USR1 or USR2 (with or without
// SIG, in any case), or "off".
func parseSignal(s string) (os.Signal, error) {
	switch strings.TrimPrefix(strings.ToUpper(s), "SIG") {
	case "OFF":
		return nil, nil
	case "USR1":
		return syscall.SIGUSR1, nil
	case "USR2":
		return syscall.SIGUSR2, nil
	}
	return nil, fmt.Errorf("want USR1, USR2 or off")
}
