package jsonl

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
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
