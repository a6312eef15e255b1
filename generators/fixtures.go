package generators

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Listing names, as used in fixture file names and the manifest.
const (
	ListingGames             = "games"
	ListingSnapshots         = "snapshots"
	ListingKeyRotations      = "keyrotations"
	ListingNetworkParameters = "networkparameters"
	ListingTransactions      = "transactions"
)

// Listings lists the five listings in a fixed order.
var Listings = []string{ListingGames, ListingSnapshots, ListingKeyRotations, ListingNetworkParameters, ListingTransactions}

// Fixture file formats.
const (
	// FormatJSON writes each listing as one response body of the spec's
	// shape holding every row, in the listing's default order.
	FormatJSON = "json"
	// FormatNDJSON writes each listing as one node per line.
	FormatNDJSON = "ndjson"
	// FormatAuto writes JSON, and NDJSON for listings above NDJSONThreshold.
	FormatAuto = "auto"
)

// NDJSONThreshold is the row count above which FormatAuto writes NDJSON.
const NDJSONThreshold = 100_000

// ManifestFile is the name of the fixture manifest; it is written last, so a
// directory with a manifest holds complete fixtures.
const ManifestFile = "manifest.json"

// Manifest describes a fixture directory.
type Manifest struct {
	FormatVersion   int                        `json:"formatVersion"`
	Source          string                     `json:"source"` // "generated" or the URL recorded from
	Seed            *int64                     `json:"seed,omitempty"`
	Scale           float64                    `json:"scale,omitempty"`
	LatestBlock     uint64                     `json:"latestBlock,string"`
	LatestBlockTime time.Time                  `json:"latestBlockTime"`
	FirstEpoch      uint64                     `json:"firstEpoch,string"`
	LatestEpoch     uint64                     `json:"latestEpoch,string"`
	Listings        map[string]ManifestListing `json:"listings"`
}

// ManifestListing names the file of one listing and its row count.
type ManifestListing struct {
	File  string `json:"file"`
	Count int    `json:"count"`
}

// WriteOptions control WriteFixtures.
type WriteOptions struct {
	// Format is FormatAuto (the default), FormatJSON or FormatNDJSON.
	Format string
	// Progress, when set, is called every 8192 rows of a listing and after
	// each listing with the number of rows written so far and the total.
	Progress func(done, total int)
	// OnRow, when set, is called for each line of an NDJSON file as it is
	// written (never for a JSON file), so that a caller can index the
	// files while they are made: listing is the listing's name
	// (ListingGames...), offset the position of the line's first byte in
	// the file, length the line's length without its newline, and rec the
	// record: a *Game, *CoreSnapshot, *EthereumKeyRotation,
	// *NetworkParameter or *Transaction. The line is exactly the record's
	// node JSON as the mock serves it (RecordJSON(rec)). rec is valid only
	// during the call: copy what you keep. A lazy world's games come back
	// from a spill file as JSON (see WriteFixtures), so each is decoded to
	// be handed over: that work is done only when OnRow is set. OnRow is
	// called from one goroutine, in file order; it costs nothing when nil.
	OnRow func(listing string, offset int64, length int, rec any)
}

