package web

import (
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
)

// healthz tells a load balancer or Docker that the server answers, and,
// once a graceful shutdown has begun, that it is going: a 503, so new
// visitors are sent elsewhere before the listener closes.
func (s *Server) healthz(c echo.Context) error {
	c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
	if s.draining.Load() {
		refuse503(c)
		return c.String(http.StatusServiceUnavailable, "shutting down")
	}
	return c.String(http.StatusOK, "ok")
}

// Healthcheck asks a server on this machine's port whether it is healthy:
// the -healthcheck flag, for Docker's HEALTHCHECK, which has no curl.
func Healthcheck(port string) error {
	client := &http.Client{Timeout: 3 * time.Second}
	resp, err := client.Get("http://" + net.JoinHostPort("127.0.0.1", port) + "/healthz")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("healthz: %s", resp.Status)
	}
	return nil
}
