package generators

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// rowWriter writes the rows of one listing in its file's format: a response
// body of the spec's shape (JSON) or one node a line (NDJSON). It counts the
// bytes it writes, so the offset of each NDJSON line is known.
type rowWriter struct {
	out     *bufio.Writer
	listing string
	ndjson  bool
	// onRow is WriteOptions.OnRow; progress, when set, is called with the
	// rows written so far, every 8192 rows.
	onRow    func(listing string, offset int64, length int, rec any)
	progress func(rows int)

	rows        int
	offset      int64  // bytes written so far (NDJSON)
	first, last string // the first and last rows' cursors (JSON)
}

// begin writes what comes before the first row.
func (rw *rowWriter) begin() {
	switch {
	case rw.ndjson:
	case rw.listing == ListingTransactions:
		rw.out.WriteString(`{"transactions":[`)
	default:
		rw.out.WriteString("{\"" + wrappers[rw.listing] + "\":{\"edges\":[")
	}
}

// row writes one row. cursor is the row's cursor (unused for transactions,
// whose cursor is in their JSON); rec is the record handed to onRow, and
// may be nil when onRow is.
func (rw *rowWriter) row(node []byte, cursor string, rec any) error {
	var err error
	switch {
	case rw.ndjson:
		if rw.onRow != nil {
			rw.onRow(rw.listing, rw.offset, len(node), rec)
		}
		rw.out.Write(node)
		err = rw.out.WriteByte('\n')
		rw.offset += int64(len(node)) + 1
	case rw.listing == ListingTransactions:
		if rw.rows > 0 {
			rw.out.WriteByte(',')
		}
		rw.out.WriteByte('\n')
		_, err = rw.out.Write(node)
	default:
		if rw.rows > 0 {
			rw.out.WriteByte(',')
		} else {
			rw.first = cursor
		}
		rw.last = cursor
		rw.out.WriteString("\n{\"node\":")
		rw.out.Write(node)
		rw.out.WriteString(",\"cursor\":\"")
		rw.out.WriteString(cursor)
		_, err = rw.out.WriteString("\"}")
	}
	rw.rows++
	if rw.progress != nil && rw.rows%8192 == 0 {
		rw.progress(rw.rows)
	}
	return err
}

// end writes what comes after the last row.
func (rw *rowWriter) end() error {
	var err error
	switch {
	case rw.ndjson:
	case rw.listing == ListingTransactions:
		_, err = rw.out.WriteString("\n]}\n")
	default:
		_, err = fmt.Fprintf(rw.out, "\n],\"pageInfo\":{\"startCursor\":%q,\"endCursor\":%q,\"hasNextPage\":false,\"hasPreviousPage\":false}}}\n", rw.first, rw.last)
	}
	return err
}

// writeListing writes every row of rw's listing in its default order: newest
// first, except network parameters in key order. dir is the fixture
// directory, where a lazy world's games spill.
func (w *World) writeListing(ctx context.Context, rw *rowWriter, dir string) error {
	rw.begin()
	var err error
	switch {
	case rw.listing == ListingTransactions:
		err = w.EachTransaction(ctx, true, func(t *Transaction) error { return rw.row(t.JSON, "", t) })
	case rw.listing == ListingGames && w.lazyGames():
		err = w.writeLazyGames(ctx, rw, dir)
	default:
		n := 0
		err = w.eachRow(rw.listing, func(r row) error {
			if n%4096 == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			n++
			return rw.row(r.node, r.cursor, r.rec)
		})
	}
	if err != nil {
		return err
	}
	return rw.end()
}

// writeLazyGames writes a lazy world's games newest epoch first. They are
// made oldest epoch first (each epoch's totals carry on from the one
// before), so each epoch's rows go to a spill file in dir, two lines a game
// (its cursor, then its node), and are read back one epoch at a time in
// reverse: memory holds one epoch's games, whatever the world's size. The
// spill file is removed however the write ends.
func (w *World) writeLazyGames(ctx context.Context, rw *rowWriter, dir string) (err error) {
	f, err := os.CreateTemp(dir, ".games.*.spill")
	if err != nil {
		return fmt.Errorf("create games spill file: %w", err)
	}
	defer func() {
		f.Close()
		if rerr := os.Remove(f.Name()); rerr != nil && err == nil {
			err = fmt.Errorf("remove games spill file: %w", rerr)
		}
	}()
	// ends[i] is where epoch FirstEpoch+i's rows end in the spill file;
	// they start where the epoch before ends.
	ends, err := w.spillGames(ctx, f)
	if err != nil {
		return err
	}
	var block []byte
	for i := len(ends) - 1; i >= 0; i-- {
		if err := ctx.Err(); err != nil {
			return err
		}
		start := int64(0)
		if i > 0 {
			start = ends[i-1]
		}
		if n := int(ends[i] - start); cap(block) < n {
			block = make([]byte, n)
		} else {
			block = block[:n]
		}
		if _, err := f.ReadAt(block, start); err != nil && err != io.EOF {
			return fmt.Errorf("read games spill file: %w", err)
		}
		if err := rw.spilledRows(block); err != nil {
			return err
		}
	}
	return nil
}

// spillGames makes every game of a lazy world, oldest epoch first, and
// writes each to spill as its cursor and its node, one line each. It
// returns the offset where each epoch's rows end.
func (w *World) spillGames(ctx context.Context, spill io.Writer) ([]int64, error) {
	out := bufio.NewWriterSize(spill, 1<<20)
	ends := make([]int64, 0, w.LatestEpoch-w.FirstEpoch+1)
	var offset int64
	var epoch []Game
	var node []byte // reused: each node is copied into the spill file
	for run := w.newGameRun(); !run.done(); {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		epoch = run.next(epoch[:0])
		for i := range epoch {
			g := &epoch[i]
			cursor := g.Cursor()
			node = g.appendJSON(node[:0])
			out.WriteString(cursor)
			out.WriteByte('\n')
			out.Write(node)
			if err := out.WriteByte('\n'); err != nil {
				return nil, fmt.Errorf("write games spill file: %w", err)
			}
			offset += int64(len(cursor) + len(node) + 2)
		}
		ends = append(ends, offset)
	}
	if err := out.Flush(); err != nil {
		return nil, fmt.Errorf("write games spill file: %w", err)
	}
	return ends, nil
}

// spilledRows writes the rows of one epoch read back from the spill file:
// pairs of lines, a cursor and a node. The game handed to onRow is decoded
// from its node, only when there is an onRow to call.
func (rw *rowWriter) spilledRows(block []byte) error {
	for len(block) > 0 {
		cursor, rest, ok1 := bytes.Cut(block, []byte{'\n'})
		node, rest, ok2 := bytes.Cut(rest, []byte{'\n'})
		if !ok1 || !ok2 {
			return fmt.Errorf("games spill file: a row is cut short")
		}
		block = rest
		var rec any
		if rw.ndjson && rw.onRow != nil {
			g := new(Game)
			if err := json.Unmarshal(node, g); err != nil {
				return fmt.Errorf("games spill file: %w", err)
			}
			rec = g
		}
		if err := rw.row(node, string(cursor), rec); err != nil {
			return err
		}
	}
	return nil
}
