// Command soak is Showroom's soak benchmark (`make soak`): it
// starts the auth service, the API and the workers as separate processes
// on a fresh data directory, drives mixed traffic from several companies at
// saturation (one of them flooding), kills a worker with SIGKILL and
// restarts it, holds the database's write lock for a few seconds, and then
// checks that no request was lost, that every answer was a documented one,
// and that the servers' memory stayed flat. It prints a markdown report and
// exits 1 when a check failed.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/showroom/showroom/internal/cluster"
)

// config is the soak's settings, from flags.
type config struct {
	bin            string
	docs           string
	dataDir        string
	keep           bool
	photoDir       string
	duration       time.Duration
	companies      int
	clients        int
	flood          int
	bombers        int
	letGo          time.Duration
	credits        int64
	think          time.Duration
	workers        int
	model          string
	queueLength    int
	rateLimit      int
	rateBurst      int
	jobTimeout     time.Duration
	rescueAfter    time.Duration
	killAt         float64
	restartAfter   time.Duration
	lockAt         float64
	lockFor        time.Duration
	requestTimeout time.Duration
	pollEvery      time.Duration
	drain          time.Duration
	rssEvery       time.Duration
	rssGrowth      float64
}

func parseFlags(args []string) (config, error) {
	var c config
	fs := flag.NewFlagSet("soak", flag.ContinueOnError)
	fs.StringVar(&c.bin, "bin", "bin/showroom", "the showroom binary to run")
	fs.StringVar(&c.docs, "docs", "docs/api.md", "the API reference whose error table lists the answers a client may get")
	fs.StringVar(&c.dataDir, "data-dir", "", "data directory for the servers (default: a fresh temporary one)")
	fs.BoolVar(&c.keep, "keep", false, "keep the data directory and the servers' logs after a passing run")
	fs.StringVar(&c.photoDir, "photos", "", "send the photos of this folder (read at run time) instead of synthetic ones")
	fs.DurationVar(&c.duration, "duration", 10*time.Minute, "how long the traffic runs")
	fs.IntVar(&c.companies, "companies", 4, "companies, the last of which floods")
	fs.IntVar(&c.clients, "clients", 3, "concurrent clients sending photos for each ordinary company (each also has one editing content and configurations)")
	fs.IntVar(&c.flood, "flood", 16, "concurrent clients of the flooding company")
	fs.IntVar(&c.bombers, "bombers", 2, "concurrent clients of a company sending nothing but hostile requests (giant canvases, PNG text bombs, bodies never sent; 0: none)")
	fs.DurationVar(&c.letGo, "let-go", 30*time.Second, "how soon the service must close a connection whose announced body never comes, on a route that reads none")
	fs.Int64Var(&c.credits, "credits", 10, "credit balance of the first company, so that it runs out (0: unlimited like the others)")
	fs.DurationVar(&c.think, "think", 200*time.Millisecond, "an ordinary client's mean pause between calls")
	fs.IntVar(&c.workers, "workers", 2, "worker processes (one job at a time each); the first is killed mid-run")
	fs.StringVar(&c.model, "model", "isnet", "segmentation model of the workers: isnet or u2netp")
	fs.IntVar(&c.queueLength, "queue-length", 32, "the service's --queue-length")
	fs.IntVar(&c.rateLimit, "rate-limit", 120, "the service's --rate-limit (processing requests per minute per company)")
	fs.IntVar(&c.rateBurst, "rate-burst", 20, "the service's --rate-burst")
	fs.DurationVar(&c.jobTimeout, "job-timeout", 90*time.Second, "the workers' --job-timeout")
	fs.DurationVar(&c.rescueAfter, "rescue-after", 2*time.Minute, "the workers' --rescue-after: when the killed worker's jobs run again")
	fs.Float64Var(&c.killAt, "kill-at", 0.3, "when to kill the first worker, as a share of the duration")
	fs.DurationVar(&c.restartAfter, "restart-after", 5*time.Second, "how long the killed worker stays down")
	fs.Float64Var(&c.lockAt, "lock-at", 0.6, "when to lock the database, as a share of the duration")
	fs.DurationVar(&c.lockFor, "lock-for", 5*time.Second, "how long to hold the database's write lock (BEGIN EXCLUSIVE)")
	fs.DurationVar(&c.requestTimeout, "request-timeout", 10*time.Minute,
		"a request unanswered for this long counts as lost (a synchronous photo may wait for a full queue, and for a killed worker's rescue)")
	fs.DurationVar(&c.pollEvery, "poll", 2*time.Second, "how often asynchronous jobs are polled")
	fs.DurationVar(&c.drain, "drain", 10*time.Minute, "how long after the traffic every accepted job has to end")
	fs.DurationVar(&c.rssEvery, "rss-every", 2*time.Second, "how often the servers' resident memory is sampled")
	fs.Float64Var(&c.rssGrowth, "rss-growth", 0.10, "most a server's memory may grow over the second half, as a share of its peak")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	switch {
	case fs.NArg() > 0:
		return c, fmt.Errorf("unexpected arguments %q", fs.Args())
	case c.companies < 2 || c.clients < 1 || c.flood < 1 || c.bombers < 0:
		return c, errors.New("at least 2 companies, 1 client each and 1 flooding client")
	case c.workers < 2:
		return c, errors.New("at least 2 workers, so that one keeps working while the other is down")
	case c.killAt <= 0 || c.killAt >= 1 || c.lockAt <= 0 || c.lockAt >= 1:
		return c, errors.New("-kill-at and -lock-at are shares of the duration, between 0 and 1")
	case c.rescueAfter <= c.jobTimeout:
		return c, errors.New("-rescue-after must be longer than -job-timeout")
	}
	return c, nil
}

