package main

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	_ "modernc.org/sqlite" // the driver for locking the database from outside
)

// cluster is the service under test: the auth service, the API and the
// workers as separate processes on one data directory, the way a
// scaled-out deployment runs them, so that a worker can be killed alone.
type cluster struct {
	bin     string
	dataDir string
	t0      time.Time // when the soak began; samples and events count from it

	authURL, baseURL string

	mu    sync.Mutex
	procs []*proc // every process started, the killed ones too
}

// proc is one server process.
type proc struct {
	name    string
	cmd     *exec.Cmd
	log     string
	started time.Duration
	ended   time.Duration // set once it has exited
	done    chan struct{} // closed when it has exited
	err     error         // its exit status, once done
	killed  bool          // by the soak, on purpose
	rss     []rssSample
}

type rssSample struct {
	at time.Duration
	kb int64
}

// running reports whether p has not exited.
func (p *proc) running() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

var listening = regexp.MustCompile(`listening on (http://\S+)`)

// start runs `showroom role args...` and waits until it says it is ready:
// a server prints the address it listens on, a worker that it runs jobs
// (after its model has loaded).
func (c *cluster) start(name, role string, args ...string) (*proc, string, error) {
	logFile, err := os.Create(filepath.Join(c.dataDir, name+".log"))
	if err != nil {
		return nil, "", err
	}
	cmd := exec.Command(c.bin, append([]string{role, "--data-dir", c.dataDir, "--log-level", "warn"}, args...)...)
	cmd.Stderr = logFile
	// A soak that dies must not leave servers behind.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		logFile.Close()
		return nil, "", err
	}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, "", err
	}
	p := &proc{name: name, cmd: cmd, log: logFile.Name(), started: time.Since(c.t0), done: make(chan struct{})}
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(logFile, line)
			if m := listening.FindStringSubmatch(line); m != nil {
				ready <- m[1]
			} else if strings.Contains(line, "worker is running") {
				ready <- ""
			}
		}
		io.Copy(io.Discard, stdout)
		p.err = cmd.Wait()
		p.ended = time.Since(c.t0)
		logFile.Close()
		close(p.done)
	}()
	c.mu.Lock()
	c.procs = append(c.procs, p)
	c.mu.Unlock()
	select {
	case addr := <-ready:
		return p, addr, nil
	case <-p.done:
		return nil, "", fmt.Errorf("%s exited before it was ready (%v); its log: %s", name, p.err, p.log)
	case <-time.After(2 * time.Minute):
		c.kill(p)
		return nil, "", fmt.Errorf("%s was not ready in 2 minutes; its log: %s", name, p.log)
	}
}

// kill ends p with SIGKILL, as a crash would, and waits for it.
func (c *cluster) kill(p *proc) {
	c.mu.Lock()
	p.killed = true
	c.mu.Unlock()
	p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
}

// stop asks every running process to shut down gracefully (SIGTERM) and
// waits for them; one that takes longer than grace is killed.
func (c *cluster) stop(grace time.Duration) {
	c.mu.Lock()
	procs := append([]*proc(nil), c.procs...)
	c.mu.Unlock()
	for _, p := range procs {
		if p.running() {
			p.cmd.Process.Signal(syscall.SIGTERM)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	for _, p := range procs {
		select {
		case <-p.done:
		case <-ctx.Done():
			p.cmd.Process.Signal(syscall.SIGKILL)
			<-p.done
			p.err = fmt.Errorf("did not stop within %v of SIGTERM", grace)
		}
	}
}

// sampleRSS records the resident memory of every running process every
// interval until ctx ends.
func (c *cluster) sampleRSS(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		c.mu.Lock()
		for _, p := range c.procs {
			if !p.running() {
				continue
			}
			if kb, err := vmRSS(p.cmd.Process.Pid); err == nil {
				p.rss = append(p.rss, rssSample{time.Since(c.t0), kb})
			}
		}
		c.mu.Unlock()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// vmRSS reads a process's resident set size in KiB from /proc.
func vmRSS(pid int) (int64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			return strconv.ParseInt(f[1], 10, 64)
		}
	}
	return 0, errors.New("no VmRSS")
}

// lockDatabase holds SQLite's write lock from a connection of its own for
// d, as a backup tool or a stuck writer would: the service's writers wait
// on it (its busy timeout) and must answer in the end.
func (c *cluster) lockDatabase(ctx context.Context, d time.Duration) error {
	db, err := sql.Open("sqlite", "file:"+filepath.Join(c.dataDir, "showroom.db")+"?_pragma=busy_timeout(30000)")
	if err != nil {
		return err
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN EXCLUSIVE"); err != nil {
		return fmt.Errorf("BEGIN EXCLUSIVE: %w", err)
	}
	time.Sleep(d)
	_, err = conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
	return err
}

// admin runs `showroom admin args...` with stdin, for the companies and
// users the soak needs.
func (c *cluster) admin(stdin string, args ...string) error {
	cmd := exec.Command(c.bin, append([]string{"admin", "--data-dir", c.dataDir}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("showroom admin %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return nil
}

// logLines counts the lines of p's log at level WARN and ERROR (the
// servers log JSON).
func (p *proc) logLines() (warn, errs int) {
	f, err := os.Open(p.log)
	if err != nil {
		return 0, 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		switch {
		case strings.Contains(sc.Text(), `"level":"WARN"`):
			warn++
		case strings.Contains(sc.Text(), `"level":"ERROR"`):
			errs++
		}
	}
	return warn, errs
}

// writeRSS writes every memory sample to path as CSV (process, seconds
// since the soak began, MB), for a closer look at a run.
func (c *cluster) writeRSS(path string) error {
	var b strings.Builder
	b.WriteString("process,seconds,mb\n")
	c.mu.Lock()
	for _, p := range c.procs {
		for _, s := range p.rss {
			fmt.Fprintf(&b, "%s,%.1f,%.1f\n", p.name, s.at.Seconds(), float64(s.kb)/1024)
		}
	}
	c.mu.Unlock()
	return os.WriteFile(path, []byte(b.String()), 0o644)
}
