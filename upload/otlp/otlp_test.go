package otlp_test

import (
	"context"
	"fmt"
	"net"
	"runtime"
	"slices"
	"sync"
	"testing"

	"github.com/google/pprof/profile"
	"go.opentelemetry.io/collector/pdata/pprofile/pprofileotlp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/experimental"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/metadata"

	"github.com/gotachyon/profiler/internal/testing/testutil"
	"github.com/gotachyon/profiler/upload/otlp"
)

// bigProfile returns a wall profile of n samples, each with a stack of its
// own, whose OTLP payload weighs some hundred kilobytes.
func bigProfile(n int) *profile.Profile {
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "wall", Unit: "nanoseconds"}},
		PeriodType: &profile.ValueType{Type: "wall", Unit: "nanoseconds"},
		Period:     10_000_000,
	}
	main := &profile.Function{ID: 1, Name: "main.main", Filename: "/src/app/main.go"}
	p.Function = append(p.Function, main)
	root := &profile.Location{ID: 1, Line: []profile.Line{{Function: main, Line: 10}}}
	p.Location = append(p.Location, root)
	for i := range n {
		fn := &profile.Function{ID: uint64(i + 2), Name: fmt.Sprintf("pkg%d.(*Handler%x).Serve", i%97, i*40503), Filename: fmt.Sprintf("/src/pkg%d/handler_%x.go", i%97, i)}
		loc := &profile.Location{ID: uint64(i + 2), Line: []profile.Line{{Function: fn, Line: int64(i)}}}
		p.Function = append(p.Function, fn)
		p.Location = append(p.Location, loc)
		p.Sample = append(p.Sample, &profile.Sample{Location: []*profile.Location{loc, root}, Value: []int64{1, 10_000_000},
			Label: map[string][]string{"state": {"running"}}})
	}
	return p
}

// exported is what a collector got: the request's bytes and metadata.
type exported struct {
	size int
	md   metadata.MD
}

// rawCollector serves the OTLP profiles service on 127.0.0.1 without
// decoding requests: it counts their bytes, sends each on got, and
// answers an empty ExportResponse.
func rawCollector(t *testing.T, got chan<- exported) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer(grpc.ForceServerCodecV2(sizeCodec{}), experimental.BufferPool(&freeList{}), grpc.UnknownServiceHandler(func(_ any, ss grpc.ServerStream) error {
		var size int
		if err := ss.RecvMsg(&size); err != nil {
			return err
		}
		md, _ := metadata.FromIncomingContext(ss.Context())
		got <- exported{size, md}
		return ss.SendMsg(&size)
	}))
	go srv.Serve(l)
	t.Cleanup(srv.Stop)
	return l.Addr().String()
}

// sizeCodec reads a message's size, without copying it, and writes an
// empty message.
type sizeCodec struct{}

func (sizeCodec) Name() string                                { return "proto" }
func (sizeCodec) Marshal(any) (mem.BufferSlice, error)        { return nil, nil }
func (sizeCodec) Unmarshal(data mem.BufferSlice, v any) error { *v.(*int) = data.Len(); return nil }

// freeList is a buffer pool that keeps every buffer put back, where
// sync.Pool drops some under the race detector: the collector's reads
// then allocate nothing once warm, and the bytes allocated during a push
// are the client's.
type freeList struct {
	mu   sync.Mutex
	free []*[]byte
}

func (f *freeList) Get(n int) *[]byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, b := range f.free {
		if cap(*b) >= n {
			f.free = slices.Delete(f.free, i, i+1)
			*b = (*b)[:n]
			return b
		}
	}
	b := make([]byte, n)
	return &b
}

func (f *freeList) Put(b *[]byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.free = append(f.free, b)
}

// TestSendHoldsNoCopy checks that an export sends the queued payload as it
// is: the bytes allocated during a push are a fraction of the payload (at
// most a quarter; under the race detector, whose sync.Pool drops buffers,
// less than the payload), where decoding it into pdata and encoding it
// again allocated several times its size. It also checks the metadata of
// the development version that pprofileotlp's client sends.
func TestSendHoldsNoCopy(t *testing.T) {
	got := make(chan exported, 1)
	c, err := otlp.New("otlp://"+rawCollector(t, got), "checkout", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	payload, err := c.Encode(bigProfile(4000))
	if err != nil {
		t.Fatal(err)
	}
	send := func() {
		if err := c.Send(context.Background(), payload); err != nil {
			t.Fatal(err)
		}
		if e := <-got; e.size != len(payload) {
			t.Fatalf("collector got %d bytes, want %d", e.size, len(payload))
		} else if v := e.md.Get(pprofileotlp.DevelopmentVersionHeader); len(v) != 1 || v[0] != pprofileotlp.DevelopmentVersion {
			t.Fatalf("metadata %s = %v, want %s", pprofileotlp.DevelopmentVersionHeader, v, pprofileotlp.DevelopmentVersion)
		}
	}
	send() // connects
	const pushes = 20
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range pushes {
		send()
	}
	runtime.ReadMemStats(&after)
	perPush := int64(after.TotalAlloc-before.TotalAlloc) / pushes
	t.Logf("payload %d bytes; %d bytes allocated per push", len(payload), perPush)
	bound := int64(len(payload)) / 4
	if testutil.Race {
		bound = int64(len(payload))
	}
	if perPush > bound {
		t.Errorf("a push of %d bytes allocated %d bytes, want at most %d: no copy of the payload", len(payload), perPush, bound)
	}
}
