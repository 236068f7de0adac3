package follow

import (
	"net"
	"time"

	"golang.org/x/sys/unix"
)

// streamSendBuffer is the kernel's send buffer for a follower's stream: a
// few events. The kernel's own default grows to megabytes, which a follower
// who has stopped reading would fill for hundreds of moves before a write
// ever waited, and so before the write deadline could drop them.
const streamSendBuffer = 32 << 10

// TuneConn readies a follower's connection for a long stream: a small send
// buffer, and TCP_USER_TIMEOUT, so that an event the follower's machine has
// not acknowledged within wait (a phone gone to sleep, a laptop closed, a
// network gone) drops the connection by the clock rather than after the
// kernel's retransmissions (about a quarter of an hour). It returns the
// connection's Probe (nil for anything but a TCP connection, which is left
// as it is).
func TuneConn(c net.Conn, wait time.Duration) Probe {
	tc, ok := unwrapTCP(c)
	if !ok {
		return nil
	}
	_ = tc.SetWriteBuffer(streamSendBuffer)
	raw, err := tc.SyscallConn()
	if err != nil {
		return nil
	}
	_ = raw.Control(func(fd uintptr) {
		_ = unix.SetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_USER_TIMEOUT, int(wait.Milliseconds()))
	})
	// What the other end acknowledged (TCP_INFO) and what is still queued
	// here, unsent or unacknowledged (SIOCOUTQ, which is TIOCOUTQ's number).
	return func() (delivered, handed uint64, ok bool) {
		err := raw.Control(func(fd uintptr) {
			ti, err := unix.GetsockoptTCPInfo(int(fd), unix.IPPROTO_TCP, unix.TCP_INFO)
			if err != nil {
				return
			}
			queued, err := unix.IoctlGetInt(int(fd), unix.TIOCOUTQ)
			if err != nil || queued < 0 {
				return
			}
			delivered, handed, ok = ti.Bytes_acked, ti.Bytes_acked+uint64(queued), true
		})
		return delivered, handed, ok && err == nil
	}
}
