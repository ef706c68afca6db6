package nytprof

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/gotachyon/profiler/internal/regfile"
)

// Source embedding reads local files named by the profile, which may come
// from anyone: it is off unless the caller asks for it (Options.ReadSource,
// `--source` on the command line), and what it reads is limited here.

// SourceLimits bounds what SourceFiles reads.
type SourceLimits struct {
	// Root, if not empty, is the only directory tree read from: a path
	// outside it, or a symbolic link leading out of it, is refused.
	Root string
	// MaxFileBytes caps one file (0: MaxSourceSize); a larger one is not
	// embedded.
	MaxFileBytes int64
	// MaxTotalBytes caps all files read together (0: MaxSourceTotal); past
	// it no more files are embedded.
	MaxTotalBytes int64
}

// MaxSourceTotal is the default cap on the source bytes one export reads.
const MaxSourceTotal = 256 << 20

// Errors of SourceFiles; the export treats each as "no source" for the
// file. A path that is not a regular file gives reader.ErrNotRegular.
var (
	ErrSourceSystem   = errors.New("nytprof: source: a system file (/proc, /sys, /dev or a pseudo file system)")
	ErrSourceOutside  = errors.New("nytprof: source: outside the source root")
	ErrSourceTooLarge = errors.New("nytprof: source: larger than the per-file cap")
	ErrSourceBudget   = errors.New("nytprof: source: the total cap is spent")
)

// SourceFiles returns a ReadSource that reads source files from disk within
// lim: regular files only (a FIFO or device is refused without blocking),
// never under /proc, /sys or /dev or on a pseudo file system such as procfs,
// at most lim.MaxFileBytes each and lim.MaxTotalBytes together, and only
// inside lim.Root when it is set. Use one per export: the total is counted
// across its calls.
func SourceFiles(lim SourceLimits) func(path string) ([]byte, error) {
	if lim.MaxFileBytes <= 0 {
		lim.MaxFileBytes = MaxSourceSize
	}
	if lim.MaxTotalBytes <= 0 {
		lim.MaxTotalBytes = MaxSourceTotal
	}
	left := lim.MaxTotalBytes
	return func(path string) ([]byte, error) {
		if left <= 0 {
			return nil, ErrSourceBudget
		}
		f, err := openSource(lim.Root, path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		b, err := readSource(f, lim.MaxFileBytes)
		if err != nil {
			return nil, fmt.Errorf("%w: %s", err, path)
		}
		if int64(len(b)) > left {
			return nil, ErrSourceBudget
		}
		left -= int64(len(b))
		return b, nil
	}
}

// openSource opens path for reading, within root if set, refusing system
// paths before opening and non-regular or pseudo files.
func openSource(root, path string) (*os.File, error) {
	if systemPath(path) {
		return nil, ErrSourceSystem
	}
	fsys, name := regfile.OS, path
	if root == "" {
		real, err := filepath.EvalSymlinks(path)
		if err != nil {
			return nil, err
		}
		if systemPath(real) {
			return nil, ErrSourceSystem
		}
		name = real
	} else {
		rel, err := filepath.Rel(root, path)
		if err != nil || !filepath.IsLocal(rel) {
			return nil, ErrSourceOutside
		}
		// An os.Root keeps the open, symbolic links included, inside root.
		r, err := os.OpenRoot(root)
		if err != nil {
			return nil, err
		}
		defer r.Close()
		fsys, name = r, rel
	}
	f, _, err := regfile.Open(fsys, name)
	if err != nil {
		return nil, err
	}
	if pseudoFS(f) {
		f.Close()
		return nil, ErrSourceSystem
	}
	return f, nil
}

// readSource reads f whole if it holds at most max bytes. The size is
// checked as read, not only as stated: some files state 0.
func readSource(f *os.File, max int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, ErrSourceTooLarge
	}
	return b, nil
}

// systemPath reports whether path is under /proc, /sys or /dev.
func systemPath(path string) bool {
	p := filepath.ToSlash(filepath.Clean(path))
	for _, dir := range []string{"/proc", "/sys", "/dev"} {
		if p == dir || strings.HasPrefix(p, dir+"/") {
			return true
		}
	}
	return false
}
