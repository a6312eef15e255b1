# Targets of the harness. `make test` is what CI runs (.ci/run).
GO      ?= go
BIN     ?= bin/harness
BENCH   ?= .
PKGS    ?= ./...

# load: the world served, how long and how hard to drive it, and the tool.
LOAD_SCALE    ?= 1
LOAD_ADDR     ?= 127.0.0.1:18181
LOAD_DURATION ?= 10s
LOAD_WORKERS  ?= 8
VEGETA        ?= $(GO) run github.com/tsenart/vegeta/v12@v12.13.0

.PHONY: all build test lint bench bench-generate fuzz load report-screenshot clean

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

## bench: every benchmark, with allocations (BENCH=regexp selects; the
## mock's benchmarks build a world of a million transactions first)
bench:
	$(GO) test -run '^$$' -bench '$(BENCH)' -benchmem $(PKGS)

## bench-generate: a million transactions made and read in one process,
## reporting time and peak memory (run alone so the peak is its own)
bench-generate:
	$(GO) test -run '^$$' -bench 'GenerateMillion' -benchtime 1x ./generators

## fuzz: each mock server fuzz target (and the fault grammar's) for FUZZTIME
## (default 30s)
FUZZTIME ?= 30s
fuzz:
	for p in ./mockserver ./mockserver/faults; do \
		for f in $$($(GO) test -list 'Fuzz.*' $$p | grep ^Fuzz); do \
			$(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$p || exit 1; \
		done; \
	done

## load: serve a world (LOAD_SCALE) and drive five listings with vegeta for
## LOAD_DURATION with LOAD_WORKERS workers; prints requests per second
load: build
	@set -e; \
	$(BIN) serve --addr $(LOAD_ADDR) --scale $(LOAD_SCALE) --log-format none > /tmp/harness-load.log 2>&1 & pid=$$!; \
	trap 'kill $$pid 2>/dev/null' EXIT; \
	for i in $$(seq 1 600); do curl -sf http://$(LOAD_ADDR)/api/v2/network/parameters?pagination.first=1 >/dev/null && break; sleep 0.5; done; \
	cat /tmp/harness-load.log; \
	for path in \
		"/api/v2/network/parameters?pagination.first=100" \
		"/api/v2/snapshots?pagination.first=100" \
		"/api/v2/games?pagination.first=100" \
		"/transactions?first=50" \
		"/transactions?first=50&cmdTypes=Batch+Proposal"; do \
		echo "== GET $$path"; \
		echo "GET http://$(LOAD_ADDR)$$path" | $(VEGETA) attack -rate=0 -max-workers=$(LOAD_WORKERS) -duration=$(LOAD_DURATION) | $(VEGETA) report -type=text | grep -E 'Requests|Latencies|Success|Status'; \
	done

## report-screenshot: render a sample HTML conformance report in headless
## chromium (which must be on the PATH) and save docs/conformance-report.png
report-screenshot:
	REPORT_SCREENSHOT=$(CURDIR)/docs/conformance-report.png \
		$(GO) test -count=1 -run '^TestHTMLReportInBrowser$$' -v ./conformance

clean:
	rm -rf bin
