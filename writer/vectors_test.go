package writer_test

import (
	"bytes"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gotachyon/profiler/internal/jsonl"
	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/internal/testing/seekbuf"
	"github.com/gotachyon/profiler/internal/testing/testutil"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// inputStream reads a vector's NAME.input.jsonl (or .zst).
func inputStream(t *testing.T, path string) (jsonl.Meta, []jsonl.Sample) {
	if in, ok := inputs.Load(path); ok {
		in := in.(parsedInput)
		return in.meta, in.samples
	}
	in, err := jsonl.NewInput(bytes.NewReader(proftest.VectorText(t, path)))
	if err != nil {
		t.Fatal(err)
	}
	var out []jsonl.Sample
	for {
		var s jsonl.Sample
		if err := in.Next(&s); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	inputs.Store(path, parsedInput{in.Meta, out})
	return in.Meta, out
}

// inputs holds the streams inputStream parsed, by path: several tests
// encode the same vectors, and callers only read what it returns.
var inputs sync.Map

// parsedInput is one parsed input stream.
type parsedInput struct {
	meta    jsonl.Meta
	samples []jsonl.Sample
}

func encode(t testing.TB, meta jsonl.Meta, samples []jsonl.Sample, c tachyon.Compression) []byte {
	var m seekbuf.Buffer
	w, err := writer.New(&m, writer.Options{StartTime: meta.StartTimeUS, Interval: meta.IntervalUS, Compression: c})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range samples {
		ws := writer.Sample{ThreadID: s.ThreadID, InterpreterID: s.InterpreterID, Timestamp: s.TimestampUS, Status: s.Status}
		for _, f := range s.Stack {
			ws.Frames = append(ws.Frames, tachyon.Frame(f))
		}
		if err := w.WriteSample(&ws); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return m.Bytes()
}

// decodeByThread decodes a file and groups the samples by thread, keeping
// each thread's order: the order a writer must preserve.
func decodeByThread(t testing.TB, b []byte) map[[2]uint64][]jsonl.Sample {
	f, err := reader.NewFileBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	out := map[[2]uint64][]jsonl.Sample{}
	for _, s := range proftest.Samples(t, f) {
		k := [2]uint64{s.ThreadID, uint64(s.InterpreterID)}
		out[k] = append(out[k], s)
	}
	return out
}

// sameByThread reports whether two decodeByThread results hold the same
// samples.
func sameByThread(a, b map[[2]uint64][]jsonl.Sample) bool {
	return maps.EqualFunc(a, b, func(x, y []jsonl.Sample) bool { return slices.EqualFunc(x, y, jsonl.Sample.Equal) })
}

// TestVectorsByteIdentical encodes every public vector's input stream and
// compares: raw output byte for byte with NAME.bin; zstd output decoded
// sample for sample with it.
func TestVectorsByteIdentical(t *testing.T) {
	dir := testutil.Vectors(t, "tachyon")
	inputs, _ := filepath.Glob(filepath.Join(dir, "*.input.jsonl*"))
	if len(inputs) < 12 {
		t.Fatalf("found %d input streams, want at least 12", len(inputs))
	}
	for _, in := range inputs {
		name := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(in), ".zst"), ".input.jsonl")
		t.Run(name, func(t *testing.T) {
			meta, samples := inputStream(t, strings.TrimSuffix(in, ".zst"))
			want, err := os.ReadFile(filepath.Join(dir, name+".bin"))
			if err != nil {
				t.Fatal(err)
			}
			raw := encode(t, meta, samples, tachyon.CompressionNone)
			if !bytes.Equal(raw, want) {
				t.Errorf("raw encoding differs from %s.bin (%d vs %d bytes)", name, len(raw), len(want))
			}
			z := encode(t, meta, samples, tachyon.CompressionZstd)
			if got, exp := decodeByThread(t, z), decodeByThread(t, want); !sameByThread(got, exp) {
				t.Errorf("zstd encoding decodes to different samples")
			}
		})
	}
}

// TestRealisticZstdSize holds the compression goal: realistic_50k with zstd
// in at most 4.9 bytes per sample, whole file included.
func TestRealisticZstdSize(t *testing.T) {
	dir := testutil.Vectors(t, "tachyon")
	meta, samples := inputStream(t, filepath.Join(dir, "realistic_50k.input.jsonl"))
	z := encode(t, meta, samples, tachyon.CompressionZstd)
	per := float64(len(z)) / float64(len(samples))
	t.Logf("realistic_50k zstd: %d bytes, %.3f bytes/sample", len(z), per)
	if per > 4.9 {
		t.Errorf("%.3f bytes/sample, want at most 4.9", per)
	}
}
