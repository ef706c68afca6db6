package elfsym

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// minimalELF returns a little-endian ELF64 executable holding only empty
// sections with the given names (and the section name table).
func minimalELF(t *testing.T, names ...string) []byte {
	t.Helper()
	strtab := []byte{0}
	nameOff := make([]uint32, len(names)+1)
	for i, n := range append(names, ".shstrtab") {
		nameOff[i] = uint32(len(strtab))
		strtab = append(append(strtab, n...), 0)
	}
	const hdrSize, shSize = 64, 64
	shoff := uint64(hdrSize+len(strtab)+7) &^ 7
	var b bytes.Buffer
	hdr := elf.Header64{
		Type: uint16(elf.ET_EXEC), Machine: uint16(elf.EM_X86_64), Version: uint32(elf.EV_CURRENT),
		Shoff: shoff, Ehsize: hdrSize, Shentsize: shSize,
		Shnum: uint16(len(names) + 2), Shstrndx: uint16(len(names) + 1),
	}
	copy(hdr.Ident[:], elf.ELFMAG)
	hdr.Ident[elf.EI_CLASS], hdr.Ident[elf.EI_DATA], hdr.Ident[elf.EI_VERSION] = byte(elf.ELFCLASS64), byte(elf.ELFDATA2LSB), byte(elf.EV_CURRENT)
	sections := []elf.Section64{{}} // the null section
	for i := range names {
		sections = append(sections, elf.Section64{Name: nameOff[i], Type: uint32(elf.SHT_PROGBITS),
			Flags: uint64(elf.SHF_ALLOC), Addr: 0x401000, Off: hdrSize, Addralign: 1})
	}
	sections = append(sections, elf.Section64{Name: nameOff[len(names)], Type: uint32(elf.SHT_STRTAB),
		Off: hdrSize, Size: uint64(len(strtab)), Addralign: 1})
	for _, v := range []any{hdr, strtab, make([]byte, shoff-uint64(hdrSize+len(strtab))), sections} {
		if err := binary.Write(&b, binary.LittleEndian, v); err != nil {
			t.Fatal(err)
		}
	}
	return b.Bytes()
}

// writeTemp writes data to a new file and returns its path.
func writeTemp(t *testing.T, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "prog")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestNoLineTable(t *testing.T) {
	for _, sections := range [][]string{{".text"}, {".gopclntab"}, nil} {
		path := writeTemp(t, minimalELF(t, sections...))
		_, err := Open(path)
		if !errors.Is(err, ErrNoLineTable) || !strings.HasPrefix(err.Error(), path+": ") {
			t.Errorf("sections %q: %v, want %s: %v", sections, err, path, ErrNoLineTable)
		}
	}
}

func TestNotELF(t *testing.T) {
	path := writeTemp(t, []byte("#!/bin/sh\nexit 0\n"))
	if _, err := Open(path); err == nil || errors.Is(err, ErrNoLineTable) {
		t.Errorf("a shell script: %v", err)
	}
	if _, err := Open(filepath.Join(t.TempDir(), "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
}
