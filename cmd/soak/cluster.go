package main

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/showroom/showroom/internal/cluster"
	_ "modernc.org/sqlite" // the driver for locking the database from outside
)

// lockDatabase holds SQLite's write lock on the database in dataDir from a
// connection of its own for d, as a backup tool or a stuck writer would:
// the service's writers wait on it (its busy timeout) and must answer in
// the end.
func lockDatabase(ctx context.Context, dataDir string, d time.Duration) error {
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dataDir, "showroom.db")+"?_pragma=busy_timeout(30000)")
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

// logLines counts the lines of p's log at level WARN and ERROR (the
// servers log JSON).
func logLines(p *cluster.Proc) (warn, errs int) {
	f, err := os.Open(p.Log)
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

// writeRSS writes every memory sample of procs to path as CSV (process,
// seconds since the soak began, MB), for a closer look at a run.
func writeRSS(procs []*cluster.Proc, path string) error {
	var b strings.Builder
	b.WriteString("process,seconds,mb\n")
	for _, p := range procs {
		for _, s := range p.RSS {
			fmt.Fprintf(&b, "%s,%.1f,%.1f\n", p.Name, s.At.Seconds(), float64(s.KB)/1024)
		}
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}
