// Package onnxfp32 rewrites an ONNX model stored in half precision (fp16)
// as the same model in single precision (fp32).
//
// IS-Net ships as fp16, but ONNX Runtime's CPU kernels for convolution are
// fp32 only, so the fp16 file runs as a graph that casts every activation
// to fp32 before each convolution and back after it: the casts cost time
// and both copies of the activations are alive at once (about 190 MB more
// peak memory on a 1024×1024 input; docs/benchmarks.md). The fp16 weights
// widen to fp32 exactly, so the rewritten model computes the same thing with
// fewer roundings; the masks it gives on the dev photos are the same.
//
// The rewrite works on the protobuf wire format directly (the few messages
// and fields it touches are listed below), so it needs no generated ONNX
// code. It is deterministic: the same input gives the same bytes, which
// scripts/models.sh checks by SHA-256.
package onnxfp32

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// ONNX TensorProto.DataType values.
const (
	typeFloat   = 1
	typeFloat16 = 10
)

// Field numbers of the ONNX messages the rewrite walks (onnx/onnx.proto).
const (
	modelGraph = 7 // ModelProto.graph

	graphNode        = 1  // GraphProto.node
	graphInitializer = 5  // GraphProto.initializer
	graphInput       = 11 // GraphProto.input
	graphOutput      = 12 // GraphProto.output
	graphValueInfo   = 13 // GraphProto.value_info
	graphSparseInit  = 15 // GraphProto.sparse_initializer

	nodeOpType    = 4 // NodeProto.op_type
	nodeAttribute = 5 // NodeProto.attribute

	attrName    = 1  // AttributeProto.name
	attrInt     = 3  // AttributeProto.i
	attrTensor  = 5  // AttributeProto.t
	attrGraph   = 6  // AttributeProto.g
	attrTensors = 10 // AttributeProto.tensors
	attrGraphs  = 11 // AttributeProto.graphs

	valueInfoType = 2 // ValueInfoProto.type
	typeTensor    = 1 // TypeProto.tensor_type
	tensorElem    = 1 // TypeProto.Tensor.elem_type

	tensorDataType     = 2  // TensorProto.data_type
	tensorInt32Data    = 5  // TensorProto.int32_data (fp16 values, one per element)
	tensorRawData      = 9  // TensorProto.raw_data
	tensorDataLocation = 14 // TensorProto.data_location (1: external)
)

// Stats counts what Convert changed.
type Stats struct {
	Tensors   int // fp16 tensors widened (initializers and constants)
	Casts     int // Cast nodes that now cast to fp32
	TypeInfos int // inputs, outputs and value infos retyped
}

// Convert returns model with every fp16 tensor, Cast target and declared
// type turned into fp32, and what it changed. A model with no fp16 in it
// comes back unchanged.
func Convert(model []byte) ([]byte, Stats, error) {
	var st Stats
	out, err := rewrite(model, func(num protowire.Number, typ protowire.Type, v []byte) ([]byte, error) {
		if num != modelGraph || typ != protowire.BytesType {
			return nil, nil
		}
		return bytesField(num, v, st.graph)
	})
	return out, st, err
}

// An editor sees each field of a message: its number, wire type and value
// (the contents of a length-delimited field, else the encoded value). It
// returns the field's new encoding (tag included; empty to drop the field),
// or nil to keep the field as it is.
type editor func(num protowire.Number, typ protowire.Type, v []byte) ([]byte, error)

// rewrite copies msg field by field through edit.
func rewrite(msg []byte, edit editor) ([]byte, error) {
	out := make([]byte, 0, len(msg))
	for len(msg) > 0 {
		num, typ, n := protowire.ConsumeTag(msg)
		if n < 0 {
			return nil, fmt.Errorf("onnxfp32: bad field tag: %w", protowire.ParseError(n))
		}
		m := protowire.ConsumeFieldValue(num, typ, msg[n:])
		if m < 0 {
			return nil, fmt.Errorf("onnxfp32: bad field %d: %w", num, protowire.ParseError(m))
		}
		field, v := msg[:n+m], msg[n:n+m]
		msg = msg[n+m:]
		if typ == protowire.BytesType {
			v, _ = protowire.ConsumeBytes(v)
		}
		nf, err := edit(num, typ, v)
		if err != nil {
			return nil, err
		}
		if nf == nil {
			nf = field
		}
		out = append(out, nf...)
	}
	return out, nil
}

