package writer_test

import (
	"bytes"
	"fmt"
	"hash/maphash"
	"runtime"
	"sync"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/seekbuf"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// zstdMagic begins every zstd frame.
var zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}

// writeFinishing writes samples into a zstd file, calls Finishing from
// another goroutine once finishAt samples are written, and takes a
// checkpoint at checkpointAt (if not 0); it returns the file and the
// checkpoint's file.
func writeFinishing(t *testing.T, samples []tsample, finishAt, checkpointAt int) (all, cpFile []byte) {
	t.Helper()
	var m seekbuf.Buffer
	w, err := writer.New(&m, writer.Options{StartTime: 1, Compression: tachyon.CompressionZstd})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var cp writer.Checkpoint
	for i, s := range samples {
		if i == finishAt && finishAt > 0 {
			wg.Go(w.Finishing)
		}
		if i == checkpointAt && checkpointAt > 0 {
			if cp, err = w.Checkpoint(nil); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.WriteSample(&writer.Sample{ThreadID: s.id, InterpreterID: s.interp, Timestamp: s.ts, Status: s.status, Frames: s.stack}); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	all = m.Bytes()
	if checkpointAt > 0 {
		cpFile = append(append(cp.Header[:], all[tachyon.HeaderSize:cp.DataEnd]...), cp.Tables...)
	}
	return all, cpFile
}

var sampleSeed = maphash.MakeSeed()

// decoded verifies the Tachyon file b and returns a hash of each of its
// samples, with its stack, in file order.
func decoded(t *testing.T, b []byte) []uint64 {
	t.Helper()
	f, err := reader.NewFileBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Verify(); err != nil {
		t.Fatal(err)
	}
	var out []uint64
	it := f.Samples()
	var fr []tachyon.Frame
	for it.Next() {
		s := it.Sample()
		fr = it.Frames(fr[:0])
		var h maphash.Hash
		h.SetSeed(sampleSeed)
		maphash.WriteComparable(&h, [4]uint64{s.ThreadID, uint64(s.InterpreterID), s.Timestamp, uint64(s.Status)})
		for _, f := range fr {
			maphash.WriteComparable(&h, f)
		}
		out = append(out, h.Sum64())
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestFinishing: a file whose end was compressed in parallel frames
// (Finishing, called from another goroutine) reads sample for sample as
// the same file written as one stream (with the same checkpoint, which
// writes every pending run), passes the reference validator,
// and holds more frames; a checkpoint taken after Finishing is a finished
// file of the samples before it. With two cores the frames share the
// stream's encoder; with four, more are made for them. (With one, the
// goroutine that calls Finishing may run only once most samples are
// written.)
func TestFinishing(t *testing.T) {
	for _, procs := range []int{2, 4} {
		t.Run(fmt.Sprintf("GOMAXPROCS=%d", procs), func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			testFinishing(t)
		})
	}
}

func testFinishing(t *testing.T) {
	samples := randomStream(7, 300, 40000, 1)
	cpAt := 2 * len(samples) / 3
	one, _ := writeFinishing(t, samples, 0, cpAt)
	par, cpFile := writeFinishing(t, samples, len(samples)/3, cpAt)
	want, got := decoded(t, one), decoded(t, par)
	if len(got) != len(want) {
		t.Fatalf("%d samples, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("sample %d differs", i)
		}
	}
	if n1, np := bytes.Count(one, zstdMagic), bytes.Count(par, zstdMagic); np < n1+3 {
		t.Errorf("%d zstd frames with Finishing, %d without: the end was not compressed in frames of its own", np, n1)
	}
	if n := verifyBytes(t, cpFile); n != uint64(cpAt) {
		t.Errorf("the checkpoint after Finishing reads %d samples, want %d", n, cpAt)
	}
	if !testing.Short() {
		refValidate(t, par)
	}
}
