//go:build !linux

package follow

import (
	"net"
	"time"
)

// TuneConn shrinks a follower's send buffer; TCP_USER_TIMEOUT is Linux's.
func TuneConn(c net.Conn, wait time.Duration) {
	if tc, ok := unwrapTCP(c); ok {
		_ = tc.SetWriteBuffer(32 << 10)
	}
}
