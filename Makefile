# Targets of the harness. `make test` is what CI runs (.ci/run).
GO      ?= go
BIN     ?= bin/harness
BENCH   ?= .
PKGS    ?= ./...

# The version stamped into the binaries (harness version prints it): the
# nearest tag, commits since, the commit, and -dirty for uncommitted
# changes; the commit alone before the first tag.
ifndef VERSION
VERSION := $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
endif
LDFLAGS_VERSION = -X main.version=$(VERSION)

# dist: the release binaries, static (no cgo) and without local paths
# (-trimpath) or symbols (-s -w), one per GOOS/GOARCH of DIST_TARGETS, into
# DIST with their SHA-256 checksums in DIST/SHA256SUMS.
DIST         ?= dist
DIST_TARGETS ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64
SHA256SUM    ?= $(shell command -v sha256sum >/dev/null 2>&1 && echo sha256sum || echo "shasum -a 256")

# image: the container image (Dockerfile) and its tag; image-scratch builds
# the same image FROM scratch out of the linux binary of make dist, where
# the base images cannot be pulled (see docs/install.md).
DOCKER       ?= docker
IMAGE        ?= harness:$(VERSION)
IMAGE_ARCH   ?= $(shell $(GO) env GOARCH)

# load: the world served, how long and how hard to drive it, and the tool
# (vegeta, fetched and built through the Go module proxy on first use).
LOAD_SCALE    ?= 1
LOAD_ADDR     ?= 127.0.0.1:18181
LOAD_DURATION ?= 10s
LOAD_WORKERS  ?= 8
VEGETA        ?= $(GO) run github.com/tsenart/vegeta/v12@v12.13.0

# bench-generate: the world harness generate writes and measures (GNU time,
# Debian package "time", reports its wall time and peak memory).
# bench-generate-huge: the larger world it writes, into a temporary directory
# under HUGE_TMPDIR (about 17 GB free needed at scale 1000, 23 GB while the
# games are written), removed afterwards.
GEN_SCALE    ?= 100
GNU_TIME     ?= /usr/bin/time
HUGE_SCALE   ?= 1000
HUGE_TMPDIR  ?= /tmp

# bench-store serves a generated world of STORE_SCALE from memory (100: a
# million transactions); bench-data writes DATA_SCALE as NDJSON (1000: ten
# million transactions, about 17 GB) into DATA_WORK (default: a temporary
# directory, removed after) and serves it from disk.
STORE_SCALE ?= 100
DATA_SCALE  ?= 1000
DATA_WORK   ?=

# MACHINE prints the machine a figure is measured on: its cores, its load
# (1, 5 and 15 minutes: other work competes for the cores), the Go version
# and the time. Every measuring target prints it before and after.
MACHINE = echo "machine: $$(nproc) cores, load $$(cut -d' ' -f1-3 /proc/loadavg), $$($(GO) env GOVERSION), $$(date -u +%Y-%m-%dT%H:%MZ)"

# serve_bg makes a temporary directory $$work, starts bin/harness serve on
# LOAD_ADDR in the background (the world of LOAD_SCALE), waits until it
# answers, and stops it and removes $$work when the recipe's shell exits. It
# starts a recipe line: @set -e; $(serve_bg); ...
serve_bg = work=$$(mktemp -d); \
	$(BIN) serve --addr $(LOAD_ADDR) --scale $(LOAD_SCALE) --log-format none > $$work/serve.log 2>&1 & pid=$$!; \
	trap 'kill $$pid 2>/dev/null; rm -rf $$work' EXIT; \
	for i in $$(seq 1 600); do curl -sf http://$(LOAD_ADDR)/api/v2/network/parameters?pagination.first=1 >/dev/null && break; sleep 0.5; done; \
	cat $$work/serve.log

# since prints the seconds since $$start (date +%s%N), to a tenth.
since = awk -v s=$$start -v e=$$(date +%s%N) 'BEGIN { printf "%.1f s", (e - s) / 1e9 }'