// WriteFixtures writes the world into dir, one file per listing and a
// manifest. Every file is written to a temporary name and renamed into
// place, so an interrupted or failed run leaves each previous file intact.
//
// A lazy world (Options.Lazy) is streamed: its transactions and games are
// made while they are written, and memory stays bounded whatever the
// world's size. Games are listed newest epoch first but made oldest first,
// so a lazy world's games pass through a temporary spill file in dir (about
// the size of the games file), removed however the write ends. The files are
// byte for byte those of the same world generated in memory.
func WriteFixtures(ctx context.Context, dir string, w *World, opts WriteOptions) (*Manifest, error) {
	format := opts.Format
	if format == "" {
		format = FormatAuto
	}
	if format != FormatAuto && format != FormatJSON && format != FormatNDJSON {
		return nil, fmt.Errorf("%w: format %q is not auto, json or ndjson", ErrBadOptions, format)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create fixture directory: %w", err)
	}
	if err := RemoveStaleTemps(dir, fixtureFiles()...); err != nil {
		return nil, err
	}
	m := &Manifest{
		FormatVersion:   1,
		Source:          "generated",
		Seed:            &w.Seed,
		Scale:           w.Scale,
		LatestBlock:     w.LatestBlock,
		LatestBlockTime: w.LatestBlockTime,
		FirstEpoch:      w.FirstEpoch,
		LatestEpoch:     w.LatestEpoch,
		Listings:        map[string]ManifestListing{},
	}
	if w.Scale == 0 {
		m.Source, m.Seed = "recorded", nil
	}
	total := w.GameCount() + len(w.Snapshots) + len(w.KeyRotations) + len(w.NetworkParameters) + w.TransactionCount()
	done := 0
	for _, listing := range Listings {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		count := w.rowCount(listing)
		f := format
		if f == FormatAuto {
			f = FormatJSON
			if count > NDJSONThreshold {
				f = FormatNDJSON
			}
		}
		name := listing + "." + f
		err := writeAtomic(filepath.Join(dir, name), func(out *bufio.Writer) error {
			rw := &rowWriter{out: out, listing: listing, ndjson: f == FormatNDJSON, onRow: opts.OnRow}
			if opts.Progress != nil {
				base := done
				rw.progress = func(n int) { opts.Progress(base+n, total) }
			}
			return w.writeListing(ctx, rw, dir)
		})
		if err != nil {
			return nil, fmt.Errorf("write %s: %w", name, err)
		}
		// A listing written in the other format before is now stale.
		other := FormatJSON
		if f == FormatJSON {
			other = FormatNDJSON
		}
		if err := os.Remove(filepath.Join(dir, listing+"."+other)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("remove stale %s.%s: %w", listing, other, err)
		}
		m.Listings[listing] = ManifestListing{File: name, Count: count}
		done += count
		if opts.Progress != nil {
			opts.Progress(done, total)
		}
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode manifest: %w", err)
	}
	err = writeAtomic(filepath.Join(dir, ManifestFile), func(out *bufio.Writer) error {
		_, err := out.Write(append(data, '\n'))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("write manifest: %w", err)
	}
	return m, nil
}

// row is one record ready to write: its node JSON and cursor, and the
// record itself.
type row struct {
	node   []byte
	cursor string
	rec    any
}

// rowCount returns the number of rows of a paged listing.
func (w *World) rowCount(listing string) int {
	switch listing {
	case ListingGames:
		return w.GameCount()
	case ListingSnapshots:
		return len(w.Snapshots)
	case ListingKeyRotations:
		return len(w.KeyRotations)
	case ListingNetworkParameters:
		return len(w.NetworkParameters)
	}
	return w.TransactionCount()
}

// eachRow calls fn with a paged listing's rows in its default order:
// newest first, except network parameters in key order. Each node is encoded
// as it is handed over, so a listing is never held encoded in full.
func (w *World) eachRow(listing string, fn func(row) error) error {
	order := func(n int, less func(a, b int) bool) []int {
		idx := make([]int, n)
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, b int) bool { return less(idx[a], idx[b]) })
		return idx
	}
	switch listing {
	case ListingGames:
		for _, i := range order(len(w.Games), func(a, b int) bool {
			x, y := &w.Games[a], &w.Games[b]
			if x.Epoch != y.Epoch {
				return x.Epoch > y.Epoch
			}
			return x.ID < y.ID
		}) {
			g := &w.Games[i]
			if err := fn(row{node: RecordJSON(g), cursor: g.Cursor(), rec: g}); err != nil {
				return err
			}
		}
	case ListingSnapshots:
		for _, i := range order(len(w.Snapshots), func(a, b int) bool { return w.Snapshots[a].BlockHeight > w.Snapshots[b].BlockHeight }) {
			s := &w.Snapshots[i]
			if err := fn(row{node: RecordJSON(s), cursor: s.Cursor(), rec: s}); err != nil {
				return err
			}
		}
	case ListingKeyRotations:
		for _, i := range order(len(w.KeyRotations), func(a, b int) bool {
			x, y := &w.KeyRotations[a], &w.KeyRotations[b]
			if x.BlockHeight != y.BlockHeight {
				return x.BlockHeight > y.BlockHeight
			}
			return x.NodeID < y.NodeID
		}) {
			r := &w.KeyRotations[i]
			if err := fn(row{node: RecordJSON(r), cursor: r.Cursor(), rec: r}); err != nil {
				return err
			}
		}
	case ListingNetworkParameters:
		for _, i := range order(len(w.NetworkParameters), func(a, b int) bool { return w.NetworkParameters[a].Key < w.NetworkParameters[b].Key }) {
			p := &w.NetworkParameters[i]
			if err := fn(row{node: RecordJSON(p), cursor: p.Cursor(), rec: p}); err != nil {
				return err
			}
		}
	}
	return nil
}

