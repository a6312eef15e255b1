package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path"
	"runtime/debug"
	"strings"
	"time"

	"github.com/chaindata/harness/generators/edges"
	"github.com/chaindata/harness/generators/fixtures"
	"github.com/chaindata/harness/generators/records"
	"github.com/chaindata/harness/generators/world"
	"github.com/chaindata/harness/mockserver"
	"github.com/chaindata/harness/mockserver/faults"
	"github.com/chaindata/harness/mockserver/requestlog"
	"github.com/chaindata/harness/mockserver/store"
)

func runServe(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "serve", "[flags]")
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on (port 0 picks a free port)")
	worldName := fs.String("world", world.DefaultWorld, worldFlagUsage)
	seed := fs.Int64("seed", 1, "seed of the generated world")
	scale := fs.Float64("scale", 1, fmt.Sprintf("size of the generated world, 0.01 to %d (1: about 10,000 transactions)", world.MaxScale))
	data := fs.String("data", "", "serve the fixtures in this directory (written by harness generate or harness record) instead of a generated world")
	var cfg mockserver.Config
	fs.IntVar(&cfg.DefaultPageSize, "default-page-size", 1000, "rows of a paged listing when the request gives no count")
	fs.IntVar(&cfg.MaxPageSize, "max-page-size", 5000, "largest count a paged listing accepts")
	fs.IntVar(&cfg.TxDefaultPageSize, "tx-default-page-size", 50, "transactions listed when the request gives no count")
	fs.IntVar(&cfg.TxMaxPageSize, "tx-max-page-size", 5000, "largest count the transaction listing accepts")
	fs.BoolVar(&cfg.Strict, "strict", false, "reject requests the real node tolerates: first with last, first with before, last with after, epochFrom above epochTo")
	fs.BoolVar(&cfg.StrictParams, "strict-params", false, "answer 400 to every request that draws an X-Harness-Warning (an unknown parameter, a bracketed array key, an unknown command type...) instead of serving it")
	fs.IntVar(&cfg.JournalSize, "journal-size", mockserver.DefaultJournalSize, "requests the request journal keeps (GET /harness/requests, /harness/walks); 0: none")
	fs.IntVar(&cfg.PageCacheBytes, "page-cache", mockserver.DefaultPageCacheBytes, "bytes of answers kept for queries asked again, served only while the data is unchanged; 0: none")
	fs.StringVar(&cfg.TransactionsPrefix, "transactions-prefix", "", "also serve the transaction listing under this path prefix (it is always at /transactions and /rest/transactions)")
	faultsFile := fs.String("faults", "", "fault rules (YAML or JSON, at most 1 MiB) in force from the start: which requests fail, and how")
	fs.DurationVar(&cfg.Latency, "latency", 0, "latency added to every request, such as 50ms (a shorthand for a rule)")
	fs.Float64Var(&cfg.FailRate, "fail-rate", 0, "fraction of requests answered with an injected 500, 0 to 1 (a shorthand for a rule)")
	fs.Int64Var(&cfg.FaultSeed, "fault-seed", 1, "seed of the choice of failing requests and of the latencies drawn")
	blockInterval := fs.Duration("block-interval", 0, "with the wall clock, add a block every interval, such as 1s (0: blocks come only from POST /harness/advance)")
	clock := fs.String("clock", "wall", "what adds blocks: wall (one every --block-interval) or manual (only POST /harness/advance)")
	genesisTime := fs.String("genesis-time", "", "with --block-interval, the instant (RFC 3339) the chain counts its blocks from; replicas with the same seed and genesis serve the same world (default: start-up)")
	maxBlocks := fs.Int("max-blocks", 100_000, "the most blocks the live chain adds (0: no bound)")
	noControl := fs.Bool("no-control", false, "do not serve the control API under /harness/")
	fs.StringVar(&cfg.ControlToken, "control-token", "", "require the header Authorization: Bearer TOKEN on every control API request (for a mock reachable from other machines)")
	fs.Func("allow-host", "a host name (no port) the control API also answers under, besides localhost, *.localhost, loopback addresses and the address it listens on; repeatable; * allows any (against DNS rebinding, see docs/serve.md)", func(v string) error {
		if err := mockserver.CheckAllowHost(v); err != nil {
			return err
		}
		cfg.AllowHosts = append(cfg.AllowHosts, v)
		return nil
	})
	logFormat := fs.String("log-format", "text", "request log format on standard error: text, json or none")
	fs.DurationVar(&cfg.WriteTimeout, "write-timeout", mockserver.DefaultWriteTimeout, "base of each answer's write deadline; a client that reads slower than --min-write-rate beyond it is dropped (0: no deadline)")
	fs.IntVar(&cfg.MinWriteRate, "min-write-rate", mockserver.DefaultMinWriteRate, "bytes a second a client must read an answer at, beyond --write-timeout")
	fs.IntVar(&cfg.MaxHeaderBytes, "max-header-bytes", mockserver.DefaultMaxHeaderBytes, "largest request line and headers served; larger ones get a 431 error body")
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	if fs.NArg() > 0 {
		return usageError(e.stderr, fs, "unexpected argument %q", fs.Arg(0))
	}
	if err := checkAddr("--addr", *addr); err != nil {
		return usageError(e.stderr, fs, "%v", err)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	switch {
	case checkWorld(*worldName) != nil:
		return usageError(e.stderr, fs, "%v", checkWorld(*worldName))
	case *data != "" && set["world"]:
		return usageError(e.stderr, fs, "--data serves fixtures; it cannot be combined with --world (harness generate --world writes them)")
	case *worldName == world.EdgeWorld && (set["seed"] || set["scale"]):
		return usageError(e.stderr, fs, "--world edges is one fixed world: it takes no --seed or --scale")
	case *data != "" && (set["seed"] || set["scale"]):
		return usageError(e.stderr, fs, "--data serves fixtures; it cannot be combined with --seed or --scale")
	case *scale < 0.01 || *scale > world.MaxScale:
		return usageError(e.stderr, fs, "--scale must be between 0.01 and %d, got %v", world.MaxScale, *scale)
	case cfg.DefaultPageSize <= 0 || cfg.MaxPageSize <= 0 || cfg.TxDefaultPageSize <= 0 || cfg.TxMaxPageSize <= 0:
		return usageError(e.stderr, fs, "page sizes must be positive")
	case cfg.DefaultPageSize > cfg.MaxPageSize:
		return usageError(e.stderr, fs, "--default-page-size %d is above --max-page-size %d", cfg.DefaultPageSize, cfg.MaxPageSize)
	case cfg.TxDefaultPageSize > cfg.TxMaxPageSize:
		return usageError(e.stderr, fs, "--tx-default-page-size %d is above --tx-max-page-size %d", cfg.TxDefaultPageSize, cfg.TxMaxPageSize)
	case cfg.FailRate < 0 || cfg.FailRate > 1:
		return usageError(e.stderr, fs, "--fail-rate must be between 0 and 1, got %v", cfg.FailRate)
	case cfg.Latency < 0:
		return usageError(e.stderr, fs, "--latency must not be negative")
	case *clock != "wall" && *clock != "manual":
		return usageError(e.stderr, fs, "--clock must be wall or manual, got %q", *clock)
	case *blockInterval < 0:
		return usageError(e.stderr, fs, "--block-interval must not be negative")
	case *clock == "manual" && *blockInterval > 0:
		return usageError(e.stderr, fs, "--clock manual adds blocks only through POST /harness/advance; drop --block-interval")
	case *genesisTime != "" && *blockInterval == 0:
		return usageError(e.stderr, fs, "--genesis-time needs --block-interval")
	case *maxBlocks < 0:
		return usageError(e.stderr, fs, "--max-blocks must not be negative")
	case *data != "" && (*blockInterval > 0 || *clock == "manual" || set["max-blocks"]):
		return usageError(e.stderr, fs, "--data serves fixtures, which cannot grow: drop --block-interval, --clock and --max-blocks")
	case *noControl && *clock == "manual":
		return usageError(e.stderr, fs, "--clock manual grows only through the control API, which --no-control turns off")
	case *noControl && len(cfg.AllowHosts) > 0:
		return usageError(e.stderr, fs, "--allow-host names the hosts the control API answers under, which --no-control turns off")
	case *noControl && cfg.ControlToken != "":
		return usageError(e.stderr, fs, "--control-token guards the control API, which --no-control turns off")
	case !validToken(cfg.ControlToken):
		return usageError(e.stderr, fs, "--control-token must be printable ASCII without spaces (it is sent as Authorization: Bearer TOKEN)")
	case !*noControl && underControl(cfg.TransactionsPrefix):
		return usageError(e.stderr, fs, "--transactions-prefix %q is under /harness/, the control API's path (add --no-control)", cfg.TransactionsPrefix)
	case cfg.WriteTimeout < 0:
		return usageError(e.stderr, fs, "--write-timeout must not be negative (0 turns the deadline off)")
	case cfg.MinWriteRate <= 0:
		return usageError(e.stderr, fs, "--min-write-rate must be positive")
	case cfg.MaxHeaderBytes <= 0:
		return usageError(e.stderr, fs, "--max-header-bytes must be positive")
	case cfg.JournalSize < 0:
		return usageError(e.stderr, fs, "--journal-size must not be negative (0 keeps no journal)")
	case cfg.PageCacheBytes < 0:
		return usageError(e.stderr, fs, "--page-cache must not be negative (0 keeps no answer)")
	}
	if cfg.WriteTimeout == 0 {
		cfg.WriteTimeout = -1 // the Config's "no deadline"
	}
	if cfg.JournalSize == 0 {
		cfg.JournalSize = -1 // the Config's "none"
	}
	if cfg.PageCacheBytes == 0 {
		cfg.PageCacheBytes = -1
	}
	genesis := time.Now()
	if *genesisTime != "" {
		t, err := time.Parse(time.RFC3339Nano, *genesisTime)
		if err != nil {
			return usageError(e.stderr, fs, "--genesis-time: want an RFC 3339 time such as 2026-01-02T15:04:05Z: %v", err)
		}
		genesis = t
	}
	if *faultsFile != "" {
		raw, err := readCapped(*faultsFile, mockserver.MaxFaultsBytes)
		if errors.Is(err, errTooLarge) {
			return usageError(e.stderr, fs, "--faults: %v, the largest rule file taken here as by POST /harness/faults", err)
		}
		if err != nil {
			return usageError(e.stderr, fs, "--faults: %v", err)
		}
		if cfg.Faults, err = faults.ParseRules(raw); err != nil {
			return usageError(e.stderr, fs, "--faults %s: %v", *faultsFile, err)
		}
	}
	cfg.Control = !*noControl
	// The log goes through a buffer written out on a tick (requestlog), so
	// that no request waits for standard error; it is closed, and so
	// written out, when serve returns.
	var logw *requestlog.Writer
	switch *logFormat {
	case "text":
		logw = requestlog.NewWriter(e.stderr, 0)
		cfg.Logger = slog.New(slog.NewTextHandler(logw, nil))
		cfg.RequestLog = requestlog.New(logw, requestlog.Text)
	case "json":
		logw = requestlog.NewWriter(e.stderr, 0)
		cfg.Logger = slog.New(slog.NewJSONHandler(logw, nil))
		cfg.RequestLog = requestlog.New(logw, requestlog.JSON)
	case "none":
	default:
		return usageError(e.stderr, fs, "--log-format must be text, json or none, got %q", *logFormat)
	}
	if logw != nil {
		defer logw.Close()
	}

	if *worldName == world.DefaultWorld {
		if code := refuseUnfit(e, *data, *seed, *scale, set["seed"]); code >= 0 {
			return code
		}
	}
	src := source{data: *data, world: *worldName, seed: *seed, scale: *scale}

	// The address is bound before the world is built, so that one in use
	// is reported at once, not after seconds of building.
	ln, err := listen("--addr", *addr)
	if err != nil {
		fmt.Fprintf(e.stderr, "harness serve: %v\n", err)
		return exitFailure
	}
	defer ln.Close() // when serve stops before serving; Serve closes it too

	// The world is built in a goroutine, so that a signal stops the wait:
	// the build itself cannot be interrupted, and the process exits
	// without it.
	started := time.Now()
	fmt.Fprintf(e.stderr, "harness serve: building the %s\n", src.describe())
	builtc := make(chan built, 1)
	go func() { builtc <- build(src, *maxBlocks) }()
	var b built
	select {
	case b = <-builtc:
	case <-ctx.Done():
	}
	if ctx.Err() != nil { // also when the build ended as the signal came
		fmt.Fprintln(e.stderr, "harness serve: interrupted while building the world; not serving")
		return exitFailure
	}
	if b.err != nil {
		fmt.Fprintf(e.stderr, "harness serve: %v\n", b.err)
		return exitFailure
	}
	st := b.store
	defer st.Close()
	cfg.Chain, cfg.Edges = b.chain, b.edges
	if b.index.Rebuilt != "" {
		fmt.Fprintf(e.stderr, "harness serve: indexed %s (the index was %s)\n", *data, b.index.Rebuilt)
	}
	if b.index.SaveErr != nil {
		fmt.Fprintf(e.stderr, "harness serve: the index could not be saved beside the fixtures, so the next start indexes them again: %v\n", b.index.SaveErr)
	}
	counts := st.Counts()

	srv := mockserver.New(cfg, st).HTTPServer()
	fmt.Fprintf(e.stdout, "serving %s on http://%s\n", src.describe(), ln.Addr())
	fmt.Fprintf(e.stdout, "  games %d, snapshots %d, key rotations %d, network parameters %d, transactions %d (ready in %v)\n",
		counts[records.ListingGames], counts[records.ListingSnapshots], counts[records.ListingKeyRotations],
		counts[records.ListingNetworkParameters], counts[records.ListingTransactions], time.Since(started).Round(time.Millisecond))

	for _, line := range banner(ln.Addr().String(), cfg, *blockInterval, genesis, *maxBlocks) {
		fmt.Fprintln(e.stdout, "  "+line)
	}
	if n := cfg.Faults.Len(); n > 0 {
		fmt.Fprintf(e.stdout, "  fault rules: %d from %s\n", n, *faultsFile)
	}

	errc := make(chan error, 2)
	go func() { errc <- srv.Serve(mockserver.Listener(ln)) }()
	runCtx, stopRun := context.WithCancel(ctx)
	defer stopRun()
	if cfg.Chain != nil && *blockInterval > 0 {
		go func() {
			if err := cfg.Chain.Run(runCtx, *blockInterval, genesis); err != nil && runCtx.Err() == nil {
				errc <- fmt.Errorf("live chain: %w", err)
			}
		}()
	}
	// The log's last lines go out before anything serve says at the end.
	closeLog := func() {
		if logw != nil {
			logw.Close()
		}
	}
	select {
	case err := <-errc:
		srv.Close()
		closeLog()
		fmt.Fprintf(e.stderr, "harness serve: %v\n", err)
		return exitFailure
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err = srv.Shutdown(shutdown)
	closeLog()
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintf(e.stderr, "harness serve: shutdown: %v\n", err)
		return exitFailure
	}
	fmt.Fprintln(e.stdout, "stopped")
	return exitOK
}

