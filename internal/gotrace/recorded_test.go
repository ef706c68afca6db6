package gotrace_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gotachyon/profiler/internal/gotrace"
)

// go126Trace returns the trace Go 1.26.8 recorded in testdata.
func go126Trace(t testing.TB) []byte {
	data, err := os.ReadFile(filepath.Join("testdata", "go1.26.8.trace"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestRecordedTraces runs the differential test on the traces recorded by
// each Go release in testdata (see testdata/record), whatever Go runs the
// test: those in Go 1.26's wire format (written by Go 1.26 and by Go
// 1.27, which kept it) must read as golang.org/x/exp/trace reads them,
// event for event; any other version must be refused with ErrVersion, for
// the sampler to read it with x/exp/trace.
func TestRecordedTraces(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "go*.trace"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) < 3 {
		t.Fatalf("%d recorded traces in testdata, want one each of Go 1.25, 1.26 and 1.27", len(paths))
	}
	ours := 0
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".trace"), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			want := xLines(t, data) // x/exp/trace reads every version
			if !bytes.HasPrefix(data, []byte("go 1.26 trace\x00\x00\x00")) {
				if _, err := gotrace.NewReader(bytes.NewReader(data)); !errors.Is(err, gotrace.ErrVersion) {
					t.Fatalf("NewReader of a %.13q file: %v, want ErrVersion", data, err)
				}
				return
			}
			ours++
			got := ourLines(t, data)
			for i := range min(len(want), len(got)) {
				if want[i] != got[i] {
					t.Fatalf("event %d of %d differs:\nx/exp/trace: %+v\ngotrace:     %+v", i, len(want), want[i], got[i])
				}
			}
			if len(want) != len(got) {
				t.Fatalf("%d events, x/exp/trace has %d", len(got), len(want))
			}
			kinds := map[string]int{}
			for _, l := range want {
				kinds[l.kind]++
			}
			for _, k := range []string{"sync", "go", "sample", "taskbegin", "regionbegin", "log"} {
				if kinds[k] == 0 {
					t.Errorf("no %q event in %s: record it again", k, path)
				}
			}
			t.Logf("%d events alike", len(want))
		})
	}
	if ours < 2 {
		t.Errorf("%d recorded traces in Go 1.26's format, want those of Go 1.26 and Go 1.27", ours)
	}
}

// TestRefusesOtherVersions: a trace whose header names another version
// than Go 1.26's, older or newer, is refused with ErrVersion, before
// anything else is read.
func TestRefusesOtherVersions(t *testing.T) {
	for _, h := range []string{"go 1.25 trace", "go 1.27 trace", "go 1.28 trace", "go 1.126 trace", "go 1.22 trace", "go 1.21 trace"} {
		data := append([]byte(h+"\x00\x00\x00"), make([]byte, 64)...)
		if _, err := gotrace.NewReader(bytes.NewReader(data)); !errors.Is(err, gotrace.ErrVersion) {
			t.Errorf("%q: %v, want ErrVersion", h, err)
		}
	}
}
