package writer_test

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/gotachyon/profiler/internal/framesum"
	"github.com/gotachyon/profiler/internal/testing/seekbuf"
	"github.com/gotachyon/profiler/internal/testing/testutil"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// parkedBatches writes what a wall sampler writes for parked goroutines
// beside busy ones: batches in which each of parked threads writes a run
// of ticks and is flushed, and busy threads change their stacks between
// them. mixed has the busy threads write many more records, so that no
// buffer is mostly runs.
func parkedBatches(t *testing.T, w *writer.Writer, parked, batches int, mixed bool, between func(batch int)) {
	t.Helper()
	r := rand.New(rand.NewPCG(3, uint64(parked)))
	var frames []uint32
	for i := range 40 {
		frames = append(frames, w.Frame(tachyon.Frame{File: "f.go", Func: "f", Line: int32(i + 1)}))
	}
	const step = 10000
	ts := uint64(step)
	hs := make([]*writer.Thread, parked)
	for i := range hs {
		hs[i] = w.Thread(uint64(100+i), 0)
		if err := hs[i].Write(ts, 0, frames[i%7:i%7+10]); err != nil {
			t.Fatal(err)
		}
	}
	busy := make([]*writer.Thread, 20)
	for i := range busy {
		busy[i] = w.Thread(uint64(1_000_000+i), 0)
	}
	for b := range batches {
		ticks := 200 + r.IntN(400)
		for i, h := range hs {
			status := tachyon.Status(0)
			if i%97 == b%97 {
				status = 2 // a few runs of another status
			}
			if err := h.RepeatEvery(ts+step, step, ticks, status); err != nil {
				t.Fatal(err)
			}
			if i%300 == 0 {
				// one more sample at another delta: a run with pairs before its tail
				if err := h.Repeat(ts+uint64(ticks+1)*step+7, status); err != nil {
					t.Fatal(err)
				}
			}
			h.Flush()
			n := 0
			switch {
			case mixed:
				n = 30
			case i%300 == 0:
				n = 1
			}
			for range n {
				bt := busy[r.IntN(len(busy))]
				d := 1 + r.IntN(30)
				if err := bt.Write(ts+uint64(r.IntN(step)), 3, frames[d:d+1+r.IntN(9)]); err != nil {
					t.Fatal(err)
				}
			}
		}
		ts += uint64(ticks+2) * step
		if between != nil {
			between(b)
		}
	}
}

