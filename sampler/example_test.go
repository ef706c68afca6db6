package sampler_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/sampler"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// Sample wall time at 100 Hz into a Tachyon file and validate it.
func Example() {
	dir, err := os.MkdirTemp("", "sampler")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "profile.tachyon")

	w, err := writer.Create(path, writer.Options{
		StartTime:   uint64(time.Now().UnixMicro()),
		Interval:    10_000, // µs, i.e. 100 Hz
		Compression: tachyon.CompressionZstd,
	})
	if err != nil {
		log.Fatal(err)
	}
	s, err := sampler.Start(sampler.Config{Mode: sampler.Wall, Rate: 100}, w)
	if err != nil {
		log.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // the program's work
	stats, err := s.Stop()
	if err != nil {
		log.Fatal(err)
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}

	f, err := reader.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	fmt.Println("valid:", f.Verify() == nil)
	fmt.Println("all samples written:", uint64(f.Header.SampleCount) == stats.Samples)
	// Output:
	// valid: true
	// all samples written: true
}
