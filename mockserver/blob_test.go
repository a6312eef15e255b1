package mockserver

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chaindata/harness/generators"
)

// row returns the test bytes of row i: sizes that fill chunks unevenly,
// some larger than a whole chunk.
func testRow(i int) []byte {
	n := []int{1, 700 << 10, 3, 2<<20 + 5, 90, 1 << 20}[i%6]
	return bytes.Repeat([]byte{byte('a' + i%26)}, n)
}

func checkRows(t *testing.T, b *blob, n int) {
	t.Helper()
	if b.len() != n {
		t.Fatalf("%d rows, want %d", b.len(), n)
	}
	var total int64
	for i := 0; i < n; i++ {
		if got := b.get(i); !bytes.Equal(got, testRow(i)) {
			t.Fatalf("row %d: %d bytes %.10q, want %d bytes %.10q", i, len(got), got, len(testRow(i)), testRow(i))
		}
		total += int64(len(testRow(i)))
	}
	if b.bytes() != total {
		t.Errorf("bytes() %d, want %d", b.bytes(), total)
	}
}

// TestBlobKeepsRowsAcrossChunks adds rows of mixed sizes (chunks fill and
// new ones are taken, a row too large for a chunk gets its own), cuts the
// blob back at every kind of boundary and adds again.
func TestBlobKeepsRowsAcrossChunks(t *testing.T) {
	var b blob
	defer b.release()
	b.grow(4)
	for i := 0; i < 20; i++ {
		if err := b.add(testRow(i)); err != nil {
			t.Fatal(err)
		}
	}
	checkRows(t, &b, 20)
	if len(b.chunks) < 3 {
		t.Fatalf("%d chunks for 20 rows of up to 2 MiB: the test does not cross chunks", len(b.chunks))
	}
	for _, cut := range []int{17, 12, 7, 1} {
		b.truncate(cut)
		checkRows(t, &b, cut)
		last := int(b.loc[cut-1] >> locShift)
		if len(b.chunks) != last+1 {
			t.Errorf("cut to %d rows: %d chunks kept, want %d (the last row's)", cut, len(b.chunks), last+1)
		}
		for i := cut; i < 20; i++ {
			if err := b.add(testRow(i)); err != nil {
				t.Fatal(err)
			}
		}
		checkRows(t, &b, 20)
	}
	b.truncate(25) // beyond the end: nothing to do
	checkRows(t, &b, 20)
	b.release()
	if b.len() != 0 || len(b.chunks) != 0 {
		t.Errorf("after release: %d rows, %d chunks", b.len(), len(b.chunks))
	}
	if err := b.add(testRow(0)); err != nil {
		t.Fatal(err)
	}
	checkRows(t, &b, 1)
}

// TestBlobChunksGrow checks chunk sizes double from the smallest, so a
// small store takes little and a large one few chunks.
func TestBlobChunksGrow(t *testing.T) {
	var b blob
	defer b.release()
	row := make([]byte, 100<<10)
	for i := 0; i < 200; i++ { // 20 MB
		if err := b.add(row); err != nil {
			t.Fatal(err)
		}
	}
	want := []int{1 << 20, 1 << 20, 2 << 20, 4 << 20, 8 << 20, 16 << 20}
	for i, c := range b.chunks {
		if i < len(want) && len(c.data) != want[i] {
			t.Errorf("chunk %d: %d bytes, want %d", i, len(c.data), want[i])
		}
	}
	if len(b.chunks) != len(want) {
		t.Errorf("%d chunks, want %d", len(b.chunks), len(want))
	}
}

