package onnxfp32

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

func TestHalfToFloat(t *testing.T) {
	for _, c := range []struct {
		h    uint16
		want float32
	}{
		{0x0000, 0},
		{0x3c00, 1},
		{0xc000, -2},
		{0x3555, 0.333251953125},
		{0x7bff, 65504},                 // largest normal
		{0x0400, 1.0 / (1 << 14)},       // smallest normal
		{0x0001, 1.0 / (1 << 24)},       // smallest subnormal
		{0x83ff, -1023.0 / (1 << 24)},   // largest subnormal, negative
		{0x7c00, float32(math.Inf(1))},  // +Inf
		{0xfc00, float32(math.Inf(-1))}, // -Inf
	} {
		if got := halfToFloat(c.h); got != c.want {
			t.Errorf("halfToFloat(%#04x) = %g, want %g", c.h, got, c.want)
		}
	}
	if got := halfToFloat(0x8000); got != 0 || !math.Signbit(float64(got)) {
		t.Errorf("halfToFloat(0x8000) = %g, want -0", got)
	}
	if got := halfToFloat(0x7e00); !math.IsNaN(float64(got)) {
		t.Errorf("halfToFloat(0x7e00) = %g, want NaN", got)
	}
}

// msg builds a protobuf message from fields made by the helpers below.
func msg(fields ...[]byte) []byte { return bytes.Join(fields, nil) }

func bytesF(num protowire.Number, v []byte) []byte {
	return protowire.AppendBytes(protowire.AppendTag(nil, num, protowire.BytesType), v)
}

func varintF(num protowire.Number, v uint64) []byte {
	return protowire.AppendVarint(protowire.AppendTag(nil, num, protowire.VarintType), v)
}

// valueInfo is a ValueInfoProto for a 1-D tensor of elem type typ.
func valueInfoF(num protowire.Number, name string, typ uint64) []byte {
	shape := bytesF(2, bytesF(1, varintF(1, 2))) // TensorShapeProto{dim: [{dim_value: 2}]}
	return bytesF(num, msg(bytesF(1, []byte(name)), bytesF(valueInfoType, bytesF(typeTensor, msg(varintF(tensorElem, typ), shape)))))
}

func castF(in, out string, to uint64) []byte {
	return bytesF(graphNode, msg(bytesF(1, []byte(in)), bytesF(2, []byte(out)), bytesF(nodeOpType, []byte("Cast")),
		bytesF(nodeAttribute, msg(bytesF(attrName, []byte("to")), varintF(attrInt, to), varintF(20, 2)))))
}

// tinyModel is input (float) → Cast to fp16 → Add an fp16 initializer
// [1.5, -2] → Cast to float → output, in the shape of the IS-Net file: fp16
// inside, float at the edges.
func tinyModel() []byte {
	w := make([]byte, 4)
	binary.LittleEndian.PutUint16(w, 0x3e00)     // 1.5
	binary.LittleEndian.PutUint16(w[2:], 0xc000) // -2
	init := bytesF(graphInitializer, msg(varintF(1, 2), varintF(tensorDataType, typeFloat16), bytesF(8, []byte("w")), bytesF(tensorRawData, w)))
	add := bytesF(graphNode, msg(bytesF(1, []byte("h")), bytesF(1, []byte("w")), bytesF(2, []byte("s")), bytesF(nodeOpType, []byte("Add"))))
	graph := msg(castF("input", "h", typeFloat16), add, castF("s", "output", typeFloat), bytesF(2, []byte("tiny")), init,
		valueInfoF(graphInput, "input", typeFloat), valueInfoF(graphOutput, "output", typeFloat),
		valueInfoF(graphValueInfo, "h", typeFloat16))
	return msg(varintF(1, 8), bytesF(8, msg(bytesF(1, nil), varintF(2, 13))), bytesF(modelGraph, graph))
}

// field returns the contents of the first field num of m, or nil.
func field(t *testing.T, m []byte, num protowire.Number, nth int) []byte {
	t.Helper()
	var got []byte
	i := 0
	if err := scan(m, func(n protowire.Number, typ protowire.Type, v []byte) {
		if n == num {
			if i == nth {
				got = v
			}
			i++
		}
	}); err != nil {
		t.Fatal(err)
	}
	return got
}

func varint(t *testing.T, m []byte, num protowire.Number) uint64 {
	t.Helper()
	v, n := protowire.ConsumeVarint(field(t, m, num, 0))
	if n < 0 {
		t.Fatalf("field %d is not a varint", num)
	}
	return v
}

func TestConvert(t *testing.T) {
	out, st, err := Convert(tinyModel())
	if err != nil {
		t.Fatal(err)
	}
	if st != (Stats{Tensors: 1, Casts: 1, TypeInfos: 1}) {
		t.Errorf("stats %+v, want 1 tensor, 1 cast, 1 type info", st)
	}
	g := field(t, out, modelGraph, 0)
	w := field(t, g, graphInitializer, 0)
	if dt := varint(t, w, tensorDataType); dt != typeFloat {
		t.Errorf("initializer data type %d, want float", dt)
	}
	raw := field(t, w, tensorRawData, 0)
	if len(raw) != 8 || math.Float32frombits(binary.LittleEndian.Uint32(raw)) != 1.5 ||
		math.Float32frombits(binary.LittleEndian.Uint32(raw[4:])) != -2 {
		t.Errorf("initializer raw data % x, want float32 1.5, -2", raw)
	}
	if name := field(t, w, 8, 0); string(name) != "w" {
		t.Errorf("initializer name %q lost", name)
	}
	for i, want := range []uint64{typeFloat, typeFloat} {
		n := field(t, g, graphNode, 2*i) // the two Casts are nodes 0 and 2
		a := field(t, n, nodeAttribute, 0)
		if to := varint(t, a, attrInt); to != want {
			t.Errorf("cast %d to %d, want %d", i, to, want)
		}
	}
	vi := field(t, g, graphValueInfo, 0)
	elem := varint(t, field(t, field(t, vi, valueInfoType, 0), typeTensor, 0), tensorElem)
	if elem != typeFloat {
		t.Errorf("value info h elem type %d, want float", elem)
	}

	// A model with nothing in fp16 comes back byte for byte.
	again, st, err := Convert(out)
	if err != nil || !bytes.Equal(again, out) || st != (Stats{}) {
		t.Errorf("converting the fp32 model again: stats %+v, err %v, same bytes %v", st, err, bytes.Equal(again, out))
	}
}

func TestConvertRefuses(t *testing.T) {
	odd := bytesF(modelGraph, bytesF(graphInitializer, msg(varintF(tensorDataType, typeFloat16), bytesF(tensorRawData, []byte{1, 2, 3}))))
	external := bytesF(modelGraph, bytesF(graphInitializer, msg(varintF(tensorDataType, typeFloat16), varintF(tensorDataLocation, 1))))
	for name, m := range map[string][]byte{
		"truncated":     tinyModel()[:40],
		"odd raw data":  odd,
		"external data": external,
		"sparse":        bytesF(modelGraph, bytesF(graphSparseInit, nil)),
	} {
		if _, _, err := Convert(m); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
