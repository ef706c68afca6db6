package ownnet

import (
	"context"
	"net"
	"slices"
	"sync"

	"github.com/gotachyon/profiler/internal/goid"
	"github.com/gotachyon/profiler/internal/own"
)

// DialFunc is the signature of net.Dialer.DialContext and of
// http.Transport.DialContext.
type DialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

// Dial returns dial with the calling goroutine the profiler's while it
// dials and, if it succeeds, until the connection closes; the connection is
// Conn's. For an http.Transport the profiler owns: the transport dials on
// a goroutine of its own, and reads and writes on two more.
func Dial(dial DialFunc) DialFunc {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		id := goid.Current()
		own.Claim(id)
		c, err := dial(ctx, network, addr)
		if err != nil {
			own.Release(id)
			return nil, err
		}
		return &conn{Conn: c, ids: []uint64{id}}, nil
	}
}

// Conn returns c with every goroutine that reads or writes it the
// profiler's until it is closed: for a connection the profiler makes
// itself, whose transport (net/http's, gRPC's) reads and writes it on
// goroutines of its own, out of the profiler's reach. No goroutine of the
// program may read or write it.
func Conn(c net.Conn) net.Conn { return &conn{Conn: c} }

// maxConnClaims bounds the goroutines one connection claims: the dial, the
// handshake, the reader and the writer are all there are, in practice.
const maxConnClaims = 16

// conn is a connection that claims the goroutines that use it.
type conn struct {
	net.Conn
	mu     sync.Mutex
	ids    []uint64 // goroutines claimed, until Close
	closed bool
}

// Read claims the calling goroutine and reads.
func (c *conn) Read(b []byte) (int, error) {
	c.claim()
	return c.Conn.Read(b)
}

// Write claims the calling goroutine and writes.
func (c *conn) Write(b []byte) (int, error) {
	c.claim()
	return c.Conn.Write(b)
}

// Close closes the connection and ends its claims.
func (c *conn) Close() error {
	c.mu.Lock()
	ids := c.ids
	c.ids, c.closed = nil, true
	c.mu.Unlock()
	for _, id := range ids {
		own.Release(id)
	}
	return c.Conn.Close()
}

// claim makes the calling goroutine the profiler's until Close.
func (c *conn) claim() {
	id := goid.Current()
	if id == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || len(c.ids) >= maxConnClaims || slices.Contains(c.ids, id) {
		return
	}
	c.ids = append(c.ids, id)
	own.Claim(id)
}
