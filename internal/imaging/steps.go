package imaging

// Steps is a breadth-first flood from seed over a w×h grid: each pixel's
// number of 4-connected steps from the nearest seed pixel, going only
// through pixels pass allows (nil allows all) and no farther than limit
// steps; -1 where the flood did not reach. Seed pixels are 0 whatever pass
// says of them.
func Steps(seed []bool, w, h int, limit int32, pass func(i int) bool) []int32 {
	dist := make([]int32, w*h)
	var queue []int
	for i, v := range seed {
		if v {
			queue = append(queue, i)
		} else {
			dist[i] = -1
		}
	}
	for len(queue) > 0 {
		i := queue[0]
		queue = queue[1:]
		if dist[i] >= limit {
			continue
		}
		for _, n := range neighbours4(i, w, h) {
			if n < 0 || dist[n] >= 0 {
				continue
			}
			if pass != nil && !pass(n) {
				continue
			}
			dist[n] = dist[i] + 1
			queue = append(queue, n)
		}
	}
	return dist
}

// SeedOf returns a seed pixel nearest to i along the flood steps (as
// Steps returns them, w wide) reached i by, walking back one step at a
// time; i itself when it is a seed. i must have been reached.
func SeedOf(steps []int32, w, i int) int {
	h := len(steps) / w
	for steps[i] > 0 {
		for _, n := range neighbours4(i, w, h) {
			if n >= 0 && steps[n] == steps[i]-1 {
				i = n
				break
			}
		}
	}
	return i
}

// neighbours4 returns the indexes of i's 4-connected neighbours on a w×h
// grid, -1 for those off the grid (rows do not wrap).
func neighbours4(i, w, h int) [4]int {
	x := i % w
	n := [4]int{i - 1, i + 1, i - w, i + w}
	if x == 0 {
		n[0] = -1
	}
	if x == w-1 {
		n[1] = -1
	}
	if n[2] < 0 {
		n[2] = -1
	}
	if n[3] >= w*h {
		n[3] = -1
	}
	return n
}
