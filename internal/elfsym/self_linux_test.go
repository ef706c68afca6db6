package elfsym

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// TestOpenSelf reads the test binary's own table and checks it against
// the runtime's: same function, same entry file and line.
func TestOpenSelf(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tab, err := Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	rf := runtime.FuncForPC(reflect.ValueOf(Open).Pointer())
	wantFile, wantLine := rf.FileLine(rf.Entry())
	fn := tab.LookupFunc(rf.Name())
	if fn == nil {
		t.Fatalf("%s not in the table", rf.Name())
	}
	if file, line, _ := tab.PCToLine(fn.Entry); file != wantFile || line != wantLine {
		t.Errorf("%s starts at %s:%d, want %s:%d", rf.Name(), file, line, wantFile, wantLine)
	}
}

// TestDamagedSelf reads damaged copies of the test binary: a line table
// that claims more functions than it can hold (which debug/gosym would
// allocate for before reading any), and a file cut inside its headers.
// Each is an error naming the file, never an exhausted memory.
func TestDamagedSelf(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	pcln := f.Section(".gopclntab")
	if pcln == nil {
		t.Fatal("no .gopclntab")
	}
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		edit func([]byte) []byte
		want string
	}{
		{"count", func(b []byte) []byte {
			binary.LittleEndian.PutUint64(b[pcln.Offset+8:], 1<<31)
			return b
		}, "a damaged executable"},
		{"cut", func(b []byte) []byte { return b[:40] }, "it ends before its ELF headers do"},
	} {
		path := filepath.Join(dir, c.name)
		if err := os.WriteFile(path, c.edit(bytes.Clone(data)), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := Open(path)
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error naming the file and saying %q", c.name, err, c.want)
		}
	}
}
