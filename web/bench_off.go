//go:build !bench

package web

import (
	"context"
	"errors"
	"log/slog"
)

// errNoBench is the answer to -bench-routes or -pprof-port in a server built
// without -tags bench: the production server links no load tooling.
var errNoBench = errors.New("-bench-routes and -pprof-port need a server built with -tags bench (go run -tags bench .)")

func (s *Server) benchRoutes() error { return errNoBench }

// ServePprof is only in a -tags bench build (bench.go).
func ServePprof(ctx context.Context, port string, log *slog.Logger) error { return errNoBench }
