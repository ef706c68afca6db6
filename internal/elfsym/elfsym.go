package elfsym

import (
	"debug/elf"
	"debug/gosym"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
)

// ErrNoLineTable reports an ELF file without the sections of a Go line
// table (.gopclntab and .text): not a Go binary, or one stripped of it.
var ErrNoLineTable = errors.New("no Go line table (.gopclntab): not a Go binary?")

// Open reads the Go symbol and line table of the ELF executable at path.
// The table keeps no reference to the file, which is closed on return.
// Its errors name path.
func Open(path string) (*gosym.Table, error) {
	r, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	f, err := NewFile(path, r)
	if err != nil {
		return nil, err
	}
	t, err := Table(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// NewFile reads the ELF headers of the file at path, open as r. Its error
// names path, and says so plainly when the file ends before its headers
// do (debug/elf says only EOF).
func NewFile(path string, r io.ReaderAt) (*elf.File, error) {
	f, err := elf.NewFile(r)
	switch {
	case err == nil:
		return f, nil
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return nil, fmt.Errorf("%s: not an executable: it ends before its ELF headers do (%w)", path, err)
	default:
		return nil, fmt.Errorf("%s: not an executable: %w", path, err)
	}
}

// Table reads the Go symbol and line table of the ELF file f: .gopclntab,
// relative to the link-time address of .text, with .gosymtab when it is
// present and readable (it is empty since Go 1.3, whose tables need only
// .gopclntab). It returns ErrNoLineTable when f has no such table.
func Table(f *elf.File) (*gosym.Table, error) {
	pcln, text := f.Section(".gopclntab"), f.Section(".text")
	if pcln == nil || text == nil {
		return nil, ErrNoLineTable
	}
	data, err := pcln.Data()
	if err != nil {
		return nil, fmt.Errorf("reading .gopclntab: %w", err)
	}
	if err := checkFuncCount(data); err != nil {
		return nil, err
	}
	var symtab []byte
	if s := f.Section(".gosymtab"); s != nil {
		symtab, _ = s.Data() // optional: a Go 1.3+ table is whole without it
	}
	t, err := gosym.NewTable(symtab, gosym.NewLineTable(data, text.Addr))
	if err != nil {
		return nil, fmt.Errorf("line table: %w", err)
	}
	return t, nil
}

// checkFuncCount refuses a line table whose header claims more functions
// than its bytes can hold: debug/gosym allocates a record per function
// claimed before it reads any, so that a damaged count would exhaust the
// memory. Each function takes at least one 8-byte entry of the table's
// function index, whatever the table's version.
func checkFuncCount(data []byte) error {
	if len(data) < 16 {
		return nil // too short for a count: gosym refuses it
	}
	var order binary.ByteOrder = binary.LittleEndian
	switch binary.BigEndian.Uint32(data) {
	case 0xfffffffb, 0xfffffffa, 0xfffffff0, 0xfffffff1: // Go 1.2, 1.16, 1.18, 1.20 on a big-endian target
		order = binary.BigEndian
	}
	var n uint64
	switch data[7] { // the pointer size, and so the count's
	case 4:
		n = uint64(order.Uint32(data[8:]))
	case 8:
		n = order.Uint64(data[8:])
	default:
		return nil // gosym refuses it
	}
	if n > uint64(len(data))/8 {
		return fmt.Errorf("line table: .gopclntab says it holds %d functions, more than its %d bytes can: a damaged executable", n, len(data))
	}
	return nil
}
