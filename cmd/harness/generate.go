package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/chaindata/harness/generators/fixtures"
	"github.com/chaindata/harness/generators/records"
	"github.com/chaindata/harness/generators/world"
	"github.com/chaindata/harness/internal/suggest"
)

func runGenerate(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "generate", "--out DIR [flags]")
	worldName := fs.String("world", world.DefaultWorld, worldFlagUsage)
	seed := fs.Int64("seed", 1, "seed of the world; the same seed and scale always give the same files")
	scale := fs.Float64("scale", 1, fmt.Sprintf("size of the world, 0.01 to %d (1: about 10,000 transactions; 100: a million)", world.MaxScale))
	out := fs.String("out", "", "directory to write the fixtures into (created if missing)")
	format := fs.String("format", fixtures.FormatAuto, fmt.Sprintf("file format: json (response bodies), ndjson (one node per line) or auto (ndjson above %d rows)", fixtures.NDJSONThreshold))
	workers := fs.Int("workers", 0, "goroutines making transactions (0: one per CPU); the output does not depend on it")
	quiet := fs.Bool("quiet", false, "no progress bar")
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	switch {
	case fs.NArg() > 0:
		return usageError(e.stderr, fs, "unexpected argument %q", fs.Arg(0))
	case checkWorld(*worldName) != nil:
		return usageError(e.stderr, fs, "%v", checkWorld(*worldName))
	case *worldName == world.EdgeWorld && (set["seed"] || set["scale"]):
		return usageError(e.stderr, fs, "--world edges is one fixed world: it takes no --seed or --scale")
	case *out == "":
		return usageError(e.stderr, fs, "--out is required")
	case *scale < 0.01 || *scale > world.MaxScale:
		return usageError(e.stderr, fs, "--scale must be between 0.01 and %d, got %v", world.MaxScale, *scale)
	case *format != fixtures.FormatAuto && *format != fixtures.FormatJSON && *format != fixtures.FormatNDJSON:
		return usageError(e.stderr, fs, "--format must be auto, json or ndjson, got %q", *format)
	case *workers < 0:
		return usageError(e.stderr, fs, "--workers must not be negative")
	}
	start := time.Now()
	// A lazy world makes its transactions while they are written, so a
	// world of any size is written in bounded memory.
	w, err := generateWorld(*worldName, world.Options{Seed: *seed, Scale: *scale, Workers: *workers, Lazy: true})
	if err != nil {
		fmt.Fprintf(e.stderr, "harness generate: %v\n", err)
		return exitFailure
	}
	bar := newProgressBar(e.stderr, "writing", *quiet)
	// The index harness serve --data reads the files by is built from the
	// records as they are written. It grows with the world while most of
	// what is allocated besides is garbage at once: a collection at a
	// quarter of the live heap, rather than all of it, keeps the peak low.
	defer debug.SetGCPercent(debug.SetGCPercent(25))
	index := fixtures.NewIndexBuilder()
	index.Reserve(map[string]int{
		records.ListingGames: w.GameCount(), records.ListingSnapshots: len(w.Snapshots),
		records.ListingKeyRotations: len(w.KeyRotations), records.ListingNetworkParameters: len(w.NetworkParameters),
		records.ListingTransactions: w.TransactionCount(),
	})
	m, err := fixtures.Write(ctx, *out, w, fixtures.WriteOptions{Format: *format, Progress: bar.update, Index: index})
	bar.finish()
	if err != nil {
		if errors.Is(err, context.Canceled) {
			fmt.Fprintln(e.stderr, "harness generate: interrupted; the fixtures that were in place are untouched")
		} else {
			fmt.Fprintf(e.stderr, "harness generate: %v\n", err)
		}
		return exitFailure
	}
	fmt.Fprintf(e.stdout, "wrote %s (%s) in %v:\n", *out, describeWorld(*worldName, *seed, *scale), time.Since(start).Round(time.Millisecond))
	for _, l := range records.Listings {
		fmt.Fprintf(e.stdout, "  %-24s %9d rows\n", m.Listings[l].File, m.Listings[l].Count)
	}
	fmt.Fprintf(e.stdout, "  %-24s (for harness serve --data)\n", fixtures.IndexFile)
	return exitOK
}

// worldFlagUsage is the usage line of --world.
const worldFlagUsage = "the world to make: default (from --seed and --scale) or edges (every boundary the schemas allow, in a small fixed world: docs/edge-world.md)"

// checkWorld returns nil for a world's name, else an error naming the
// nearest ones.
func checkWorld(name string) error {
	if slices.Contains(world.WorldNames, name) {
		return nil
	}
	return fmt.Errorf("--world: unknown world %q (want %s)%s", name, strings.Join(world.WorldNames, " or "),
		suggest.Phrase(suggest.Nearest(name, world.WorldNames, 2), strconv.Quote))
}

// generateWorld makes the named world: the default one from opts, or the
// edge world.
func generateWorld(name string, opts world.Options) (*world.World, error) {
	if name == world.EdgeWorld {
		return world.GenerateEdges()
	}
	return world.Generate(opts)
}

// describeWorld names a generated world for messages.
func describeWorld(name string, seed int64, scale float64) string {
	if name == world.EdgeWorld {
		return "the edge world"
	}
	return fmt.Sprintf("seed %d, scale %v", seed, scale)
}
