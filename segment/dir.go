package segment

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/gotachyon/profiler/internal/regfile"
	"github.com/gotachyon/profiler/internal/runlock"
	"github.com/gotachyon/profiler/tachyon"
)

// cleanStale removes the open files (*.part) of the Writer's prefix
// that dead processes left in the directory (see internal/runlock): never
// one a live process holds, nor one whose bytes are not a Writer's
// (IsTachyonPart).
func (s *Writer) cleanStale() {
	entries, err := os.ReadDir(s.opts.Dir)
	if err != nil {
		return
	}
	n := 0
	for _, e := range entries {
		if !e.Type().IsRegular() || !isPartName(s.opts.Prefix, e.Name()) || !IsTachyonPart(filepath.Join(s.opts.Dir, e.Name())) {
			continue
		}
		if ok, _ := runlock.Remove(filepath.Join(s.opts.Dir, e.Name())); ok {
			n++
		}
	}
	s.mu.Lock()
	s.stats.Stale += n
	s.mu.Unlock()
}

// dirSegment is a finalized segment of the prefix found in the directory.
type dirSegment struct {
	name string
	run  string
	size int64
}

// budget deletes the oldest finalized segments of the prefix in the
// directory, whatever run wrote them, while they exceed KeepFiles or
// KeepBytes, never newest (the segment just finalized). own holds this
// run's finalized files; a file is deleted only if it is still the one
// this run wrote, or, for another run's name, if it begins with a valid
// Tachyon header. A file that may not be deleted is not counted.
func (s *Writer) budget(own map[string]fs.FileInfo, newest string) {
	segs := s.dirSegments()
	var total int64
	for _, d := range segs {
		total += d.size
	}
	over := func() bool {
		return (s.opts.KeepFiles > 0 && len(segs) > s.opts.KeepFiles) ||
			(s.opts.KeepBytes > 0 && total > s.opts.KeepBytes)
	}
	seen := make(map[string]bool, len(segs))
	for _, d := range segs {
		seen[d.name] = true
	}
	for path := range own { // deleted by another run, or by hand
		if !seen[path] {
			delete(own, path)
		}
	}
	for len(segs) > 1 && over() {
		d := segs[0]
		segs = segs[1:]
		total -= d.size
		if d.name == newest || !s.deletable(d, own) {
			continue
		}
		if err := os.Remove(d.name); err != nil {
			if !os.IsNotExist(err) {
				s.failed(err)
			}
			continue
		}
		delete(own, d.name)
		s.mu.Lock()
		s.stats.Deleted++
		s.mu.Unlock()
	}
}

// dirSegments lists the finalized segments of the prefix in the
// directory, oldest first.
func (s *Writer) dirSegments() []dirSegment {
	entries, err := os.ReadDir(s.opts.Dir) // sorted by name: by start time
	if err != nil {
		return nil
	}
	var segs []dirSegment
	for _, e := range entries {
		f, ok := ParseName(e.Name())
		if !ok || f.Prefix != s.opts.Prefix || !e.Type().IsRegular() {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue
		}
		segs = append(segs, dirSegment{filepath.Join(s.opts.Dir, e.Name()), f.Run, fi.Size()})
	}
	return segs
}

// deletable reports whether the budget may delete d: this run's file if
// it is still the one written (see sameFile), another run's if it is a regular file that
// begins with a valid Tachyon header.
func (s *Writer) deletable(d dirSegment, own map[string]fs.FileInfo) bool {
	now, err := os.Lstat(d.name)
	if err != nil || !now.Mode().IsRegular() {
		return false
	}
	if d.run == s.opts.Run {
		fi, ok := own[d.name]
		return ok && sameFile(fi, now)
	}
	return IsTachyon(d.name)
}

// IsTachyonPart reports whether the regular file at path may be a
// Tachyon writer's open file: empty (a spare never written, or a capture
// not yet written), or beginning with the zeroed header a writer writes
// first, or with a valid Tachyon header: the test before a dead run's
// open file is deleted. A file of the same name with other bytes is not
// the profiler's, and is kept.
func IsTachyonPart(path string) bool {
	b, n, ok := readHeader(path)
	return ok && (n == 0 || b == [tachyon.HeaderSize]byte{} || validHeader(&b, n))
}

// IsTachyon reports whether the file at path is a regular file that
// begins with a valid Tachyon header: the test before a file of another
// run, or a capture, is deleted by a budget.
func IsTachyon(path string) bool {
	b, n, ok := readHeader(path)
	return ok && validHeader(&b, n)
}

// validHeader reports whether b, of which n bytes were read, is a whole
// and valid Tachyon header.
func validHeader(b *[tachyon.HeaderSize]byte, n int) bool {
	if n < tachyon.HeaderSize {
		return false
	}
	h := tachyon.ParseHeader(b)
	return h.Magic == tachyon.Magic && h.Version == tachyon.Version
}

// readHeader reads up to a header's bytes of the regular file at path,
// without waiting on anything else put there: ok is false if it cannot.
func readHeader(path string) (b [tachyon.HeaderSize]byte, n int, ok bool) {
	f, _, err := regfile.Open(regfile.OS, path)
	if err != nil {
		return b, 0, false
	}
	defer f.Close()
	n, err = io.ReadFull(f, b[:])
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return b, n, false
	}
	return b, n, true
}

// sameFile reports whether a and b describe the same file, unchanged:
// the same inode (which a new file may reuse), size and modification time.
func sameFile(a, b fs.FileInfo) bool {
	return os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}
