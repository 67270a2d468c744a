package glasstrain

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/showroom/showroom/internal/pipeline"
)

// logOdds is m's output before the sigmoid for the raw input x, computed
// as the pipeline's model reads it: standardised, one hidden ReLU layer.
func logOdds(m pipeline.ProbeModel, x []float32) float64 {
	n := len(m.Mean)
	out := float64(m.B2)
	for j := range m.Hidden {
		s := float64(m.B1[j])
		for i, v := range x {
			s += float64(m.W1[j*n+i]) * float64((v-m.Mean[i])/m.Std[i])
		}
		out += float64(m.W2[j]) * math.Max(s, 0)
	}
	return out
}

// A deep model of several members is one network, as wide as all of them,
// whose answer is the mean of the members' log-odds, each member trained
// from its own seed; one member is the network its seed trains.
func TestTrainProbeAveragesItsMembers(t *testing.T) {
	saved := probeTraining
	t.Cleanup(func() { probeTraining = saved })
	r := rand.New(rand.NewPCG(1, 2))
	var rows probeRows
	const n = 5
	for range 600 {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(r.NormFloat64())
		}
		label := float32(0)
		if x[0]+0.5*x[1]*x[2] > 0 {
			label = 1
		}
		rows.x, rows.y, rows.w = append(rows.x, x...), append(rows.y, label), append(rows.w, 1)
	}
	probeTraining.Epochs = 2
	TuneMembers(40, 3)
	m := trainProbe([]probeRows{rows}, []int{n})
	if m.Hidden != 3*probeTraining.Hidden || len(m.W1) != m.Hidden*n || len(m.B1) != m.Hidden || len(m.W2) != m.Hidden {
		t.Fatalf("merged model of 3: %d hidden units, %d, %d and %d weights", m.Hidden, len(m.W1), len(m.B1), len(m.W2))
	}
	var members []pipeline.ProbeModel
	for k := range 3 {
		members = append(members, trainMember(newProbeSet([]probeRows{rows}), []int{n}, 40+uint64(k)))
	}
	if a, b := logOdds(members[0], rows.x[:n]), logOdds(members[1], rows.x[:n]); math.Abs(a-b) < 1e-6 {
		t.Errorf("seeds 40 and 41 trained the same network (%v)", a)
	}
	for i := range 20 {
		x := rows.x[i*n : (i+1)*n]
		var mean float64
		for _, e := range members {
			mean += logOdds(e, x) / 3
		}
		if got := logOdds(m, x); math.Abs(got-mean) > 1e-4*math.Max(1, math.Abs(mean)) {
			t.Errorf("row %d: merged log-odds %v, members' mean %v", i, got, mean)
		}
	}
	TuneMembers(40, 1)
	one := trainProbe([]probeRows{rows}, []int{n})
	if got, want := logOdds(one, rows.x[:n]), logOdds(members[0], rows.x[:n]); got != want {
		t.Errorf("one member: log-odds %v, its seed's network %v", got, want)
	}
}
