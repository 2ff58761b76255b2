package tinybert

import (
	"encoding/binary"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// ONNX protobuf field numbers and enum values (onnx/onnx.proto, IR version 8).
const (
	irVersion = 8
	opset     = 17

	elemFloat = 1 // TensorProto.FLOAT
	elemInt64 = 7 // TensorProto.INT64

	attrInt = 2 // AttributeProto.INT
)

// msg is a protobuf message under construction.
type msg []byte

func (m msg) str(field protowire.Number, s string) msg {
	m = protowire.AppendTag(m, field, protowire.BytesType)
	return protowire.AppendString(m, s)
}

func (m msg) sub(field protowire.Number, sub msg) msg {
	m = protowire.AppendTag(m, field, protowire.BytesType)
	return protowire.AppendBytes(m, sub)
}

func (m msg) varint(field protowire.Number, v int64) msg {
	m = protowire.AppendTag(m, field, protowire.VarintType)
	return protowire.AppendVarint(m, uint64(v))
}

// node is a NodeProto.
func node(op, name string, inputs, outputs []string, attrs ...msg) msg {
	var m msg
	for _, in := range inputs {
		m = m.str(1, in)
	}
	for _, out := range outputs {
		m = m.str(2, out)
	}
	m = m.str(3, name).str(4, op)
	for _, a := range attrs {
		m = m.sub(5, a)
	}
	return m
}

// intAttr is an AttributeProto of type INT.
func intAttr(name string, v int64) msg {
	return msg(nil).str(1, name).varint(3, v).varint(20, attrInt)
}

// floatTensor is a TensorProto initializer with raw little-endian data.
func floatTensor(name string, dims []int64, data []float32) msg {
	var m msg
	for _, d := range dims {
		m = m.varint(1, d)
	}
	m = m.varint(2, elemFloat).str(8, name)
	raw := make([]byte, 4*len(data))
	for i, f := range data {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(f))
	}
	return m.sub(9, raw)
}

// int64Tensor is a TensorProto initializer of int64s.
func int64Tensor(name string, dims []int64, data []int64) msg {
	var m msg
	for _, d := range dims {
		m = m.varint(1, d)
	}
	m = m.varint(2, elemInt64).str(8, name)
	raw := make([]byte, 8*len(data))
	for i, v := range data {
		binary.LittleEndian.PutUint64(raw[8*i:], uint64(v))
	}
	return m.sub(9, raw)
}

// valueInfo is a ValueInfoProto of a tensor whose dimensions are named
// (symbolic, e.g. "batch") or fixed (a positive size).
func valueInfo(name string, elem int64, dims ...any) msg {
	var shape msg
	for _, d := range dims {
		var dim msg
		switch v := d.(type) {
		case string:
			dim = dim.str(2, v)
		case int:
			dim = dim.varint(1, int64(v))
		}
		shape = shape.sub(1, dim)
	}
	tensor := msg(nil).varint(1, elem).sub(2, shape)
	typ := msg(nil).sub(1, tensor)
	return msg(nil).str(1, name).sub(2, typ)
}
