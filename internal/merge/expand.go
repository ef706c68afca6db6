package merge

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gotachyon/profiler/segment"
)

// Ext is the file name extension of the segment files a directory argument
// expands to.
const Ext = ".tachyon"

// ErrNoFiles is returned by Expand for a directory without a segment file.
var ErrNoFiles = errors.New("it is a directory without *" + Ext + " files")

// Expand replaces each directory in args by its regular *.tachyon files,
// sorted by name (segment names sort by start time), and keeps every other
// argument as it is, for the reader to accept or refuse. A directory
// without such a file is an error naming it.
func Expand(args []string) ([]string, error) {
	return expand(args, false)
}

// ErrMixed is returned by ExpandRuns for a directory that holds segments
// (files named as segment.Name names them) beside other *.tachyon files.
var ErrMixed = errors.New("it holds segments and other *" + Ext + " files")

// ExpandRuns is Expand for reading the runs of a directory of segments
// as one profile: a directory that holds segments and other *.tachyon
// files too (a profile of another program, a capture, a merge written
// there) is an error naming one of them, since no run selection (see
// SelectRuns) leaves them out and their goroutines would be fused with
// the run's. Named as arguments, such files are read with the segments.
func ExpandRuns(args []string) ([]string, error) {
	return expand(args, true)
}

func expand(args []string, runs bool) ([]string, error) {
	var out []string
	for _, a := range args {
		fi, err := os.Stat(a)
		if err != nil || !fi.IsDir() {
			out = append(out, a)
			continue
		}
		files, err := segmentFiles(a)
		if err != nil {
			return nil, err
		}
		if runs {
			if err := mixed(a, files); err != nil {
				return nil, err
			}
		}
		out = append(out, files...)
	}
	return out, nil
}

// segmentFiles lists dir's regular *.tachyon files, sorted by name (as
// os.ReadDir returns them).
func segmentFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err // names the directory
	}
	var files []string
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), Ext) {
			files = append(files, filepath.Join(dir, e.Name()))
		}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: %w", dir, ErrNoFiles)
	}
	return files, nil
}

// mixed returns ErrMixed, naming a file, if the files of dir are segments
// and other files.
func mixed(dir string, files []string) error {
	var segs, others []string
	for _, f := range files {
		if _, ok := segment.ParseName(filepath.Base(f)); ok {
			segs = append(segs, f)
		} else {
			others = append(others, f)
		}
	}
	if len(segs) > 0 && len(others) > 0 {
		return fmt.Errorf("%s: %w: %s is not named as a segment (%d segments, such as %s); move it out, or name the files to read together",
			dir, ErrMixed, others[0], len(segs), filepath.Base(segs[0]))
	}
	return nil
}
