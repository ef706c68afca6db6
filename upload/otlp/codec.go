package otlp

import (
	"fmt"

	"go.opentelemetry.io/collector/pdata/pprofile/pprofileotlp"
	"google.golang.org/grpc/mem"
)

// exportMethod is the gRPC method of pprofileotlp's Export.
const exportMethod = "/opentelemetry.proto.collector.profiles.v1development.ProfilesService/Export"

// encoded is an ExportRequest already marshaled by Encode: the codec sends
// its bytes as they are.
type encoded []byte

// codec is the gRPC "proto" codec of an export: it sends an encoded
// request's bytes as they are, without decoding them into pdata and
// encoding them again, and decodes the response with pprofileotlp.
type codec struct{}

// Name is the name of the protobuf codec, which the collector expects.
func (codec) Name() string { return "proto" }

// Marshal returns an encoded request's bytes, not copied: gRPC only reads
// them, and does not recycle a mem.SliceBuffer.
func (codec) Marshal(msg any) (mem.BufferSlice, error) {
	m, ok := msg.(encoded)
	if !ok {
		return nil, fmt.Errorf("otlp: cannot marshal %T", msg)
	}
	return mem.BufferSlice{mem.SliceBuffer(m)}, nil
}

// Unmarshal decodes an ExportResponse.
func (codec) Unmarshal(data mem.BufferSlice, msg any) error {
	m, ok := msg.(*pprofileotlp.ExportResponse)
	if !ok {
		return fmt.Errorf("otlp: cannot unmarshal %T", msg)
	}
	return m.UnmarshalProto(data.Materialize())
}
