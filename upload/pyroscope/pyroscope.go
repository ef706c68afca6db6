package pyroscope

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync/atomic"

	"connectrpc.com/connect"
	"github.com/google/pprof/profile"
	pushv1 "github.com/grafana/pyroscope/api/gen/proto/go/push/v1"
	"github.com/grafana/pyroscope/api/gen/proto/go/push/v1/pushv1connect"
	typesv1 "github.com/grafana/pyroscope/api/gen/proto/go/types/v1"
	"google.golang.org/protobuf/proto"

	"github.com/gotachyon/profiler/internal/own/ownnet"
	"github.com/gotachyon/profiler/upload/internal/endpoint"
)

// Label names the client sets.
const (
	LabelName    = "__name__"
	LabelService = "service_name"
)

// Profile names (the __name__ label) of wall and CPU profiles.
const (
	NameWall = "wall"
	NameCPU  = "process_cpu"
	// CaptureSuffix ends the profile name of a capture (EncodeCapture):
	// wall_capture, process_cpu_capture, profile types of their own, so
	// that a query of a service's wall time does not add a capture's
	// seconds to the segments' that hold them already.
	CaptureSuffix = "_capture"
	// LabelCapture is the series label of a capture's reason.
	LabelCapture = "capture"
)

// Client pushes to one Pyroscope server.
type Client struct {
	http   *http.Client
	push   *connect.Client[encoded, pushv1.PushResponse]
	auth   string               // the Authorization header, or ""
	labels []*typesv1.LabelPair // service_name and the static labels, sorted by name
}

// New returns a client of the Pyroscope server at baseURL (such as
// http://pyroscope:4040) that labels every profile with service and labels.
// A user and password in baseURL are sent as HTTP basic authentication.
// The client reads at most a small response from the server: a longer
// one fails the push, without being read to its end.
func New(baseURL, service string, labels map[string]string) (*Client, error) {
	e, err := endpoint.Parse(baseURL)
	if err != nil {
		return nil, fmt.Errorf("pyroscope: %w", err)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxResponseHeaderBytes = endpoint.MaxHeaderBytes
	// The goroutines the transport starts to dial, read and write are the
	// profiler's, left out of the profiles.
	tr.DialContext = ownnet.Dial(tr.DialContext)
	hc := &http.Client{Transport: limited{tr}, CheckRedirect: refuseRedirect}
	push := connect.NewClient[encoded, pushv1.PushResponse](hc,
		strings.TrimRight(e.URL.String(), "/")+pushv1connect.PusherServicePushProcedure,
		connect.WithCodec(codec{}), connect.WithReadMaxBytes(endpoint.MaxResponseBytes))
	c := &Client{http: hc, push: push, auth: e.Authorization}
	c.labels = append(c.labels, &typesv1.LabelPair{Name: LabelService, Value: service})
	for k, v := range labels {
		c.labels = append(c.labels, &typesv1.LabelPair{Name: k, Value: v})
	}
	sort.Slice(c.labels, func(i, j int) bool { return c.labels[i].Name < c.labels[j].Name })
	return c, nil
}

// Encode returns the PushRequest of p, marshaled. It renames p's sample
// labels whose names are not Prometheus label names, in place, as
// nameLabels says: http.route becomes http_route.
func (c *Client) Encode(p *profile.Profile) ([]byte, error) {
	return c.encode(p, []*typesv1.LabelPair{{Name: LabelName, Value: name(p)}})
}

// EncodeCapture is Encode for a capture taken for reason (see
// profiler.Capture): its profile name is the profile's with
// CaptureSuffix, and it has the series label capture=reason.
func (c *Client) EncodeCapture(p *profile.Profile, reason string) ([]byte, error) {
	return c.encode(p, []*typesv1.LabelPair{{Name: LabelName, Value: name(p) + CaptureSuffix}, {Name: LabelCapture, Value: reason}})
}

// encode is Encode with the labels own before the client's.
func (c *Client) encode(p *profile.Profile, own []*typesv1.LabelPair) ([]byte, error) {
	nameLabels(p)
	var gz bytes.Buffer
	if err := p.Write(&gz); err != nil {
		return nil, fmt.Errorf("pyroscope: %w", err)
	}
	labels := append(own, c.labels...)
	req := &pushv1.PushRequest{Series: []*pushv1.RawProfileSeries{{
		Labels:  labels,
		Samples: []*pushv1.RawSample{{RawProfile: gz.Bytes(), ID: newUUID()}},
	}}}
	data, err := proto.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("pyroscope: %w", err)
	}
	return data, nil
}

// name returns p's profile name: NameCPU for a profile whose sample types
// are cpu time, else NameWall.
func name(p *profile.Profile) string {
	if p.PeriodType != nil && p.PeriodType.Type == "cpu" {
		return NameCPU
	}
	return NameWall
}

// Send pushes one payload of Encode, as it is.
func (c *Client) Send(ctx context.Context, payload []byte) error {
	req := connect.NewRequest((*encoded)(&payload))
	if c.auth != "" {
		req.Header().Set("Authorization", c.auth)
	}
	var status atomic.Int32
	if _, err := c.push.CallUnary(context.WithValue(ctx, statusKey{}, &status), req); err != nil {
		if refusedForGood(int(status.Load())) {
			return fmt.Errorf("pyroscope: %w (HTTP %d): %w", errRefused, status.Load(), err)
		}
		return fmt.Errorf("pyroscope: %w", err)
	}
	return nil
}

// errRefused is why a push the store refused for good failed.
var errRefused = errors.New("the store refused the push")

// refusedForGood reports whether an HTTP status refuses the request
// itself (400 Bad Request, 413 Content Too Large and the like), which a
// retry would send unchanged: a 4xx but 408 (timeout) and 429 (too many
// requests). Connect reports a plain 400 as internal and 413 as unknown,
// codes it retries.
func refusedForGood(status int) bool {
	return status >= 400 && status < 500 && status != http.StatusRequestTimeout && status != http.StatusTooManyRequests
}

// Retryable reports whether a push that failed with err may pass later:
// not when the server refused the request itself (by its Connect code or
// its HTTP status), or redirected it.
func (c *Client) Retryable(err error) bool {
	if errors.Is(err, errRedirect) || errors.Is(err, errRefused) {
		return false
	}
	switch connect.CodeOf(err) {
	case connect.CodeInvalidArgument, connect.CodeUnauthenticated, connect.CodePermissionDenied,
		connect.CodeUnimplemented, connect.CodeFailedPrecondition, connect.CodeOutOfRange, connect.CodeNotFound:
		return false
	}
	return true
}

// Close closes the client's idle connections.
func (c *Client) Close() error {
	c.http.CloseIdleConnections()
	return nil
}

// newUUID returns a random (version 4) UUID.
func newUUID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// errRedirect is why a push that the store redirected failed.
var errRedirect = errors.New("pushes follow no redirect")

// refuseRedirect refuses every redirect: a push goes to the URL configured
// and nowhere else, so that neither the payload nor the credentials follow
// a store (or whatever answers at its URL) to another host, port or scheme.
func refuseRedirect(req *http.Request, via []*http.Request) error {
	return fmt.Errorf("the store redirects to %s: %w (set PROFILE_UPLOAD to the store's own URL)", endpoint.Redact(req.URL.Redacted()), errRedirect)
}
