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
// on w, so that `tachyon info prof.bin` reads what a crashed run kept.
func unfinished(args []string, w io.Writer) []string {
	out := args
	for i, a := range args {
		if _, err := os.Lstat(a); !errors.Is(err, fs.ErrNotExist) {
			continue
		}
		dir := profiler.PartDir(a)
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			continue
		}
		if &out[0] == &args[0] {
			out = append([]string(nil), args...)
		}
		out[i] = dir
		fmt.Fprintf(w, "tachyon: note: %s was never finished (its process ended without Stop); reading the finished checkpoints in %s\n", a, dir)
	}
	return out
}
