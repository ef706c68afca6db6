package hostilestore

import (
	"encoding/binary"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// Endless returns a handler that reads the request, then answers status
// with contentType, the bytes of prefix and then zeros, until the client
// goes away.
func Endless(status int, contentType string, prefix []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		readRequest(r)
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(status)
		if _, err := w.Write(prefix); err != nil {
			return
		}
		zeros := make([]byte, 32<<10)
		for {
			if _, err := w.Write(zeros); err != nil {
				return
			}
		}
	}
}

// EndlessHeaders returns an HTTP/1.1 handler that reads the request, then
// answers 200 with headers without end, until the client goes away.
func EndlessHeaders() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		readRequest(r)
		conn, buf, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: application/proto\r\n")
		line := "X-Pad: " + strings.Repeat("z", 1000) + "\r\n"
		for {
			if _, err := buf.WriteString(line); err != nil {
				return
			}
			if err := buf.Flush(); err != nil {
				return
			}
		}
	}
}

// readRequest reads the request's body to its end, so that the answer
// is what the client meets: a client still sending when its connection is
// closed (because the answer broke a bound) would report the failed write
// instead, as a client may.
func readRequest(r *http.Request) {
	_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, 64<<20))
}

// GRPCPrefix returns the header of an uncompressed gRPC message of n
// bytes.
func GRPCPrefix(n uint32) []byte {
	return binary.BigEndian.AppendUint32([]byte{0}, n)
}

// Serve serves h on a 127.0.0.1 port over HTTP/1.1 and unencrypted HTTP/2
// (which gRPC speaks) until the test ends, and returns its address and a
// function that closes the server and its connections.
func Serve(t testing.TB, h http.Handler) (addr string, stop func()) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var p http.Protocols
	p.SetHTTP1(true)
	p.SetUnencryptedHTTP2(true)
	srv := &http.Server{Handler: h, Protocols: &p}
	go srv.Serve(l)
	var once sync.Once
	stop = func() { once.Do(func() { srv.Close() }) }
	t.Cleanup(stop)
	return l.Addr().String(), stop
}
