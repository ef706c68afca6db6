package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/gotachyon/profiler/internal/merge"
)

// input is the profile a reading command reads: the one file named on the
// command line, or, for several files or a directory, their merge into a
// temporary file, read by the same single-file path.
type input struct {
	path  string   // the file to open
	name  string   // how messages and titles name the profile
	files []string // the files merged into path; nil for one file
}

// isDir reports whether path names a directory.
func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// resolveInputRuns turns a reading command's arguments into one input.
// One file that is not a directory is read as it is, as always; otherwise
// the arguments expand (a directory to its *.tachyon files, by name), keep
// the runs that runs selects (see expandRuns) and, if that gives more than
// one file, are merged into a temporary file that release removes (with
// the copy of an unfinished profile's last checkpoint). Errors name the
// file at fault.
func resolveInputRuns(args []string, runs string, stderr io.Writer) (in input, release func(), err error) {
	args, release = unfinished(args, stderr)
	if len(args) == 1 && !isDir(args[0]) {
		return input{path: args[0], name: args[0]}, release, nil
	}
	files, err := expandRuns(args, runs)
	if err == nil && len(files) == 1 {
		return input{path: files[0], name: files[0]}, release, nil
	}
	var path string
	if err == nil {
		path, err = mergeTemp(files, runs == merge.AllRuns, stderr)
	}
	if err != nil {
		release() // callers release only what succeeded
		return input{}, func() {}, err
	}
	done := release
	return input{path: path, name: inputName(args), files: files}, func() { dropTemp(path); done() }, nil
}

// runsFlag adds to fs the --runs flag of the commands that merge their
// inputs.
func runsFlag(fs *flag.FlagSet) *string {
	return fs.String("runs", "", "which `RUNS` to merge when the files are segments of several: all, latest, or a run id (default: refuse, naming the runs)")
}

// expandRuns expands args (see merge.ExpandRuns) and keeps the segments of
// the runs that runs selects (see merge.SelectRuns).
func expandRuns(args []string, runs string) ([]string, error) {
	files, err := merge.ExpandRuns(args)
	if err != nil {
		return nil, err
	}
	return merge.SelectRuns(files, runs)
}

// inputName names several arguments in messages and titles.
func inputName(args []string) string {
	if len(args) == 1 {
		return args[0]
	}
	return fmt.Sprintf("%s (+%d more)", args[0], len(args)-1)
}

// mergeTemp merges files into a new temporary file and returns its path;
// separate keeps the threads of different runs apart (--runs all: see
// merge.Options.SeparateRuns). The merge streams, so its memory follows
// the threads and distinct frames, not the samples.
func mergeTemp(files []string, separate bool, stderr io.Writer) (string, error) {
	f, err := os.CreateTemp("", "tachyon-merge-*.tachyon")
	if err != nil {
		return "", fmt.Errorf("a temporary file for the merged profile: %w", err)
	}
	addTemp(f.Name())
	st, err := merge.Merge(f, files, merge.Options{SeparateRuns: separate})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		dropTemp(f.Name())
		return "", err
	}
	warnCut(stderr, st)
	return f.Name(), nil
}

// warnCut says on stderr how many stacks a merge cut to the writer's depth.
func warnCut(stderr io.Writer, st merge.Stats) {
	if st.CutStacks > 0 {
		fmt.Fprintf(stderr, "tachyon: note: %d stacks deeper than 256 frames keep their innermost 256 in the merged profile\n", st.CutStacks)
	}
}

// errNoInput is the usage complaint of a reading command without a file.
var errNoInput = errors.New("needs a FILE, several FILEs or a DIR of *.tachyon segments")
