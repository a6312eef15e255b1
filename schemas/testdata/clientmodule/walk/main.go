// Command clientwalk pages through every listing of a chain data query API
// deployment with the Go clients that oapi-codegen and ogen generate from
// `harness schemas --openapi`, decodes every page through the generated
// types, checks that each decoded page, encoded again, says what the wire
// said, and prints the rows each client read, by listing, as JSON.
//
// It is not built with the harness: the generated-client test
// (schemas/clients_test.go) copies it into a temporary module beside the
// two generated clients, and docs/clients.md ("Generate a client") shows it
// as an example.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"time"
)

// options bound a walk.
type options struct {
	pageSize int // rows asked for per page
	maxPages int // the most pages one walk may take; a walk that needs more fails
}

// client walks every listing with one generated client.
type client struct {
	name string
	walk func(ctx context.Context, baseURL string, o options) (map[string]int, error)
}

func main() {
	baseURL := flag.String("base-url", "http://127.0.0.1:8080", "the deployment's base URL (the transactions listing is at /transactions beneath it)")
	pageSize := flag.Int("page-size", 50, "rows asked for per page")
	maxPages := flag.Int("max-pages", 1000, "the most pages one walk may take (a walk that needs more fails)")
	timeout := flag.Duration("timeout", 5*time.Minute, "the time limit of the whole walk")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()

	o := options{pageSize: *pageSize, maxPages: *maxPages}
	out := map[string]map[string]int{}
	for _, c := range []client{{"oapi-codegen", walkOapi}, {"ogen", walkOgen}} {
		counts, err := c.walk(ctx, strings.TrimSuffix(*baseURL, "/"), o)
		if err != nil {
			fmt.Fprintf(os.Stderr, "clientwalk: %s: %v\n", c.name, err)
			os.Exit(1)
		}
		out[c.name] = counts
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		fmt.Fprintf(os.Stderr, "clientwalk: %v\n", err)
		os.Exit(1)
	}
}

// page is what a walk needs to know of one page it fetched.
type page struct {
	rows int
	more bool   // another page follows
	next string // the cursor that asks for it
}

// fetchFunc fetches the page that cursor asks for ("" for the first).
type fetchFunc func(ctx context.Context, cursor string) (page, error)

// walkPages fetches pages until the last one and returns the rows read.
func walkPages(ctx context.Context, o options, fetch fetchFunc) (int, error) {
	rows, cursor := 0, ""
	for n := 1; n <= o.maxPages; n++ {
		p, err := fetch(ctx, cursor)
		if err != nil {
			return rows, fmt.Errorf("page %d: %w", n, err)
		}
		rows += p.rows
		if !p.more {
			return rows, nil
		}
		cursor = p.next
	}
	return rows, fmt.Errorf("more than %d pages", o.maxPages)
}

// gameWindow is a fetchFunc for the games of epochs [from, to].
type gameWindow func(from, to uint64) fetchFunc

// walkGames walks the games window by window: the listing answers at most 30
// epochs per request (spec section 8), so every game is reached by asking
// for [e-29, e], [e-59, e-30], ... down to epoch 0, where e is the epoch of
// the newest game (the first row of the default request).
func walkGames(ctx context.Context, o options, newest func(ctx context.Context) (epoch string, found bool, err error), window gameWindow) (int, error) {
	top, found, err := newest(ctx)
	if err != nil || !found {
		return 0, err
	}
	e, err := strconv.ParseUint(top, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("epoch of the newest game: %w", err)
	}
	rows := 0
	for to := int64(e); to >= 0; to -= 30 {
		from := max(to-29, 0)
		n, err := walkPages(ctx, o, window(uint64(from), uint64(to)))
		if err != nil {
			return rows, fmt.Errorf("epochs %d to %d: %w", from, to, err)
		}
		rows += n
	}
	return rows, nil
}
