# Targets of the harness. `make test` is what CI runs (.ci/run).
GO      ?= go
BIN     ?= bin/harness
BENCH   ?= .
PKGS    ?= ./...

.PHONY: all build test lint bench fuzz clean

all: build

## build: compile the harness binary into bin/
build:
	$(GO) build -o $(BIN) ./cmd/harness

## lint: go vet over every package
lint:
	$(GO) vet $(PKGS)

## test: vet, then every test with the race detector (what CI runs)
test: lint
	$(GO) test -race -count=1 $(PKGS)

## bench: every benchmark, with allocations (BENCH=regexp selects)
bench:
	$(GO) test -run '^$$' -bench '$(BENCH)' -benchmem $(PKGS)

clean:
	rm -rf bin
