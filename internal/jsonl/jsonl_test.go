package jsonl

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gotachyon/profiler/tachyon"
)

// TestStackUnmarshal: a stack reads back what MarshalJSON wrote, null
// reads as an empty name or line 0, and a frame that is not [string,
// string, 32-bit integer] is an error naming the frame.
func TestStackUnmarshal(t *testing.T) {
	want := Stack{
		{File: "main.go", Func: "main.main", Line: 12},
		{File: `a"b\c.go`, Func: "f\x00\t\n<&>é", Line: -1 << 31},
		{Line: 1<<31 - 1},
	}
	b, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	var got Stack
	if err := json.Unmarshal(b, &got); err != nil || !slices.Equal(got, want) {
		t.Fatalf("round trip of %s: %v, %v", b, got, err)
	}
	if err := json.Unmarshal([]byte(`[[null,null,null]]`), &got); err != nil || !slices.Equal(got, Stack{{}}) {
		t.Errorf("nulls: %v, %v", got, err)
	}
	for _, bad := range []string{
		`[null]`, `[["a","b"]]`, `[["a","b",1,2]]`, `[[1,"b",1]]`, `[["a",{},1]]`,
		`[["a","b","1"]]`, `[["a","b",1.5]]`, `[["a","b",1e2]]`, `[["a","b",2147483648]]`, `[["a","b",true]]`,
	} {
		err := json.Unmarshal([]byte(`[["ok","ok",1],`+bad[1:]), &got)
		if err == nil || !strings.HasPrefix(err.Error(), "frame 1: ") {
			t.Errorf("%s: error %v, want one naming frame 1", bad, err)
		}
	}
	for _, bad := range []string{`{}`, `[1]`, `[[`} {
		if err := json.Unmarshal([]byte(bad), &got); err == nil {
			t.Errorf("%s: read without an error", bad)
		}
	}
}

// failAfter returns its data, then err.
type failAfter struct {
	data []byte
	err  error
}

func (r *failAfter) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, r.err
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

// TestInputReadError: an error reading the input names the line being
// read, as a malformed line's does.
func TestInputReadError(t *testing.T) {
	broken := errors.New("disk gone")
	in, err := NewInput(&failAfter{data: []byte("{\"meta\":{\"interval_us\":1000}}\n"), err: broken})
	if err != nil {
		t.Fatal(err)
	}
	var s Sample
	err = in.Next(&s)
	if !errors.Is(err, broken) || !strings.HasPrefix(err.Error(), "line 2: ") {
		t.Fatalf("Next: %v, want the read error on line 2", err)
	}
	if _, err := NewInput(&failAfter{err: broken}); !errors.Is(err, broken) || !strings.HasPrefix(err.Error(), "line 1: ") {
		t.Fatalf("NewInput: %v, want the read error on line 1", err)
	}
}

// TestStackDeeperThanAFile: a stack deeper than a file can hold keeps its
// innermost tachyon.MaxReadDepth frames, and a bad frame past them is
// still an error.
func TestStackDeeperThanAFile(t *testing.T) {
	n := tachyon.MaxReadDepth + 10
	var b strings.Builder
	b.WriteString("[")
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `["f.go","fn",%d]`, i)
	}
	var got Stack
	if err := json.Unmarshal([]byte(b.String()+"]"), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != tachyon.MaxReadDepth || got[0].Line != 0 || got[len(got)-1].Line != int32(tachyon.MaxReadDepth-1) {
		t.Errorf("kept %d frames, lines %d..%d; want the innermost %d", len(got), got[0].Line, got[len(got)-1].Line, tachyon.MaxReadDepth)
	}
	err := json.Unmarshal([]byte(b.String()+`,["f.go",1,1]]`), &got)
	if want := fmt.Sprintf("frame %d: ", n); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("a bad frame past the kept ones: %v, want an error naming it", err)
	}
}
