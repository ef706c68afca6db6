package pyroscope

import (
	"bytes"
	"io"
	"net/http"
	"sync/atomic"

	"github.com/gotachyon/profiler/upload/internal/endpoint"
)

// limited is an http.RoundTripper whose responses' bodies are bounded: an
// answer's body fails after endpoint.MaxResponseBytes with an
// http.MaxBytesError, which Connect reports as resource_exhausted; an
// error's body is cut to its first endpoint.MaxErrorBytes, enough for its
// message, and the rest is not read. Connect reads a body to its end to
// reuse the connection, so without this bound an endless body would be
// read for as long as the push lasts.
type limited struct {
	rt http.RoundTripper
}

// statusKey is the context key under which Send asks RoundTrip for the
// HTTP status of its push, an *atomic.Int32: Connect's codes do not tell
// a store's plain 400 from its 500.
type statusKey struct{}

// RoundTrip sends req and bounds the body of its response.
func (l limited) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := l.rt.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if p, ok := req.Context().Value(statusKey{}).(*atomic.Int32); ok {
		p.Store(int32(resp.StatusCode))
	}
	if resp.StatusCode == http.StatusOK {
		resp.Body = http.MaxBytesReader(nil, resp.Body, endpoint.MaxResponseBytes)
		return resp, nil
	}
	prefix, err := io.ReadAll(io.LimitReader(resp.Body, endpoint.MaxErrorBytes))
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(prefix))
	resp.ContentLength = int64(len(prefix))
	return resp, nil
}

// CloseIdleConnections closes the wrapped transport's idle connections:
// http.Client.CloseIdleConnections reaches the transport only through it.
func (l limited) CloseIdleConnections() {
	if c, ok := l.rt.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}
