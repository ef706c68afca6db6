package jsonl

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
)

// FuzzInput reads arbitrary bytes as encoder input (`tachyon encode`
// reads a user's file through it): it must end in io.EOF or an error
// that names its line, never a panic, and every meta line and sample it reads must read back
// the same after Encoder writes it. The seeds in testdata/fuzz/FuzzInput
// are the small input vectors of the shared Tachyon test vectors.
func FuzzInput(f *testing.F) {
	f.Add([]byte("{\"meta\":{\"start_time_us\":1,\"interval_us\":1000}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := NewInput(bytes.NewReader(data))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "line ") {
				t.Fatalf("an error that names no line: %v", err)
			}
			return
		}
		var out bytes.Buffer
		meta, err := json.Marshal(map[string]Meta{"meta": in.Meta})
		if err != nil {
			t.Fatalf("meta %+v does not encode: %v", in.Meta, err)
		}
		out.Write(append(meta, '\n'))
		enc := NewEncoder(&out)
		var read []Sample
		for {
			var s Sample
			if err := in.Next(&s); err != nil {
				if !errors.Is(err, io.EOF) && !strings.HasPrefix(err.Error(), "line ") {
					t.Fatalf("an error that names no line: %v", err)
				}
				break
			}
			if err := enc.Encode(&s); err != nil {
				t.Fatalf("line %d: sample %+v does not encode: %v", in.Line(), s, err)
			}
			read = append(read, s)
		}
		again, err := NewInput(&out)
		if err != nil {
			t.Fatalf("what Encoder wrote does not read back: %v\n%s", err, out.Bytes())
		}
		if again.Meta != in.Meta {
			t.Fatalf("meta %+v read back as %+v", in.Meta, again.Meta)
		}
		for i, want := range read {
			var got Sample
			if err := again.Next(&got); err != nil || !got.Equal(want) {
				t.Fatalf("sample %d: %+v read back as %+v (%v)", i, want, got, err)
			}
		}
		var s Sample
		if err := again.Next(&s); err != io.EOF {
			t.Fatalf("after %d samples: %v, want io.EOF", len(read), err)
		}
	})
}
