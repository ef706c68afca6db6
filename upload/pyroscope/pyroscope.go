package pyroscope

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"sort"

	"connectrpc.com/connect"
	"github.com/google/pprof/profile"
	pushv1 "github.com/grafana/pyroscope/api/gen/proto/go/push/v1"
	"github.com/grafana/pyroscope/api/gen/proto/go/push/v1/pushv1connect"
	typesv1 "github.com/grafana/pyroscope/api/gen/proto/go/types/v1"
	"google.golang.org/protobuf/proto"
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
)

// Client pushes to one Pyroscope server.
type Client struct {
	http   *http.Client
	push   pushv1connect.PusherServiceClient
	labels []*typesv1.LabelPair // service_name and the static labels, sorted by name
}

// New returns a client of the Pyroscope server at baseURL (such as
// http://pyroscope:4040) that labels every profile with service and labels.
func New(baseURL, service string, labels map[string]string) (*Client, error) {
	hc := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	c := &Client{http: hc, push: pushv1connect.NewPusherServiceClient(hc, baseURL)}
	c.labels = append(c.labels, &typesv1.LabelPair{Name: LabelService, Value: service})
	for k, v := range labels {
		c.labels = append(c.labels, &typesv1.LabelPair{Name: k, Value: v})
	}
	sort.Slice(c.labels, func(i, j int) bool { return c.labels[i].Name < c.labels[j].Name })
	return c, nil
}

// Encode returns the PushRequest of p, marshaled.
func (c *Client) Encode(p *profile.Profile) ([]byte, error) {
	var gz bytes.Buffer
	if err := p.Write(&gz); err != nil {
		return nil, fmt.Errorf("pyroscope: %w", err)
	}
	labels := append([]*typesv1.LabelPair{{Name: LabelName, Value: name(p)}}, c.labels...)
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

// Send pushes one payload of Encode.
func (c *Client) Send(ctx context.Context, payload []byte) error {
	req := &pushv1.PushRequest{}
	if err := proto.Unmarshal(payload, req); err != nil {
		return fmt.Errorf("pyroscope: %w", errors.Join(errBadPayload, err))
	}
	if _, err := c.push.Push(ctx, connect.NewRequest(req)); err != nil {
		return fmt.Errorf("pyroscope: %w", err)
	}
	return nil
}

// errBadPayload marks a payload Send cannot decode.
var errBadPayload = errors.New("not a payload of Encode")

// Retryable reports whether a push that failed with err may pass later:
// not when the server refused the request itself.
func (c *Client) Retryable(err error) bool {
	if errors.Is(err, errBadPayload) {
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
