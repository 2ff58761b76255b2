# syntax=docker/dockerfile:1
# Heddle's container image: a static binary (CGO_ENABLED=0; the pure-Go
# SQLite and embedding backends need no cgo) on distroless, as a non-root
# user. Build: docker build -t heddle .   (compose.yaml builds it too.)

FROM golang:1.26.8-bookworm AS build
WORKDIR /src
# Modules first, so that a source change reuses the downloaded modules.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 GOOS=linux go build -trimpath -ldflags="-s -w" -o /out/heddle . \
 && mkdir -p /out/data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/heddle /usr/local/bin/heddle
# The data dir (spill segments; SQLite when no Postgres) belongs to the
# runtime user; mount a volume here.
COPY --from=build --chown=65532:65532 /out/data /data
ENV HEDDLE_ENV=production \
    HEDDLE_ADDR=:8080 \
    HEDDLE_DATA_DIR=/data
USER 65532:65532
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 CMD ["/usr/local/bin/heddle", "health"]
ENTRYPOINT ["/usr/local/bin/heddle"]
CMD ["serve"]
