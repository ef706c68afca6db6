package otlp

import (
	"context"
	"net"

	"google.golang.org/grpc/credentials"

	"github.com/gotachyon/profiler/internal/own/ownnet"
)

// ownCreds are transport credentials whose connections make the goroutines
// that read and write them (gRPC's handshake, reader and writer) the
// profiler's, left out of the profiles. It wraps the connection after
// gRPC has dialed it, through a proxy if the environment names one, which
// a custom dialer would turn off.
type ownCreds struct {
	credentials.TransportCredentials
}

// ClientHandshake claims the connection's goroutines and runs the
// handshake of the credentials wrapped.
func (c ownCreds) ClientHandshake(ctx context.Context, authority string, raw net.Conn) (net.Conn, credentials.AuthInfo, error) {
	return c.TransportCredentials.ClientHandshake(ctx, authority, ownnet.Conn(raw))
}

// Clone returns a copy of c.
func (c ownCreds) Clone() credentials.TransportCredentials {
	return ownCreds{c.TransportCredentials.Clone()}
}
