package merge

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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