.PHONY: all build install dist image image-scratch test quick test-profile lint bench bench-generate bench-generate-huge bench-store bench-data bench-mock bench-wire bench-proxy bench-schemas verdicts-full selftest-seeds bench-cli bench-conform bench-conform-memory conform-seeds fuzz load report-screenshot check-export check-export-edges clean

all: build

## build: compile the harness binary into bin/, its version stamped
build:
	$(GO) build -ldflags "$(LDFLAGS_VERSION)" -o $(BIN) ./cmd/harness

## install: go install the harness (into GOBIN, or GOPATH/bin), its
## version stamped
install:
	$(GO) install -ldflags "$(LDFLAGS_VERSION)" ./cmd/harness

## dist: static binaries for every DIST_TARGETS (linux, darwin and windows
## on amd64 and arm64) into dist/, named harness-GOOS-GOARCH[.exe], with
## SHA256SUMS; VERSION stamped in each (harness version prints it)
dist:
	@set -e; rm -rf $(DIST); mkdir -p $(DIST); \
	for t in $(DIST_TARGETS); do \
		os=$${t%/*}; arch=$${t#*/}; ext=; [ "$$os" != windows ] || ext=.exe; \
		echo "$(DIST)/harness-$$os-$$arch$$ext ($(VERSION))"; \
		CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath -ldflags "-s -w $(LDFLAGS_VERSION)" \
			-o $(DIST)/harness-$$os-$$arch$$ext ./cmd/harness; \
	done; \
	cd $(DIST) && $(SHA256SUM) harness-* > SHA256SUMS
	@cat $(DIST)/SHA256SUMS

## image: the container image IMAGE (harness:VERSION) from the Dockerfile:
## harness serve on 0.0.0.0:8080 inside, as a non-root user
image:
	$(DOCKER) build --build-arg VERSION=$(VERSION) -t $(IMAGE) .

## image-scratch: the image IMAGE FROM scratch (Dockerfile.scratch) with
## the linux/IMAGE_ARCH binary make dist builds (into DIST/image, the whole
## build context): no base image to pull
image-scratch:
	$(MAKE) dist DIST=$(DIST)/image DIST_TARGETS=linux/$(IMAGE_ARCH) VERSION=$(VERSION)
	$(DOCKER) build -f Dockerfile.scratch --build-arg ARCH=$(IMAGE_ARCH) -t $(IMAGE) $(DIST)/image

## lint: go vet over every package
lint:
	$(GO) vet $(PKGS)

