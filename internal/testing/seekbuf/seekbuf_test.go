package seekbuf

import (
	"bytes"
	"io"
	"testing"
)

func TestBuffer(t *testing.T) {
	var b Buffer
	b.Write([]byte("hello world"))
	if _, err := b.Seek(0, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	b.Write([]byte("J"))
	if _, err := b.Seek(2, io.SeekEnd); err != nil {
		t.Fatal(err)
	}
	b.Write([]byte("!"))
	want := []byte("Jello world\x00\x00!")
	if !bytes.Equal(b.Bytes(), want) {
		t.Fatalf("got %q want %q", b.Bytes(), want)
	}
	p := make([]byte, 5)
	if n, err := b.ReadAt(p, 12); n != 2 || err != io.EOF || string(p[:2]) != "\x00!" {
		t.Fatalf("ReadAt = %d, %v, %q", n, err, p[:n])
	}
	if _, err := b.Seek(-100, io.SeekCurrent); err == nil {
		t.Fatal("negative seek accepted")
	}
}
