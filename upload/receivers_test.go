package upload_test

import (
	"context"
	"errors"
	"maps"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"

	"connectrpc.com/connect"
	"github.com/google/pprof/profile"
	pushv1 "github.com/grafana/pyroscope/api/gen/proto/go/push/v1"
	"github.com/grafana/pyroscope/api/gen/proto/go/push/v1/pushv1connect"
	"go.opentelemetry.io/collector/pdata/pprofile"
	"go.opentelemetry.io/collector/pdata/pprofile/pprofileotlp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
)

// received is one profile a receiver got: its series labels (Pyroscope)
// or resource attributes (OTLP), and its totals per sample label set.
type received struct {
	series    map[string]string
	totals    totals
	split     totals          // Pyroscope: the totals of each series its distributor makes, by labels.set
	labelKeys map[string]bool // every sample label (attribute) name seen
	// time and duration are the range the profile states, in ns: pprof's
	// TimeNanos and DurationNanos, OTLP's time and duration (those of
	// every profile of the resource; -1 if they differ).
	time, duration int64
}

// receiver records what it receives, and can go down and come back on the
// same 127.0.0.1 address.
type receiver struct {
	t      *testing.T
	addr   string
	serve  func(net.Listener) (stop func())
	mu     sync.Mutex
	got    []received
	refuse bool     // answer InvalidArgument
	auths  []string // the authorization of each push
	stop   func()
}

// listen reserves a 127.0.0.1 port and returns its address, not listening.
func listen(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// up starts serving on r.addr.
func (r *receiver) up() {
	r.t.Helper()
	l, err := net.Listen("tcp", r.addr)
	if err != nil {
		r.t.Fatal(err)
	}
	r.stop = r.serve(l)
	r.t.Cleanup(r.down)
}

// down stops serving; the address refuses connections.
func (r *receiver) down() {
	if r.stop != nil {
		r.stop()
		r.stop = nil
	}
}

// record keeps rec, or reports that r refuses it.
func (r *receiver) record(rec received) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.refuse {
		return false
	}
	r.got = append(r.got, rec)
	return true
}

// authorized records the authorization of a push.
func (r *receiver) authorized(auth string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.auths = append(r.auths, auth)
}

// authorizations returns the authorization of each push, in order.
func (r *receiver) authorizations() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.auths...)
}

// received returns what r got, in order.
func (r *receiver) received() []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]received(nil), r.got...)
}

// newPyroscope returns a Pyroscope receiver: the push.v1.PusherService
// handler of pushv1connect over HTTP/1.1.
func newPyroscope(t *testing.T) *receiver {
	r := &receiver{t: t, addr: listen(t)}
	r.serve = func(l net.Listener) func() {
		mux := http.NewServeMux()
		mux.Handle(pushv1connect.NewPusherServiceHandler(pyroscopeHandler{r}))
		srv := &http.Server{Handler: mux}
		go srv.Serve(l)
		return func() { srv.Close() }
	}
	return r
}

type pyroscopeHandler struct{ r *receiver }

// Push decodes every series' pprof profiles.
func (h pyroscopeHandler) Push(_ context.Context, req *connect.Request[pushv1.PushRequest]) (*connect.Response[pushv1.PushResponse], error) {
	h.r.authorized(req.Header().Get("Authorization"))
	for _, s := range req.Msg.Series {
		series := map[string]string{}
		for _, l := range s.Labels {
			series[l.Name] = l.Value
		}
		for _, raw := range s.Samples {
			p, err := profile.ParseData(raw.RawProfile)
			if err != nil {
				return nil, connect.NewError(connect.CodeInvalidArgument, err)
			}
			if raw.ID == "" {
				return nil, connect.NewError(connect.CodeInvalidArgument, errors.New("no profile ID"))
			}
			if !h.r.record(pprofReceived(series, p)) {
				return nil, connect.NewError(connect.CodeInvalidArgument, errors.New("refused"))
			}
		}
	}
	return connect.NewResponse(&pushv1.PushResponse{}), nil
}