// scan calls f with every field of msg, as rewrite's editor sees it.
func scan(msg []byte, f func(num protowire.Number, typ protowire.Type, v []byte)) error {
	_, err := rewrite(msg, func(num protowire.Number, typ protowire.Type, v []byte) ([]byte, error) {
		f(num, typ, v)
		return nil, nil
	})
	return err
}

// bytesField encodes field num holding the message v rewritten by sub.
func bytesField(num protowire.Number, v []byte, sub func([]byte) ([]byte, error)) ([]byte, error) {
	nv, err := sub(v)
	if err != nil {
		return nil, err
	}
	out := protowire.AppendTag(nil, num, protowire.BytesType)
	return protowire.AppendBytes(out, nv), nil
}

// widenType returns the varint field num (a TensorProto.DataType) as fp32
// when it is fp16, counting the change in n; nil otherwise.
func widenType(num protowire.Number, v []byte, n *int) []byte {
	if x, _ := protowire.ConsumeVarint(v); x != typeFloat16 {
		return nil
	}
	*n++
	out := protowire.AppendTag(nil, num, protowire.VarintType)
	return protowire.AppendVarint(out, typeFloat)
}

// graph rewrites a GraphProto.
func (st *Stats) graph(g []byte) ([]byte, error) {
	return rewrite(g, func(num protowire.Number, typ protowire.Type, v []byte) ([]byte, error) {
		if typ != protowire.BytesType {
			return nil, nil
		}
		switch num {
		case graphNode:
			return bytesField(num, v, st.node)
		case graphInitializer:
			return bytesField(num, v, st.tensor)
		case graphInput, graphOutput, graphValueInfo:
			return bytesField(num, v, st.valueInfo)
		case graphSparseInit:
			return nil, errors.New("onnxfp32: sparse initializers are not supported")
		}
		return nil, nil
	})
}

// node rewrites a NodeProto: its tensor and graph attributes, and a Cast's
// target type.
func (st *Stats) node(n []byte) ([]byte, error) {
	cast := false
	if err := scan(n, func(num protowire.Number, typ protowire.Type, v []byte) {
		if num == nodeOpType && typ == protowire.BytesType {
			cast = string(v) == "Cast"
		}
	}); err != nil {
		return nil, err
	}
	return rewrite(n, func(num protowire.Number, typ protowire.Type, v []byte) ([]byte, error) {
		if num != nodeAttribute || typ != protowire.BytesType {
			return nil, nil
		}
		return bytesField(num, v, func(a []byte) ([]byte, error) { return st.attribute(a, cast) })
	})
}

// attribute rewrites an AttributeProto; cast is true for a Cast node's
// attributes, whose "to" names the type cast to.
func (st *Stats) attribute(a []byte, cast bool) ([]byte, error) {
	name := ""
	if err := scan(a, func(num protowire.Number, typ protowire.Type, v []byte) {
		if num == attrName && typ == protowire.BytesType {
			name = string(v)
		}
	}); err != nil {
		return nil, err
	}
	return rewrite(a, func(num protowire.Number, typ protowire.Type, v []byte) ([]byte, error) {
		switch {
		case cast && name == "to" && num == attrInt && typ == protowire.VarintType:
			return widenType(num, v, &st.Casts), nil
		case typ != protowire.BytesType:
			return nil, nil
		case num == attrTensor || num == attrTensors:
			return bytesField(num, v, st.tensor)
		case num == attrGraph || num == attrGraphs:
			return bytesField(num, v, st.graph)
		}
		return nil, nil
	})
}