## test: vet, then every test (what CI runs); go test prints each
## package's time, MACHINE what the machine was doing. Three passes:
##  1. with the race detector, every package but those below;
##  2. without it, in full, the packages whose tests spend their time making
##     and checking data (DATA_PKGS: the generators, the schemas), and
##     VERDICT_PKGS: the self-tests, whose subject is the suite's verdicts
##     over whole runs against in-process mocks, and the model's agreement
##     with the mock over thousands of queries (the mock's races are the
##     mockserver packages' tests, in pass 1), and make bench-wire's tool,
##     whose test runs it whole over processes (47 s under the detector,
##     half a second without);
##  3. DATA_PKGS again with the race detector and -short: their concurrent
##     code (the generator's workers, the parallel validator, the index's
##     parsers) runs under the detector, their long tests skip or shrink.
## Pass 2 runs beside passes 1 and 3, so that neither core waits while one
## long package ends a pass, one package at a time (-p 1: the cores are
## the other passes' too), the self-tests first; its output (written to a
## temporary file) follows theirs (interrupted, make test stops it too).
## Each pass says how long it took; the target fails when any pass fails.
## The detector makes data-heavy tests five to ten times slower: with it
## on everything make test took 20 minutes on a loaded machine.
# TESTFLAGS go to every go test of make test: -trimpath keys the build
# cache by import path rather than directory, so that a fresh clone or a
# worktree of the checkout reuses what an earlier run compiled.
TESTFLAGS    ?= -trimpath
VERDICT_PKGS = ./conformance/selftest ./conformance/model/agreement ./internal/tools/wirebench
DATA_PKGS    = ./generators/... ./schemas/...
RACE_PKGS = $$($(GO) list $(PKGS) | grep -v -e '/conformance/selftest$$' -e '/conformance/model/agreement$$' -e '/internal/tools/wirebench$$' -e '/generators\(/\|$$\)' -e '/schemas\(/\|$$\)')
test: lint
	@$(MACHINE)
	@set -u; pass2=$$(mktemp); p2=; trap 'rm -f $$pass2' EXIT; \
	trap '[ -z "$$p2" ] || { pkill -P $$p2; kill $$p2; } 2>/dev/null; exit 130' INT TERM; \
	echo "pass 2 (without the race detector: $(VERDICT_PKGS) $(DATA_PKGS)) runs beside passes 1 and 3; its output follows theirs"; \
	( start=$$(date +%s%N); $(GO) test $(TESTFLAGS) -p 1 -count=1 -timeout 20m $(VERDICT_PKGS) $(DATA_PKGS) && ok=0 || ok=$$?; \
	  echo "pass 2 took $$($(since))"; exit $$ok ) > $$pass2 2>&1 & p2=$$!; \
	failed=; start=$$(date +%s%N); \
	echo "pass 1: $(GO) test -race -count=1 (every package but $(VERDICT_PKGS) $(DATA_PKGS))"; \
	$(GO) test $(TESTFLAGS) -race -count=1 -timeout 30m $(RACE_PKGS) || failed="$$failed 1"; \
	echo "pass 1 took $$($(since))"; start=$$(date +%s%N); \
	echo "pass 3: $(GO) test -race -short -count=1 $(DATA_PKGS)"; \
	$(GO) test $(TESTFLAGS) -race -short -count=1 -timeout 20m $(DATA_PKGS) || failed="$$failed 3"; \
	echo "pass 3 took $$($(since))"; \
	wait $$p2 || failed="$$failed 2"; \
	echo "pass 2: $(GO) test -p 1 -count=1 $(VERDICT_PKGS) $(DATA_PKGS)"; cat $$pass2; \
	$(MACHINE); \
	if [ -n "$$failed" ]; then echo "make test: FAILED (pass$$failed)"; exit 1; fi

## quick: the fast loop while working: every test with -short (the long
## ones skip or shrink: subprocess builds, client generators, big worlds,
## the self-tests' whole runs, runs paced by the clock, the browser) and
## without the race detector, four packages at a time (their tests wait on
## subprocesses and clocks as much as they compute); not what CI runs
quick:
	@$(MACHINE)
	$(GO) test -short -count=1 -p 4 -timeout 10m $(PKGS)
	@$(MACHINE)

## test-profile: make test's tests (vet aside) as go test -json events,
## read by internal/tools/testprofile: each package's time as it ends, then
## the packages and the PROFILE_TOP (25) tests that took longest, and the
## output of any that failed (it fails as make test does)
PROFILE_TOP ?= 25
test-profile:
	@$(MACHINE)
	@{ $(GO) test -race -count=1 -timeout 30m -json $(RACE_PKGS); \
	  $(GO) test -count=1 -timeout 20m -json $(DATA_PKGS) $(VERDICT_PKGS); \
	  $(GO) test -race -short -count=1 -timeout 20m -json $(DATA_PKGS); } | $(GO) run ./internal/tools/testprofile -top $(PROFILE_TOP)
	@$(MACHINE)

## bench: every benchmark, with allocations (BENCH=regexp selects; the
## mock's benchmarks build a world of a million transactions first)
bench:
	@$(MACHINE)
	$(GO) test -run '^$$' -bench '$(BENCH)' -benchmem $(PKGS)
	@$(MACHINE)