// AppendRecordJSON appends the JSON RecordJSON returns for a record to b.
// A generated game, snapshot or rotation is encoded straight into b, so
// that a caller reusing b encodes records without allocating.
func AppendRecordJSON(b []byte, rec any) []byte {
	switch r := rec.(type) {
	case *Game:
		if r.Raw == nil {
			return r.appendJSON(b)
		}
	case *CoreSnapshot:
		if r.Raw == nil {
			return r.appendJSON(b)
		}
	case *EthereumKeyRotation:
		if r.Raw == nil {
			return r.appendJSON(b)
		}
	}
	return append(b, RecordJSON(rec)...)
}

// RecordJSON returns the JSON of a record: its Raw bytes when it was read
// from fixtures, its encoding otherwise.
func RecordJSON(rec any) []byte {
	var raw []byte
	switch r := rec.(type) {
	case *Game:
		if r.Raw == nil {
			return r.appendJSON(make([]byte, 0, 1024))
		}
		raw = r.Raw
	case *CoreSnapshot:
		if r.Raw == nil {
			return r.appendJSON(make([]byte, 0, 160))
		}
		raw = r.Raw
	case *EthereumKeyRotation:
		if r.Raw == nil {
			return r.appendJSON(make([]byte, 0, 224))
		}
		raw = r.Raw
	case *NetworkParameter:
		raw = r.Raw
	case *Transaction:
		return r.JSON
	}
	if raw != nil {
		return raw
	}
	b, err := json.Marshal(rec)
	if err != nil {
		// The record types hold only strings, numbers, booleans and
		// slices of them; marshalling them cannot fail.
		panic(fmt.Sprintf("marshal %T: %v", rec, err))
	}
	return b
}

// wrappers are the page wrapper field of each paged listing's response.
var wrappers = map[string]string{
	ListingGames:             "games",
	ListingSnapshots:         "coreSnapshots",
	ListingKeyRotations:      "keyRotations",
	ListingNetworkParameters: "networkParameters",
}

// WriteFileAtomic writes data to path through a temporary file in the same
// directory, synced and renamed into place: a reader sees the previous file
// or the whole new one, never a part.
func WriteFileAtomic(path string, data []byte) error {
	return writeAtomic(path, func(w *bufio.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// fixtureFiles are the names of every file WriteFixtures may write.
func fixtureFiles() []string {
	names := []string{ManifestFile}
	for _, l := range Listings {
		names = append(names, l+"."+FormatJSON, l+"."+FormatNDJSON)
	}
	return names
}

// tempPattern is the os.CreateTemp pattern of writeAtomic's temporary file
// for a file named name: ".NAME.<random digits>.tmp".
func tempPattern(name string) string { return "." + name + ".*.tmp" }

// isTempOf reports whether file is a temporary file writeAtomic made for
// name: "." + name + "." + decimal digits (os.CreateTemp's random part) +
// ".tmp", nothing looser, so that no file of anyone else's matches.
func isTempOf(file, name string) bool {
	digits, ok := strings.CutPrefix(file, "."+name+".")
	if !ok {
		return false
	}
	digits, ok = strings.CutSuffix(digits, ".tmp")
	if !ok || digits == "" {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// RemoveStaleTemps removes from dir the temporary files that writeAtomic
// (WriteFixtures, WriteFileAtomic) left for the files named names when its
// process was killed before it could rename or remove them. It touches no
// other file. It assumes one writer in dir at a time: a temporary file of a
// run still writing would be removed too.
func RemoveStaleTemps(dir string, names ...string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("look for stale temporary files: %w", err)
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		for _, name := range names {
			if !isTempOf(e.Name(), name) {
				continue
			}
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("remove stale temporary file: %w", err)
			}
			break
		}
	}
	return nil
}

// writeAtomic writes a file through a temporary file in the same directory
// (tempPattern), synced and renamed into place only when write succeeds.
// One left by a killed process is removed by RemoveStaleTemps.
func writeAtomic(path string, write func(*bufio.Writer) error) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), tempPattern(filepath.Base(path)))
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	out := bufio.NewWriterSize(tmp, 1<<20)
	if err = write(out); err != nil {
		return err
	}
	if err = out.Flush(); err != nil {
		return err
	}
	if err = tmp.Chmod(0o644); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// ReadManifest reads and checks the manifest of a fixture directory.
func ReadManifest(dir string) (*Manifest, error) {
	data, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("manifest: %w", err)
	}
	if m.FormatVersion != 1 {
		return nil, fmt.Errorf("manifest formatVersion %d is not 1", m.FormatVersion)
	}
	return &m, nil
}

