//go:build !linux

package nytprof

import "os"

// openFlags: only Linux needs (and has here) the non-blocking open.
const openFlags = os.O_RDONLY

// pseudoFS: outside Linux, the path checks are what guards system files.
func pseudoFS(*os.File) bool { return false }
