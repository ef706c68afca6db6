package elfsym

import (
	"debug/elf"
	"debug/gosym"
	"errors"
	"fmt"
)

// ErrNoLineTable reports an ELF file without the sections of a Go line
// table (.gopclntab and .text): not a Go binary, or one stripped of it.
var ErrNoLineTable = errors.New("no Go line table (.gopclntab): not a Go binary?")

// Open reads the Go symbol and line table of the ELF executable at path.
// The table keeps no reference to the file, which is closed on return.
// Errors other than elf.Open's name path.
func Open(path string) (*gosym.Table, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t, err := Table(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
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