// ReadFixtures reads a fixture directory written by WriteFixtures (or by
// harness record) back into a World. Records keep their JSON exactly as read.
// The World has no entities (parties, teams...), only the listings.
func ReadFixtures(dir string) (*World, error) {
	m, err := ReadManifest(dir)
	if err != nil {
		return nil, fmt.Errorf("read fixtures %s: %w", dir, err)
	}
	w := &World{
		LatestBlock: m.LatestBlock, LatestBlockTime: m.LatestBlockTime,
		FirstEpoch: m.FirstEpoch, LatestEpoch: m.LatestEpoch, Scale: m.Scale,
	}
	if m.Seed != nil {
		w.Seed = *m.Seed
	}
	for _, listing := range Listings {
		entry, ok := m.Listings[listing]
		if !ok {
			continue // a listing not recorded is served empty
		}
		if err := w.readListing(filepath.Join(dir, entry.File), listing); err != nil {
			return nil, fmt.Errorf("read fixtures %s: %s: %w", dir, entry.File, err)
		}
	}
	w.sortListings()
	return w, nil
}

func (w *World) readListing(path, listing string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	each := func(node []byte) error { return w.addRecord(listing, node) }
	if filepath.Ext(path) == ".ndjson" {
		return eachLine(r, each)
	}
	return eachNode(r, listing, each)
}

// addRecord decodes one node and appends it to its listing, keeping its
// bytes.
func (w *World) addRecord(listing string, node []byte) error {
	rec, err := ParseRecord(listing, bytes.Clone(node))
	if err != nil {
		return err
	}
	switch r := rec.(type) {
	case *Game:
		w.Games = append(w.Games, *r)
	case *CoreSnapshot:
		w.Snapshots = append(w.Snapshots, *r)
	case *EthereumKeyRotation:
		w.KeyRotations = append(w.KeyRotations, *r)
	case *NetworkParameter:
		w.NetworkParameters = append(w.NetworkParameters, *r)
	case *Transaction:
		w.Transactions = append(w.Transactions, *r)
	}
	return nil
}

// ParseRecord decodes one node of a listing into its record (*Game,
// *CoreSnapshot, *EthereumKeyRotation, *NetworkParameter or *Transaction),
// which keeps raw as its bytes (Raw, or a transaction's JSON).
func ParseRecord(listing string, raw []byte) (any, error) {
	switch listing {
	case ListingGames:
		var g Game
		if err := json.Unmarshal(raw, &g); err != nil {
			return nil, fmt.Errorf("game: %w", err)
		}
		g.Raw = raw
		return &g, nil
	case ListingSnapshots:
		var s CoreSnapshot
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("core snapshot: %w", err)
		}
		s.Raw = raw
		return &s, nil
	case ListingKeyRotations:
		var k EthereumKeyRotation
		if err := json.Unmarshal(raw, &k); err != nil {
			return nil, fmt.Errorf("key rotation: %w", err)
		}
		k.Raw = raw
		return &k, nil
	case ListingNetworkParameters:
		var p NetworkParameter
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, fmt.Errorf("network parameter: %w", err)
		}
		p.Raw = raw
		return &p, nil
	case ListingTransactions:
		t, err := ParseTransaction(raw)
		if err != nil {
			return nil, err
		}
		return &t, nil
	}
	return nil, fmt.Errorf("%w: no listing %q", ErrBadOptions, listing)
}

