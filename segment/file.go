package segment

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/gotachyon/profiler/internal/runlock"
)

// segFile is the file a segment's writer.Writer writes to. It never fails: the
// bytes the disk refuses (or all of them, while the file cannot even be
// created) are held in memory, in order, and written by a later flush, so
// that a passing failure of the disk loses nothing and a lasting one only
// what the Writer's memory bound makes it drop. It is used by one
// goroutine at a time: the writing one while the segment is open, then the
// finishing one.
type segFile struct {
	s     *Writer
	f     *os.File // nil until created
	name  string   // where the file is, or will be, created
	size  int64    // bytes written through it
	disk  int64    // of which the first disk are in the file
	pend  []byte   // the rest
	patch []patch  // writes below disk not yet in the file
	pos   int64
	tried time.Time // the last failed write: Write tries again a retry period later
}

// errRetryLater is segFile.retry's answer within a retry period of a
// failure.
var errRetryLater = errors.New("segment: tried less than a retry period ago")

// patch is a write below segFile.disk that the file has not taken yet.
type patch struct {
	off int64
	b   []byte
}

// newSegFile returns the segFile of a segment to be created at name, and
// the error of its first try to create it: the segFile holds its bytes in
// memory until a later flush creates it.
func (s *Writer) newSegFile(name string) (*segFile, error) {
	sf := &segFile{s: s, name: name}
	return sf, sf.flush()
}

// Write writes p at the current position, holding what the file refuses.
func (sf *segFile) Write(p []byte) (int, error) {
	n := len(p)
	if sf.pos < sf.size {
		k := int(min(int64(len(p)), sf.size-sf.pos))
		sf.overwrite(sf.pos, p[:k])
		sf.pos += int64(k)
		p = p[k:]
	}
	if len(p) == 0 {
		return n, nil
	}
	sf.pos += int64(len(p))
	sf.size += int64(len(p))
	if len(sf.pend) > 0 || sf.f == nil { // an earlier failure
		if err := sf.retry(); err != nil {
			sf.hold(append(sf.pend, p...))
			return n, nil
		}
	}
	k, err := sf.s.write(sf.f, p)
	sf.disk += int64(k)
	if err != nil {
		sf.tried = time.Now()
		sf.s.failed(fmt.Errorf("segment: %s: %w", sf.name, err))
		sf.hold(append(sf.pend, p[k:]...))
	}
	return n, nil
}

// retry flushes the held bytes if a retry period passed since the last
// failure, and returns the error that keeps them held.
func (sf *segFile) retry() error {
	now := time.Now()
	if now.Sub(sf.tried) < sf.s.opts.retry {
		return errRetryLater
	}
	err := sf.flush()
	if err != nil {
		sf.tried = now
		sf.s.failed(err)
	}
	return err
}

// overwrite writes b at off, below size: into the held bytes, or as a
// patch of the file.
func (sf *segFile) overwrite(off int64, b []byte) {
	if off+int64(len(b)) > sf.disk {
		k := max(sf.disk-off, 0)
		copy(sf.pend[off+k-sf.disk:], b[k:])
		b = b[:k]
	}
	if len(b) > 0 {
		sf.patch = append(sf.patch, patch{off, append([]byte(nil), b...)})
		sf.s.held.Add(int64(len(b)))
	}
}

// Seek sets the position of the next Write.
func (sf *segFile) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case io.SeekCurrent:
		off += sf.pos
	case io.SeekEnd:
		off += sf.size
	}
	if off < 0 || off > sf.size {
		return sf.pos, fmt.Errorf("segment: %s: seek to %d outside 0..%d", sf.name, off, sf.size)
	}
	sf.pos = off
	return off, nil
}

// hold makes b the held bytes, counting the change in the Writer's.
func (sf *segFile) hold(b []byte) {
	sf.s.held.Add(int64(len(b) - len(sf.pend)))
	sf.pend = b
}

