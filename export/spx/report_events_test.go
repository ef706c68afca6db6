package spx

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"testing"
)

// Sampled stacks become nested calls; Close ends whatever is still open.
func TestReportEvents(t *testing.T) {
	var out bytes.Buffer
	r := newReport(&out, false)
	main := r.Func(funcName("main.main"))
	work := r.Func(funcName("main.work"))
	r.Move([]uint32{main, work}, 0, 0) // sample at 0 ms
	r.Move([]uint32{main}, 10e6, 0)    // at 10 ms work has returned
	r.Move(nil, 20e6, 0)               // the last sample lasted 10 ms
	sum, _ := r.Close()
	zr, _ := gzip.NewReader(&out)
	text, _ := io.ReadAll(zr)
	got := string(text) + fmt.Sprintln(sum.Calls, "calls,", sum.WallTime, "ns")
	want := `[events]
0 1 0
1 1 0
1 0 10000000
0 0 20000000
[functions]
main::main
main::work
2 calls, 20000000 ns
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
