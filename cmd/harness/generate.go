package main

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/chaindata/harness/generators"
	"github.com/chaindata/harness/mockserver"
)

func runGenerate(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "generate", "--out DIR [flags]")
	seed := fs.Int64("seed", 1, "seed of the world; the same seed and scale always give the same files")
	scale := fs.Float64("scale", 1, fmt.Sprintf("size of the world, 0.01 to %d (1: about 10,000 transactions; 100: a million)", generators.MaxScale))
	out := fs.String("out", "", "directory to write the fixtures into (created if missing)")
	format := fs.String("format", generators.FormatAuto, fmt.Sprintf("file format: json (response bodies), ndjson (one node per line) or auto (ndjson above %d rows)", generators.NDJSONThreshold))
	workers := fs.Int("workers", 0, "goroutines making transactions (0: one per CPU); the output does not depend on it")
	quiet := fs.Bool("quiet", false, "no progress bar")
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	switch {
	case fs.NArg() > 0:
		return usageError(e.stderr, fs, "unexpected argument %q", fs.Arg(0))
	case *out == "":
		return usageError(e.stderr, fs, "--out is required")
	case *scale < 0.01 || *scale > generators.MaxScale:
		return usageError(e.stderr, fs, "--scale must be between 0.01 and %d, got %v", generators.MaxScale, *scale)
	case *format != generators.FormatAuto && *format != generators.FormatJSON && *format != generators.FormatNDJSON:
		return usageError(e.stderr, fs, "--format must be auto, json or ndjson, got %q", *format)
	case *workers < 0:
		return usageError(e.stderr, fs, "--workers must not be negative")
	}
	start := time.Now()
	// A lazy world makes its transactions while they are written, so a
	// world of any size is written in bounded memory.
	w, err := generators.Generate(generators.Options{Seed: *seed, Scale: *scale, Workers: *workers, Lazy: true})
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
	index := mockserver.NewIndexBuilder()
	index.Reserve(map[string]int{
		generators.ListingGames: w.GameCount(), generators.ListingSnapshots: len(w.Snapshots),
		generators.ListingKeyRotations: len(w.KeyRotations), generators.ListingNetworkParameters: len(w.NetworkParameters),
		generators.ListingTransactions: w.TransactionCount(),
	})
	var indexErr error
	onRow := func(listing string, offset int64, length int, rec any) {
		if indexErr == nil {
			indexErr = index.Add(listing, offset, length, rec)
		}
	}
	m, err := generators.WriteFixtures(ctx, *out, w, generators.WriteOptions{Format: *format, Progress: bar.update, OnRow: onRow})
	bar.finish()
	if err == nil {
		err = indexErr
	}
	if err == nil {
		err = mockserver.BuildIndex(*out, index)
	}
	if err != nil {
		if errors.Is(err, context.Canceled) {
			fmt.Fprintln(e.stderr, "harness generate: interrupted; files already in place are complete, the rest untouched")
		} else {
			fmt.Fprintf(e.stderr, "harness generate: %v\n", err)
		}
		return exitFailure
	}
	fmt.Fprintf(e.stdout, "wrote %s (seed %d, scale %v) in %v:\n", *out, *seed, *scale, time.Since(start).Round(time.Millisecond))
	for _, l := range generators.Listings {
		fmt.Fprintf(e.stdout, "  %-24s %9d rows\n", m.Listings[l].File, m.Listings[l].Count)
	}
	fmt.Fprintf(e.stdout, "  %-24s (for harness serve --data)\n", mockserver.IndexFile)
	return exitOK
}
