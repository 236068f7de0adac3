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
	if !strings.HasPrefix(path, "/scenarios/") || len(path) > 300 || strings.ContainsAny(path, "\r\n") {
		return &problem{status: http.StatusBadRequest, key: "err.qr"}
	}
	code, err := qrcode.New(origin(c)+path, qrcode.Medium)
	if err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderCacheControl, "public, max-age=86400")
	return c.Blob(http.StatusOK, "image/svg+xml", qrSVG(code.Bitmap()))
}

// origin is the scheme and host the visitor reached us by, as a proxy in
// front of us reports it.
func origin(c echo.Context) string {
	return c.Scheme() + "://" + c.Request().Host
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
