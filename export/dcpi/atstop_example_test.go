package dcpi_test

import (
	"log"
	"os"

	"github.com/gotachyon/profiler"
	"github.com/gotachyon/profiler/export/dcpi"
	"github.com/gotachyon/profiler/reader"
)

// Count the running executable's on-CPU program counters while it is
// profiled, and write them as a DCPI profile at Stop: exact addresses,
// which a Tachyon file does not keep. Pass the profiler's rate.
func ExampleAtStop() {
	defer profiler.Start(profiler.WithRate(100), profiler.WithObserver(dcpi.AtStop("cpu.dcpi", 100))).Stop()

	// ... the program runs ...
}

// Approximate a DCPI profile from a Tachyon file of a program: one
// address per leaf source line, from the executable's line table.
func ExampleWrite() {
	img, err := dcpi.OpenImage("./service") // the executable profiled
	if err != nil {
		log.Fatal(err)
	}
	f, err := reader.Open("prof.bin")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	out, err := os.Create("cpu.dcpi")
	if err != nil {
		log.Fatal(err)
	}
	var st dcpi.WriteStats
	err = dcpi.Write(out, f, dcpi.Options{Image: img, Stats: &st})
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("%+v", st) // what was mapped to an address, and what was not
}
