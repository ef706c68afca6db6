package reader_test

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/seekbuf"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// FuzzReader feeds arbitrary bytes to the reader. Its seed corpus in
// testdata/fuzz/FuzzReader holds small valid vectors (raw and zstd) and
// corrupt ones. Whatever the input, reading must not panic, every error
// must be a *FormatError, NextRun's and NextEvenRun's runs must expand to
// Next's samples, and a file that verifies must survive a round trip
// through the writer with the same samples.
//
// The round trip formats every sample as a string, twice: a few bytes of
// zstd can expand to hundreds of thousands of samples (the zstd_run_frames
// seed holds 177,902), which under coverage instrumentation takes longer
// than the 10 s the fuzzing engine allows one input before calling it a
// hang. Files holding more than roundTripMax samples are read and verified
// but not re-encoded.
func FuzzReader(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := reader.NewFileBytes(data)
		if err != nil {
			checkFormatError(t, err)
			return
		}
		// Runs, even or not, expand to Next's samples, with its error.
		compareRuns(t, file, (*reader.Samples).NextEvenRun)
		compareRuns(t, file, (*reader.Samples).NextRun)
		if err := file.Verify(); err != nil {
			checkFormatError(t, err)
			return
		}
		if file.Header.SampleCount > roundTripMax {
			return
		}
		// Re-encode what was read and compare the decoded streams.
		var m seekbuf.Buffer
		w, err := writer.New(&m, writer.Options{StartTime: file.Header.StartTime, Interval: file.Header.Interval, Compression: tachyon.CompressionNone})
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		it := file.Samples()
		for it.Next() {
			s := it.Sample()
			frames := it.Frames(nil)
			ws := writer.Sample{ThreadID: s.ThreadID, InterpreterID: s.InterpreterID, Timestamp: s.Timestamp, Status: s.Status}
			for _, fr := range frames {
				ws.Frames = append(ws.Frames, tachyon.Frame(fr))
			}
			if len(ws.Frames) > tachyon.MaxWriteDepth {
				return // the writer would cut it; nothing to compare
			}
			if err := w.WriteSample(&ws); err != nil {
				t.Fatal(err)
			}
			want = append(want, sampleKey(s, frames))
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		back, err := reader.NewFileBytes(m.Bytes())
		if err != nil {
			t.Fatalf("re-encoded file rejected: %v", err)
		}
		got := map[threadKey][]string{}
		wantBy := map[threadKey][]string{}
		it2 := back.Samples()
		for it2.Next() {
			s := it2.Sample()
			k := keyOf(s)
			got[k] = append(got[k], sampleKey(s, it2.Frames(nil)))
		}
		if err := it2.Err(); err != nil {
			t.Fatalf("re-encoded file invalid: %v", err)
		}
		it3 := file.Samples()
		for i := 0; it3.Next(); i++ {
			k := keyOf(it3.Sample())
			wantBy[k] = append(wantBy[k], want[i])
		}
		for k, v := range wantBy {
			if len(got[k]) != len(v) {
				t.Fatalf("thread %+v: %d samples after round trip, want %d", k, len(got[k]), len(v))
			}
			for i := range v {
				if got[k][i] != v[i] {
					t.Fatalf("thread %+v sample %d differs after round trip", k, i)
				}
			}
		}
	})
}

// roundTripMax is the most samples FuzzReader re-encodes: enough for every
// record shape, few enough to format in well under a second.
const roundTripMax = 1 << 14

// threadKey identifies a thread: its id within its interpreter. Both parts
// count, since one thread id may appear in two interpreters.
type threadKey struct {
	thread uint64
	interp uint32
}

func keyOf(s *reader.Sample) threadKey {
	return threadKey{s.ThreadID, s.InterpreterID}
}

func checkFormatError(t *testing.T, err error) {
	var fe *reader.FormatError
	if !errors.As(err, &fe) || !errors.Is(err, reader.ErrFormat) {
		t.Fatalf("error %v (%T) is not a *FormatError", err, err)
	}
}

func sampleKey(s *reader.Sample, frames []tachyon.Frame) string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%d@%d", s.Status, s.Timestamp)
	for _, f := range frames {
		fmt.Fprintf(&b, "|%q:%q:%d", f.File, f.Func, f.Line)
	}
	return b.String()
}
