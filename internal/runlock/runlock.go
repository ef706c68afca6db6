package runlock

import (
	"fmt"
	"io/fs"
	"os"
	"time"
)

// MinAge is the age below which a file is never abandoned, whether or not
// it is held.
const MinAge = 10 * time.Second

// Create creates the file at path, which must not exist, with mode perm
// (less the umask), and holds it for as long as the returned file is open.
func Create(path string, perm fs.FileMode) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return nil, err
	}
	if err := Hold(f); err != nil {
		f.Close()
		os.Remove(path)
		return nil, err
	}
	return f, nil
}

// Hold locks f for as long as it stays open, so that Abandoned reports
// false for it in any process.
func Hold(f *os.File) error {
	if err := lock(f); err != nil {
		return fmt.Errorf("locking %s: %w", f.Name(), err)
	}
	return nil
}

// Abandoned reports whether the regular file at path is held by no live
// process and is older than MinAge. It reports false when it cannot tell.
func Abandoned(path string) bool {
	f, ok := claim(path)
	if ok {
		f.Close()
	}
	return ok
}

// Remove removes the file at path if it is abandoned (see Abandoned),
// holding it meanwhile so that no process takes it up in between, and
// only if path still names the file it checked. It reports whether it
// removed it.
func Remove(path string) (bool, error) {
	f, ok := claim(path)
	if !ok {
		return false, nil
	}
	defer f.Close()
	if err := os.Remove(path); err != nil {
		return false, err
	}
	return true, nil
}

// claim opens the file at path and locks it if it is an abandoned regular
// file that path still names once locked.
func claim(path string) (*os.File, bool) {
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() || time.Since(fi.ModTime()) < MinAge {
		return nil, false
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	if !tryLock(f) {
		f.Close()
		return nil, false
	}
	held, err1 := f.Stat()
	now, err2 := os.Lstat(path)
	if err1 != nil || err2 != nil || !os.SameFile(held, now) || !now.Mode().IsRegular() {
		f.Close()
		return nil, false
	}
	return f, true
}
