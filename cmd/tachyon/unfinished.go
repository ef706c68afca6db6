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
// profile was never finished (its process is still running, or ended
// without Stop) with the
// profile as of its last checkpoint (profiler.PartDir), written to a
// temporary file that release removes, saying so on w, so that `tachyon
// info prof.bin` reads what a crashed run kept. An
// argument that exists is read as it is, with a note on w if its
// checkpoint directory exists too: a run started after that file was
// written is still going or died, and the profile read is not its own.
func unfinished(args []string, w io.Writer) (out []string, release func()) {
	out = args
	var temps []string
	release = func() {
		for _, d := range temps {
			dropTemp(d)
		}
	}
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
			fmt.Fprintf(w, "tachyon: note: %s was never finished (%s); reading the finished checkpoints in %s\n", quoteName(a), notFinished, quoteName(dir))
			continue
		}
		left, tmp, err := finishLeft(dir, filepath.Base(a))
		if tmp != "" {
			temps = append(temps, tmp)
		}
		if err != nil {
			fmt.Fprintf(w, "tachyon: note: %s was never finished (%s), and what it left in %s cannot be read: %v\n", quoteName(a), notFinished, quoteName(dir), err)
			out[i] = dir
			continue
		}
		out[i] = filepath.Join(tmp, filepath.Base(a))
		shownAs[out[i]] = a
		fmt.Fprintf(w, "tachyon: note: %s was never finished (%s); reading its profile as of its last checkpoint in %s (%d samples)\n", quoteName(a), notFinished, quoteName(dir), left.Samples)
	}
	return out, release
}

// notFinished says why a profile is missing beside its checkpoint
// directory. Its run may well be live (reading a running service's profile
// is the common case), and telling a live run from a dead one would take
// the directory's lock, however briefly, which a run starting on the same
// path at that moment would find held.
const notFinished = "its process is still running, or ended without Stop"

// finishLeft writes the profile a run left in the checkpoint directory
// dir to a file named name in a new temporary directory, which it returns
// (also on error, once made) for the caller to remove.
func finishLeft(dir, name string) (checkpoint.Left, string, error) {
	tmp, err := os.MkdirTemp("", "tachyon-unfinished-*")
	if err != nil {
		return checkpoint.Left{}, "", err
	}
	addTemp(tmp)
	f, err := os.Create(filepath.Join(tmp, name))
	if err != nil {
		return checkpoint.Left{}, tmp, err
	}
	left, err := checkpoint.Finish(dir, f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return left, tmp, err
}
