package pyroscope

import (
	"errors"
	"fmt"

	"google.golang.org/protobuf/proto"
)

// encoded is a PushRequest already marshaled by Encode: the codec sends
// its bytes as they are.
type encoded []byte

// codec is Connect's "proto" codec for a push: it writes an encoded
// request's bytes as they are, without decoding and re-encoding them, and
// decodes everything else (the response) as protobuf.
type codec struct{}

// Name is the name of the protobuf codec, which the server expects.
func (codec) Name() string { return "proto" }

// Marshal returns a copy of an encoded request's bytes: Connect recycles
// the slice it is given, so it must not get the queued payload itself.
func (c codec) Marshal(msg any) ([]byte, error) {
	return c.MarshalAppend(nil, msg)
}

// MarshalAppend appends an encoded request's bytes to dst, a buffer of
// Connect's pool, or marshals a protobuf message.
func (codec) MarshalAppend(dst []byte, msg any) ([]byte, error) {
	switch m := msg.(type) {
	case *encoded:
		return append(dst, *m...), nil
	case proto.Message:
		return proto.MarshalOptions{}.MarshalAppend(dst, m)
	}
	return nil, fmt.Errorf("pyroscope: cannot marshal %T", msg)
}

// Unmarshal decodes a protobuf message.
func (codec) Unmarshal(data []byte, msg any) error {
	m, ok := msg.(proto.Message)
	if !ok {
		return errors.New("pyroscope: not a protobuf message")
	}
	return proto.Unmarshal(data, m)
}
