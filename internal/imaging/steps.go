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
		x := i % w
		for _, n := range [4]int{i - 1, i + 1, i - w, i + w} {
			if n < 0 || n >= w*h || (n == i-1 && x == 0) || (n == i+1 && x == w-1) || dist[n] >= 0 {
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
