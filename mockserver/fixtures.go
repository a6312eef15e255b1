package mockserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/chaindata/harness/generators"
)

// Serving fixtures from disk: OpenFixtures maps each listing's file
// read-only and keeps only the index in memory (its rows' places, keys and
// filter lists), so a world far larger than memory is served through the
// page cache. The index is saved beside the fixtures (IndexFile) by harness
// generate and harness record, and rebuilt when it is missing or stale.

// FixtureInfo says how a fixture directory's index was found.
type FixtureInfo struct {
	// Index is the index file used.
	Index string
	// Rebuilt is why the index was built again ("" when it was loaded as
	// saved): missing, stale, or unreadable, with the reason.
	Rebuilt string
	// SaveErr is why a rebuilt index could not be saved beside the
	// fixtures (it was used from a temporary file instead).
	SaveErr error
}

// OpenFixtures serves the fixtures in dir (written by harness generate or
// harness record, JSON or NDJSON) from disk. The store must be closed.
func OpenFixtures(dir string) (*Store, FixtureInfo, error) {
	info := FixtureInfo{Index: filepath.Join(dir, IndexFile)}
	m, err := readManifest(dir)
	if err != nil {
		return nil, info, err
	}
	files, sources, err := mapListings(dir, m)
	if err != nil {
		return nil, info, err
	}
	unmapAll := func() {
		for _, f := range files {
			unmapFile(f)
		}
	}
	s, err := loadIndex(info.Index, m, files, sources)
	if err != nil {
		info.Rebuilt = err.Error()
		if s, err = rebuildIndex(dir, m, files, sources, &info); err != nil {
			unmapAll()
			return nil, info, fmt.Errorf("fixtures %s: index: %w", dir, err)
		}
	}
	for _, f := range files {
		if f != nil {
			s.files = append(s.files, f)
		}
	}
	return s, info, nil
}

// BuildIndex indexes the fixtures in dir and saves the index beside them.
// Listings b already holds (from the records as they were written) are
// taken from it; the others are read from their files. b may be nil.
func BuildIndex(dir string, b *IndexBuilder) error {
	m, err := readManifest(dir)
	if err != nil {
		return err
	}
	files, sources, err := mapListings(dir, m)
	if err != nil {
		return err
	}
	defer func() {
		for _, f := range files {
			unmapFile(f)
		}
	}()
	if b == nil {
		b = NewIndexBuilder()
	}
	if err := indexFiles(b, m, files); err != nil {
		return fmt.Errorf("fixtures %s: index: %w", dir, err)
	}
	return saveIndex(filepath.Join(dir, IndexFile), b, sources)
}

// readManifest reads a fixture directory's manifest, whose files must lie
// in the directory.
func readManifest(dir string) (*generators.Manifest, error) {
	m, err := generators.ReadManifest(dir)
	if err != nil {
		return nil, fmt.Errorf("fixtures %s: %w", dir, err)
	}
	for _, l := range generators.Listings {
		if e, ok := m.Listings[l]; ok && (e.File == "" || e.File != filepath.Base(e.File)) {
			return nil, fmt.Errorf("fixtures %s: manifest: %s file %q is not a file name", dir, l, e.File)
		}
	}
	return m, nil
}

// mapListings maps every listing's file and notes its size and time.
func mapListings(dir string, m *generators.Manifest) (map[string][]byte, map[string]indexSource, error) {
	files, sources := map[string][]byte{}, map[string]indexSource{}
	for _, l := range generators.Listings {
		e, ok := m.Listings[l]
		if !ok {
			continue // a listing not recorded is served empty
		}
		f, err := os.Open(filepath.Join(dir, e.File))
		if err != nil {
			return unmapOnError(files, fmt.Errorf("fixtures %s: %w", dir, err))
		}
		st, err := f.Stat()
		if err == nil {
			files[l], err = mapFile(f)
		}
		f.Close()
		if err != nil {
			return unmapOnError(files, fmt.Errorf("fixtures %s: %w", dir, err))
		}
		sources[l] = indexSource{File: e.File, Size: st.Size(), ModTime: st.ModTime().UnixNano()}
	}
	return files, sources, nil
}

func unmapOnError(files map[string][]byte, err error) (map[string][]byte, map[string]indexSource, error) {
	for _, f := range files {
		unmapFile(f)
	}
	return nil, nil, err
}

// fixtureStore returns an empty store with the manifest's chain facts.
func fixtureStore(m *generators.Manifest) *Store {
	s := newStore(0, m.Scale)
	if m.Seed != nil {
		s.seed = *m.Seed
	}
	s.firstEpoch, s.latestEpoch = m.FirstEpoch, m.LatestEpoch
	s.latestBlock, s.latestBlockTime = m.LatestBlock, m.LatestBlockTime
	return s
}

