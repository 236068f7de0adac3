# Build a static binary, then ship it alone in a minimal image that runs as a
# non-root user. The binary checks its own health, so the image needs no shell.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/fencing-demo .

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/fencing-demo /fencing-demo
USER nonroot:nonroot
ENV PORT=8080
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=3s --start-period=2s --retries=3 CMD ["/fencing-demo", "-healthcheck"]
ENTRYPOINT ["/fencing-demo"]