// ParseTransaction extracts a transaction's keys from its JSON.
func ParseTransaction(raw []byte) (Transaction, error) {
	var t struct {
		Block     string `json:"block"`
		Index     uint32 `json:"index"`
		Type      string `json:"type"`
		Submitter string `json:"submitter"`
		Code      int32  `json:"code"`
		Command   struct {
			Batch *struct {
				Terms struct {
					Changes []struct {
						NewTransfer *struct {
							Changes struct {
								DestinationType string `json:"destinationType"`
								Destination     string `json:"destination"`
							} `json:"changes"`
						} `json:"newTransfer"`
					} `json:"changes"`
				} `json:"terms"`
			} `json:"batchProposalSubmission"`
		} `json:"command"`
	}
	if err := json.Unmarshal(raw, &t); err != nil {
		return Transaction{}, fmt.Errorf("transaction: %w", err)
	}
	block, err := strconv.ParseUint(t.Block, 10, 64)
	if err != nil {
		return Transaction{}, fmt.Errorf("transaction: block %q: %w", t.Block, err)
	}
	out := Transaction{Block: block, Index: t.Index, Type: t.Type, Submitter: t.Submitter, Code: t.Code, JSON: raw}
	if t.Command.Batch != nil {
		for _, c := range t.Command.Batch.Terms.Changes {
			if c.NewTransfer != nil && c.NewTransfer.Changes.DestinationType == "ACCOUNT_TYPE_GENERAL" && c.NewTransfer.Changes.Destination != "" {
				out.Receivers = append(out.Receivers, c.NewTransfer.Changes.Destination)
			}
		}
	}
	return out, nil
}

// sortListings puts every listing in its natural order, oldest first.
func (w *World) sortListings() {
	sort.SliceStable(w.Games, func(i, j int) bool {
		if w.Games[i].Epoch != w.Games[j].Epoch {
			return w.Games[i].Epoch < w.Games[j].Epoch
		}
		return w.Games[i].ID < w.Games[j].ID
	})
	sort.SliceStable(w.Snapshots, func(i, j int) bool { return w.Snapshots[i].BlockHeight < w.Snapshots[j].BlockHeight })
	sort.SliceStable(w.KeyRotations, func(i, j int) bool {
		a, b := &w.KeyRotations[i], &w.KeyRotations[j]
		if a.BlockHeight != b.BlockHeight {
			return a.BlockHeight < b.BlockHeight
		}
		return a.NodeID < b.NodeID
	})
	sort.SliceStable(w.NetworkParameters, func(i, j int) bool { return w.NetworkParameters[i].Key < w.NetworkParameters[j].Key })
	sort.SliceStable(w.Transactions, func(i, j int) bool { return w.Transactions[i].Key().Less(w.Transactions[j].Key()) })
}

// eachLine calls fn with every non-empty line.
func eachLine(r *bufio.Reader, fn func([]byte) error) error {
	for n := 1; ; n++ {
		line, err := r.ReadBytes('\n')
		if t := bytes.TrimSpace(line); len(t) > 0 {
			if ferr := fn(t); ferr != nil {
				return fmt.Errorf("line %d: %w", n, ferr)
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// eachNode streams a response-shaped file and calls fn with each node, so a
// large file is never held whole.
func eachNode(r io.Reader, listing string, fn func([]byte) error) error {
	dec := json.NewDecoder(r)
	if err := SeekRows(dec, listing); err != nil {
		return err
	}
	for i := 0; dec.More(); i++ {
		if listing == ListingTransactions {
			var node json.RawMessage
			if err := dec.Decode(&node); err != nil {
				return fmt.Errorf("row %d: %w", i, err)
			}
			if err := fn(node); err != nil {
				return fmt.Errorf("row %d: %w", i, err)
			}
			continue
		}
		var edge struct {
			Node json.RawMessage `json:"node"`
		}
		if err := dec.Decode(&edge); err != nil {
			return fmt.Errorf("edge %d: %w", i, err)
		}
		if len(edge.Node) == 0 {
			return fmt.Errorf("edge %d: no node", i)
		}
		if err := fn(edge.Node); err != nil {
			return fmt.Errorf("edge %d: %w", i, err)
		}
	}
	return nil
}

// seek moves the decoder into the array at path (a chain of object fields),
// just after its opening bracket.
// SeekRows moves a decoder of a listing's response-shaped file (a fixture
// file in JSON) to its first row: just inside the edges array of a paged
// listing, or the transactions array.
func SeekRows(dec *json.Decoder, listing string) error {
	path := []string{wrappers[listing], "edges"}
	if listing == ListingTransactions {
		path = []string{"transactions"}
	}
	return seek(dec, path)
}

func seek(dec *json.Decoder, path []string) error {
	for depth, want := range path {
		if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
			return fmt.Errorf("want an object holding %q", want)
		}
		for {
			tok, err := dec.Token()
			if err != nil {
				return err
			}
			key, ok := tok.(string)
			if !ok {
				return fmt.Errorf("no field %q", want)
			}
			if key == want {
				break
			}
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return err
			}
		}
		if depth == len(path)-1 {
			if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
				return fmt.Errorf("field %q is not an array", want)
			}
		}
	}
	return nil
}
