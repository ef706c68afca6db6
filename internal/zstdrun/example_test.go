package zstdrun_test

import (
	"bytes"
	"fmt"

	"github.com/klauspost/compress/zstd"

	"github.com/gotachyon/profiler/internal/framesum"
	"github.com/gotachyon/profiler/internal/zstdrun"
)

// Three parked goroutines' records, each a header and 400 alike pairs,
// written as one frame and its checksum frame, and read back by a general
// zstd decoder, which skips the checksum frame.
func Example() {
	var frame bytes.Buffer
	e := zstdrun.New()
	e.Reset(&frame)
	for id := byte(1); id <= 3; id++ {
		e.Add([]byte{'R', id}, []byte{0x0a, 0x02}, 400)
	}
	if err := e.Close(); err != nil {
		fmt.Println(err)
		return
	}
	dec, err := zstd.NewReader(nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer dec.Close()
	out, err := dec.DecodeAll(frame.Bytes(), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d bytes, the second record at %d: %q\n", len(out), 802, out[802:804])
	fmt.Println("frame under 50 bytes:", frame.Len()-framesum.Size < 50)
	// Output:
	// 2406 bytes, the second record at 802: "R\x02"
	// frame under 50 bytes: true
}