## bench-generate: one transaction on one core (tx/s) and a world's games on
## one core (games/s); a million transactions made and read in one process,
## with time and peak memory (in a process of its own, so the peak is its
## own); then harness generate --scale GEN_SCALE written to a temporary
## directory: wall time, peak memory, size on disk
bench-generate: build
	@$(MACHINE)
	$(GO) test -run '^$$' -bench 'Transaction$$|GameEpochs' -benchmem -cpu 1 ./generators/world
	$(GO) test -run '^$$' -bench 'GenerateMillion' -benchtime 1x ./generators/world
	@set -e; out=$$(mktemp -d); trap 'rm -rf $$out' EXIT; \
	$(GNU_TIME) -f "harness generate --scale $(GEN_SCALE): %e s wall, %M KiB peak RSS" \
		$(BIN) generate --scale $(GEN_SCALE) --format ndjson --quiet --out $$out/world; \
	echo "on disk: $$(du -sh $$out/world | cut -f1)"
	@$(MACHINE)

## bench-generate-huge (not in CI; minutes): harness generate --scale
## HUGE_SCALE (1000: ten million transactions, a million games) --format
## ndjson into a temporary directory under HUGE_TMPDIR, removed afterwards
## (also when interrupted): wall time, peak memory (the target: at most
## 2 GiB), size on disk
bench-generate-huge: build
	@$(MACHINE)
	@set -e; out=$$(mktemp -d -p $(HUGE_TMPDIR)); trap 'rm -rf $$out' EXIT; trap 'exit 130' INT TERM; \
	$(GNU_TIME) -f "harness generate --scale $(HUGE_SCALE): %e s wall, %M KiB peak RSS" \
		$(BIN) generate --scale $(HUGE_SCALE) --format ndjson --quiet --out $$out/world; \
	echo "on disk: $$(du -sh $$out/world | cut -f1), $$(du -sb $$out/world | cut -f1) bytes"

## bench-store: harness serve --scale STORE_SCALE from memory: the time
## until it serves and its peak memory (GNU time); its pages at three
## depths and its rate against a bare handler are bench-mock's
bench-store: build
	@$(MACHINE)
	@set -e; work=$$(mktemp -d); trap 'pkill -INT -P $$pid 2>/dev/null || true; rm -rf $$work' EXIT; \
	$(GNU_TIME) -f "harness serve --scale $(STORE_SCALE): %M KiB peak RSS" -o $$work/time \
		$(BIN) serve --addr 127.0.0.1:0 --scale $(STORE_SCALE) --log-format none > $$work/out 2>&1 & pid=$$!; \
	for i in $$(seq 1 2400); do grep -q 'ready in' $$work/out && break; sleep 0.25; done; \
	grep 'ready in' $$work/out; pkill -INT -P $$pid; wait $$pid || true; cat $$work/time
	@$(MACHINE)

## bench-data: DATA_SCALE generated as NDJSON (wall time, peak memory, size
## on disk), served from disk with the index generate saved (time until it
## serves, anonymous memory once it serves), a 100-row page at three
## depths of each listing read from the files, and what the fixtures'
## checks cost: opening them, and a page's blocks verified the first time
## and after. Heavy (minutes, 17 GB of disk at scale 1000): not run by CI
bench-data: build
	@$(MACHINE)
	@set -e; work=$${DATA_WORK:-$$(mktemp -d)}; mkdir -p $$work; trap 'pkill -INT -f "serve --data $$work/world" 2>/dev/null || true; [ -n "$(DATA_WORK)" ] || rm -rf $$work' EXIT; \
	$(GNU_TIME) -f "harness generate --scale $(DATA_SCALE) --format ndjson: %e s wall, %M KiB peak RSS" \
		$(BIN) generate --scale $(DATA_SCALE) --format ndjson --quiet --out $$work/world; \
	echo "on disk: $$(du -sh $$work/world | cut -f1)"; \
	$(BIN) serve --data $$work/world --addr 127.0.0.1:0 --log-format none > $$work/serve.out 2>&1 & pid=$$!; \
	for i in $$(seq 1 2400); do grep -q 'ready in' $$work/serve.out && break; sleep 0.25; done; \
	grep 'ready in' $$work/serve.out; grep -E 'RssAnon|RssFile' /proc/$$pid/status; kill -INT $$pid; wait $$pid || true; \
	HARNESS_BENCH_DATA=$$work/world $(GO) test -run '^$$' -bench 'FixturePageAtDepth' -benchmem -timeout 60m ./mockserver; \
	HARNESS_BENCH_DATA=$$work/world $(GO) test -run '^$$' -bench 'Open$$' -benchtime 5x -timeout 60m ./generators/fixtures; \
	HARNESS_BENCH_DATA=$$work/world $(GO) test -run '^$$' -bench 'BlockCheck' -benchtime 100x -timeout 60m ./generators/fixtures
	@$(MACHINE)

