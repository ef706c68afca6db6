package reader_test

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
)

// afterClose is how a test calls one exported method of T once Close has
// been called: call returns what the method returned, and the error that
// tells whether it refused. When refuses is set the error must be
// ErrClosed; otherwise it must be nil, and the result must be what it was
// just before Close.
type afterClose[T any] struct {
	call    func(T) (any, error)
	refuses bool
}

// fileCalls has a row for every exported method of *reader.File
// (checkComplete fails on a method without one).
var fileCalls = map[string]afterClose[*reader.File]{
	"Close":        {refuses: true, call: func(f *reader.File) (any, error) { return nil, f.Close() }},
	"Frame":        {call: func(f *reader.File) (any, error) { return f.Frame(0), nil }},
	"FrameRefs":    {call: func(f *reader.File) (any, error) { return f.FrameRefs(), nil }},
	"NumStrings":   {call: func(f *reader.File) (any, error) { return f.NumStrings(), nil }},
	"SampleRegion": {call: func(f *reader.File) (any, error) { off, n := f.SampleRegion(); return [2]int64{off, n}, nil }},
	"Samples":      {refuses: true, call: func(f *reader.File) (any, error) { return drainSamples(f.Samples()) }},
	"Strings":      {call: func(f *reader.File) (any, error) { return f.Strings(), nil }},
	"Verify":       {refuses: true, call: func(f *reader.File) (any, error) { return nil, f.Verify() }},
}

// samplesCalls has a row for every exported method of *reader.Samples.
var samplesCalls = map[string]afterClose[*reader.Samples]{
	"Close":  {call: func(it *reader.Samples) (any, error) { it.Close(); return nil, nil }},
	"Err":    {refuses: true, call: func(it *reader.Samples) (any, error) { return nil, it.Err() }},
	"Frames": {call: func(it *reader.Samples) (any, error) { return it.Frames(nil), nil }},
	"Next":   {refuses: true, call: func(it *reader.Samples) (any, error) { return drainSamples(it) }},
	"NextRun": {refuses: true, call: func(it *reader.Samples) (any, error) {
		defer it.Close()
		var n uint64
		for it.NextRun() {
			n += it.Run().Count
		}
		return n, it.Err()
	}},
	"NextEvenRun": {refuses: true, call: func(it *reader.Samples) (any, error) {
		defer it.Close()
		var n uint64
		for it.NextEvenRun() {
			n += it.Run().Count
		}
		return n, it.Err()
	}},
	"Run": {call: func(it *reader.Samples) (any, error) { return it.Run(), nil }},
	"Sample": {call: func(it *reader.Samples) (any, error) {
		s := *it.Sample()
		s.Stack = slices.Clone(s.Stack)
		return s, nil
	}},
	"Stats": {call: func(it *reader.Samples) (any, error) { return it.Stats(), nil }},
}

// drainSamples runs it to its end and returns the samples it yielded and its error.
func drainSamples(it *reader.Samples) (any, error) {
	defer it.Close()
	n := 0
	for it.Next() {
		n++
	}
	return n, it.Err()
}

// checkComplete fails unless calls has a row for every exported method of
// T and no other, and every method that returns an error is expected to
// refuse.
func checkComplete[T any](t *testing.T, calls map[string]afterClose[T]) {
	t.Helper()
	typ := reflect.TypeFor[T]()
	errType := reflect.TypeFor[error]()
	for i := range typ.NumMethod() {
		m := typ.Method(i)
		row, ok := calls[m.Name]
		if !ok {
			t.Errorf("%v.%s has no row in the after-Close table: add one", typ, m.Name)
			continue
		}
		if n := m.Type.NumOut(); n > 0 && m.Type.Out(n-1) == errType && !row.refuses {
			t.Errorf("%v.%s returns an error, so after Close it must refuse with ErrClosed", typ, m.Name)
		}
	}
	for name := range calls {
		if _, ok := typ.MethodByName(name); !ok {
			t.Errorf("the after-Close table names %v.%s, which does not exist", typ, name)
		}
	}
}

// checkAfterClose calls row on x, whose Close happened between before (nil when
// there was nothing to compare) and now.
func checkAfterClose[T any](t *testing.T, name string, row afterClose[T], x T, before any) {
	t.Helper()
	got, err := row.call(x)
	switch {
	case row.refuses && !errors.Is(err, reader.ErrClosed):
		t.Errorf("%s after Close: %v (result %v), want ErrClosed", name, err, got)
	case !row.refuses && err != nil:
		t.Errorf("%s after Close: %v", name, err)
	case !row.refuses && before != nil && !reflect.DeepEqual(got, before):
		t.Errorf("%s after Close returned %v, before %v", name, got, before)
	}
}