// TestFixtureStoreGrowsAndResets appends the same blocks to a store served
// from fixture files and to one built in memory, compares their answers,
// then resets both.
func TestFixtureStoreGrowsAndResets(t *testing.T) {
	w, err := generators.Generate(generators.Options{Seed: 3, Scale: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	dir := writeFixtures(t, w, generators.FormatNDJSON)
	disk, _ := openFixtures(t, dir)
	mem, err := NewStore(w)
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	g, err := w.Growth()
	if err != nil {
		t.Fatal(err)
	}
	n, err := g.BlocksForEpochs(2)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		blk, err := g.Next()
		if err != nil {
			t.Fatal(err)
		}
		if err := disk.Append(blk); err != nil {
			t.Fatal(err)
		}
		if err := mem.Append(blk); err != nil {
			t.Fatal(err)
		}
	}
	compare := func(stage string) {
		t.Helper()
		cfg := Config{DefaultPageSize: 25, MaxPageSize: 100, TxDefaultPageSize: 25, TxMaxPageSize: 100}
		hm, hd := New(cfg, mem), New(cfg, disk)
		for _, q := range []string{
			"/api/v2/games", "/api/v2/games?pagination.last=3&pagination.newestFirst=false",
			"/api/v2/snapshots?pagination.first=5", "/api/v2/core/keys/ethereum/rotations?pagination.first=5",
			"/transactions?first=40", "/transactions?last=5",
		} {
			if a, b := ask(hm, q), ask(hd, q); a != b {
				t.Fatalf("%s: GET %s\nfrom memory: %d %s %.300s\nfrom disk:   %d %s %.300s", stage, q, a.status, a.height, a.body, b.status, b.height, b.body)
			}
		}
	}
	if disk.Counts()[generators.ListingGames] == len(w.Games) {
		t.Fatal("two epochs of blocks added no game: the test proves nothing")
	}
	compare("grown")
	disk.Reset()
	mem.Reset()
	if got := disk.Counts()[generators.ListingTransactions]; got != w.TransactionCount() {
		t.Errorf("reset: %d transactions, want %d", got, w.TransactionCount())
	}
	compare("reset")
}

// tamperIndex writes dir's index after tamper changed the sorted builder.
func tamperIndex(t *testing.T, dir string, tamper func(b *IndexBuilder)) {
	t.Helper()
	m, err := readManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	files, sources, err := mapListings(dir, m)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		for _, f := range files {
			unmapFile(f)
		}
	}()
	b := NewIndexBuilder()
	if err := indexFiles(b, m, files); err != nil {
		t.Fatal(err)
	}
	if err := b.sort(); err != nil {
		t.Fatal(err)
	}
	tamper(b)
	var buf bytes.Buffer
	if err := writeIndex(&buf, b, sources); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, IndexFile), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestDamagedIndexIsRebuilt writes indexes that lie about their files and
