package store

import (
	"bytes"
	"testing"
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
