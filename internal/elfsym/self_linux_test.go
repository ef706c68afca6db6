package elfsym

import (
	"os"
	"reflect"
	"runtime"
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
