package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/gotachyon/profiler"
	"github.com/gotachyon/profiler/internal/checkpoint"
)

// unfinished replaces each argument that names a missing file whose
// profile was never finished (the process ended without Stop) with the
// profile as of its last checkpoint (profiler.PartDir), written to a
// temporary file, saying so on w, so that `tachyon info prof.bin` reads what a crashed run kept. An
// argument that exists is read as it is, with a note on w if its
// checkpoint directory exists too: a run started after that file was
// written is still going or died, and the profile read is not its own.
func unfinished(args []string, w io.Writer) []string {
	out := args
	for i, a := range args {
		dir := profiler.PartDir(a)
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			continue
		}
		if _, err := os.Lstat(a); !errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(w, "tachyon: note: reading %s as it is; %s holds the checkpoints of a later run that has not finished (still running, or ended without Stop): name it to read them\n", quoteName(a), quoteName(dir))
			continue
		}
		if &out[0] == &args[0] {
			out = append([]string(nil), args...)
		}
		if !checkpoint.Present(dir) {
			// An earlier version's finished checkpoint files.
			out[i] = dir
			fmt.Fprintf(w, "tachyon: note: %s was never finished (its process ended without Stop); reading the finished checkpoints in %s\n", quoteName(a), quoteName(dir))
			continue
		}
		left, path, err := finishLeft(dir, filepath.Base(a))
		if err != nil {
			fmt.Fprintf(w, "tachyon: note: %s was never finished (its process ended without Stop), and what it left in %s cannot be read: %v\n", quoteName(a), quoteName(dir), err)
			out[i] = dir
			continue
		}
		out[i] = path
		fmt.Fprintf(w, "tachyon: note: %s was never finished (its process ended without Stop); reading its profile as of its last checkpoint in %s (%d samples)\n", quoteName(a), quoteName(dir), left.Samples)
	}
	return out
}

// finishLeft writes the profile a run left in the checkpoint directory
// dir to a file named name in a temporary directory, which is removed
// when the command ends (see cleanups).
func finishLeft(dir, name string) (checkpoint.Left, string, error) {
	tmp, err := os.MkdirTemp("", "tachyon-unfinished-*")
	if err != nil {
		return checkpoint.Left{}, "", err
	}
	cleanups = append(cleanups, func() { os.RemoveAll(tmp) })
	path := filepath.Join(tmp, name)
	f, err := os.Create(path)
	if err != nil {
		return checkpoint.Left{}, "", err
	}
	left, err := checkpoint.Finish(dir, f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return left, path, err
}

// cleanups are run when a command ends.
var cleanups []func()

// runCleanups runs and forgets the cleanups.
func runCleanups() {
	for _, fn := range cleanups {
		fn()
	}
	cleanups = nil
}