// loadIndex reads a saved index, checking it against the files.
func loadIndex(path string, m *generators.Manifest, files map[string][]byte, sources map[string]indexSource) (*Store, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, errors.New("missing")
		}
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	r := &binReader{r: bufio.NewReaderSize(f, 1<<20), size: st.Size()}
	h, err := readIndexHeader(r)
	if err != nil {
		return nil, fmt.Errorf("unreadable: %w", err)
	}
	for _, l := range generators.Listings {
		if h.Sources[l] != sources[l] {
			return nil, fmt.Errorf("%w: %s changed since it was indexed", errStaleIndex, l)
		}
	}
	s := fixtureStore(m)
	if err := readIndexRows(r, s, files); err != nil {
		return nil, fmt.Errorf("unreadable: %w", err)
	}
	if err := spotCheck(s); err != nil {
		return nil, fmt.Errorf("%w: %v", errStaleIndex, err)
	}
	s.finish()
	return s, nil
}

// finish sets what a store built from fixtures derives from its rows.
func (s *Store) finish() {
	s.gameEpochs()
	s.setBlockHeaders()
	s.base = s.mark()
}

// spotCheck reads a few rows of each listing again and checks their keys
// are the index's: the first, the last and some between.
func spotCheck(s *Store) error {
	const probes = 16
	check := func(listing string, n int, at func(i int) error) error {
		for k := 0; k <= probes && n > 0; k++ {
			i := k * (n - 1) / probes
			if err := at(i); err != nil {
				return fmt.Errorf("%s row %d: %w", listing, i+1, err)
			}
		}
		return nil
	}
	errs := []error{
		check(generators.ListingGames, len(s.gameKeys), func(i int) error {
			var g generators.Game
			if err := json.Unmarshal(s.games.get(i), &g); err != nil {
				return err
			}
			if (generators.GameKey{Epoch: g.Epoch, ID: g.ID}) != s.gameKeys[i] || (g.Team != nil) != s.gameTeams[i] {
				return errors.New("not the indexed game")
			}
			return nil
		}),
		check(generators.ListingSnapshots, len(s.snapshotKeys), func(i int) error {
			var sn generators.CoreSnapshot
			if err := json.Unmarshal(s.snapshots.get(i), &sn); err != nil {
				return err
			}
			if sn.BlockHeight != s.snapshotKeys[i].BlockHeight {
				return errors.New("not the indexed snapshot")
			}
			return nil
		}),
		check(generators.ListingKeyRotations, len(s.rotKeys), func(i int) error {
			var r generators.EthereumKeyRotation
			if err := json.Unmarshal(s.rotations.get(i), &r); err != nil {
				return err
			}
			if rotKey(&r) != s.rotKeys[i] {
				return errors.New("not the indexed key rotation")
			}
			return nil
		}),
		check(generators.ListingNetworkParameters, len(s.paramKeys), func(i int) error {
			var p generators.NetworkParameter
			if err := json.Unmarshal(s.params.get(i), &p); err != nil {
				return err
			}
			if p.Key != s.paramKeys[i] {
				return errors.New("not the indexed network parameter")
			}
			return nil
		}),
		check(generators.ListingTransactions, len(s.txKeys), func(i int) error {
			t, err := generators.ParseTransaction(s.txs.get(i))
			if err != nil {
				return err
			}
			if t.Key() != s.txKeys[i] || t.Type != s.typeNames[s.txTypes[i]] {
				return errors.New("not the indexed transaction")
			}
			return nil
		}),
	}
	return errors.Join(errs...)
}

// rebuildIndex indexes the files again and saves the index beside them;
// when that fails (a read-only directory), it uses a temporary file and
// says why in info.
func rebuildIndex(dir string, m *generators.Manifest, files map[string][]byte, sources map[string]indexSource, info *FixtureInfo) (*Store, error) {
	b := NewIndexBuilder()
	if err := indexFiles(b, m, files); err != nil {
		return nil, err
	}
	if info.SaveErr = saveIndex(info.Index, b, sources); info.SaveErr != nil {
		tmp, err := os.CreateTemp("", "harness-index-*.bin")
		if err != nil {
			return nil, err
		}
		info.Index = tmp.Name()
		tmp.Close()
		defer os.Remove(info.Index)
		if err := saveIndex(info.Index, b, sources); err != nil {
			return nil, err
		}
	}
	return loadIndex(info.Index, m, files, sources)
}