// closedFiles writes a small file (all of its samples fit in the
// iterator's first buffer) and a big one (about 1 MB of records, so four
// buffers or more), raw and zstd, and returns their paths.
func closedFiles(t *testing.T) map[string]string {
	paths := map[string]string{}
	for _, comp := range []tachyon.Compression{tachyon.CompressionNone, tachyon.CompressionZstd} {
		paths[fmt.Sprintf("small-%v", comp)] = writeSamples(t, comp, 200)
		paths[fmt.Sprintf("big-%v", comp)] = writeSamples(t, comp, 50000)
	}
	return paths
}

// constructor makes a File from a path, in one of the three ways.
type constructor struct {
	name string
	open func(t *testing.T, path string) *reader.File
}

var constructors = []constructor{
	{"Open", func(t *testing.T, path string) *reader.File {
		f, err := reader.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}},
	{"NewFile", func(t *testing.T, path string) *reader.File {
		fh, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { fh.Close() })
		st, err := fh.Stat()
		if err != nil {
			t.Fatal(err)
		}
		f, err := reader.NewFile(fh, st.Size())
		if err != nil {
			t.Fatal(err)
		}
		return f
	}},
	{"NewFileBytes", func(t *testing.T, path string) *reader.File {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f, err := reader.NewFileBytes(b)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}},
}

// iterSetup makes an iterator and closes it or its File, in one of the
// ways an iterator meets Close; before says whether its state before the
// Close can be compared with the state after.
type iterSetup struct {
	name  string
	setup func(t *testing.T, f *reader.File, before func(*reader.Samples)) *reader.Samples
}

var iterSetups = []iterSetup{
	{"made after Close", func(t *testing.T, f *reader.File, _ func(*reader.Samples)) *reader.Samples {
		f.Close()
		return f.Samples()
	}},
	{"made before Close", func(t *testing.T, f *reader.File, before func(*reader.Samples)) *reader.Samples {
		it := f.Samples()
		before(it)
		f.Close()
		return it
	}},
	{"running at Close", func(t *testing.T, f *reader.File, before func(*reader.Samples)) *reader.Samples {
		it := f.Samples()
		if !it.Next() {
			t.Fatalf("first sample: %v", it.Err())
		}
		before(it)
		f.Close()
		return it
	}},
	{"closed itself", func(t *testing.T, f *reader.File, before func(*reader.Samples)) *reader.Samples {
		it := f.Samples()
		if !it.Next() {
			t.Fatalf("first sample: %v", it.Err())
		}
		before(it)
		it.Close()
		t.Cleanup(func() { f.Close() })
		return it
	}},
}

// TestAfterClose calls every method of File and Samples after Close, for
// a File from each constructor: none faults, those that return an error
// return ErrClosed, the others return what they did before Close.
func TestAfterClose(t *testing.T) {
	checkComplete(t, fileCalls)
	checkComplete(t, samplesCalls)
	for file, path := range closedFiles(t) {
		for _, o := range constructors {
			t.Run(file+"/"+o.name, func(t *testing.T) {
				for name, row := range fileCalls {
					f := o.open(t, path)
					var before any
					if !row.refuses {
						before, _ = row.call(f)
					}
					if err := f.Close(); err != nil {
						t.Fatalf("Close: %v", err)
					}
					checkAfterClose(t, "File."+name, row, f, before)
				}
				for _, s := range iterSetups {
					for name, row := range samplesCalls {
						var before any
						it := s.setup(t, o.open(t, path), func(it *reader.Samples) {
							if !row.refuses {
								before, _ = row.call(it)
							}
						})
						checkAfterClose(t, s.name+": Samples."+name, row, it, before)
					}
				}
			})
		}
	}
}

// TestCloseRacesIterators closes a File, twice at once, while iterators
// run on other goroutines: under -race, no data race, no fault, and every
// iteration either ends cleanly before Close or with ErrClosed.
func TestCloseRacesIterators(t *testing.T) {
	for file, path := range closedFiles(t) {
		for _, o := range constructors {
			t.Run(file+"/"+o.name, func(t *testing.T) {
				f := o.open(t, path)
				var wg sync.WaitGroup
				for range 3 {
					wg.Go(func() {
						if _, err := drainSamples(f.Samples()); err != nil && !errors.Is(err, reader.ErrClosed) {
							t.Errorf("iterating while closing: %v", err)
						}
					})
				}
				closeErrs := make(chan error, 2)
				for range 2 {
					wg.Go(func() { closeErrs <- f.Close() })
				}
				wg.Wait()
				close(closeErrs)
				var ok, refused int
				for err := range closeErrs {
					switch {
					case err == nil:
						ok++
					case errors.Is(err, reader.ErrClosed):
						refused++
					default:
						t.Errorf("Close: %v", err)
					}
				}
				if ok != 1 || refused != 1 {
					t.Errorf("two Closes at once: %d succeeded and %d returned ErrClosed, want 1 and 1", ok, refused)
				}
			})
		}
	}
}