// wants each lie found, named, and the index rebuilt.
func TestDamagedIndexIsRebuilt(t *testing.T) {
	w := genWorld(t)
	cases := []struct {
		name   string
		tamper func(b *IndexBuilder)
		want   string
	}{
		{"row outside its file", func(b *IndexBuilder) { b.txs[3].off = 1 << 38 }, "outside its file"},
		{"row running past its file", func(b *IndexBuilder) {
			last := 0
			for i, s := range b.snapshots {
				if s.off > b.snapshots[last].off {
					last = i
				}
			}
			b.snapshots[last].n += 2 // past the newline ending the file
		}, "outside its file"},
		{"games out of order", func(b *IndexBuilder) { b.games[1], b.games[2] = b.games[2], b.games[1] }, "games out of order"},
		{"snapshots out of order", func(b *IndexBuilder) { b.snapshots[4].height = b.snapshots[3].height }, "snapshots out of order"},
		{"rotations out of order", func(b *IndexBuilder) { b.rotations[0], b.rotations[1] = b.rotations[1], b.rotations[0] }, "key rotations out of order"},
		{"parameters out of order", func(b *IndexBuilder) { b.params[7].key = b.params[6].key }, "network parameters out of order"},
		{"transactions out of order", func(b *IndexBuilder) { b.txs[9].block, b.txs[9].index = b.txs[8].block, b.txs[8].index }, "transactions out of order"},
		{"another game", func(b *IndexBuilder) { b.games[0].teams = !b.games[0].teams }, "not the indexed game"},
		{"another snapshot", func(b *IndexBuilder) { b.snapshots[0].height-- }, "not the indexed snapshot"},
		{"another rotation", func(b *IndexBuilder) { b.rotations[0].key.BlockHeight-- }, "not the indexed key rotation"},
		{"another parameter", func(b *IndexBuilder) { b.params[0].key = "" }, "not the indexed network parameter"},
		{"another transaction", func(b *IndexBuilder) { b.txs[0].typ = b.name("Nope") }, "not the indexed transaction"},
		{"identifier beyond its table", func(b *IndexBuilder) {
			b.names["beyond"] = int32(len(b.nameList)) // numbered, never written
			b.games[0].key.ID = "beyond"
		}, "corrupt: identifier"},
		{"another row's bytes", func(b *IndexBuilder) { b.txs[len(b.txs)-1].off, b.txs[len(b.txs)-1].n = b.txs[0].off, b.txs[0].n }, "not the indexed transaction"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeFixtures(t, w, generators.FormatNDJSON)
			tamperIndex(t, dir, tc.tamper)
			st, info := openFixtures(t, dir)
			if !strings.Contains(info.Rebuilt, tc.want) {
				t.Errorf("rebuilt %q, want it to say %q", info.Rebuilt, tc.want)
			}
			if got := st.Counts()[generators.ListingTransactions]; got != w.TransactionCount() {
				t.Errorf("%d transactions after the rebuild, want %d", got, w.TransactionCount())
			}
		})
	}
}

// TestIndexBuilderRefuses checks rows the builder cannot take.
func TestIndexBuilderRefuses(t *testing.T) {
	g := &generators.Game{Epoch: 1, ID: "g"}
	cases := []struct {
		listing string
		offset  int64
		length  int
		rec     any
		want    string
	}{
		{generators.ListingSnapshots, 0, 10, g, "is not a row of snapshots"},
		{generators.ListingGames, 0, 10, "text", "is not a row of games"},
		{generators.ListingGames, -1, 10, g, "out of range"},
		{generators.ListingGames, 1 << locShift, 10, g, "out of range"},
		{generators.ListingGames, 0, -1, g, "out of range"},
		{generators.ListingGames, 0, 0, g, "out of range"}, // no node is empty
		{generators.ListingGames, 0, 1 << 32, g, "out of range"},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%s %d %d %T", tc.listing, tc.offset, tc.length, tc.rec), func(t *testing.T) {
			err := NewIndexBuilder().Add(tc.listing, tc.offset, tc.length, tc.rec)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Add: %v, want an error saying %q", err, tc.want)
			}
		})
	}
	b := NewIndexBuilder()
	for _, off := range []int64{0, 1<<locShift - 1} {
		if err := b.Add(generators.ListingGames, off, 1<<32-1, &generators.Game{Epoch: uint64(off), ID: "g"}); err != nil {
			t.Errorf("Add at the limits: %v", err)
		}
	}
}

// TestBuildIndexFromWrittenRecords checks the index harness generate
// saves, from the records as they are written, serves like the one read
// from the files.
func TestBuildIndexFromWrittenRecords(t *testing.T) {
	w, err := generators.Generate(generators.Options{Seed: 5, Scale: 0.05, Lazy: true})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	b := NewIndexBuilder()
	var addErr error
	_, err = generators.WriteFixtures(context.Background(), dir, w, generators.WriteOptions{
		Format: generators.FormatAuto,
		OnRow: func(l string, off int64, n int, rec any) {
			if addErr == nil {
				addErr = b.Add(l, off, n, rec)
			}
		},
	})
	if err != nil || addErr != nil {
		t.Fatal(err, addErr)
	}
	if err := BuildIndex(dir, b); err != nil {
		t.Fatal(err)
	}
	written, _ := os.ReadFile(filepath.Join(dir, IndexFile))
	if err := BuildIndex(dir, nil); err != nil {
		t.Fatal(err)
	}
	read, _ := os.ReadFile(filepath.Join(dir, IndexFile))
	if !bytes.Equal(written, read) {
		t.Errorf("the index from the written records (%d bytes) is not the one read from the files (%d bytes)", len(written), len(read))
	}
}