## bench-mock: a 100-row page at the start, middle and end of each listing
## of a million-transaction world, the mock against a bare net/http
## handler over loopback, what the journal and the warnings cost a
## 100-row page, in process and over loopback (with/without: target 0.95),
## and what the request log, the journal and the warnings add to each
## page bench-wire measures, in process (BenchmarkObservationCost)
bench-mock:
	@$(MACHINE)
	$(GO) test -run '^$$' -bench 'PageAtDepth|VsBare|WriteDeadlineCost|JournalCost|ObservationCost' -benchmem ./mockserver
	$(GO) test -run '^$$' -bench 'AppendBlock' -benchmem ./mockserver/store
	$(GO) test -run '^$$' -bench 'LatencyDistribution' ./mockserver/faults
	@$(MACHINE)

## bench-wire: harness serve as a user runs it, with its default flags (the
## request log, the journal, the warnings), against a bare net/http
## handler serving the bytes and headers the mock answered, on the same
## paths (internal/tools/wirebench, built here): wrk (Debian package wrk;
## vegeta through VEGETA where wrk is not on the PATH) drives each in turn
## with one thread and WIRE_CONNECTIONS connections, WIRE_ROUNDS rounds of
## WIRE_DURATION each, for a 100-row network parameters page, 100
## snapshots, 50 transactions, 50 filtered by cmdTypes and 100 games: each
## round's rates and their ratio with the machine line, each server's CPU
## time per answer, then p50 and p99 at one connection (WIRE_LATENCY).
## At the end the mock is stopped (SIGINT) and its log must hold a line for
## every answer counted. WIRE_CASES (a regexp) selects cases,
## WIRE_SERVE_FLAGS go to harness serve (--log-format none: the log's cost).
## About 3.5 minutes at the defaults; not in CI
WIRE_ROUNDS      ?= 3
WIRE_DURATION    ?= 5s
WIRE_LATENCY     ?= 5s
WIRE_CONNECTIONS ?= 16
WIRE_CASES       ?=
WIRE_SERVE_FLAGS ?=
bench-wire: build
	@$(MACHINE)
	$(GO) build -o bin/wirebench ./internal/tools/wirebench
	bin/wirebench -harness $(BIN) -rounds $(WIRE_ROUNDS) -duration $(WIRE_DURATION) -latency-duration $(WIRE_LATENCY) \
		-connections $(WIRE_CONNECTIONS) -cases '$(WIRE_CASES)' -vegeta '$(VEGETA)' -- $(WIRE_SERVE_FLAGS)
	@$(MACHINE)

## bench-proxy: what harness proxy adds to a 1000-row page (median, one
## request at a time), and its pace when clients hammer it; then the rate
## through the proxy as a fraction of the direct rate, 8 clients at once,
## side by side in one process (BenchmarkProxyVsDirect, PROXY_ROUNDS pairs
## of rounds, each bounded in requests and to 20 s): a 100-row network
## parameters page (target: at least 0.5) and a 1000-transaction page,
## and beside them a proxy that checks almost nothing (forward-only/direct)
PROXY_ROUNDS ?= 3
bench-proxy:
	@$(MACHINE)
	$(GO) test -run '^$$' -bench 'ProxyAddedLatency|ProxyHammered' -benchmem ./deployment/proxy
	@set -e; out=$$(mktemp); trap 'rm -f $$out' EXIT; \
	$(GO) test -run '^$$' -bench 'ProxyVsDirect' -benchtime $(PROXY_ROUNDS)x ./deployment/proxy > $$out || { cat $$out; exit 1; }; \
	cat $$out; \
	awk '/^BenchmarkProxyVsDirect/ { for (i = 2; i < NF; i++) if ($$(i+1) ~ /\/direct$$/) printf "%s: %s %s\n", $$1, $$(i+1), $$i }' $$out
	@$(MACHINE)

