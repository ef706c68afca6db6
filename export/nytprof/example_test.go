package nytprof_test

import (
	"bytes"
	"fmt"
	"log"

	"github.com/gotachyon/profiler/export/nytprof"
	"github.com/gotachyon/profiler/tachyon"
)

// Export an in-memory profile; a Tachyon file goes through Write (or
// WriteSource(w, nytprof.FromFile(f), opt)) the same way.
func Example() {
	p := &nytprof.Profile{Start: 1_700_000_000_000_000, Every: 10_000} // 10 ms samples
	main := nytprof.Frame{File: "/src/app/main.go", Func: "main.main", Line: 7}
	work := nytprof.Frame{File: "/src/app/work.go", Func: "main.work", Line: 12}
	p.Add(1, tachyon.StatusOnCPU, work, main)
	p.Add(1, tachyon.StatusOnCPU, work, main)
	p.Add(1, 0, main)

	var out bytes.Buffer
	if err := nytprof.WriteSource(&out, p, nytprof.Options{OnCPU: true}); err != nil {
		log.Fatal(err)
	}
	fmt.Println(string(out.Bytes()[:12]))
	// Output:
	// NYTProf 5 0
}
