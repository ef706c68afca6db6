package otlp

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net/url"

	"github.com/google/pprof/profile"
	"go.opentelemetry.io/collector/pdata/pprofile/pprofileotlp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
)

// Client exports to one OTLP collector.
type Client struct {
	conn    *grpc.ClientConn
	export  pprofileotlp.GRPCClient
	service string
	labels  map[string]string
}

// New returns a client of the collector at rawURL: otlp://host:port or
// http://host:port in plain text, otlps://host:port or https://host:port
// with TLS. Every profile's resource has the attributes service.name =
// service and labels. It does not connect yet.
func New(rawURL, service string, labels map[string]string) (*Client, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("otlp: %w", err)
	}
	creds := insecure.NewCredentials()
	if u.Scheme == "otlps" || u.Scheme == "https" {
		creds = credentials.NewTLS(&tls.Config{MinVersion: tls.VersionTLS12})
	}
	conn, err := grpc.NewClient(u.Host, grpc.WithTransportCredentials(creds))
	if err != nil {
		return nil, fmt.Errorf("otlp: %w", err)
	}
	return &Client{conn: conn, export: pprofileotlp.NewGRPCClient(conn), service: service, labels: labels}, nil
}

// Encode returns the ExportRequest of p, marshaled.
func (c *Client) Encode(p *profile.Profile) ([]byte, error) {
	req := pprofileotlp.NewExportRequestFromProfiles(convert(p, c.service, c.labels))
	data, err := req.MarshalProto()
	if err != nil {
		return nil, fmt.Errorf("otlp: %w", err)
	}
	return data, nil
}

// Send exports one payload of Encode. A partial success (profiles the
// collector rejected) is an error that is not retried.
func (c *Client) Send(ctx context.Context, payload []byte) error {
	req := pprofileotlp.NewExportRequest()
	if err := req.UnmarshalProto(payload); err != nil {
		return fmt.Errorf("otlp: %w", errors.Join(errRefused, err))
	}
	resp, err := c.export.Export(ctx, req)
	if err != nil {
		return fmt.Errorf("otlp: %w", err)
	}
	if ps := resp.PartialSuccess(); ps.RejectedProfiles() > 0 {
		return fmt.Errorf("otlp: %w: %d profiles: %s", errRefused, ps.RejectedProfiles(), ps.ErrorMessage())
	}
	return nil
}

// errRefused marks a payload that will not pass later: undecodable, or
// rejected by the collector.
var errRefused = errors.New("refused")

// Retryable reports whether an export that failed with err may pass later:
// not when the collector refused the request itself.
func (c *Client) Retryable(err error) bool {
	if errors.Is(err, errRefused) {
		return false
	}
	switch status.Code(err) {
	case codes.InvalidArgument, codes.Unauthenticated, codes.PermissionDenied,
		codes.Unimplemented, codes.FailedPrecondition, codes.OutOfRange, codes.NotFound:
		return false
	}
	return true
}

// Close closes the connection.
func (c *Client) Close() error {
	if err := c.conn.Close(); err != nil {
		return fmt.Errorf("otlp: %w", err)
	}
	return nil
}
