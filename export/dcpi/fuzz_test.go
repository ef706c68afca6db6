package dcpi_test

import (
	"os"
	"testing"

	"github.com/gotachyon/profiler/export/dcpi"
	"github.com/gotachyon/profiler/internal/testing/hostile"
	"github.com/gotachyon/profiler/reader"
)

// FuzzFromTachyon: an accepted file maps onto a histogram of the test
// binary's text without error, counting at most its samples; a rejected
// one gives an error.
func FuzzFromTachyon(f *testing.F) {
	bin, err := os.Executable()
	if err != nil {
		f.Fatal(err)
	}
	img, err := dcpi.OpenImage(bin)
	if err != nil {
		f.Fatal(err)
	}
	var counts map[uint64]uint64
	hostile.FuzzExporter(f, func(file *reader.File) (err error) {
		counts, _, err = dcpi.FromTachyon(file, img, true)
		return err
	}, func(t *testing.T, file *reader.File) {
		var n uint64
		for _, c := range counts {
			n += c
		}
		if n > uint64(file.Header.SampleCount) {
			t.Fatalf("histogram counts %d samples, the file has %d", n, file.Header.SampleCount)
		}
	})
}
