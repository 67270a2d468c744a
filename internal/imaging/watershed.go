package imaging

// Watershed floods, in place, the pixels of label (a grid w wide) marked
// unsure from the labelled pixels around them: each takes the label of
// the flood that reaches it first across the lowest levels, so two floods
// meet on the strongest edge between them. level(i) is pixel i's level,
// in [0, levels). Pixels with a negative label are left as they are:
// neither flooded nor flooding (what lies off the object).
//
// It is Meyer's flooding with a hierarchical queue: one FIFO per level,
// taken lowest first and never below the level being flooded; the floods
// start, in the grid's order, from the labelled pixels beside an unsure
// one.
func Watershed(label []int8, w, levels int, level func(i int) int, unsure int8) {
	n := len(label)
	type entry struct {
		i    int32
		from int8
	}
	buckets := make([][]entry, levels)
	queued := make([]bool, n)
	push := func(i int, from int8, cur int) {
		x := i % w
		for _, j := range [4]int{i - 1, i + 1, i - w, i + w} {
			if j < 0 || j >= n || (j == i-1 && x == 0) || (j == i+1 && x == w-1) || label[j] != unsure || queued[j] {
				continue
			}
			queued[j] = true
			l := max(level(j), cur)
			buckets[l] = append(buckets[l], entry{int32(j), from})
		}
	}
	for i, l := range label {
		if l < 0 || l == unsure {
			continue
		}
		x := i % w
		if (x > 0 && label[i-1] == unsure) || (x < w-1 && label[i+1] == unsure) ||
			(i >= w && label[i-w] == unsure) || (i+w < n && label[i+w] == unsure) {
			push(i, l, 0)
		}
	}
	for cur := range buckets {
		// Flooding a pixel may queue more at this level: the loop reads
		// the bucket's length anew.
		for k := 0; k < len(buckets[cur]); k++ {
			e := buckets[cur][k]
			label[e.i] = e.from
			push(int(e.i), e.from, cur)
		}
		buckets[cur] = nil
	}
}
