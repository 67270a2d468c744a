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
	queue := func(j int, from int8, cur int) {
		if label[j] != unsure || queued[j] {
			return
		}
		queued[j] = true
		l := max(level(j), cur)
		buckets[l] = append(buckets[l], entry{int32(j), from})
	}
	push := func(i int, from int8, cur int) {
		// A 32-bit division: the grid's indexes fit an int32 (entry.i).
		x := int(uint32(i) % uint32(w))
		if x > 0 {
			queue(i-1, from, cur)
		}
		if x < w-1 {
			queue(i+1, from, cur)
		}
		if i >= w {
			queue(i-w, from, cur)
		}
		if i+w < n {
			queue(i+w, from, cur)
		}
	}
	h := n / w
	for y := range h {
		row := label[y*w : (y+1)*w]
		var above, below []int8
		if y > 0 {
			above = label[(y-1)*w : y*w]
		}
		if y < h-1 {
			below = label[(y+1)*w : (y+2)*w]
		}
		for x, l := range row {
			if l < 0 || l == unsure {
				continue
			}
			if (x > 0 && row[x-1] == unsure) || (x < w-1 && row[x+1] == unsure) ||
				(above != nil && above[x] == unsure) || (below != nil && below[x] == unsure) {
				push(y*w+x, l, 0)
			}
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
