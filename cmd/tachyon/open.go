package main

import (
	"github.com/gotachyon/profiler/reader"
)

// openVerified opens a Tachyon file and validates every record, so that a
// command never writes output for a file the reader rejects.
func openVerified(path string) (*reader.File, error) { return openVerifiedAs(path, path) }

// openVerifiedAs is openVerified for a file that messages call name (a
// merged profile is a temporary file named after its inputs).
func openVerifiedAs(path, name string) (*reader.File, error) {
	f, err := reader.Open(path)
	if err != nil {
		return nil, err
	}
	if err := f.Verify(); err != nil {
		f.Close()
		return nil, wrapPath(name, err)
	}
	return f, nil
}

// exportError is the error of a command whose export of f, read from
// path without openVerified, failed with err: f's own format error if the
// file is invalid, as openVerified would have reported it (a corrupt file
// may fail an export's limit first), else err. Only a failure pays for
// the second pass.
func exportError(path string, f *reader.File, err error) error {
	if verr := f.Verify(); verr != nil {
		return wrapPath(path, verr)
	}
	return wrapPath(path, err)
}

type pathError struct {
	path string
	err  error
}

func (e *pathError) Error() string { return quoteName(e.path) + ": " + e.err.Error() }
func (e *pathError) Unwrap() error { return e.err }

func wrapPath(path string, err error) error { return &pathError{path, err} }
