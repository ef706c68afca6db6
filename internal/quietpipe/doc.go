// Package quietpipe writes the profiler's log lines to the process's
// standard error without ever raising SIGPIPE. The Go runtime ends a
// program that writes to a broken pipe on file descriptor 1 or 2 (unless
// it handles SIGPIPE), so a line of the profiler's to a standard error
// whose reader has gone (a pipe to a log shipper that died, `prog 2>&1 |
// head`) would end a program that, without the profiler, would have
// written nothing there and run on.
package quietpipe
