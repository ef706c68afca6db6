package profiler

import (
	"context"
	"reflect"
	"runtime/pprof"
	"strings"
	"testing"

	"github.com/gotachyon/profiler/internal/tracelabel"
	"github.com/gotachyon/profiler/tachyon"
)

// TestLabelMessageSkipsWhatDoesNotFit: a label too long for the trace's
// bound leaves out itself, not the labels after it in key order (a long
// "db.statement" beside httpprof's http.method and http.route), and keys
// no file can carry take no room.
func TestLabelMessageSkipsWhatDoesNotFit(t *testing.T) {
	ctx := pprof.WithLabels(context.Background(), pprof.Labels(
		"a=b", strings.Repeat("x", 900), // invalid key: no room taken
		"db.statement", strings.Repeat("s", 2000), // past MaxBytes alone
		"http.method", "GET",
		"http.route", "/items/{id}",
	))
	got, ok := tracelabel.Parse(string(appendLabelMessage(nil, ctx)), nil)
	want := []tachyon.Label{{Key: "http.method", Value: "GET"}, {Key: "http.route", Value: "/items/{id}"}}
	if !ok || !reflect.DeepEqual(got, want) {
		t.Fatalf("label message carries %v (%v), want %v", got, ok, want)
	}
	// Past MaxLabels: the first MaxLabels in key order.
	var kv []string
	for i := range tracelabel.MaxLabels + 5 {
		kv = append(kv, string(rune('A'+i/26))+string(rune('a'+i%26)), "v")
	}
	got, ok = tracelabel.Parse(string(appendLabelMessage(nil, pprof.WithLabels(context.Background(), pprof.Labels(kv...)))), nil)
	if !ok || len(got) != tracelabel.MaxLabels || got[0].Key != "Aa" {
		t.Fatalf("%d labels carried (%v), want the first %d", len(got), ok, tracelabel.MaxLabels)
	}
}