## bench-schemas: schema validation of a 1000-transaction page and a
## 100-row network parameters page; the 10,000 transactions of a scale-1
## world generated, validated (fast path) and validated by gojsonschema
## alone, on one core; then, side by side in one process, the
## 100,000 transactions of a scale-10 world generated and validated, each
## timed (wall and CPU) on one core and on every core, beside the schemas as
## they were before (the command kind's oneOf) and a second validator
bench-schemas:
	@$(MACHINE)
	$(GO) test -run '^$$' -bench 'ValidateTransactionsResponse|ValidateNetworkParametersPage|ValidateTransactions$$' -benchmem ./schemas
	$(GO) test -run '^$$' -bench 'GenerateThenValidate100k' -benchtime 1x -timeout 60m ./schemas
	@$(MACHINE)

## verdicts-full (not in CI; a minute or two): TestFastVerdictsMatchGojsonschema
## with the values of every element of every array of its bases broken
## (HARNESS_SCHEMA_EVERY_ELEMENT): make test breaks those of the first two
## elements of each array and of its last, whose items have the same schema
## (schemas/compiled_test.go, eachValue)
verdicts-full:
	@$(MACHINE)
	HARNESS_SCHEMA_EVERY_ELEMENT=1 $(GO) test -count=1 -run '^TestFastVerdictsMatchGojsonschema$$' -timeout 30m ./schemas
	@$(MACHINE)

## selftest-seeds (not in CI; minutes: about ten on a quiet machine): the
## self-test defects of coverage (conformance/selftest/cover_defects_test.go),
## of the model's reading (observed_defects_test.go) and of relations
## (relations_defects_test.go), each run with every seed 1 to SEEDS (10),
## each caught by its MUST rule with every seed, and every query its
## failure names one whose answer the defect changes; make test runs each
## once, with one seed
SEEDS ?= 10
# verbose runs the go test command that follows with -v, leaves out its
# "=== RUN" lines, and keeps its exit status (dash has no pipefail).
verbose = out=$$(mktemp); trap 'rm -f $$out' EXIT; run() { "$$@" > $$out 2>&1; rc=$$?; grep -v '^=== ' $$out; return $$rc; }; run
selftest-seeds:
	@$(MACHINE)
	@$(verbose) env HARNESS_SELFTEST_SEEDS=$(SEEDS) $(GO) test $(TESTFLAGS) -count=1 -v -run '^TestCoverDefectsEverySeed$$' -timeout 30m ./conformance/selftest
	@$(verbose) env SELFTEST_SEEDS=1-$(SEEDS) $(GO) test $(TESTFLAGS) -count=1 -v -run '^TestBuildDefectsAcrossSeeds$$' -timeout 30m ./conformance/selftest
	SELFTEST_SEEDS=$(SEEDS) $(GO) test $(TESTFLAGS) -count=1 -run '^TestRelationDefectsEverySeed$$' -timeout 30m ./conformance/selftest
	@$(MACHINE)

## bench-cli: against harness serve (LOAD_SCALE), the whole conformance
## suite and a recording of every listing, each timed
bench-cli: build
	@$(MACHINE)
	@set -e; $(serve_bg); \
	start=$$(date +%s%N); $(BIN) conform --base-url http://$(LOAD_ADDR) > $$work/conform.log; \
	echo "harness conform: $$($(since))"; tail -3 $$work/conform.log; \
	start=$$(date +%s%N); $(BIN) record --from http://$(LOAD_ADDR) --out $$work/rec --log-format none; \
	echo "harness record: $$($(since)), $$(du -sh $$work/rec | cut -f1) on disk"
	@$(MACHINE)

