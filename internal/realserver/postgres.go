package realserver

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// PostgresBin is where Debian's postgresql package puts the server programs.
const PostgresBin = "/usr/lib/postgresql/15/bin"

// Postgres is one PostgreSQL server on a loopback port, its cluster in a
// temporary folder, run as the unprivileged postgres user because the
// server refuses to run as root. It trusts every local connection: nothing
// but loopback can reach it, and it lives only as long as the test.
type Postgres struct {
	*Process
	Port int
	Dir  string // the cluster and the socket
}

// StartPostgres runs initdb and starts postgres. settings are "name=value"
// server settings, such as "deadlock_timeout=100ms". It is stopped when the
// test ends (a fast shutdown, which does not wait for clients).
func StartPostgres(tb testing.TB, settings ...string) *Postgres {
	tb.Helper()
	initdb := filepath.Join(PostgresBin, "initdb")
	server := filepath.Join(PostgresBin, "postgres")
	for _, p := range []string{initdb, server} {
		if _, err := os.Stat(p); err != nil {
			Missing(tb, fmt.Sprintf("%s not found (apt-get install -y postgresql)", p))
		}
	}
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			Missing(tb, "no postgres user to run the server as (apt-get install -y postgresql creates it)")
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	}
	dir := tb.TempDir()
	if cred != nil {
		// The test's temporary folders are root's and closed to others: the
		// server's user must be able to reach its own folder inside them.
		for _, d := range []string{filepath.Dir(dir), dir} {
			if err := os.Chmod(d, 0o755); err != nil {
				tb.Fatal(err)
			}
		}
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			tb.Fatal(err)
		}
	}
	data := filepath.Join(dir, "data")
	cmd := exec.Command(initdb, "-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("initdb: %v\n%s", err, out)
	}
	port := FreePort(tb)
	args := []string{"-D", data, "-p", strconv.Itoa(port), "-k", dir,
		"-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"}
	for _, s := range settings {
		args = append(args, "-c", s)
	}
	pg := &Postgres{Port: port, Dir: dir}
	pg.Process = Launch(tb, Spec{
		Name:       "postgres",
		Path:       server,
		Args:       args,
		Dir:        dir,
		Credential: cred,
		ReadyIn:    20 * time.Second,
		Ready: func(ctx context.Context) error {
			c, err := pgconn.Connect(ctx, pg.URL())
			if err != nil {
				return err
			}
			return c.Close(ctx)
		},
	})
	// SIGINT is PostgreSQL's fast shutdown; the SIGTERM that Stop sends
	// next would wait for every client to leave.
	tb.Cleanup(func() {
		if pid := pg.Pid(); pid != 0 {
			_ = syscall.Kill(pid, syscall.SIGINT)
		}
	})
	return pg
}

// URL is the connection string of the server's postgres database.
func (p *Postgres) URL() string { return p.URLOf("postgres") }

// URLOf is the connection string of the server's database db.
func (p *Postgres) URLOf(db string) string {
	return fmt.Sprintf("postgres://postgres@%s/%s?sslmode=disable&connect_timeout=5", Addr(p.Port), db)
}
