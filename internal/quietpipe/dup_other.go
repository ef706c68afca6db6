//go:build !unix

package quietpipe

import "os"

// dupStderr returns nil: the runtime raises SIGPIPE on Unix only.
func dupStderr() *os.File { return nil }
