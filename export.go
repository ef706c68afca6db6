package profiler

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/gotachyon/profiler/reader"
)

// runExports opens the finalized Tachyon file and runs every WithExport.
func (p *Profile) runExports() error {
	f, err := p.openResult()
	if err != nil {
		return fmt.Errorf("profiler: reading back %s for export: %w", p.outName(), err)
	}
	defer f.Close()
	var errs []error
	for _, e := range p.cfg.exports {
		leave := p.callback()
		err := runExport(f, e)
		leave()
		if err != nil {
			errs = append(errs, fmt.Errorf("profiler: export %s: %w", e.path, err))
		}
	}
	return errors.Join(errs...)
}

// openResult opens the finalized file: by name, or from the caller's writer,
// an io.ReaderAt (open checked).
func (p *Profile) openResult() (*reader.File, error) {
	switch {
	case p.name != "":
		return reader.Open(p.name)
	default:
		end, err := p.out.Seek(0, io.SeekEnd)
		if err != nil {
			return nil, err
		}
		size := end - p.base
		return reader.NewFile(io.NewSectionReader(p.out.(io.ReaderAt), p.base, size), size)
	}
}

// errExportsNeedReaderAt refuses WithExport with a WithOutput writer the
// exports cannot read the profile back from. (A copy in memory would cost
// the profile's size for one combination of options; an *os.File, or any
// io.ReaderAt, serves.)
var errExportsNeedReaderAt = errors.New("profiler: WithExport reads the profile back: use WithPath, or a WithOutput writer that is also an io.ReaderAt (such as *os.File)")

func runExport(f *reader.File, e export) (err error) {
	out, err := os.Create(e.path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(out)
	err = callSafely(func() error { return e.fn(f, bw) })
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

// callSafely runs fn, turning a panic into an error: code run by Stop must
// not crash the host.
func callSafely(fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v\n%s", r, debug.Stack())
		}
	}()
	return fn()
}
