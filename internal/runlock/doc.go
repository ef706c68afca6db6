// Package runlock marks a directory as being written by a live process:
// the writer holds an exclusive advisory lock on a file in it for as long
// as it runs, and the kernel drops the lock when the process dies, however
// it dies. Another process can so tell a directory left by a dead run
// (which it may recover or clean) from one still being written (which it
// must leave alone).
package runlock
