//go:build !unix

package regfile

import "os"

// openFlags: outside Unix the check before opening is the guard.
const openFlags = os.O_RDONLY
