package reader_test

import (
	"errors"
	"fmt"

	"github.com/gotachyon/profiler/reader"
)

// ExampleFormatError shows how a malformed file is reported.
func ExampleFormatError() {
	_, err := reader.NewFileBytes(make([]byte, 40))
	var fe *reader.FormatError
	fmt.Println(errors.Is(err, reader.ErrFormat), errors.As(err, &fe), fe.Offset, fe.Code)
	fmt.Println(err)
	// Output:
	// true true 0 E_TOO_SMALL
	// offset 0: E_TOO_SMALL: file is 40 bytes; a valid file has at least 96
}
