package main

import (
	"encoding/json"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/gotachyon/profiler/httpprof"
)

// item is the small struct the service returns.
type item struct {
	Key   string `json:"key"`
	Value int    `json:"value"`
	Hits  int64  `json:"hits"`
}

// service is a JSON lookup service: a map under a mutex, one struct, JSON.
type service struct {
	mu     sync.Mutex
	items  map[string]*item
	served atomic.Uint64
}

func newService() *service {
	s := &service{items: make(map[string]*item)}
	for i := range 1000 {
		k := "k" + strconv.Itoa(i)
		s.items[k] = &item{Key: k, Value: i}
	}
	return s
}

func (s *service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	key := r.URL.Query().Get("key")
	s.mu.Lock()
	it, ok := s.items[key]
	var out item
	if ok {
		it.Hits++
		out = *it
	}
	s.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(&out)
	s.served.Add(1)
}

// labelled says that the service's routes are labelled now.
var labelled atomic.Bool

// front serves through a ServeMux, as a service does, and through the
// same mux wrapped in httpprof.Labels while labelled is set.
type front struct {
	plain, labels http.Handler
}

func (f front) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if labelled.Load() {
		f.labels.ServeHTTP(w, r)
		return
	}
	f.plain.ServeHTTP(w, r)
}

// serve starts the service on a loopback port and returns its address.
func serve(s *service) (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	mux := http.NewServeMux()
	mux.Handle("GET /item", s)
	go http.Serve(ln, front{plain: mux, labels: httpprof.Labels(mux)})
	return ln.Addr().String(), nil
}
