package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// output is a file a command writes, such that a failed command leaves -o
// as it was. A regular file, or a path that does not exist yet, is written
// to a new temporary file in the same directory and renamed over the path
// by commit: the path holds either what it held, byte for byte, or the
// whole result, never a part. A symbolic link is followed: the file it
// leads to is replaced and the link stays a link; a link to nothing is
// refused, and so is a file the user may not write. What cannot be renamed
// over (a FIFO, a character device such as /dev/null or a terminal) and an
// open descriptor (/dev/stdout, /proc/self/fd/N, even of a regular file)
// are written directly, as a shell's > would, and never deleted.
//
// The path "-" (Stdout) is standard output, for the commands that have
// one (createOutputStd): the result is written to a temporary file, as
// for a regular file, and commit copies it to standard output; a failed
// command writes nothing there.
type output struct {
	*os.File
	path    string    // as the user gave it, for messages
	target  string    // the file commit renames the temporary file to; "" when written directly
	stdout  io.Writer // for "-": where commit copies the temporary file
	settled bool      // committed or discarded
}

// Stdout is the -o value that means standard output.
const Stdout = "-"

// createOutputStd is createOutput for a command whose -o may be Stdout,
// writing then to stdout.
func createOutputStd(path string, stdout io.Writer) (*output, error) {
	if path != Stdout {
		return createOutput(path)
	}
	f, err := os.CreateTemp("", "tachyon-stdout-*.tmp")
	if err != nil {
		return nil, fmt.Errorf("standard output: creating a temporary file to write it from: %w", err)
	}
	addTemp(f.Name())
	return &output{File: f, path: path, stdout: stdout}, nil
}

// createOutput opens the output for path: a temporary file beside the file
// path names, or path itself if it cannot be renamed over.
func createOutput(path string) (*output, error) {
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.IsDir():
		return nil, fmt.Errorf("%s: is a directory, not a file to write", quoteName(path))
	case err == nil && !fi.Mode().IsRegular():
		return openDirect(path)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	if throughDescriptor(path) {
		return openDirect(path)
	}
	target := path
	if li, lerr := os.Lstat(path); lerr == nil && li.Mode()&fs.ModeSymlink != 0 {
		if fi == nil {
			return nil, fmt.Errorf("%s: is a symbolic link to a file that does not exist; give the path of the file to write", quoteName(path))
		}
		if target, err = filepath.EvalSymlinks(path); err != nil {
			return openDirect(path)
		}
		// A link that resolves elsewhere than the file it opens is
		// written directly: replacing the one would not change the other.
		if ti, err := os.Stat(target); err != nil || !os.SameFile(fi, ti) {
			return openDirect(path)
		}
	}
	perm := fs.FileMode(0o666) // less the umask, as a shell's > creates
	if fi != nil {
		perm = fi.Mode().Perm()
		// A file the user may not write is not replaced either.
		f, err := os.OpenFile(target, os.O_WRONLY, 0)
		if err != nil {
			return nil, err
		}
		f.Close()
	}
	f, err := createTemp(target, perm, fi != nil)
	if err != nil {
		return nil, err
	}
	return &output{File: f, path: path, target: target}, nil
}

// throughDescriptor reports whether path, or a symbolic link on the way
// from it, names an open descriptor (/dev/stdout is a link to
// /proc/self/fd/1): the output is then the stream the descriptor is, even
// when it is a regular file, and it is written directly.
func throughDescriptor(path string) bool {
	for range 40 { // the kernel's own bound on links followed
		abs, err := filepath.Abs(path)
		if err != nil {
			return false
		}
		if strings.HasPrefix(abs, "/proc/") || strings.HasPrefix(abs, "/dev/fd/") {
			return true
		}
		dest, err := os.Readlink(abs)
		if err != nil {
			return false
		}
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(filepath.Dir(abs), dest)
		}
		path = dest
	}
	return false
}

// openDirect opens path, which cannot be renamed over, for writing.
func openDirect(path string) (*output, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return nil, err
	}
	return &output{File: f, path: path}, nil
}

// createTemp creates a new hidden file in target's directory, named after
// it, with perm (exactly, if exact; else less the umask).
func createTemp(target string, perm fs.FileMode, exact bool) (*os.File, error) {
	dir, base := filepath.Split(target)
	base = "." + base[:min(len(base), 64)]
	for range 100 {
		name := filepath.Join(dir, base+"."+strconv.FormatUint(rand.Uint64(), 36)+".tmp")
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s: creating a temporary file beside it: %w", quoteName(target), err)
		}
		addTemp(name)
		if exact {
			if err := f.Chmod(perm); err != nil {
				f.Close()
				dropTemp(name)
				return nil, fmt.Errorf("%s: giving the temporary file its mode: %w", quoteName(target), err)
			}
		}
		return f, nil
	}
	return nil, fmt.Errorf("%s: no free name for a temporary file beside it", quoteName(target))
}

// commit makes the written file the output: it flushes it to disk and
// renames it over the target. If that fails the output is discarded.
func (o *output) commit() error {
	if o.stdout != nil {
		return o.copyOut()
	}
	if o.target == "" {
		o.settled = true
		return o.Close()
	}
	err := o.Sync()
	if cerr := o.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(o.Name(), o.target)
	}
	if err != nil {
		o.discard()
		return fmt.Errorf("%s: %w", quoteName(o.path), err)
	}
	forgetTemp(o.Name())
	o.settled = true
	return nil
}

// copyOut commits an output to standard output: it copies the temporary
// file there and removes it.
func (o *output) copyOut() error {
	o.settled = true
	defer dropTemp(o.Name())
	defer o.Close()
	if _, err := o.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("standard output: %w", err)
	}
	if _, err := io.Copy(o.stdout, o.File); err != nil {
		return fmt.Errorf("standard output: %w", err)
	}
	return nil
}

// discard closes the output of a failed command and removes its temporary
// file: the path given is left as it was. It does nothing once the output
// is committed.
func (o *output) discard() {
	if o.settled {
		return
	}
	o.settled = true
	o.Close()
	if o.target != "" || o.stdout != nil {
		dropTemp(o.Name())
	}
}

// lazyOutput is an output created at its first write: an export that
// fails before it writes (a file the reader rejects, a limit reached while
// aggregating) does not even open -o, which matters for a FIFO.
type lazyOutput struct {
	path   string
	stdout io.Writer // standard output, for the path Stdout
	o      *output
	err    error // creating the output failed
}

func (l *lazyOutput) Write(p []byte) (int, error) {
	if l.o == nil && l.err == nil {
		l.o, l.err = createOutputStd(l.path, l.stdout)
	}
	if l.err != nil {
		return 0, l.err
	}
	return l.o.Write(p)
}

// commit creates the output if nothing was written, then commits it.
func (l *lazyOutput) commit() error {
	if _, err := l.Write(nil); err != nil {
		return err
	}
	return l.o.commit()
}

// discard is output.discard for an output that may not exist yet.
func (l *lazyOutput) discard() {
	if l.o != nil {
		l.o.discard()
	}
}
