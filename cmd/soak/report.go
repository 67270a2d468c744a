package main

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/showroom/showroom/internal/cluster"
)

// report writes the markdown summary and says whether every check passed.
func (s *soak) report(w io.Writer, audits []audit) bool {
	cfg := s.cfg
	records := s.ledger.snapshot()
	var problems []string
	problem := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }

	flood := s.flooder()
	fmt.Fprintf(w, "## Soak\n\n%v of traffic from %d companies (%s floods with %d clients; %s; the others have %d clients sending photos and one editing "+
		"content and configurations; %s has a budget of %d credits), "+
		"%d worker processes (%s, one job at a time each), --queue-length %d, --rate-limit %d/min (burst %d), "+
		"--job-timeout %v, --rescue-after %v; the accepted jobs drained %v after the traffic stopped. %d photos (%s).\n\n",
		cfg.duration, len(s.companies), flood.name, cfg.flood, s.bomberText(), cfg.clients, s.companies[0].name, cfg.credits,
		cfg.workers, cfg.model, cfg.queueLength, cfg.rateLimit, cfg.rateBurst, cfg.jobTimeout, cfg.rescueAfter,
		(s.drainEnd - s.trafficEnd).Round(time.Second), len(s.photos), photoNames(s.photos))

	// Requests, by kind.
	type row struct {
		n    [4]int
		durs []time.Duration
	}
	rows := map[string]*row{}
	var ops []string
	for _, r := range records {
		x := rows[r.op]
		if x == nil {
			x = &row{}
			rows[r.op] = x
			ops = append(ops, r.op)
		}
		x.n[r.class]++
		x.durs = append(x.durs, r.dur)
	}
	fmt.Fprintf(w, "### Requests\n\n| request | sent | ok | pushback | refused | failures | median | p95 | slowest |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	var total row
	for _, op := range ops {
		x := rows[op]
		slices.Sort(x.durs)
		fmt.Fprintf(w, "| %s | %d | %d | %d | %d | %d | %s | %s | %s |\n", op, len(x.durs), x.n[ok], x.n[pushback], x.n[refused], x.n[failure],
			fmtDur(pct(x.durs, 0.5)), fmtDur(pct(x.durs, 0.95)), fmtDur(x.durs[len(x.durs)-1]))
		for i := range total.n {
			total.n[i] += x.n[i]
		}
	}
	fmt.Fprintf(w, "| **all** | %d | %d | %d | %d | %d | | | |\n\n", len(records), total.n[ok], total.n[pushback], total.n[refused], total.n[failure])
	fmt.Fprintf(w, "*pushback*: 408, 429 or 503 with a documented code and Retry-After (the clients wait as asked); *refused*: "+
		"a documented error the request may meet (a photo the model finds no car in, a budget spent, a race with another user); "+
		"*failure*: anything else, including no answer within %v.\n\n", cfg.requestTimeout)
	if total.n[failure] > 0 {
		problem("%d answers were failures", total.n[failure])
	}

	// Answers other than success.
	type key struct {
		status int
		code   string
		class  class
	}
	answers := map[key]int{}
	for _, r := range records {
		if r.class != ok {
			answers[key{r.status, r.code, r.class}]++
		}
	}
	keys := make([]key, 0, len(answers))
	for k := range answers {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].status != keys[j].status {
			return keys[i].status < keys[j].status
		}
		return keys[i].code < keys[j].code
	})
	fmt.Fprintf(w, "### Answers other than success\n\n| status | errorCode | class | count |\n|---:|---|---|---:|\n")
	for _, k := range keys {
		fmt.Fprintf(w, "| %s | %s | %s | %d |\n", statusText(k.status), k.code, k.class, answers[k])
	}
	fmt.Fprintln(w)
	if answers[key{503, "SERVICE_OVERLOADED", pushback}]+answers[key{429, "TOO_MANY_REQUESTS", pushback}] == 0 {
		problem("the service never pushed back: the traffic did not saturate it")
	}

	// Jobs: what the clients saw and what the service lists.
	s.jobs.mu.Lock()
	asyncBy := map[string]int{}
	notEnded := 0
	var known []string
	for _, j := range s.jobs.async {
		asyncBy[j.co.name]++
		if !j.done {
			notEnded++
		}
		known = append(known, j.id)
	}
	for id := range s.jobs.sync {
		known = append(known, id)
	}
	s.jobs.mu.Unlock()
	fmt.Fprintf(w, "### Jobs\n\n| company | accepted async | jobs listed | succeeded | failed | unfinished | run more than once |\n|---|---:|---:|---:|---:|---:|---:|\n")
	listed := map[string]bool{}
	var succeeded, unfinished int
	for _, a := range audits {
		fmt.Fprintf(w, "| %s | %d | %d | %d | %d %s | %d | %d |\n", a.company, asyncBy[a.company], a.jobs, a.byStatus["succeeded"],
			a.byStatus["failed"], codes(a.failedBy), a.byStatus["queued"]+a.byStatus["running"], a.retried)
		succeeded += a.byStatus["succeeded"]
		unfinished += a.byStatus["queued"] + a.byStatus["running"]
		for id := range a.ids {
			listed[id] = true
		}
		if a.incomplete != "" {
			problem("the job list of %s could not be read to its end: %s", a.company, a.incomplete)
		}
	}
	missing := 0
	for _, id := range known {
		if !listed[id] {
			missing++
		}
	}
	minutes := (s.drainEnd - s.trafficStart).Minutes()
	fmt.Fprintf(w, "\nPhotos processed: %d, %.1f a minute from the start of the traffic to the end of the drain. "+
		"Accepted asynchronous jobs not ended by the drain deadline: %d. Jobs a client was told of (202, or X-Job-ID) missing from the list: %d.\n\n",
		succeeded, float64(succeeded)/minutes, notEnded, missing)
	if notEnded > 0 {
		problem("%d accepted jobs did not end within %v of the traffic's end", notEnded, cfg.drain)
	}
	if unfinished > 0 {
		problem("%d jobs are still queued or running after the drain", unfinished)
	}
	if missing > 0 {
		problem("%d jobs clients were told of are missing from the job list", missing)
	}

	// What was done to the service, and the requests during the lock.
	fmt.Fprintf(w, "### What was done to the service\n\n| at | what |\n|---:|---|\n")
	var lockFrom, lockTo time.Duration
	for _, e := range s.events {
		fmt.Fprintf(w, "| %s | %s |\n", fmtDur(e.at), e.what)
		switch {
		case strings.HasPrefix(e.what, "database locked"):
			lockFrom = e.at
		case e.what == "database unlocked":
			lockTo = e.at
		case strings.Contains(e.what, "could not") || strings.Contains(e.what, "failed"):
			problem("%s", e.what)
		}
	}
	if lockTo > 0 {
		// A synchronous photo waits for the queue whether or not the
		// database is locked; the other calls show what the lock costs.
		var n [4]int
		var slowest time.Duration
		for _, r := range records {
			if r.start >= lockFrom && r.start < lockTo {
				n[r.class]++
				if r.op != "process (sync)" {
					slowest = max(slowest, r.dur)
				}
			}
		}
		fmt.Fprintf(w, "\nRequests started during the lock (%s to %s): %d, of which %d ok, %d pushback, %d refused, %d failures; "+
			"the slowest answer other than a synchronous photo took %s.\n",
			fmtDur(lockFrom), fmtDur(lockTo), n[0]+n[1]+n[2]+n[3], n[ok], n[pushback], n[refused], n[failure], fmtDur(slowest))
	}

	// The slowest calls that do not wait for a photo: where the service
	// stalled, if anywhere.
	var quick []record
	for _, r := range records {
		if r.op != "process (sync)" {
			quick = append(quick, r)
		}
	}
	sort.Slice(quick, func(i, j int) bool { return quick[i].dur > quick[j].dur })
	fmt.Fprintf(w, "\nThe slowest answers other than a synchronous photo:\n\n| request | company | started at | took | answer |\n|---|---|---:|---:|---|\n")
	for _, r := range quick[:min(5, len(quick))] {
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s %s |\n", r.op, r.company, fmtDur(r.start), fmtDur(r.dur), statusText(r.status), r.code)
	}

	// Memory.
	fmt.Fprintf(w, "\n### Resident memory (MB)\n\n| process | start | peak | end | second half, MB/min | |\n|---|---:|---:|---:|---:|---|\n")
	procs := s.cl.Procs()
	for _, p := range procs {
		m := memoryOf(p.RSS, max(s.trafficStart, p.Started), s.drainEnd)
		verdict, slope := "", "—"
		switch {
		case p.Killed:
			verdict = "killed"
		case !m.wholeHalf:
			verdict = "too short to tell"
		default:
			slope = fmt.Sprintf("%+.1f", m.slope)
			growth := m.slope * m.half.Minutes()
			if growth > cfg.rssGrowth*m.peak {
				verdict = fmt.Sprintf("grew %.0f MB", growth)
				problem("%s's memory grew %.0f MB over the second half (more than %.0f%% of its peak)", p.Name, growth, 100*cfg.rssGrowth)
			} else {
				verdict = "flat"
			}
		}
		fmt.Fprintf(w, "| %s | %.0f | %.0f | %.0f | %s | %s |\n", p.Name, m.start, m.peak, m.end, slope, verdict)
	}
	fmt.Fprintf(w, "\n*start* is the first sample once the traffic runs (or the process started), *end* the last before the drain ended. "+
		"The slope is over the second half of the process's time under load (the traffic and the drain, in which the workers still "+
		"empty the queue), so that the warm-up of a worker's buffers is not taken for growth; a worker's memory swings by hundreds "+
		"of MB within each photo, so the slope is fitted to the peak of each %v.\n\n", rssWindow)

	// The servers' own view.
	fmt.Fprintf(w, "### Server logs\n\n| process | WARN lines | ERROR lines | exit |\n|---|---:|---:|---|\n")
	for _, p := range procs {
		warn, errs := logLines(p)
		exit := "stopped cleanly"
		switch {
		case p.Killed:
			exit = "killed by the soak"
		case p.Ended < s.stoppedAt:
			exit = fmt.Sprintf("died at %s: %v", fmtDur(p.Ended), p.Err)
			problem("%s died during the run: %v", p.Name, p.Err)
		case p.Err != nil:
			exit = p.Err.Error()
			problem("%s did not stop cleanly: %v", p.Name, p.Err)
		}
		fmt.Fprintf(w, "| %s | %d | %d | %s |\n", p.Name, warn, errs, exit)
	}

	// Failures, by kind.
	if total.n[failure] > 0 {
		type kind struct{ op, why string }
		count := map[kind]int{}
		first := map[kind]time.Duration{}
		var kinds []kind
		for _, r := range records {
			if r.class != failure {
				continue
			}
			k := kind{r.op, r.why}
			if count[k] == 0 {
				kinds = append(kinds, k)
				first[k] = r.start
			}
			count[k]++
		}
		fmt.Fprintf(w, "\n### Failures\n\n| count | request | what | first at |\n|---:|---|---|---:|\n")
		for i, k := range kinds {
			if i == 20 {
				fmt.Fprintf(w, "| | … %d more kinds | | |\n", len(kinds)-20)
				break
			}
			fmt.Fprintf(w, "| %d | %s | %s | %s |\n", count[k], k.op, strings.ReplaceAll(k.why, "|", "\\|"), fmtDur(first[k]))
		}
	}

	if len(problems) == 0 {
		fmt.Fprintf(w, "\n**Result: PASS**: no request lost, every answer documented, memory flat.\n")
		return true
	}
	fmt.Fprintf(w, "\n**Result: FAIL**\n\n")
	for _, p := range problems {
		fmt.Fprintf(w, "- %s\n", p)
	}
	return false
}

