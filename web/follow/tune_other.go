//go:build !linux

package follow

import (
	"net"
	"time"
)

// TuneConn shrinks a follower's send buffer; TCP_USER_TIMEOUT and the
// Probe's counters are Linux's, so elsewhere a follower that stopped reading
// is found by the write deadline alone.
func TuneConn(c net.Conn, wait time.Duration) Probe {
	if tc, ok := unwrapTCP(c); ok {
		_ = tc.SetWriteBuffer(32 << 10)
	}
	return nil
}