// valueInfo retypes a ValueInfoProto declared as an fp16 tensor.
func (st *Stats) valueInfo(vi []byte) ([]byte, error) {
	return rewrite(vi, func(num protowire.Number, typ protowire.Type, v []byte) ([]byte, error) {
		if num != valueInfoType || typ != protowire.BytesType {
			return nil, nil
		}
		return bytesField(num, v, func(tp []byte) ([]byte, error) {
			return rewrite(tp, func(num protowire.Number, typ protowire.Type, v []byte) ([]byte, error) {
				if num != typeTensor || typ != protowire.BytesType {
					return nil, nil
				}
				return bytesField(num, v, func(t []byte) ([]byte, error) {
					return rewrite(t, func(num protowire.Number, typ protowire.Type, v []byte) ([]byte, error) {
						if num != tensorElem || typ != protowire.VarintType {
							return nil, nil
						}
						return widenType(num, v, &st.TypeInfos), nil
					})
				})
			})
		})
	})
}

// tensor widens an fp16 TensorProto to fp32, its values moved to raw_data;
// other tensors come back unchanged.
func (st *Stats) tensor(t []byte) ([]byte, error) {
	var dataType, location uint64
	var halves []uint16
	var bad error
	err := scan(t, func(num protowire.Number, typ protowire.Type, v []byte) {
		switch {
		case num == tensorDataType && typ == protowire.VarintType:
			dataType, _ = protowire.ConsumeVarint(v)
		case num == tensorDataLocation && typ == protowire.VarintType:
			location, _ = protowire.ConsumeVarint(v)
		case num == tensorRawData && typ == protowire.BytesType:
			if len(v)%2 != 0 {
				bad = fmt.Errorf("onnxfp32: fp16 raw data of %d bytes", len(v))
			}
			for i := 0; i+1 < len(v); i += 2 {
				halves = append(halves, binary.LittleEndian.Uint16(v[i:]))
			}
		case num == tensorInt32Data:
			// One fp16 bit pattern per element, packed or one a field.
			for len(v) > 0 {
				x, n := protowire.ConsumeVarint(v)
				if n < 0 {
					bad = fmt.Errorf("onnxfp32: bad fp16 int32_data: %w", protowire.ParseError(n))
					return
				}
				halves, v = append(halves, uint16(x)), v[n:]
			}
		}
	})
	if err != nil || dataType != typeFloat16 {
		return t, err
	}
	if bad != nil {
		return nil, bad
	}
	if location == 1 {
		return nil, errors.New("onnxfp32: tensors stored outside the model file are not supported")
	}
	wide := make([]byte, 4*len(halves))
	for i, h := range halves {
		binary.LittleEndian.PutUint32(wide[4*i:], math.Float32bits(halfToFloat(h)))
	}
	st.Tensors++
	out, err := rewrite(t, func(num protowire.Number, typ protowire.Type, v []byte) ([]byte, error) {
		switch num {
		case tensorDataType, tensorRawData, tensorInt32Data:
			return []byte{}, nil // written below
		}
		return nil, nil
	})
	out = protowire.AppendTag(out, tensorDataType, protowire.VarintType)
	out = protowire.AppendVarint(out, typeFloat)
	out = protowire.AppendTag(out, tensorRawData, protowire.BytesType)
	return protowire.AppendBytes(out, wide), err
}

// halfToFloat widens an IEEE 754 binary16 value exactly.
func halfToFloat(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	frac := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f: // infinity or NaN: keep the payload
		return math.Float32frombits(sign | 0xff<<23 | frac<<13)
	case exp != 0: // normal
		return math.Float32frombits(sign | (exp+127-15)<<23 | frac<<13)
	case frac == 0: // zero
		return math.Float32frombits(sign)
	}
	// Subnormal: frac × 2^-24, exact in fp32.
	v := float32(frac) * (1.0 / (1 << 24))
	if sign != 0 {
		v = -v
	}
	return v
}
