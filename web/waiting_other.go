//go:build !linux

package web

import "net"

// sentSomething is Linux's; elsewhere a connection's age alone decides.
func sentSomething(net.Conn) bool { return false }
