//go:build !(darwin || dragonfly || freebsd || linux || netbsd || openbsd)

package runlock

import "os"

// lock does nothing where advisory locks are not available.
func lock(*os.File) error { return nil }

// tryLock never succeeds where advisory locks are not available: no file
// is then abandoned.
func tryLock(*os.File) bool { return false }
