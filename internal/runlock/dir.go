package runlock

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// DirLock is the name of the lock file in a directory a run holds
// (AcquireDir).
const DirLock = "lock"

// ErrHeld is returned by AcquireDir when a live process holds the
// directory.
var ErrHeld = errors.New("another live process is writing it")

// Dir is a directory held by this process for a run.
type Dir struct{ f *os.File }

// AcquireDir holds dir, which must exist, for this process, through a
// lock file in it, until Release or the process's end. It fails with
// ErrHeld if a live process holds it.
func AcquireDir(dir string) (*Dir, error) {
	return acquire(dir, os.O_RDWR|os.O_CREATE)
}

// acquire opens dir's lock file with flag and locks it.
func acquire(dir string, flag int) (*Dir, error) {
	f, err := os.OpenFile(filepath.Join(dir, DirLock), flag, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock: %w", err)
	}
	if err := lock(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", dir, ErrHeld)
	}
	return &Dir{f: f}, nil
}

// DirHeld reports whether a live process holds dir. Unlike Abandoned, it
// sets no minimum age, so that a program that crashes and restarts at once
// finds its last run's directory free: a directory without a lock file,
// or whose lock file nobody holds, is not held. Where advisory locks are
// not available, every directory with a lock file is held.
func DirHeld(dir string) bool {
	f, err := os.Open(filepath.Join(dir, DirLock))
	if err != nil {
		return false
	}
	defer f.Close() // releases the lock taken below
	return !tryLock(f)
}

// Release gives the directory up and removes its lock file.
func (d *Dir) Release() {
	os.Remove(d.f.Name())
	d.f.Close()
}

// Close lets the lock go without removing its file: for a directory whose
// path may no longer name it.
func (d *Dir) Close() { d.f.Close() }

// In reports whether the lock file in dir is the one d holds: dir has not
// been replaced, or moved away, since d was acquired.
func (d *Dir) In(dir string) bool {
	held, err := d.f.Stat()
	if err != nil {
		return false
	}
	now, err := os.Lstat(filepath.Join(dir, DirLock))
	return err == nil && os.SameFile(held, now)
}

// AcquireExisting locks the lock file that dir already has, opened for
// reading only (a dead run's, perhaps another user's), without creating
// one: ErrHeld if a live process holds it.
func AcquireExisting(dir string) (*Dir, error) {
	return acquire(dir, os.O_RDONLY)
}
