# The harness as a container image: harness serve, the mock with its
# built-in world, on port 8080 of every interface of the container.
#
#   make image                   # docker build -t harness:VERSION .
#   docker run --rm -p 127.0.0.1:8080:8080 harness:VERSION
#
# Inside a container, 127.0.0.1 is the container's own loopback, which the
# host cannot reach: the mock listens on 0.0.0.0:8080 there, and -p
# 127.0.0.1:8080:8080 publishes it on the host's loopback only (see
# docs/install.md). Any other command runs as docker run IMAGE COMMAND ...,
# such as docker run --rm harness:VERSION version.

FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# VERSION is what harness version prints (make image passes git describe).
ARG VERSION=
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/harness ./cmd/harness

# Static binary, no shell: distroless's static image (CA certificates for
# https base URLs, /tmp, time zones) as its non-root user.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/harness /harness
USER 65532:65532
EXPOSE 8080
ENTRYPOINT ["/harness"]
CMD ["serve", "--addr", "0.0.0.0:8080"]