## bench-conform: against harness serve (LOAD_SCALE), the whole suite at
## the default budget and the model rules alone, each with its wall time and
## the conform process's peak memory (GNU time); then the model's own
## benchmarks (build, generate and judge one listing in process)
bench-conform: build
	@$(MACHINE)
	@set -e; $(serve_bg); \
	$(GNU_TIME) -f "harness conform (whole suite): %e s wall, %U s user, peak %M KB" $(BIN) conform --base-url http://$(LOAD_ADDR) > $$work/conform.log; \
	tail -4 $$work/conform.log; \
	$(GNU_TIME) -f "harness conform --label-filter model: %e s wall, %U s user, peak %M KB" $(BIN) conform --base-url http://$(LOAD_ADDR) --label-filter model > $$work/model.log; \
	tail -4 $$work/model.log
	$(GO) test -run '^$$' -bench . -benchmem ./conformance/model/agreement
	@$(MACHINE)

## bench-conform-memory (not in CI; about two minutes, 2 GB for the
## world of scale 100): the conform process's peak memory (GNU time), which
## must stay under CONFORM_MEM_MIB (512) whatever the server sends: against
## internal/tools/bigbody answering BIG_BODY bytes (50 MB) on every path
## (the preflight meets it); the same in front of the mock, the preflight's
## one-row requests passed on so that every rule meets the big bodies; the
## same with bodies of BIG_UNDER_CAP bytes, just under the cap a body may
## have; and the whole suite against harness serve --scale 100. The target
## fails when a run's peak passes the bound
BIG_BODY        ?= 50000000
BIG_UNDER_CAP   ?= 15000000
BIG_ADDR        ?= 127.0.0.1:18182
CONFORM_MEM_MIB ?= 512
# conform_peak runs harness conform against $$url with GNU time, prints the
# run's last lines and its peak RSS, and fails past CONFORM_MEM_MIB; $$what
# names the run.
conform_peak = $(GNU_TIME) -f '%M' -o $$work/rss $(BIN) conform --base-url $$url > $$work/conform.log 2>&1 || true; \
	tail -3 $$work/conform.log; kib=$$(tail -1 $$work/rss); \
	echo "peak RSS of harness conform, $$what: $$((kib / 1024)) MiB ($$kib KiB; bound $(CONFORM_MEM_MIB) MiB)"; \
	[ $$kib -le $$(( $(CONFORM_MEM_MIB) * 1024 )) ] || { echo "FAILED: over $(CONFORM_MEM_MIB) MiB"; exit 1; }
