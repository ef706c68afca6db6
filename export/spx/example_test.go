package spx_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"

	"github.com/gotachyon/profiler/export/spx"
)

// Sampled stacks become nested calls; Close ends whatever is still open.
func ExampleReport() {
	var out bytes.Buffer
	r := spx.NewReport(&out, false)
	main := r.Func(spx.FuncName("main.main"))
	work := r.Func(spx.FuncName("main.work"))
	r.Move([]uint32{main, work}, 0, 0) // sample at 0 ms
	r.Move([]uint32{main}, 10e6, 0)    // at 10 ms work has returned
	r.Move(nil, 20e6, 0)               // the last sample lasted 10 ms
	sum, _ := r.Close()
	zr, _ := gzip.NewReader(&out)
	text, _ := io.ReadAll(zr)
	fmt.Print(string(text))
	fmt.Println(sum.Calls, "calls,", sum.WallTime, "ns")
	// Output:
	// [events]
	// 0 1 0
	// 1 1 0
	// 1 0 10000000
	// 0 0 20000000
	// [functions]
	// main::main
	// main::work
	// 2 calls, 20000000 ns
}