// pprofReceived sums p's samples per label set.
func pprofReceived(series map[string]string, p *profile.Profile) received {
	rec := received{series: series, totals: totals{}, split: totals{}, labelKeys: map[string]bool{}, time: p.TimeNanos, duration: p.DurationNanos}
	idx := map[string]int{}
	for i, st := range p.SampleType {
		idx[st.Type] = i
	}
	for _, s := range p.Sample {
		kv := map[string]string{}
		for k, vs := range s.Label {
			rec.labelKeys[k] = true
			kv[k] = first(vs)
		}
		ls := labels{state: kv["state"], reason: kv["wait_reason"], set: labelSet(kv, "state", "wait_reason")}
		// The series Pyroscope's distributor makes of the sample: the
		// push's labels, and the sample's where the push has none.
		series := maps.Clone(kv)
		maps.Copy(series, rec.series)
		rec.split.add(labels{set: labelSet(series)}, value{s.Value[idx["samples"]], s.Value[idx["wall"]], s.Value[idx["on_cpu"]]})
		rec.totals.add(ls, value{s.Value[idx["samples"]], s.Value[idx["wall"]], s.Value[idx["on_cpu"]]})
	}
	return rec
}

func first(vs []string) string {
	if len(vs) == 0 {
		return ""
	}
	return vs[0]
}

// newOTLP returns an OTLP receiver: pprofileotlp's gRPC server.
func newOTLP(t *testing.T) *receiver {
	r := &receiver{t: t, addr: listen(t)}
	r.serve = func(l net.Listener) func() {
		srv := grpc.NewServer()
		pprofileotlp.RegisterGRPCServer(srv, &otlpHandler{r: r})
		go srv.Serve(l)
		return srv.Stop
	}
	return r
}

type otlpHandler struct {
	pprofileotlp.UnimplementedGRPCServer
	r *receiver
}

// Export sums each resource's profiles per sample type and attributes.
func (h *otlpHandler) Export(ctx context.Context, req pprofileotlp.ExportRequest) (pprofileotlp.ExportResponse, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	h.r.authorized(strings.Join(md.Get("authorization"), ","))
	pd := req.Profiles()
	for _, rp := range pd.ResourceProfiles().All() {
		series := map[string]string{}
		for k, v := range rp.Resource().Attributes().All() {
			series[k] = v.AsString()
		}
		if !h.r.record(otlpReceived(series, pd.Dictionary(), rp)) {
			resp := pprofileotlp.NewExportResponse()
			resp.PartialSuccess().SetRejectedProfiles(1)
			return resp, nil
		}
	}
	return pprofileotlp.NewExportResponse(), nil
}

// otlpReceived sums rp's samples, each profile into the field of its
// sample type.
func otlpReceived(series map[string]string, d pprofile.ProfilesDictionary, rp pprofile.ResourceProfiles) received {
	rec := received{series: series, totals: totals{}, labelKeys: map[string]bool{}}
	strs := d.StringTable()
	for _, sp := range rp.ScopeProfiles().All() {
		for i, p := range sp.Profiles().All() {
			switch t, d := int64(p.Time()), int64(p.DurationNano()); {
			case i == 0:
				rec.time, rec.duration = t, d
			case t != rec.time || d != rec.duration:
				rec.time, rec.duration = -1, -1
			}
			typ := strs.At(int(p.SampleType().TypeStrindex()))
			for _, s := range p.Samples().All() {
				kv := map[string]string{}
				for _, ai := range s.AttributeIndices().All() {
					a := d.AttributeTable().At(int(ai))
					k := strs.At(int(a.KeyStrindex()))
					rec.labelKeys[k] = true
					kv[k] = a.Value().AsString()
				}
				ls := labels{state: kv["state"], reason: kv["wait_reason"], set: labelSet(kv, "state", "wait_reason")}
				var v value
				for _, x := range s.Values().All() {
					switch typ {
					case "samples":
						v.samples += x
					case "wall":
						v.wall += x
					case "on_cpu":
						v.onCPU += x
					}
				}
				rec.totals.add(ls, v)
			}
		}
	}
	return rec
}