// rssWindow is the stretch of time whose peak memory is one point of the
// slope.
const rssWindow = 10 * time.Second

// memory sums up one process's resident memory, in MB.
type memory struct {
	start, peak, end float64
	slope            float64       // MB a minute over the second half
	half             time.Duration // the second half's length
	wholeHalf        bool          // the process lived through the whole second half
}

// memoryOf reads the samples between from and to; the slope is fitted, by
// least squares, to the peak of each rssWindow of the second half.
func memoryOf(samples []cluster.Sample, from, to time.Duration) memory {
	m := memory{half: (to - from) / 2}
	half := from + m.half
	var xs, ys []float64
	window, peak := time.Duration(-1), 0.0
	flush := func() {
		// Only whole windows: the peak of a stretch cut short says little.
		if window >= 0 && half+(window+1)*rssWindow <= to {
			xs = append(xs, (half + window*rssWindow + rssWindow/2).Minutes())
			ys = append(ys, peak)
		}
	}
	for _, s := range samples {
		mb := float64(s.KB) / 1024
		m.peak = max(m.peak, mb)
		if s.At < from || s.At > to {
			continue
		}
		if m.start == 0 {
			m.start = mb
		}
		m.end = mb
		if s.At >= half {
			if w := (s.At - half) / rssWindow; w != window {
				flush()
				window, peak = w, 0
			}
			peak = max(peak, mb)
		}
	}
	flush()
	m.wholeHalf = len(xs) >= 3 && samples[len(samples)-1].At >= to-2*rssWindow
	if len(xs) >= 2 {
		m.slope = leastSquares(xs, ys)
	}
	return m
}