// flush creates the file if need be and writes the held bytes and
// patches into it. It returns the first error, holding what is left.
func (sf *segFile) flush() error {
	if sf.f == nil {
		f, err := sf.s.create(sf.name)
		if err != nil {
			return err
		}
		sf.f = f
	}
	if len(sf.pend) > 0 {
		k, err := sf.s.write(sf.f, sf.pend)
		sf.disk += int64(k)
		rest := sf.pend[k:]
		if len(rest) == 0 {
			rest = nil // let the memory go
		}
		sf.hold(rest)
		if err != nil {
			return fmt.Errorf("segment: %s: %w", sf.name, err)
		}
	}
	for len(sf.patch) > 0 {
		p := sf.patch[0]
		if _, err := sf.s.writeAt(sf.f, p.b, p.off); err != nil {
			return fmt.Errorf("segment: %s: %w", sf.name, err)
		}
		sf.s.held.Add(-int64(len(p.b)))
		sf.patch = sf.patch[1:]
	}
	return nil
}

// rehome makes sure sf.name still names sf's file, and when it does not
// (the directory was removed and made again, or the file removed), copies
// the file into a new one there. It returns the first error.
func (sf *segFile) rehome() error {
	if sf.f == nil {
		return nil
	}
	held, err := sf.f.Stat()
	if err != nil {
		return fmt.Errorf("segment: %s: %w", sf.name, err)
	}
	if now, err := os.Lstat(sf.name); err == nil && os.SameFile(held, now) {
		return nil
	}
	nf, err := sf.s.create(sf.name)
	if err != nil {
		return err
	}
	if _, err := io.Copy(nf, io.NewSectionReader(sf.f, 0, sf.disk)); err != nil {
		sf.s.removeOwn(nf, sf.name)
		return fmt.Errorf("segment: %s: copying into a new file: %w", sf.name, err)
	}
	sf.f.Close()
	sf.f = nf
	return nil
}

// drop closes the file, removes it if it is still the one created, and
// lets the held bytes go.
func (sf *segFile) drop() {
	if sf.f != nil {
		sf.s.removeOwn(sf.f, sf.name)
		sf.f = nil
	}
	sf.hold(nil)
	for _, p := range sf.patch {
		sf.s.held.Add(-int64(len(p.b)))
	}
	sf.patch = nil
}

// create creates a segment's file, held (see runlock) while it is open.
func (s *Writer) create(name string) (*os.File, error) {
	if err := s.fault("create", name); err != nil {
		return nil, fmt.Errorf("segment: %s: %w", name, err)
	}
	f, err := runlock.Create(name, 0o644)
	if err != nil {
		return nil, fmt.Errorf("segment: %w", err)
	}
	return f, nil
}

// write writes b to f, through the fault hook. Its error does not name
// the file, which may have been renamed since it was opened: the caller's
// does.
func (s *Writer) write(f *os.File, b []byte) (int, error) {
	if err := s.fault("write", f.Name()); err != nil {
		return 0, err
	}
	n, err := f.Write(b)
	return n, unnamed(err)
}

// writeAt writes b to f at off, through the fault hook (see write).
func (s *Writer) writeAt(f *os.File, b []byte, off int64) (int, error) {
	if err := s.fault("write", f.Name()); err != nil {
		return 0, err
	}
	n, err := f.WriteAt(b, off)
	return n, unnamed(err)
}

// unnamed returns the cause of a *fs.PathError, whose name may be stale.
func unnamed(err error) error {
	if pe, ok := err.(*fs.PathError); ok {
		return pe.Err
	}
	return err
}

// fault returns the error a test injects into op on name, if any.
func (s *Writer) fault(op, name string) error {
	if s.opts.fault == nil {
		return nil
	}
	return s.opts.fault(op, name)
}

// removeOwn closes f, a file the Writer created, and removes it if
// name (where it created or moved it) still names it.
func (s *Writer) removeOwn(f *os.File, name string) {
	held, err := f.Stat()
	if err == nil {
		if now, err := os.Lstat(name); err == nil && os.SameFile(held, now) && s.fault("remove", name) == nil {
			os.Remove(name)
		}
	}
	f.Close()
}
