package web

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
	qrcode "github.com/skip2/go-qrcode"
)

// qr draws, as SVG, a QR code of one of this site's own frame addresses, so
// students can scan the projector and open the same frame in their own run.
// It only encodes paths of this site: it is not a QR service for anything.
func (s *Server) qr(c echo.Context) error {
	path := c.QueryParam("path")
	if !strings.HasPrefix(path, "/scenarios/") || len(path) > maxQRPath || strings.ContainsAny(path, "\r\n") {
		return &problem{status: http.StatusBadRequest, key: "err.qr"}
	}
	return s.qrOf(c, path)
}

// maxQRPath is the longest path a QR code is made of: a free-play frame's
// address with its history (views/play.go) stays under it, and a QR code
// holds it (version 40 takes 2,331 bytes).
const maxQRPath = 2000

// qrOf answers a QR code of path on this site. The site's address is the
// configured -public-url, and then the code is the same for everyone and
// cached publicly; without one, it is worked out per request (origin), and
// the code is cached by the visitor's browser only.
func (s *Server) qrOf(c echo.Context, path string) error {
	base, err := s.origin(c)
	if err != nil {
		return err
	}
	code, err := qrcode.New(base+path, qrcode.Medium)
	if err != nil {
		return err
	}
	h := c.Response().Header()
	if s.cfg.PublicURL != "" {
		h.Set(echo.HeaderCacheControl, "public, max-age=86400")
	} else {
		h.Set(echo.HeaderCacheControl, "private, max-age=3600")
		h.Add(echo.HeaderVary, "Host, X-Forwarded-Proto, X-Forwarded-Host")
	}
	return c.Blob(http.StatusOK, "image/svg+xml", qrSVG(code.Bitmap()))
}

// origin is the scheme and host a QR code points at: the configured public
// URL; else, behind a trusted proxy (-behind-proxy, and the peer is one of
// the trusted proxies), the X-Forwarded-Proto and X-Forwarded-Host it sets;
// else how the request reached us directly. A Host that is not a host name
// is a 400, never drawn into a code.
func (s *Server) origin(c echo.Context) (string, error) {
	if s.cfg.PublicURL != "" {
		return s.cfg.PublicURL, nil
	}
	r := c.Request()
	scheme, host := "http", r.Host
	if r.TLS != nil {
		scheme = "https"
	}
	if s.cfg.BehindProxy && s.trusted(peerAddr(r)) {
		if p := strings.ToLower(firstHeaderValue(r, "X-Forwarded-Proto")); p == "http" || p == "https" {
			scheme = p
		}
		if h := firstHeaderValue(r, "X-Forwarded-Host"); h != "" {
			host = h
		}
	}
	if !validHost(host) {
		return "", &problem{status: http.StatusBadRequest, key: "err.host"}
	}
	return scheme + "://" + host, nil
}

// firstHeaderValue is the first of a header's comma-separated values.
func firstHeaderValue(r *http.Request, name string) string {
	v, _, _ := strings.Cut(r.Header.Get(name), ",")
	return strings.TrimSpace(v)
}

// validHost reports whether h is a host name or address, with a port or not.
func validHost(h string) bool {
	if h == "" || len(h) > 255 {
		return false
	}
	for i := 0; i < len(h); i++ {
		switch c := h[i]; {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '.', c == ':', c == '[', c == ']':
		default:
			return false
		}
	}
	return true
}

// qrSVG draws the modules as one path of unit squares: small, and crisp at
// any size.
func qrSVG(bits [][]bool) []byte {
	var b strings.Builder
	n := len(bits)
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" shape-rendering="crispEdges">`, n, n)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="#fff"/><path fill="#000" d="`, n, n)
	for y, row := range bits {
		for x, on := range row {
			if on {
				fmt.Fprintf(&b, "M%d %dh1v1h-1z", x, y)
			}
		}
	}
	b.WriteString(`"/></svg>`)
	return []byte(b.String())
}
