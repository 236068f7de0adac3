package realserver

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"testing"
	"time"
)

// Etcd is one single-node etcd (Debian's etcd-server) on loopback ports.
type Etcd struct {
	*Process
	Port int // the client port
}

// StartEtcd starts etcd with its data in a temporary folder and its client
// and peer URLs on free loopback ports. It is stopped when the test ends.
func StartEtcd(tb testing.TB) *Etcd {
	tb.Helper()
	bin := Binary(tb, "etcd", "etcd-server")
	dir := tb.TempDir()
	client, peer := FreePort(tb), FreePort(tb)
	cu := fmt.Sprintf("http://127.0.0.1:%d", client)
	pu := fmt.Sprintf("http://127.0.0.1:%d", peer)
	e := &Etcd{Port: client}
	health := &http.Client{Timeout: time.Second}
	e.Process = Launch(tb, Spec{
		Name: "etcd",
		Path: bin,
		Args: []string{
			"--name", "demo", "--data-dir", filepath.Join(dir, "data"),
			"--listen-client-urls", cu, "--advertise-client-urls", cu,
			"--listen-peer-urls", pu, "--initial-advertise-peer-urls", pu,
			"--initial-cluster", "demo=" + pu, "--log-level", "error",
		},
		Dir:     dir,
		ReadyIn: 30 * time.Second,
		Ready: func(ctx context.Context) error {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, cu+"/health", nil)
			if err != nil {
				return err
			}
			resp, err := health.Do(req)
			if err != nil {
				return err
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				return fmt.Errorf("/health: %s", resp.Status)
			}
			return nil
		},
	})
	return e
}

// Endpoint returns the client URL.
func (e *Etcd) Endpoint() string { return fmt.Sprintf("http://127.0.0.1:%d", e.Port) }
