// Package cluster runs Showroom's roles as separate processes of a built
// showroom binary, on loopback, the way a scaled-out deployment runs them:
// the soak (cmd/soak) and the multi-process test start an auth service,
// API replicas and workers with it, kill one alone, and read each one's
// memory. It is test and benchmark tooling; nothing in the service uses it.
package cluster

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Config says which binary the processes run and what they share.
type Config struct {
	// Bin is the showroom binary.
	Bin string
	// LogDir is where each process's log (stdout and stderr) is written,
	// as NAME.log.
	LogDir string
	// Env is added to every process's environment, after the caller's own
	// (a later value wins): SHOWROOM_* settings every command shares, such
	// as the data directory, the database and blob URLs, and credentials.
	Env []string
}

// Cluster is the processes started from one Config.
type Cluster struct {
	cfg Config
	t0  time.Time // Proc times count from it

	mu    sync.Mutex
	procs []*Proc // every process started, the killed ones too
}

// New returns a cluster with no process yet; times are counted from now.
func New(cfg Config) *Cluster {
	return &Cluster{cfg: cfg, t0: time.Now()}
}

// Proc is one role's process.
type Proc struct {
	Name string
	Role string
	// URL is a server's base URL, read from its log; empty for a worker.
	URL string
	// Addr is the loopback address a worker was given for its own HTTP
	// endpoints (--addr), so that workers never share one.
	Addr string
	// Log is the path of the process's log.
	Log string
	// Started and Ended are counted from the cluster's start; Ended is set
	// once the process has exited, with Err its exit status.
	Started, Ended time.Duration
	Err            error
	// Killed says the process was killed on purpose (Cluster.Kill).
	Killed bool
	// RSS is what SampleRSS recorded of its resident memory.
	RSS []Sample

	cmd  *exec.Cmd
	done chan struct{} // closed once it has exited
}

// Sample is one reading of a process's resident memory.
type Sample struct {
	At time.Duration // since the cluster's start
	KB int64
}

// Running reports whether p has not exited.
func (p *Proc) Running() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// Pid is p's process id.
func (p *Proc) Pid() int { return p.cmd.Process.Pid }

// PeakRSS is p's peak resident memory so far in KiB (VmHWM), while it runs.
func (p *Proc) PeakRSS() (int64, error) { return procStatus(p.Pid(), "VmHWM") }

// Procs returns every process started so far, in order.
func (c *Cluster) Procs() []*Proc {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*Proc(nil), c.procs...)
}

// StartAuth starts the auth service on a port of its own.
func (c *Cluster) StartAuth(name string, args ...string) (*Proc, error) {
	return c.start(name, "auth", append([]string{"--addr", "127.0.0.1:0"}, args...)...)
}

// StartAPI starts an API replica on a port of its own, verifying tokens
// with the auth service at authURL.
func (c *Cluster) StartAPI(name, authURL string, args ...string) (*Proc, error) {
	return c.start(name, "api", append([]string{"--addr", "127.0.0.1:0", "--auth-url", authURL}, args...)...)
}

// StartWorker starts a worker. The flags every worker gets from the
// cluster are here, in one place: a loopback address of its own, so that
// two workers on one machine never contend for the default.
func (c *Cluster) StartWorker(name string, args ...string) (*Proc, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	p, err := c.start(name, "worker", append([]string{"--addr", addr}, args...)...)
	if err != nil {
		return nil, err
	}
	p.Addr = addr
	return p, nil
}

var listening = regexp.MustCompile(`listening on (http://\S+)`)

// start runs `showroom role args...` and waits until it says it is ready:
// a server prints the address it listens on, a worker that it runs jobs
// (after its model has loaded; whatever else it prints, such as the
// address of its own endpoints, does not count).
func (c *Cluster) start(name, role string, args ...string) (*Proc, error) {
	logFile, err := os.Create(filepath.Join(c.cfg.LogDir, name+".log"))
	if err != nil {
		return nil, err
	}
	cmd := c.command(append([]string{role}, args...)...)
	cmd.Stderr = logFile
	// A test or soak that dies must not leave servers behind.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		logFile.Close()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, err
	}
	p := &Proc{Name: name, Role: role, cmd: cmd, Log: logFile.Name(), Started: time.Since(c.t0), done: make(chan struct{})}
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		said := false
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(logFile, line)
			if said {
				continue
			}
			if role == "worker" && strings.Contains(line, "worker is running") {
				ready <- ""
				said = true
			} else if m := listening.FindStringSubmatch(line); m != nil && role != "worker" {
				ready <- m[1]
				said = true
			}
		}
		io.Copy(io.Discard, stdout)
		p.Err = cmd.Wait()
		p.Ended = time.Since(c.t0)
		logFile.Close()
		close(p.done)
	}()
	c.mu.Lock()
	c.procs = append(c.procs, p)
	c.mu.Unlock()
	select {
	case p.URL = <-ready:
		return p, nil
	case <-p.done:
		return nil, fmt.Errorf("%s exited before it was ready (%v); its log: %s", name, p.Err, p.Log)
	case <-time.After(2 * time.Minute):
		c.Kill(p)
		return nil, fmt.Errorf("%s was not ready in 2 minutes; its log: %s", name, p.Log)
	}
}

// command is `showroom args...` with the cluster's environment.
func (c *Cluster) command(args ...string) *exec.Cmd {
	cmd := exec.Command(c.cfg.Bin, args...)
	cmd.Env = append(os.Environ(), c.cfg.Env...)
	return cmd
}

// Run runs a command that ends, such as `showroom admin ...` or `showroom
// migrate`, with stdin, and returns what it printed.
func (c *Cluster) Run(stdin string, args ...string) (string, error) {
	cmd := c.command(args...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("showroom %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

// Kill ends p with SIGKILL, as a crash would, and waits for it.
func (c *Cluster) Kill(p *Proc) {
	c.mu.Lock()
	p.Killed = true
	c.mu.Unlock()
	p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
}

// Stop asks every running process to shut down gracefully (SIGTERM) and
// waits for them; one that takes longer than grace is killed, and its Err
// says so.
func (c *Cluster) Stop(grace time.Duration) {
	procs := c.Procs()
	for _, p := range procs {
		if p.Running() {
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
			p.Err = fmt.Errorf("did not stop within %v of SIGTERM", grace)
		}
	}
}

// SampleRSS records the resident memory of every running process every
// interval until ctx ends.
func (c *Cluster) SampleRSS(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		c.mu.Lock()
		for _, p := range c.procs {
			if !p.Running() {
				continue
			}
			if kb, err := procStatus(p.Pid(), "VmRSS"); err == nil {
				p.RSS = append(p.RSS, Sample{time.Since(c.t0), kb})
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

// procStatus reads a size in KiB from a process's /proc status, such as
// VmRSS (resident now) or VmHWM (its peak).
func procStatus(pid int, field string) (int64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == field+":" {
			return strconv.ParseInt(f[1], 10, 64)
		}
	}
	return 0, errors.New("no " + field + " in /proc/" + strconv.Itoa(pid) + "/status")
}

// freeAddr returns a loopback address no one listens on now. Another
// process could take it before the worker does; the worker then fails at
// start, saying so.
func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}