// built is what serve builds before it listens.
type built struct {
	store *store.Store
	chain *store.Chain     // nil for fixtures, which cannot grow
	edges *edges.Catalogue // the edge world's (nil for others)
	index fixtures.IndexInfo
	err   error
}

// source is what serve serves: the fixtures in data, or else the world of
// that name (from seed and scale for the default one).
type source struct {
	data, world string
	seed        int64
	scale       float64
}

// build makes the store of the fixtures in src.data (served from disk:
// mapped files and their index), or of the generated world with its live
// chain.
func build(src source, maxBlocks int) built {
	if src.data != "" {
		st, info, err := store.OpenFixtures(src.data)
		return built{store: st, index: info, err: err}
	}
	// While the world is made, most of what is allocated is garbage at once
	// (the store keeps its rows outside the Go heap): a collection at half
	// the live heap rather than all of it keeps the peak lower.
	defer debug.SetGCPercent(debug.SetGCPercent(50))
	// Lazy: the store keeps each record's JSON, the world need not.
	w, err := generateWorld(src.world, world.Options{Seed: src.seed, Scale: src.scale, Lazy: true})
	if err != nil {
		return built{err: err}
	}
	st, err := store.New(w)
	if err != nil {
		return built{err: err}
	}
	b := built{store: st, edges: w.Edges}
	if b.chain, b.err = store.NewChain(st, w, maxBlocks); b.err != nil {
		st.Close()
	}
	return b // the store and the chain hold what they need of the world
}