// soak is one run: the cluster, the clients' shared state and the books.
type soak struct {
	cfg     config
	docs    docTable
	cl      *cluster.Cluster
	dataDir string

	authURL, baseURL string
	photos           []photo
	bombs            *bombs
	http             *http.Client
	ledger           *ledger
	jobs             *jobBook

	companies []*company
	workers   []*cluster.Proc

	stop         chan struct{} // closed when the traffic ends
	trafficStart time.Duration
	trafficEnd   time.Duration
	drainEnd     time.Duration
	stoppedAt    time.Duration // when the soak stopped the servers

	mu     sync.Mutex
	events []event
}

// event is something the soak did to the service, for the report.
type event struct {
	at   time.Duration
	what string
}

func (s *soak) event(format string, args ...any) {
	e := event{time.Since(s.ledger.t0), fmt.Sprintf(format, args...)}
	s.mu.Lock()
	s.events = append(s.events, e)
	s.mu.Unlock()
	fmt.Fprintf(os.Stderr, "soak: %s %s\n", fmtDur(e.at), e.what)
}

func (s *soak) stopped() bool {
	select {
	case <-s.stop:
		return true
	default:
		return false
	}
}

func main() {
	cfg, err := parseFlags(os.Args[1:])
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(2)
	} else if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(2)
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	passed, err := run(ctx, cfg, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(1)
	}
	if !passed {
		os.Exit(1)
	}
}

// run runs the soak and writes its report to out; passed is false when a
// check failed, err is set when the soak itself could not run.
func run(ctx context.Context, cfg config, out io.Writer) (passed bool, err error) {
	s := &soak{cfg: cfg, stop: make(chan struct{}), jobs: &jobBook{sync: map[string]*company{}}}
	if s.docs, err = readDocTable(cfg.docs); err != nil {
		return false, err
	}
	if cfg.photoDir != "" {
		s.photos, err = photosIn(cfg.photoDir)
	} else {
		s.photos, err = syntheticPhotos()
	}
	if err != nil {
		return false, err
	}
	if s.bombs, err = makeBombs(); err != nil {
		return false, err
	}
	s.bombs.drainFor = cfg.letGo
	dataDir := cfg.dataDir
	if dataDir == "" {
		if dataDir, err = os.MkdirTemp("", "showroom-soak-"); err != nil {
			return false, err
		}
	}
	t0 := time.Now()
	s.ledger = &ledger{t0: t0}
	s.dataDir = dataDir
	s.cl = cluster.New(cluster.Config{Bin: cfg.bin, LogDir: dataDir,
		Env: []string{"SHOWROOM_DATA_DIR=" + dataDir, "SHOWROOM_LOG_LEVEL=warn"}})
	s.http = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	defer func() {
		s.cl.Stop(30 * time.Second)
		if passed && !cfg.keep && cfg.dataDir == "" {
			os.RemoveAll(dataDir)
		} else {
			fmt.Fprintf(os.Stderr, "soak: the data directory and the servers' logs are in %s\n", dataDir)
		}
	}()

	if err := s.start(ctx); err != nil {
		return false, err
	}
	rssCtx, stopRSS := context.WithCancel(ctx)
	defer stopRSS()
	go s.cl.SampleRSS(rssCtx, cfg.rssEvery)
	clients, err := s.setup(ctx)
	if err != nil {
		return false, err
	}
	if err := s.drive(ctx, clients); err != nil {
		return false, err
	}
	audits := make([]audit, len(s.companies))
	for i := range s.companies {
		audits[i] = clients[i][0].audit(ctx)
	}
	stopRSS()
	s.stoppedAt = time.Since(t0)
	s.cl.Stop(30 * time.Second)
	if err := writeRSS(s.cl.Procs(), filepath.Join(dataDir, "rss.csv")); err != nil {
		return false, err
	}
	return s.report(out, audits), nil
}

