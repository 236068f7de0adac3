package realserver

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// ZooKeeper is one standalone ZooKeeper server on a loopback port, run from
// Debian's zookeeper package without its service scripts.
type ZooKeeper struct {
	*Process
	Port int
	// TickTime is the server's tickTime: session timeouts are negotiated
	// into [2, 20] tickTime, and sessions are checked once a tick.
	TickTime time.Duration
}

// StartZooKeeper starts ZooKeeperServerMain with a zoo.cfg in a temporary
// folder that names tick, the data folder and a free loopback port. It is
// stopped when the test ends.
func StartZooKeeper(tb testing.TB, tick time.Duration) *ZooKeeper {
	tb.Helper()
	java := Binary(tb, "java", "zookeeper")
	jar := "/usr/share/java/zookeeper.jar"
	if _, err := os.Stat(jar); err != nil {
		Missing(tb, jar+" not found (apt-get install -y zookeeper)")
	}
	if _, err := exec.LookPath(java); err != nil {
		Missing(tb, "java not found (apt-get install -y zookeeper)")
	}
	dir := tb.TempDir()
	port := FreePort(tb)
	cfg := []string{
		fmt.Sprintf("tickTime=%d", tick.Milliseconds()),
		"dataDir=" + filepath.Join(dir, "data"),
		fmt.Sprintf("clientPort=%d", port),
		"clientPortAddress=127.0.0.1",
		"admin.enableServer=false",
		"4lw.commands.whitelist=srvr,dump,wchc",
	}
	path := filepath.Join(dir, "zoo.cfg")
	if err := os.WriteFile(path, []byte(strings.Join(cfg, "\n")+"\n"), 0o600); err != nil {
		tb.Fatal(err)
	}
	z := &ZooKeeper{Port: port, TickTime: tick}
	z.Process = Launch(tb, Spec{
		Name: "zookeeper",
		Path: java,
		// Every jar Debian installed for ZooKeeper and its dependencies.
		Args: []string{"-Xmx256m", "-cp", "/etc/zookeeper/conf:" + jar + ":/usr/share/java/*", "org.apache.zookeeper.server.ZooKeeperServerMain", path},
		Dir:  dir,
		// A JVM that starts beside others on a busy machine takes its time.
		ReadyIn: 90 * time.Second,
		Ready:   func(ctx context.Context) error { return srvr(ctx, port) },
	})
	return z
}

// srvr asks the server the "srvr" four-letter word; it answers once it
// serves clients.
func srvr(ctx context.Context, port int) error {
	out, err := fourLetter(ctx, port, "srvr")
	if !strings.Contains(out, "Mode:") {
		return fmt.Errorf("srvr answered %q (%v)", out, err)
	}
	return nil
}

// fourLetter sends a four-letter word and returns the answer.
func fourLetter(ctx context.Context, port int, word string) (string, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", Addr(port))
	if err != nil {
		return "", err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := conn.Write([]byte(word)); err != nil {
		return "", err
	}
	out, err := io.ReadAll(conn)
	return string(out), err
}

// FourLetter asks the server a four-letter word (srvr: its last zxid;
// dump: its live sessions; wchc: the watches of each session) and returns
// the answer; a failure fails the test.
func (z *ZooKeeper) FourLetter(tb testing.TB, word string) string {
	tb.Helper()
	out, err := fourLetter(context.Background(), z.Port, word)
	if err != nil {
		tb.Fatalf("zookeeper: %s: %v", word, err)
	}
	return out
}

// Addr returns the server's host:port.
func (z *ZooKeeper) Addr() string { return Addr(z.Port) }