// describe names what serve serves.
func (src source) describe() string {
	switch {
	case src.data != "":
		return "fixtures in " + src.data
	case src.world == world.EdgeWorld:
		return "edge world (every boundary the schemas allow: docs/edge-world.md)"
	}
	return fmt.Sprintf("generated world (seed %d, scale %v)", src.seed, src.scale)
}

// refuseUnfit refuses, with exitUsage, a world or fixtures whose estimated
// memory (store.MemoryEstimate, FixturesMemoryEstimate) is more than the
// machine has available, and says how to serve them from disk instead. It
// returns -1 to go on, also when the available memory or the fixtures'
// estimate cannot be known (the build then reports what is wrong).
func refuseUnfit(e *env, data string, seed int64, scale float64, seedSet bool) int {
	avail := e.memAvailable
	if avail == nil {
		avail = availableMemory
	}
	have, ok := avail()
	if !ok {
		return -1
	}
	if data != "" {
		need, err := store.FixturesMemoryEstimate(data)
		if err != nil || need <= have {
			return -1
		}
		fmt.Fprintf(e.stderr, "harness serve: the fixtures in %s need about %s of memory to serve; %s is available.\n",
			data, formatBytes(need), formatBytes(have))
		return exitUsage
	}
	need := store.MemoryEstimate(scale)
	if need <= have {
		return -1
	}
	seedFlag := ""
	if seedSet {
		seedFlag = fmt.Sprintf(" --seed %d", seed)
	}
	fmt.Fprintf(e.stderr, "harness serve: --scale %v needs about %s of memory; %s is available.\n"+
		"Write the world to disk and serve it from there instead:\n"+
		"  harness generate%s --scale %v --format ndjson --out DIR\n"+
		"  harness serve --data DIR\n",
		scale, formatBytes(need), formatBytes(have), seedFlag, scale)
	return exitUsage
}

