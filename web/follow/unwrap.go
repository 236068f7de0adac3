package follow

import "net"

// unwrapTCP finds the TCP connection under c: c itself, or what a wrapper
// (the server's connection limiter) returns from NetConn.
func unwrapTCP(c net.Conn) (*net.TCPConn, bool) {
	for range 4 {
		if tc, ok := c.(*net.TCPConn); ok {
			return tc, true
		}
		u, ok := c.(interface{ NetConn() net.Conn })
		if !ok {
			return nil, false
		}
		c = u.NetConn()
	}
	return nil, false
}