// leastSquares returns the slope of the line that fits the points best.
func leastSquares(xs, ys []float64) float64 {
	n := float64(len(xs))
	var sx, sy, sxx, sxy float64
	for i := range xs {
		sx += xs[i]
		sy += ys[i]
		sxx += xs[i] * xs[i]
		sxy += xs[i] * ys[i]
	}
	d := n*sxx - sx*sx
	if d == 0 {
		return 0
	}
	return (n*sxy - sx*sy) / d
}

// pct is the p-th quantile of sorted durations.
func pct(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[int(p*float64(len(sorted)-1))]
}

func fmtDur(d time.Duration) string {
	switch {
	case d >= time.Minute:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	case d >= time.Second:
		return fmt.Sprintf("%.1fs", d.Seconds())
	default:
		return fmt.Sprintf("%dms", d.Milliseconds())
	}
}

func statusText(status int) string {
	if status == 0 {
		return "none"
	}
	return fmt.Sprint(status)
}

// codes lists errorCodes with their counts: "(NO_CAR_DETECTED 3)".
func codes(m map[string]int) string {
	if len(m) == 0 {
		return ""
	}
	var parts []string
	for c, n := range m {
		parts = append(parts, fmt.Sprintf("%s %d", c, n))
	}
	sort.Strings(parts)
	return "(" + strings.Join(parts, ", ") + ")"
}

func photoNames(ps []photo) string {
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.name
	}
	return strings.Join(names, ", ")
}