// records returns the records of a Tachyon file, decompressed.
func records(t *testing.T, b []byte) []byte {
	t.Helper()
	var hb [tachyon.HeaderSize]byte
	copy(hb[:], b)
	h := tachyon.ParseHeader(&hb)
	data := b[tachyon.HeaderSize:h.StringTableOffset]
	if h.Compression == tachyon.CompressionNone {
		return data
	}
	d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	out, err := d.DecodeAll(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestRunFramesSameRecords: a compressed file whose parked goroutines'
// runs go into frames of runs (internal/zstdrun) decompresses to the very
// records of the same stream written uncompressed, whether its buffers
// are mostly runs or mixed, streamed, finishing on several cores or
// checkpointed; the files pass the reader's verification and the
// reference validator, and the runs' frames are smaller than the
// expanded runs compressed as a stream.
func TestRunFramesSameRecords(t *testing.T) {
	type variant struct {
		name       string
		mixed      bool
		finishAt   int // batch at which Finishing is called, -1 for never
		checkpoint bool
	}
	for _, v := range []variant{
		{"runs", false, -1, false},
		{"mixed", true, -1, false},
		{"runs-finishing", false, 2, false},
		{"mixed-finishing", true, 2, false},
		{"runs-checkpoints", false, 3, true},
	} {
		t.Run(v.name, func(t *testing.T) {
			var runFrames, wantSamples uint64
			write := func(c tachyon.Compression) []byte {
				var m seekbuf.Buffer
				w, err := writer.New(&m, writer.Options{StartTime: 1, Compression: c})
				if err != nil {
					t.Fatal(err)
				}
				parkedBatches(t, w, 600, 3, v.mixed, func(b int) {
					if b == v.finishAt {
						w.Finishing()
					}
					if v.checkpoint {
						if _, err := w.Checkpoint(nil); err != nil {
							t.Fatal(err)
						}
					}
				})
				if err := w.Close(); err != nil {
					t.Fatal(err)
				}
				if c == tachyon.CompressionZstd {
					runFrames = w.Stats().RunFrames
				}
				wantSamples = w.Stats().Samples
				return m.Bytes()
			}
			raw, z := write(tachyon.CompressionNone), write(tachyon.CompressionZstd)
			got, want := records(t, z), records(t, raw)
			if !bytes.Equal(got, want) {
				t.Fatalf("the compressed file's records differ from the uncompressed file's: %d bytes against %d", len(got), len(want))
			}
			if n := verifyBytes(t, z); n != wantSamples {
				t.Fatalf("%d samples, want %d", n, wantSamples)
			}
			t.Logf("%d bytes of records in %d compressed bytes, %d zstd frames, %d of runs", len(want), len(z), bytes.Count(z, zstdMagic), runFrames)
			if mostlyRuns := !v.mixed; mostlyRuns != (runFrames > 0) {
				t.Errorf("%d frames of runs", runFrames)
			}
			if v.checkpoint && !testing.Short() {
				refValidate(t, z)
			}
		})
	}
}

// TestFirstRecordsInRunFrames: goroutines met parked, each written first
// with its stack and then one long run (what a sampler writes at a
// goroutine's first settle, or at Stop for goroutines it met late), go
// into frames of runs: their records before the tails are a small share of
// the tails, which the stream's encoder would otherwise read byte by byte.
// The file decompresses to the uncompressed file's records.
func TestFirstRecordsInRunFrames(t *testing.T) {
	var runFrames uint64
	write := func(c tachyon.Compression) []byte {
		var m seekbuf.Buffer
		w, err := writer.New(&m, writer.Options{StartTime: 1, Compression: c})
		if err != nil {
			t.Fatal(err)
		}
		var frames []uint32
		for i := range 12 {
			frames = append(frames, w.Frame(tachyon.Frame{File: "f.go", Func: "f", Line: int32(i + 1)}))
		}
		const step = 10000
		for i := range 2000 {
			h := w.Thread(uint64(100_000+i), 0)
			if err := h.Write(1372, 0, frames[i%3:]); err != nil {
				t.Fatal(err)
			}
			if err := h.RepeatEvery(1372+step, step, 440, 0); err != nil {
				t.Fatal(err)
			}
			h.Flush()
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if c == tachyon.CompressionZstd {
			runFrames = w.Stats().RunFrames
		}
		return m.Bytes()
	}
	raw, z := write(tachyon.CompressionNone), write(tachyon.CompressionZstd)
	if got, want := records(t, z), records(t, raw); !bytes.Equal(got, want) {
		t.Fatalf("the compressed file's records differ from the uncompressed file's: %d bytes against %d", len(got), len(want))
	}
	verifyBytes(t, z)
	t.Logf("%d bytes of records in %d compressed bytes, %d frames of runs", len(records(t, raw)), len(z), runFrames)
	if runFrames == 0 {
		t.Error("no frame of runs")
	}
}

// TestRunsWithinBombBound: the densest file frames of runs make, one
// goroutine parked all along at the highest rate (a pair of two bytes a
// sample, runs of MaxRunBytes), holds fewer samples per compressed byte
// than the reader's bound against decompression bombs, which it reads
// whole.
func TestRunsWithinBombBound(t *testing.T) {
	const step, samples = 100, 2_000_000 // 10 kHz: a delta of one byte
	var m seekbuf.Buffer
	w, err := writer.New(&m, writer.Options{StartTime: 1, Compression: tachyon.CompressionZstd})
	if err != nil {
		t.Fatal(err)
	}
	h := w.Thread(1, 0)
	if err := h.Write(step, 0, []uint32{w.Frame(tachyon.Frame{File: "f.go", Func: "f", Line: 1})}); err != nil {
		t.Fatal(err)
	}
	ts := uint64(2 * step)
	for n := 1; n < samples; n += 10000 {
		if err := h.RepeatEvery(ts, step, 10000, 0); err != nil {
			t.Fatal(err)
		}
		ts += 10000 * step
		h.Flush() // as the sampler does once a generation
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	var hb [tachyon.HeaderSize]byte
	copy(hb[:], m.Bytes())
	hd := tachyon.ParseHeader(&hb)
	t.Logf("%d samples in %d compressed bytes: %.0f a byte, %d frames of runs", hd.SampleCount, hd.StringTableOffset-tachyon.HeaderSize,
		float64(hd.SampleCount)/float64(hd.StringTableOffset-tachyon.HeaderSize), w.Stats().RunFrames)
	// The reader's bound (reader/records.go) is 4,096 a byte past the
	// first million samples; half of it leaves room.
	if r := float64(hd.SampleCount) / float64(hd.StringTableOffset-tachyon.HeaderSize); r > 2048 {
		t.Errorf("%.0f samples a compressed byte, over half the reader's bound", r)
	}
	if n := verifyBytes(t, m.Bytes()); n != uint64(hd.SampleCount) {
		t.Fatalf("%d samples read, header %d", n, hd.SampleCount)
	}
}

// TestRunFramesDamaged: a frame of runs has no content checksum of its
// own, but a checksum frame after it. A byte of such a frame damaged on
// disk reads as an error, whether or not the damaged frame still decodes:
// one that names the frame's offset, unless a record the damage changed
// is found wrong first.
func TestRunFramesDamaged(t *testing.T) {
	var m seekbuf.Buffer
	w, err := writer.New(&m, writer.Options{StartTime: 1, Compression: tachyon.CompressionZstd})
	if err != nil {
		t.Fatal(err)
	}
	parkedBatches(t, w, 600, 3, false, func(int) {})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	file := m.Bytes()
	sum := framesum.Append(nil, 0)[:framesum.Size-8] // a checksum frame but its sum
	end := bytes.Index(file, sum)                    // the first frame of runs ends here
	if end < 0 {
		t.Fatal("no checksum frame in the file")
	}
	start := bytes.LastIndex(file[:end], zstdMagic)
	if start < 0 {
		t.Fatal("no zstd frame before the checksum frame")
	}
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	// Each damaged byte reads the whole file again, which the race
	// detector makes slow and on which it has nothing to find past the
	// first: under it, every seventh byte is damaged, so that the bytes
	// still spread over the frame.
	step := 1
	if testutil.Race {
		step = 7
	}
	decodes, named, damaged := 0, 0, 0
	for i := start + 4; i < end; i += step {
		damaged++
		bad := bytes.Clone(file)
		bad[i] ^= 0x04
		err := readAll(bad)
		if err == nil {
			t.Fatalf("byte %d of the frame of runs at %d damaged: read without an error", i-start, start)
		}
		var fe *reader.FormatError
		if errors.As(err, &fe) && fe.Offset == int64(start) && strings.Contains(fe.Reason, "does not match its checksum") {
			named++
		}
		if _, derr := dec.DecodeAll(bad[start:end], nil); derr == nil {
			decodes++
		}
	}
	if named == 0 {
		t.Fatalf("none of %d damaged bytes named the frame at %d; %d of them still decode", damaged, start, decodes)
	}
	t.Logf("%d of %d damaged bytes: the frame still decodes; %d errors name the frame, the others a record the damage changed", decodes, damaged, named)
}

// readAll reads every sample of the file b, and returns the first error.
func readAll(b []byte) error {
	f, err := reader.NewFileBytes(b)
	if err != nil {
		return err
	}
	defer f.Close()
	it := f.Samples()
	defer it.Close()
	for it.Next() {
	}
	return it.Err()
}
