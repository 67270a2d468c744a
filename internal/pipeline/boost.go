package pipeline

import (
	_ "embed"
	"encoding/json"
	"math"
	"sync"
)

// glassModelJSON is the trained glass model, written by `make
// glass-model` (cmd/glasstrain, from the glass dev set).
//
//go:embed glass_model.json
var glassModelJSON []byte

// glassModel returns the embedded glass model, parsed once. The file is
// part of the build, so a broken one is a programming error.
var glassModel = sync.OnceValue(func() *boostModel {
	var m boostModel
	if err := json.Unmarshal(glassModelJSON, &m); err != nil {
		panic("pipeline: glass_model.json: " + err.Error())
	}
	return &m
})

// boostModel is a gradient-boosted ensemble of regression trees for a
// binary question (is this pixel glass?): the sum of its trees' leaves is
// the log-odds. Trees are stored flat: node n tests feature Feat[n] against
// Thr[n] and goes to Left[n] when below, Left[n]+1 otherwise; a node whose
// Left is 0 is a leaf holding Value[n].
type boostModel struct {
	Base  float32
	Trees []boostTree
}

type boostTree struct {
	Feat  []uint8
	Thr   []float32
	Left  []uint16
	Value []float32
}

// prob returns the model's probability for one feature vector.
func (m *boostModel) prob(f []float32) float32 {
	s := m.Base
	for t := range m.Trees {
		s += m.Trees[t].leaf(f)
	}
	return float32(1 / (1 + math.Exp(-float64(s))))
}

// leaf returns the tree's value for one feature vector.
func (tr *boostTree) leaf(f []float32) float32 {
	n := 0
	for tr.Left[n] != 0 {
		if f[tr.Feat[n]] < tr.Thr[n] {
			n = int(tr.Left[n])
		} else {
			n = int(tr.Left[n]) + 1
		}
	}
	return tr.Value[n]
}
