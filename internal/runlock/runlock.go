package runlock

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Name is the lock file's name in the directory.
const Name = "lock"

// ErrHeld is returned by Acquire when a live process holds the lock.
var ErrHeld = errors.New("another live process is writing it")

// Lock is a held lock; Release gives it up.
type Lock struct{ f *os.File }

// Acquire locks dir, which must exist, for this process. It fails with
// ErrHeld if a live process holds the lock.
func Acquire(dir string) (*Lock, error) {
	path := filepath.Join(dir, Name)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock: %w", err)
	}
	ok, err := tryLock(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if !ok {
		f.Close()
		return nil, fmt.Errorf("%s: %w", dir, ErrHeld)
	}
	return &Lock{f: f}, nil
}

// Held reports whether a live process holds dir's lock. A directory
// without a lock file is not held.
func Held(dir string) bool {
	f, err := os.Open(filepath.Join(dir, Name))
	if err != nil {
		return false
	}
	defer f.Close()
	ok, err := tryLock(f)
	if err != nil {
		return true // cannot tell: assume alive, and touch nothing
	}
	if ok {
		unlock(f)
	}
	return !ok
}

// Release gives the lock up and removes the lock file.
func (l *Lock) Release() {
	os.Remove(l.f.Name())
	unlock(l.f)
	l.f.Close()
}
