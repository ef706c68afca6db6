package otlp

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"

	"github.com/google/pprof/profile"
	"go.opentelemetry.io/collector/pdata/pprofile/pprofileotlp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/gotachyon/profiler/upload/internal/endpoint"
)

// Client exports to one OTLP collector.
type Client struct {
	conn    *grpc.ClientConn
	service string
	labels  map[string]string
}

// New returns a client of the collector at rawURL: otlp://host:port or
// http://host:port in plain text, otlps://host:port or https://host:port
// with TLS. Every profile's resource has the attributes service.name =
// service and labels. A user and password in rawURL are sent as the
// authorization metadata of HTTP basic authentication. The client reads
// at most a small response from the collector: a longer one fails the
// export. It does not connect yet.
func New(rawURL, service string, labels map[string]string) (*Client, error) {
	e, err := endpoint.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("otlp: %w", err)
	}
	creds := insecure.NewCredentials()
	if e.URL.Scheme == "otlps" || e.URL.Scheme == "https" {
		creds = credentials.NewTLS(&tls.Config{MinVersion: tls.VersionTLS12})
	}
	opts := []grpc.DialOption{
		grpc.WithTransportCredentials(ownCreds{creds}),
		grpc.WithMaxHeaderListSize(endpoint.MaxHeaderBytes),
		grpc.WithDefaultCallOptions(grpc.ForceCodecV2(codec{}), grpc.MaxCallRecvMsgSize(endpoint.MaxResponseBytes)),
	}
	if e.Authorization != "" {
		opts = append(opts, grpc.WithPerRPCCredentials(basicAuth(e.Authorization)))
	}
	conn, err := grpc.NewClient(e.URL.Host, opts...)
	if err != nil {
		return nil, fmt.Errorf("otlp: %w", err)
	}
	return &Client{conn: conn, service: service, labels: labels}, nil
}

// AttrCapture is the resource attribute of a capture's reason
// (EncodeCapture).
const AttrCapture = "capture"

// Encode returns the ExportRequest of p, marshaled.
func (c *Client) Encode(p *profile.Profile) ([]byte, error) {
	return c.encode(p, c.labels)
}

// EncodeCapture is Encode for a capture taken for reason (see
// profiler.Capture): its resource has the attribute capture=reason
// beside the client's, a resource of its own, so that a consumer tells
// it from the segments that hold the same time.
func (c *Client) EncodeCapture(p *profile.Profile, reason string) ([]byte, error) {
	labels := make(map[string]string, len(c.labels)+1)
	for k, v := range c.labels {
		labels[k] = v
	}
	labels[AttrCapture] = reason
	return c.encode(p, labels)
}

// encode returns the ExportRequest of p with the resource attributes
// labels, marshaled.
func (c *Client) encode(p *profile.Profile, labels map[string]string) ([]byte, error) {
	req := pprofileotlp.NewExportRequestFromProfiles(convert(p, c.service, labels))
	data, err := req.MarshalProto()
	if err != nil {
		return nil, fmt.Errorf("otlp: %w", err)
	}
	return data, nil
}

// Send exports one payload of Encode, as it is, with the development
// version metadata pprofileotlp's client sends. A partial success
// (profiles the collector rejected) is an error that is not retried.
func (c *Client) Send(ctx context.Context, payload []byte) error {
	ctx = metadata.AppendToOutgoingContext(ctx, pprofileotlp.DevelopmentVersionHeader, pprofileotlp.DevelopmentVersion)
	resp := pprofileotlp.NewExportResponse()
	if err := c.conn.Invoke(ctx, exportMethod, encoded(payload), &resp); err != nil {
		return fmt.Errorf("otlp: %w", err)
	}
	if ps := resp.PartialSuccess(); ps.RejectedProfiles() > 0 {
		return fmt.Errorf("otlp: %w: %d profiles: %s", errRefused, ps.RejectedProfiles(), ps.ErrorMessage())
	}
	return nil
}

// basicAuth is the authorization metadata of HTTP basic authentication.
type basicAuth string

// GetRequestMetadata returns the authorization metadata.
func (a basicAuth) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": string(a)}, nil
}

// RequireTransportSecurity reports false: the credentials go in plain text
// to a plain-text URL, as they do over http.
func (basicAuth) RequireTransportSecurity() bool { return false }

// errRefused marks a payload the collector rejected.
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