// TestBlobFillsChunksExactly checks a row that fits the space left in a
// chunk, to the byte, goes there, and the next one to a new chunk; and that
// each chunk is filled before another is taken.
func TestBlobFillsChunksExactly(t *testing.T) {
	var b blob
	defer b.release()
	for _, n := range []int{minChunkSize - 10, 10, 1} {
		if err := b.add(make([]byte, n)); err != nil {
			t.Fatal(err)
		}
	}
	if got := []uint64{b.loc[0] >> locShift, b.loc[1] >> locShift, b.loc[2] >> locShift}; got[0] != 0 || got[1] != 0 || got[2] != 1 {
		t.Errorf("chunks of the rows: %v, want [0 0 1]", got)
	}
	var c blob
	defer c.release()
	row := make([]byte, 100<<10)
	for i := 0; i < 40; i++ {
		if err := c.add(row); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 40; i++ {
		chunk := int(c.loc[i] >> locShift)
		if per := minChunkSize / len(row); chunk == 0 && i >= per || chunk > 0 && i < per {
			t.Fatalf("row %d in chunk %d: a chunk of %d bytes holds %d rows of %d", i, chunk, minChunkSize, per, len(row))
		}
	}
}

// TestBlobGrowReservesRows checks grow makes room once for the rows asked
// and leaves tables with room alone.
func TestBlobGrowReservesRows(t *testing.T) {
	var b blob
	defer b.release()
	b.add([]byte("x"))
	b.grow(100)
	if free := cap(b.n) - len(b.n); free < 100 || cap(b.loc)-len(b.loc) < 100 {
		t.Fatalf("grow(100): room for %d rows", free)
	}
	if !bytes.Equal(b.get(0), []byte("x")) {
		t.Fatal("grow lost a row")
	}
	before := &b.n[:1][0]
	b.grow(100)
	b.grow(99)
	if &b.n[:1][0] != before {
		t.Error("grow reallocated tables that had room")
	}
	// The room is counted from the rows there are, not from nothing.
	var c blob
	defer c.release()
	for i := 0; i < 60; i++ {
		c.add([]byte("y"))
	}
	c.grow(50)
	if free := cap(c.n) - len(c.n); free < 50 || cap(c.loc)-len(c.loc) < 50 {
		t.Errorf("60 rows, then grow(50): room for %d rows", free)
	}
}

// TestIndexBuilderReserve checks Reserve allocates the tables once: rows
// added up to the counts given do not move them.
func TestIndexBuilderReserve(t *testing.T) {
	b := NewIndexBuilder()
	b.Reserve(map[string]int{generators.ListingTransactions: 50, generators.ListingGames: 3})
	if cap(b.txs) < 50 || cap(b.games) < 3 || cap(b.refs) < 50+16*3 {
		t.Fatalf("capacities: %d transactions, %d games, %d refs", cap(b.txs), cap(b.games), cap(b.refs))
	}
	first := &b.txs[:1][0]
	for i := 0; i < 50; i++ {
		tx := &generators.Transaction{Block: uint64(i), Submitter: "p", Type: "t"}
		if err := b.Add(generators.ListingTransactions, int64(i), 1, tx); err != nil {
			t.Fatal(err)
		}
	}
	if &b.txs[0] != first {
		t.Error("adding the reserved rows moved the table")
	}
	if got := b.txs[49]; got.key() != (generators.TxKey{Block: 49}) || got.hi-got.lo != 1 || b.nameList[b.refs[got.lo]] != "p" {
		t.Errorf("row 49: %+v", got)
	}
}

// TestIndexCountsAreBounded checks a count in an index is held to what
// the file could hold, so a damaged index cannot ask for more memory than
// its size: one more than that is refused as corrupt, the most it could
// hold is read (and found wrong further on).
func TestIndexCountsAreBounded(t *testing.T) {
	w := genWorld(t)
	dir := writeFixtures(t, w, generators.FormatNDJSON)
	openFixtures(t, dir) // saves the index
	index := filepath.Join(dir, IndexFile)
	saved, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	// The identifiers' count follows the magic and the header.
	headLen, k := binary.Uvarint(saved[len(indexMagic):])
	at := len(indexMagic) + k + int(headLen)
	// The games' count follows the identifiers; a game row takes at least
	// 21 bytes.
	games := at + 8
	for i := binary.LittleEndian.Uint64(saved[at:]); i > 0; i-- {
		l, k := binary.Uvarint(saved[games:])
		games += k + int(l)
	}
	for _, tc := range []struct {
		at            int
		count         uint64
		want, notWant string
	}{
		{at, uint64(len(saved)) + 1, "corrupt: a count of", ""},
		{at, uint64(len(saved)), "unreadable", "a count of"},
		{games, uint64(len(saved))/21 + 1, "corrupt: a count of", ""},
	} {
		damaged := bytes.Clone(saved)
		binary.LittleEndian.PutUint64(damaged[tc.at:], tc.count)
		if err := os.WriteFile(index, damaged, 0o644); err != nil {
			t.Fatal(err)
		}
		_, info := openFixtures(t, dir)
		if !strings.Contains(info.Rebuilt, tc.want) || (tc.notWant != "" && strings.Contains(info.Rebuilt, tc.notWant)) {
			t.Errorf("a count of %d in a file of %d bytes: rebuilt %q, want it to say %q (and not %q)", tc.count, len(saved), info.Rebuilt, tc.want, tc.notWant)
		}
	}
}

// TestIndexStringsAreBounded checks a string's length in an index is held
// to the file's size: as long as the file is read (and found cut short),
// longer is refused as corrupt.
func TestIndexStringsAreBounded(t *testing.T) {
	w := genWorld(t)
	dir := writeFixtures(t, w, generators.FormatNDJSON)
	openFixtures(t, dir)
	index := filepath.Join(dir, IndexFile)
	saved, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	headLen, k := binary.Uvarint(saved[len(indexMagic):])
	prefix := saved[:len(indexMagic)+k+int(headLen)+8] // through the identifiers' count
	for _, tc := range []struct {
		extra int // the first identifier's length beyond the file's size
		want  string
	}{{0, "cut short"}, {1, "corrupt: a string of"}} {
		// A file that ends with the first identifier's length, which is
		// the file's size (plus extra).
		var damaged []byte
		for size := len(prefix) + 1; ; size++ {
			damaged = binary.AppendUvarint(bytes.Clone(prefix), uint64(size+tc.extra))
			if len(damaged) == size {
				break
			}
		}
		if err := os.WriteFile(index, damaged, 0o644); err != nil {
			t.Fatal(err)
		}
		_, info := openFixtures(t, dir)
		if !strings.Contains(info.Rebuilt, tc.want) {
			t.Errorf("a string of %d more bytes than the file: rebuilt %q, want it to say %q", tc.extra, info.Rebuilt, tc.want)
		}
	}
}

// TestIndexRowMayEndWithItsFile checks a row that ends exactly at the end
// of its file (its node and the last newline) is inside it.
func TestIndexRowMayEndWithItsFile(t *testing.T) {
	w := genWorld(t)
	dir := writeFixtures(t, w, generators.FormatNDJSON)
	tamperIndex(t, dir, func(b *IndexBuilder) {
		last := 0
		for i, s := range b.snapshots {
			if s.off > b.snapshots[last].off {
				last = i
			}
		}
		b.snapshots[last].n++ // the newline that ends the file
	})
	if _, info := openFixtures(t, dir); info.Rebuilt != "" {
		t.Errorf("a row ending with its file was refused: %s", info.Rebuilt)
	}
}
