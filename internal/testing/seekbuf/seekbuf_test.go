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

func TestDiscard(t *testing.T) {
	var d Discard
	d.Write(make([]byte, 100))
	if off, err := d.Seek(10, io.SeekStart); off != 10 || err != nil {
		t.Fatalf("Seek(10, start) = %d, %v", off, err)
	}
	d.Write(make([]byte, 5))
	if off, _ := d.Seek(0, io.SeekCurrent); off != 15 {
		t.Errorf("offset %d after a write of 5 at 10, want 15", off)
	}
	if off, _ := d.Seek(-1, io.SeekEnd); off != 99 || d.Size() != 100 {
		t.Errorf("Seek(-1, end) = %d, Size %d; want 99, 100", off, d.Size())
	}
	if _, err := d.Seek(-1, io.SeekStart); err == nil {
		t.Error("a negative offset was accepted")
	}
}