// saveIndex sorts the builder and writes its index to path atomically:
// beside it under a temporary name, then renamed. Temporary files an
// interrupted save left are removed first.
func saveIndex(path string, b *IndexBuilder, sources map[string]indexSource) (err error) {
	if err := b.sort(); err != nil {
		return err
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	stale, _ := filepath.Glob(filepath.Join(dir, "."+base+".*.tmp"))
	for _, f := range stale {
		os.Remove(f)
	}
	tmp, err := os.CreateTemp(dir, "."+base+".*.tmp")
	if err != nil {
		return fmt.Errorf("save index: %w", err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err = writeIndex(tmp, b, sources); err != nil {
		return fmt.Errorf("save index: %w", err)
	}
	if err = tmp.Chmod(0o644); err == nil {
		err = tmp.Close()
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("save index: %w", err)
	}
	return nil
}

// indexFiles adds to b every listing it does not hold yet, reading the
// records from their files.
func indexFiles(b *IndexBuilder, m *generators.Manifest, files map[string][]byte) error {
	for _, l := range generators.Listings {
		data, ok := files[l]
		if !ok || b.has(l) {
			continue
		}
		var places []place
		err := scanNodes(data, l, strings.HasSuffix(m.Listings[l].File, ".ndjson"), func(off, n int) {
			places = append(places, place{int64(off), uint32(n)})
		})
		if err != nil {
			return fmt.Errorf("%s: %w", m.Listings[l].File, err)
		}
		b.Reserve(map[string]int{l: len(places)})
		if err := parseRows(b, l, data, places); err != nil {
			return fmt.Errorf("%s: %w", m.Listings[l].File, err)
		}
	}
	return nil
}

// parseBatch is how many rows parseRows decodes at a time (a variable for
// the tests, which make it small).
var parseBatch = 1 << 14

// parseRows decodes the records at places, on every core, a batch at a
// time, and adds them to b in order.
func parseRows(b *IndexBuilder, listing string, data []byte, places []place) error {
	batch := parseBatch
	workers := runtime.GOMAXPROCS(0)
	recs := make([]any, batch)
	errs := make([]error, workers)
	for lo := 0; lo < len(places); lo += batch {
		hi := min(lo+batch, len(places))
		var wg sync.WaitGroup
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := lo + w; i < hi; i += workers {
					p := places[i]
					rec, err := generators.ParseRecord(listing, data[p.off:p.off+int64(p.n)])
					if err != nil && errs[w] == nil {
						errs[w] = fmt.Errorf("row %d (byte %d): %w", i+1, p.off, err)
					}
					recs[i-lo] = rec
				}
			}()
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			return err
		}
		for i := lo; i < hi; i++ {
			if err := b.Add(listing, places[i].off, int(places[i].n), recs[i-lo]); err != nil {
				return err
			}
		}
		clear(recs)
	}
	return nil
}

// scanNodes calls fn with the place of every node of a listing's file:
// each non-blank line of NDJSON, or each node of a response-shaped JSON
// file (every edge's node; every element of the transactions array).
func scanNodes(data []byte, listing string, ndjson bool, fn func(off, n int)) error {
	if ndjson {
		for off := 0; off < len(data); {
			end := bytes.IndexByte(data[off:], '\n')
			if end < 0 {
				end = len(data) - off
			}
			line := data[off : off+end]
			if t := bytes.TrimSpace(line); len(t) > 0 {
				fn(off+len(line)-len(bytes.TrimLeft(line, " \t\r")), len(t))
			}
			off += end + 1
		}
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := generators.SeekRows(dec, listing); err != nil {
		return err
	}
	raw := func() (int, int, error) {
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return 0, 0, err
		}
		end := int(dec.InputOffset())
		return end - len(v), len(v), nil
	}
	for i := 1; dec.More(); i++ { // i counts from 1, as rows are named
		if listing == generators.ListingTransactions {
			off, n, err := raw()
			if err != nil {
				return fmt.Errorf("row %d: %w", i, err)
			}
			fn(off, n)
			continue
		}
		if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
			return fmt.Errorf("edge %d: not an object", i)
		}
		found := false
		for dec.More() {
			key, err := dec.Token()
			if err != nil {
				return fmt.Errorf("edge %d: %w", i, err)
			}
			if key == "node" {
				off, n, err := raw()
				if err != nil {
					return fmt.Errorf("edge %d: node: %w", i, err)
				}
				fn(off, n)
				found = true
				continue
			}
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return fmt.Errorf("edge %d: %w", i, err)
			}
		}
		if _, err := dec.Token(); err != nil {
			return fmt.Errorf("edge %d: %w", i, err)
		}
		if !found {
			return fmt.Errorf("edge %d: no node", i)
		}
	}
	return nil
}
