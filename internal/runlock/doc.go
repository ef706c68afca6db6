// Package runlock tells the files a live process holds from those a dead
// one left behind, so that a process may clean what a killed one left
// without ever touching what a running one still writes.
//
// A process holds a file by an exclusive advisory lock (flock) on an open
// descriptor of it, taken by Create or Hold and kept for as long as that
// descriptor is open: the kernel releases it when the process exits, however
// it exits. A file nobody holds, and that is older than MinAge (which closes
// the window between creating a file and locking it), was left by a process
// that is gone. Where advisory locks are not available, no file is ever
// called abandoned.
//
// A directory is held the same way, by a lock file in it (AcquireDir,
// DirHeld): a crash-safe profile's checkpoint directory.
package runlock
