package framesum_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/cespare/xxhash/v2"
	"github.com/klauspost/compress/zstd"

	"github.com/gotachyon/profiler/internal/framesum"
)

// A zstd frame written without a content checksum, its checksum frame
// after it, and a reader that checks it: damaged, the frame reads as an
// error, although a zstd decoder alone would decode it.
func Example() {
	enc, _ := zstd.NewWriter(nil, zstd.WithEncoderCRC(false))
	frame := enc.EncodeAll([]byte("parked, parked, parked, parked, parked"), nil)
	file := framesum.Append(frame, xxhash.Sum64(frame))

	read := func(b []byte) error {
		dec, err := zstd.NewReader(framesum.NewVerifier(bytes.NewReader(b)))
		if err != nil {
			return err
		}
		defer dec.Close()
		_, err = io.Copy(io.Discard, dec)
		return err
	}
	fmt.Println("as written:", read(file))
	file[len(frame)-1] ^= 1 // the last literal byte
	var damaged *framesum.Error
	if err := read(file); errors.As(err, &damaged) {
		fmt.Println("damaged: the frame at byte", damaged.Offset, "fails its checksum")
	}
	// Output:
	// as written: <nil>
	// damaged: the frame at byte 0 fails its checksum
}
