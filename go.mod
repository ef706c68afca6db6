module github.com/gotachyon/profiler

go 1.26.0

require (
	connectrpc.com/connect v1.21.1
	github.com/cespare/xxhash/v2 v2.3.0
	github.com/felixge/fgprof v0.9.5
	github.com/google/pprof v0.0.0-20260906184651-6331bc6350fe
	github.com/grafana/pyroscope/api v1.6.0
	github.com/klauspost/compress v1.20.3
	go.opentelemetry.io/collector/pdata v1.70.0
	go.opentelemetry.io/collector/pdata/pprofile v0.164.0
	golang.org/x/exp v0.0.0-20260908205506-85c1c2202aba
	golang.org/x/sys v0.49.0
	google.golang.org/grpc v1.84.0
	google.golang.org/protobuf v1.36.12
)

require (
	github.com/google/gnostic v0.7.1 // indirect
	github.com/google/gnostic-models v0.7.0 // indirect
	github.com/gorilla/mux v1.8.1 // indirect
	github.com/hashicorp/go-version v1.9.0 // indirect
	github.com/json-iterator/go v1.1.12 // indirect
	github.com/modern-go/concurrent v0.0.0-20180306012644-bacd9c7ef1dd // indirect
	github.com/modern-go/reflect2 v1.0.3-0.20250322232337-35a7c28c31ee // indirect
	github.com/planetscale/vtprotobuf v0.6.1-0.20250313105119-ba97887b0a25 // indirect
	go.opentelemetry.io/collector/featuregate v1.70.0 // indirect
	go.uber.org/multierr v1.11.0 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/net v0.60.0 // indirect
	golang.org/x/text v0.42.0 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20260706201446-f0a921348800 // indirect
)
