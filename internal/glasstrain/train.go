package glasstrain

// What both trainers share: which candidates they learn from, with which
// label and weight, and how they are scored on photos they never saw.

// sampled reports whether training keeps candidate cell i, one in every
// n: a fixed hash, so that training is reproducible, and neighbours say
// the same.
func sampled(i, n int) bool { return (uint64(i)*2654435761)%uint64(n) == 0 }

// label is a candidate's label and weight: annotated glass is glass and
// never-glass is not, both at weight 1; the rest of the car (unannotated)
// is not glass at weight rest.
func label(glass, never bool, rest float32) (lab, wt float32) {
	switch {
	case glass:
		return 1, 1
	case never:
		return 0, 1
	}
	return 0, rest
}

// crossValidate scores a model on photos it was not trained on: the
// prepared examples are split into folds by photo (every folds-th), a
// model is trained on all folds but one and score scores each photo i of
// that one with it.
func crossValidate[P, M any](prepared []P, folds int, train func([]P) M, score func(i int, m *M) Result) []Result {
	out := make([]Result, len(prepared))
	for f := range folds {
		var rest []P
		for i, p := range prepared {
			if i%folds != f {
				rest = append(rest, p)
			}
		}
		m := train(rest)
		for i := range prepared {
			if i%folds == f {
				out[i] = score(i, &m)
			}
		}
	}
	return out
}