// setup sets every company up and logs its clients in, all companies at
// once; clients[i] are company i's.
func (s *soak) setup(ctx context.Context) ([][]*client, error) {
	clients := make([][]*client, len(s.companies))
	errs := make([]error, len(s.companies))
	var wg sync.WaitGroup
	for i, co := range s.companies {
		wg.Go(func() { clients[i], errs[i] = s.setupCompany(ctx, co) })
	}
	wg.Wait()
	return clients, errors.Join(errs...)
}

// drive runs the traffic and the faults for the duration, then waits for
// the calls under way and for every accepted job (up to the drain time).
func (s *soak) drive(ctx context.Context, clients [][]*client) error {
	t0 := s.ledger.t0
	s.trafficStart = time.Since(t0)
	s.event("traffic starts: %d companies, %s floods with %d clients", len(s.companies), s.flooder().name, s.cfg.flood)
	stopTimer := time.AfterFunc(s.cfg.duration, func() { close(s.stop) })
	defer stopTimer.Stop()
	var chaos sync.WaitGroup
	chaos.Go(func() { s.killWorker(ctx) })
	chaos.Go(func() { s.lockDatabase(ctx) })
	go s.progress(ctx)

	var traffic, followers sync.WaitGroup
	for i, co := range s.companies {
		for j, c := range clients[i][1:] {
			mix := processMix
			switch {
			case co.flood:
				mix = floodMix
			case co.bomb:
				mix = bombMix
			case j == 0:
				mix = editMix
			}
			traffic.Go(func() { c.run(ctx, mix) })
		}
	}
	// The followers poll until the traffic is over and their company's
	// jobs have ended, or the drain time, counted from the traffic's end,
	// runs out.
	clientsDone := make(chan struct{})
	drainCtx, cancelDrain := context.WithCancel(ctx)
	defer cancelDrain()
	for i := range s.companies {
		followers.Go(func() { clients[i][0].follow(drainCtx, clientsDone) })
	}
	select {
	case <-s.stop:
	case <-ctx.Done():
		return ctx.Err()
	}
	s.trafficEnd = time.Since(t0)
	s.event("traffic stops; waiting for the answers of calls under way and for accepted jobs (up to %v)", s.cfg.drain)
	drainTimer := time.AfterFunc(s.cfg.drain, cancelDrain)
	defer drainTimer.Stop()
	traffic.Wait()
	chaos.Wait()
	close(clientsDone)
	followers.Wait()
	s.drainEnd = time.Since(t0)
	s.event("drained")
	return nil
}

// start creates the companies and users, then the servers.
func (s *soak) start(ctx context.Context) error {
	cfg := s.cfg
	for i := range cfg.companies {
		co := &company{name: fmt.Sprintf("dealer%d", i+1), password: randomPassword(), tint: uint8(60 * i)}
		if i == cfg.companies-1 {
			co.flood = true
		}
		if i == 0 {
			co.credits = cfg.credits
		}
		if _, err := s.cl.Run("", "admin", "company", "add", co.name); err != nil {
			return err
		}
		for u := range 2 {
			name := userName(co.name, u+1)
			if _, err := s.cl.Run(co.password+"\n", "admin", "user", "add", "--company", co.name, "--username", name); err != nil {
				return err
			}
			co.users = append(co.users, name)
		}
		if co.credits > 0 {
			if _, err := s.cl.Run("", "admin", "credits", "set", "--company", co.name, strconv.FormatInt(co.credits, 10)); err != nil {
				return err
			}
		}
		s.companies = append(s.companies, co)
	}
	if cfg.bombers > 0 {
		// Unlimited credits, so that its bombs reach the service's limits.
		co := &company{name: "bomber", bomb: true, password: randomPassword(), tint: 200}
		if _, err := s.cl.Run("", "admin", "company", "add", co.name); err != nil {
			return err
		}
		name := userName(co.name, 1)
		if _, err := s.cl.Run(co.password+"\n", "admin", "user", "add", "--company", co.name, "--username", name); err != nil {
			return err
		}
		co.users = []string{name}
		s.companies = append(s.companies, co)
	}
	// The queue's length is the API's to enforce; the run limits are the
	// workers' (startWorker).
	auth, err := s.cl.StartAuth("auth")
	if err != nil {
		return err
	}
	s.authURL = auth.URL
	api, err := s.cl.StartAPI("api", s.authURL, "--rate-limit", strconv.Itoa(cfg.rateLimit),
		"--rate-burst", strconv.Itoa(cfg.rateBurst), "--queue-length", strconv.Itoa(cfg.queueLength))
	if err != nil {
		return err
	}
	s.baseURL = api.URL
	for i := range cfg.workers {
		p, err := s.startWorker(fmt.Sprintf("worker%d", i+1))
		if err != nil {
			return err
		}
		s.workers = append(s.workers, p)
	}
	return ctx.Err()
}

