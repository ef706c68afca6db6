package checkpoint

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
)

// ErrNoCheckpoint is returned by Finish for a directory whose run took no
// checkpoint and did not finish its stream.
var ErrNoCheckpoint = errors.New("no checkpoint was taken (the run ended within its first period)")

// ErrNoStream is returned by Finish for a directory with a mark but no
// stream: its run's Stop had renamed the finished stream into place, and
// the run ended before it removed the directory.
var ErrNoStream = errors.New("the stream is gone (its run's Stop had moved it into place)")

// Left is what Finish found in a checkpoint directory.
type Left struct {
	// Seq counts the checkpoints the run took (0 if Close finished the
	// stream and no mark is left).
	Seq uint32
	// Samples is the number of samples of the finished file.
	Samples uint64
	// Whole is true when Close had finished the stream, which is then
	// the file as it is.
	Whole bool
}

// Finish writes to dst the finished file that the checkpoint directory
// dir holds: the stream as it is if Close finished it, or else the
// stream's records up to the last mark, under the mark's header and
// followed by its tables. The records are copied, never decoded.
func Finish(dir string, dst io.Writer) (Left, error) {
	data := filepath.Join(dir, DataName)
	if n, ok := whole(data); ok {
		return copyWhole(data, dst, n)
	}
	m, err := readMark(filepath.Join(dir, MarkName))
	if errors.Is(err, os.ErrNotExist) {
		return Left{}, fmt.Errorf("%s: %w", dir, ErrNoCheckpoint)
	}
	if err != nil {
		return Left{}, err
	}
	f, err := os.Open(data)
	if errors.Is(err, os.ErrNotExist) {
		return Left{}, fmt.Errorf("%s: %w", dir, ErrNoStream)
	}
	if err != nil {
		return Left{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Left{}, err
	}
	if fi.Size() < m.DataEnd {
		return Left{}, fmt.Errorf("%s: %w: the mark's records end at %d, past the stream's %d bytes", filepath.Join(dir, MarkName), ErrMark, m.DataEnd, fi.Size())
	}
	if _, err := dst.Write(m.Header[:]); err != nil {
		return Left{}, err
	}
	if _, err := io.Copy(dst, io.NewSectionReader(f, tachyon.HeaderSize, m.DataEnd-tachyon.HeaderSize)); err != nil {
		return Left{}, err
	}
	if _, err := dst.Write(m.Tables); err != nil {
		return Left{}, err
	}
	return Left{Seq: m.Seq, Samples: m.Samples}, nil
}

// whole reports whether the stream at path is a finished file (Close
// finished it before the process died), and its samples.
func whole(path string) (uint64, bool) {
	f, err := reader.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	if f.Verify() != nil {
		return 0, false // damaged: the mark's prefix may still be whole
	}
	return uint64(f.Header.SampleCount), true
}

// copyWhole copies the finished stream at path to dst.
func copyWhole(path string, dst io.Writer, samples uint64) (Left, error) {
	f, err := os.Open(path)
	if err != nil {
		return Left{}, err
	}
	defer f.Close()
	if _, err := io.Copy(dst, f); err != nil {
		return Left{}, err
	}
	return Left{Samples: samples, Whole: true}, nil
}

// Recover writes the finished file of the checkpoint directory dir (see
// Finish) to a new file beside out, synced, and renames it over out; a
// stream that Close finished is renamed itself.
func Recover(dir, out string) (Left, error) {
	data := filepath.Join(dir, DataName)
	if n, ok := whole(data); ok {
		if err := os.Rename(data, out); err != nil {
			return Left{}, err
		}
		return Left{Samples: n, Whole: true}, nil
	}
	var left Left
	err := Replace(out, func(f *os.File) (err error) {
		if left, err = Finish(dir, f); err != nil {
			return err
		}
		return verify(f)
	})
	return left, err
}

// ErrDamaged is wrapped by Recover's error when the records a mark
// covers do not decode: the stream was damaged after they were written
// (the mark's checksum covers the mark alone), and the directory is kept.
var ErrDamaged = errors.New("the stream's records up to the last checkpoint are damaged")

// verify decodes every sample of the finished file f, so that a damaged
// stream is never passed off as a recovered profile.
func verify(f *os.File) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	rf, err := reader.NewFile(f, fi.Size())
	if err == nil {
		err = rf.Verify()
	}
	if err != nil {
		return fmt.Errorf("%s: %w: %w", f.Name(), ErrDamaged, err)
	}
	return nil
}

// Replace writes a new file beside out with fill, synced and readable by
// all, and renames it over out, so that out is only ever replaced by a
// whole file; on error it removes the new file.
func Replace(out string, fill func(*os.File) error) error {
	f, err := os.CreateTemp(filepath.Dir(out), "."+filepath.Base(out)+".tmp-*")
	if err != nil {
		return err
	}
	err = fill(f)
	if err == nil {
		err = f.Chmod(0o644)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), out)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// Remove removes the stream, the mark and a mark being written from dir.
func Remove(dir string) {
	for _, n := range []string{DataName, MarkName, MarkName + ".tmp"} {
		os.Remove(filepath.Join(dir, n))
	}
}