// errTooLarge is the error of a file above its size limit.
var errTooLarge = errors.New("above the limit")

// readCapped reads the file name, of at most limit bytes. It reads no more
// than limit+1 bytes of it, so that a larger file (or an endless one, such
// as /dev/zero) is refused, with errTooLarge, before it takes the memory
// of its size.
func readCapped(name string, limit int64) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	if int64(len(data)) > limit {
		size := ""
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			size = fmt.Sprintf("%d bytes, ", st.Size())
		}
		return nil, fmt.Errorf("%s is %s%w of %d bytes (%s)", name, size, errTooLarge, limit, formatBytes(uint64(limit)))
	}
	return data, nil
}

// banner returns the lines serve prints, after the counts, about what adds
// blocks and about the control API at addr: what --no-control leaves too.
func banner(addr string, cfg mockserver.Config, interval time.Duration, genesis time.Time, maxBlocks int) []string {
	var lines []string
	switch {
	case cfg.Chain != nil && interval > 0:
		lines = append(lines, fmt.Sprintf("live chain: a block every %v from %s (at most %s)", interval, genesis.UTC().Format(time.RFC3339), blocksBound(maxBlocks)))
	case cfg.Chain != nil && cfg.Control:
		lines = append(lines, fmt.Sprintf("live chain: blocks come from POST /harness/advance (at most %s)", blocksBound(maxBlocks)))
	case cfg.Chain != nil:
		lines = append(lines, "the world does not grow: no --block-interval, and --no-control leaves nothing to add blocks")
	}
	switch {
	case !cfg.Control:
		lines = append(lines, "control API: off (--no-control): the fault rules stay those given at start, and nothing resets the mock")
	case cfg.ControlToken != "":
		lines = append(lines, fmt.Sprintf("control API: http://%s/harness/status (every request needs Authorization: Bearer and the --control-token)", addr))
	default:
		lines = append(lines, fmt.Sprintf("control API: http://%s/harness/status", addr))
	}
	return lines
}

// validToken reports whether a control token can be sent as a bearer token:
// printable ASCII, no spaces ("" is no token).
func validToken(token string) bool {
	for i := 0; i < len(token); i++ {
		if token[i] <= ' ' || token[i] > '~' {
			return false
		}
	}
	return true
}

// blocksBound says how many blocks the chain may add.
func blocksBound(n int) string {
	if n == 0 {
		return "no bound"
	}
	return fmt.Sprintf("%d blocks", n)
}

// underControl reports whether a transactions prefix lies under the control
// API's path.
func underControl(prefix string) bool {
	p := path.Clean("/" + prefix)
	return p == "/harness" || strings.HasPrefix(p, mockserver.ControlPrefix)
}

// isTerminal reports whether f is a terminal.
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