func (s *soak) startWorker(name string) (*cluster.Proc, error) {
	return s.cl.StartWorker(name, "--workers", "1", "--model", s.cfg.model,
		"--job-timeout", s.cfg.jobTimeout.String(), "--rescue-after", s.cfg.rescueAfter.String())
}

// setupCompany logs the company's clients in and has the first set up its
// content and configurations. The first client then follows the company's
// asynchronous jobs; the others make the traffic: an ordinary company's
// second client edits, the rest send photos.
func (s *soak) setupCompany(ctx context.Context, co *company) ([]*client, error) {
	n := 1 + s.cfg.clients + 1
	switch {
	case co.flood:
		n = 1 + s.cfg.flood
	case co.bomb:
		n = 1 + s.cfg.bombers
	}
	cs := make([]*client, n)
	for i := range cs {
		cs[i] = &client{s: s, co: co, user: co.users[i%len(co.users)], rng: mrand.New(mrand.NewPCG(uint64(i), uint64(co.tint)))}
		if err := cs[i].login(ctx); err != nil {
			return nil, err
		}
	}
	return cs, cs[0].setup(ctx)
}

// killWorker kills the first worker with SIGKILL while it runs a job, and
// starts it again a little later: the jobs it held must still end.
func (s *soak) killWorker(ctx context.Context) {
	if !s.sleepUntil(ctx, s.cfg.killAt) {
		return
	}
	w := s.workers[0]
	s.cl.Kill(w)
	s.event("%s killed (SIGKILL)", w.Name)
	time.Sleep(s.cfg.restartAfter)
	if ctx.Err() != nil {
		return
	}
	if p, err := s.startWorker(w.Name + "-restarted"); err != nil {
		s.event("%s could not be restarted: %v", w.Name, err)
	} else {
		s.event("%s restarted", w.Name)
		s.workers[0] = p
	}
}

// lockDatabase holds the database's write lock for a few seconds.
func (s *soak) lockDatabase(ctx context.Context) {
	if !s.sleepUntil(ctx, s.cfg.lockAt) {
		return
	}
	s.event("database locked (BEGIN EXCLUSIVE from another connection) for %v", s.cfg.lockFor)
	if err := lockDatabase(ctx, s.dataDir, s.cfg.lockFor); err != nil {
		s.event("database lock failed: %v", err)
		return
	}
	s.event("database unlocked")
}

// sleepUntil waits until share of the traffic's duration has passed; false
// if the soak ended first.
func (s *soak) sleepUntil(ctx context.Context, share float64) bool {
	at := s.ledger.t0.Add(s.trafficStart + time.Duration(share*float64(s.cfg.duration)))
	t := time.NewTimer(time.Until(at))
	defer t.Stop()
	select {
	case <-t.C:
		return !s.stopped()
	case <-ctx.Done():
		return false
	case <-s.stop:
		return false
	}
}

// progress prints a line every 30 seconds, so a 10-minute run shows it is
// alive.
func (s *soak) progress(ctx context.Context) {
	t := time.NewTicker(30 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.stop:
			return
		case <-t.C:
		}
		var n [4]int
		for _, r := range s.ledger.snapshot() {
			n[r.class]++
		}
		fmt.Fprintf(os.Stderr, "soak: %s requests: %d ok, %d pushback, %d refused, %d failures\n",
			fmtDur(time.Since(s.ledger.t0)), n[ok], n[pushback], n[refused], n[failure])
	}
}

// flooder is the company that floods the service with photos.
func (s *soak) flooder() *company {
	for _, co := range s.companies {
		if co.flood {
			return co
		}
	}
	panic("soak: no flooding company")
}

// bomberText says, for the report, what the bombing company does.
func (s *soak) bomberText() string {
	if s.cfg.bombers == 0 {
		return "no company sends hostile requests"
	}
	return fmt.Sprintf("bomber sends nothing but the hostile requests of issue 25 with %d clients", s.cfg.bombers)
}

func randomPassword() string {
	b := make([]byte, 12)
	rand.Read(b)
	return hex.EncodeToString(b)
}
