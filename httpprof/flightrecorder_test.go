package httpprof

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	netpprof "net/http/pprof"
	"runtime/trace"
	"testing"
	"time"
)

// TestBesideFlightRecorder: with the application's flight recorder
// running, a profile request answers, the recorder's WriteTo works, and
// so does the application's own /debug/pprof/trace afterwards (issue 25
// item 1: the request used to hang, and the app's trace endpoint after
// it). A regression fails on the client's timeout instead of hanging.
func TestBesideFlightRecorder(t *testing.T) {
	fr := trace.NewFlightRecorder(trace.FlightRecorderConfig{})
	if err := fr.Start(); err != nil {
		t.Fatal(err)
	}
	defer fr.Stop()
	mux := http.NewServeMux()
	mux.Handle("/debug/tachyon", Handler())
	mux.HandleFunc("/debug/pprof/trace", netpprof.Trace)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	client := &http.Client{Timeout: 30 * time.Second}
	for _, path := range []string{"/debug/tachyon?seconds=0.5", "/debug/pprof/trace?seconds=0.5"} {
		resp, err := client.Get(srv.URL + path)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK || len(body) == 0 {
			t.Errorf("GET %s: status %d, %d bytes, %v", path, resp.StatusCode, len(body), err)
		}
	}
	var snap bytes.Buffer
	done := make(chan error, 1)
	go func() { _, err := fr.WriteTo(&snap); done <- err }()
	select {
	case err := <-done:
		if err != nil || snap.Len() == 0 {
			t.Errorf("the recorder's WriteTo: %d bytes, %v", snap.Len(), err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the recorder's WriteTo did not return within 30 s")
	}
}
