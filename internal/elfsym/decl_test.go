package elfsym

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/testutil"
)

// declProg declares main.twice, inlined everywhere, at line 5 and
// main.main at line 9.
const declProg = `package main

var n = 1

func twice(x int) int { return 2 * x }

var sink int

func main() { sink = twice(n) }
`

// buildDeclProg builds declProg with the extra go build flags and opens it.
func buildDeclProg(t *testing.T, flags ...string) *elf.File {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(dir, "main.go")
	if err := os.WriteFile(src, []byte(declProg), 0o644); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "prog")
	cmd := exec.Command(testutil.Tool(t, "go"), append(append([]string{"build", "-o", exe}, flags...), src)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	f, err := elf.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// TestDeclLines reads the declaration lines of a function inlined
// everywhere (absent from the line table) and of main.main from DWARF,
// and nothing, without error, from a binary linked without DWARF.
func TestDeclLines(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	want := map[string]bool{"main.twice": true, "main.main": true, "main.absent": true}
	lines, err := DeclLines(buildDeclProg(t), want)
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 2 || lines["main.twice"] != 5 || lines["main.main"] != 9 {
		t.Errorf("declaration lines %v, want main.twice 5, main.main 9", lines)
	}
	lines, err = DeclLines(buildDeclProg(t, "-ldflags=-w"), want)
	if err != nil || len(lines) != 0 {
		t.Errorf("without DWARF: %v, %v; want none, no error", lines, err)
	}
}
