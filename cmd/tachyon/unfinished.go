package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/gotachyon/profiler"
)

// unfinished replaces each argument that names a missing file whose
// profile was never finished (the process ended without Stop) with the
// directory of finished checkpoints it left (profiler.PartDir), saying so
// on w, so that `tachyon info prof.bin` reads what a crashed run kept. An
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
		out[i] = dir
		fmt.Fprintf(w, "tachyon: note: %s was never finished (its process ended without Stop); reading the finished checkpoints in %s\n", quoteName(a), quoteName(dir))
	}
	return out
}
