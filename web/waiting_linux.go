package web

import (
	"net"

	"golang.org/x/sys/unix"
)

// sentSomething reports whether c has bytes from its client that the server
// has not read yet (SIOCINQ, which is TIOCINQ's number): a request that came in time but waits for a
// busy server to read it, which must not count against its sender as
// silence.
func sentSomething(c net.Conn) bool {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return false
	}
	raw, err := tc.SyscallConn()
	if err != nil {
		return false
	}
	n := 0
	_ = raw.Control(func(fd uintptr) { n, _ = unix.IoctlGetInt(int(fd), unix.TIOCINQ) })
	return n > 0
}
