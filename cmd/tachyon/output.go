package main

import (
	"errors"
	"io/fs"
	"os"
)

// output is a file a command writes, and what it may delete if the
// command fails: a half-written result is removed, but only a regular file
// the command created itself. -o names anything the user chose (an
// existing file, /dev/full, a FIFO, a symlink such as /dev/stdout), and
// deleting it would be a failing command's worst side effect.
type output struct {
	*os.File
	path    string
	created bool
}

// createOutput opens path for writing, truncating it, and notes whether it
// was created.
func createOutput(path string) (*output, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if err == nil {
		return &output{File: f, path: path, created: true}, nil
	}
	if !errors.Is(err, fs.ErrExist) {
		return nil, err
	}
	f, err = os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return nil, err
	}
	return &output{File: f, path: path}, nil
}

// discard closes the output of a failed command and removes it if the
// command created it and it is still a regular file.
func (o *output) discard() {
	o.Close()
	if !o.created {
		return
	}
	if fi, err := os.Lstat(o.path); err == nil && fi.Mode().IsRegular() {
		os.Remove(o.path)
	}
}

// lazyOutput is an output created at its first write: an export that
// fails before it writes (a file the reader rejects, a limit reached while
// aggregating) leaves -o as it was, even an existing file.
type lazyOutput struct {
	path string
	o    *output
	err  error // creating the output failed
}

func (l *lazyOutput) Write(p []byte) (int, error) {
	if l.o == nil && l.err == nil {
		l.o, l.err = createOutput(l.path)
	}
	if l.err != nil {
		return 0, l.err
	}
	return l.o.Write(p)
}

// Close creates the output if nothing was written, then closes it.
func (l *lazyOutput) Close() error {
	if _, err := l.Write(nil); err != nil {
		return err
	}
	return l.o.Close()
}

// discard is output.discard for an output that may not exist yet.
func (l *lazyOutput) discard() {
	if l.o != nil {
		l.o.discard()
	}
}