bench-conform-memory: build
	@$(MACHINE)
	@set -e; $(GO) build -o $(dir $(BIN))bigbody ./internal/tools/bigbody; \
	work=$$(mktemp -d); pids=; trap 'kill $$pids 2>/dev/null || true; rm -rf $$work' EXIT; \
	start_big() { $(dir $(BIN))bigbody --addr $(BIG_ADDR) "$$@" 2>>$$work/big.log & pids="$$pids $$!"; big=$$!; \
		for i in $$(seq 1 100); do curl -s -o /dev/null http://$(BIG_ADDR)/ && break; sleep 0.1; done; }; \
	stop_big() { kill $$big; wait $$big 2>/dev/null || true; }; \
	url=http://$(BIG_ADDR); \
	start_big --size $(BIG_BODY); what="$(BIG_BODY)-byte bodies on every path"; $(conform_peak); stop_big; \
	$(BIN) serve --addr $(LOAD_ADDR) --log-format none > $$work/serve.log 2>&1 & pids="$$pids $$!"; mock=$$!; \
	for i in $$(seq 1 600); do curl -sf -o /dev/null http://$(LOAD_ADDR)/api/v2/network/parameters?pagination.first=1 && break; sleep 0.2; done; \
	start_big --size $(BIG_BODY) --upstream http://$(LOAD_ADDR); what="$(BIG_BODY)-byte bodies past the preflight"; $(conform_peak); stop_big; \
	start_big --size $(BIG_UNDER_CAP) --upstream http://$(LOAD_ADDR); what="$(BIG_UNDER_CAP)-byte bodies past the preflight"; $(conform_peak); stop_big; \
	kill $$mock; wait $$mock 2>/dev/null || true; \
	$(BIN) serve --addr $(LOAD_ADDR) --scale 100 --log-format none > $$work/serve.log 2>&1 & pids="$$pids $$!"; \
	for i in $$(seq 1 1200); do curl -sf -o /dev/null http://$(LOAD_ADDR)/api/v2/network/parameters?pagination.first=1 && break; sleep 0.25; done; \
	url=http://$(LOAD_ADDR); what="the whole suite against harness serve --scale 100"; $(conform_peak)
	@$(MACHINE)

## conform-seeds: not in CI, several minutes: the whole suite against the
## clean mock with seeds 1..SEEDS, static and growing (--block-interval 20ms),
## once at --scale CONFORM_SCALE, and with seeds 1..3 against two replicas
## sharing a genesis behind nginx balancing round robin (skipped, saying so,
## without nginx: Debian package nginx-light); every run must pass.
## CONFORM_MODES picks the runs (static growing scale replicas),
## REPLICA_SEEDS the replicas' seeds (3)
SEEDS         ?= 10
CONFORM_SCALE ?= 100
CONFORM_MODES ?= static growing scale replicas
REPLICA_SEEDS ?= 3
conform-seeds: build
	CONFORM_SEEDS_MODES='$(CONFORM_MODES)' CONFORM_SEEDS_REPLICA_SEEDS=$(REPLICA_SEEDS) tools/conform-seeds.sh $(BIN) $(SEEDS) $(CONFORM_SCALE)

## fuzz: each mock server fuzz target (and the fault grammar's, the request
## log's formats against slog's, and the fixture reader's) for FUZZTIME
## (default 30s)
FUZZTIME ?= 30s
fuzz:
	for p in ./mockserver ./mockserver/faults ./mockserver/requestlog ./generators/fixtures; do \
		for f in $$($(GO) test -list 'Fuzz.*' $$p | grep ^Fuzz); do \
			$(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$p || exit 1; \
		done; \
	done

## load: serve a world (LOAD_SCALE) and drive five listings with vegeta for
## LOAD_DURATION with LOAD_WORKERS workers; prints requests per second
load: build
	@$(MACHINE)
	@set -e; $(serve_bg); \
	for path in \
		"/api/v2/network/parameters?pagination.first=100" \
		"/api/v2/snapshots?pagination.first=100" \
		"/api/v2/games?pagination.first=100" \
		"/transactions?first=50" \
		"/transactions?first=50&cmdTypes=Batch+Proposal"; do \
		echo "== GET $$path"; \
		echo "GET http://$(LOAD_ADDR)$$path" | $(VEGETA) attack -rate=0 -max-workers=$(LOAD_WORKERS) -duration=$(LOAD_DURATION) | $(VEGETA) report -type=text | grep -E 'Requests|Latencies|Success|Status'; \
	done
	@$(MACHINE)

## report-screenshot: render a sample HTML conformance report in headless
## chromium (which must be on the PATH) and save docs/conformance-report.png
report-screenshot:
	REPORT_SCREENSHOT=$(CURDIR)/docs/conformance-report.png \
		$(GO) test -count=1 -run '^TestHTMLReportInBrowser$$' -v ./conformance/report

## check-export: the OpenAPI export and the bundled schemas in the npm and
## Python tools client developers use (Spectral, Redocly, openapi-typescript
## and tsc --strict, ajv, Python's jsonschema), pinned in tools/check-export;
## needs node 20.19+ and npm, and python3 with jsonschema
check-export: build
	GO=$(GO) tools/check-export/check.sh $(BIN)

## check-export-edges: the edge world (harness serve --world edges) in an
## outside validator, Python's jsonschema: every answer of the mock against
## the OpenAPI export, every fixture row against the bundled and standalone
## schemas; and the conformance suite against it. Needs python3 with
## jsonschema, no npm (check-export runs the edge world's fixtures through
## ajv too)
check-export-edges: build
	tools/check-export/edges.sh $(BIN)

clean:
	rm -rf bin $(DIST)
