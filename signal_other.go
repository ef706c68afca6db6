//go:build !unix

package profiler

import (
	"errors"
	"os"
	"strings"
)

// captureSignal reports whether sig may take captures: no signal does
// on this system.
func captureSignal(os.Signal) bool { return false }

// parseSignal reads PROFILE_RECENT_SIGNAL, which only "off" passes here.
func parseSignal(s string) (os.Signal, error) {
	if strings.EqualFold(s, "off") {
		return nil, nil
	}
	return nil, errors.New("this system has no SIGUSR1 or SIGUSR2")
}
