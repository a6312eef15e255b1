package mockserver

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/chaindata/harness/generators"
)

// The index file, saved beside the fixtures as IndexFile:
//
//	magic "CDQINDEX", then a uvarint length and a JSON header (version,
//	and the size and modification time of each listing's file, so a stale
//	index is noticed), then the identifier table, then each listing's rows
//	in base order and its filters' row lists.
//
// Integers are little-endian and fixed-size; strings are a uvarint length
// and their bytes; an identifier is its number in the table.

// IndexFile is the name of the index saved beside fixture files.
const IndexFile = "harness-index.bin"

const indexVersion = 1

var indexMagic = []byte("CDQINDEX")

// errStaleIndex is returned when the fixture files changed since the index
// was saved.
var errStaleIndex = errors.New("stale")

type indexHeader struct {
	Version int                    `json:"version"`
	Sources map[string]indexSource `json:"sources"`
}

// indexSource identifies the file a listing's rows were indexed from.
type indexSource struct {
	File    string `json:"file"`
	Size    int64  `json:"size"`
	ModTime int64  `json:"modTime"` // Unix nanoseconds
}

type binWriter struct {
	w   *bufio.Writer
	err error
	buf [binary.MaxVarintLen64]byte
}

func (w *binWriter) write(p []byte) {
	if w.err == nil {
		_, w.err = w.w.Write(p)
	}
}
func (w *binWriter) u64(v uint64) { w.write(binary.LittleEndian.AppendUint64(w.buf[:0], v)) }
func (w *binWriter) u32(v uint32) { w.write(binary.LittleEndian.AppendUint32(w.buf[:0], v)) }
func (w *binWriter) u8(v uint8)   { w.write([]byte{v}) }
func (w *binWriter) str(s string) {
	w.write(binary.AppendUvarint(w.buf[:0], uint64(len(s))))
	if w.err == nil {
		_, w.err = w.w.WriteString(s)
	}
}

// writeIndex writes a sorted builder's index.
func writeIndex(out io.Writer, b *IndexBuilder, sources map[string]indexSource) error {
	w := &binWriter{w: bufio.NewWriterSize(out, 1<<20)}
	head, err := json.Marshal(indexHeader{Version: indexVersion, Sources: sources})
	if err != nil {
		return err
	}
	w.write(indexMagic)
	w.str(string(head))
	w.u64(uint64(len(b.nameList)))
	for _, s := range b.nameList {
		w.str(s)
	}
	place := func(p place) { w.u64(uint64(p.off)); w.u32(p.n) }
	postings := func(m map[string][]int32) {
		w.u64(uint64(len(m)))
		for _, id := range slices.Sorted(maps.Keys(m)) {
			w.u32(uint32(b.names[id]))
			w.u64(uint64(len(m[id])))
			for _, r := range m[id] {
				w.u32(uint32(r))
			}
		}
	}

	w.u64(uint64(len(b.games)))
	for _, g := range b.games {
		place(g.place)
		w.u64(g.key.Epoch)
		w.u32(uint32(b.names[g.key.ID]))
		w.u8(boolByte(g.teams))
	}
	postings(b.postings(len(b.games), func(i int) span { return b.games[i].teamIDs }))
	postings(b.postings(len(b.games), func(i int) span { return b.games[i].parties }))

	w.u64(uint64(len(b.snapshots)))
	for _, s := range b.snapshots {
		place(s.place)
		w.u64(s.height)
	}

	w.u64(uint64(len(b.rotations)))
	for _, r := range b.rotations {
		place(r.place)
		w.u64(r.key.BlockHeight)
		w.u32(uint32(b.names[r.key.NodeID]))
	}

	w.u64(uint64(len(b.params)))
	for _, p := range b.params {
		place(p.place)
		w.str(p.key)
	}

	w.u64(uint64(len(b.txs)))
	for _, t := range b.txs {
		w.u64(uint64(t.off))
		w.u32(t.n)
		w.u64(t.block)
		w.u32(t.index)
		w.u32(uint32(t.typ))
	}
	postings(b.postings(len(b.txs), func(i int) span { return span{b.txs[i].lo, b.txs[i].hi} }))
	w.write(indexMagic) // the end: a cut file is noticed
	if w.err != nil {
		return w.err
	}
	return w.w.Flush()
}

func boolByte(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

type binReader struct {
	r    *bufio.Reader
	err  error
	size int64 // bounds every count read, so a corrupt file cannot ask for more memory than it holds
	buf  [8]byte
}

func (r *binReader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

func (r *binReader) read(n int) []byte {
	if r.err != nil {
		return r.buf[:n]
	}
	if _, err := io.ReadFull(r.r, r.buf[:n]); err != nil {
		r.fail(fmt.Errorf("cut short: %w", err))
	}
	return r.buf[:n]
}

func (r *binReader) u64() uint64 { return binary.LittleEndian.Uint64(r.read(8)) }
func (r *binReader) u32() uint32 { return binary.LittleEndian.Uint32(r.read(4)) }
func (r *binReader) u8() uint8   { return r.read(1)[0] }

// count reads a count of items of at least min bytes each.
func (r *binReader) count(min int64) int {
	n := r.u64()
	if r.err == nil && n > uint64(r.size/min) {
		r.fail(fmt.Errorf("corrupt: a count of %d", n))
	}
	if r.err != nil {
		return 0
	}
	return int(n)
}

func (r *binReader) str() string {
	n, err := binary.ReadUvarint(r.r)
	if err != nil {
		r.fail(fmt.Errorf("cut short: %w", err))
		return ""
	}
	if n > uint64(r.size) {
		r.fail(fmt.Errorf("corrupt: a string of %d bytes", n))
		return ""
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r.r, b); err != nil {
		r.fail(fmt.Errorf("cut short: %w", err))
	}
	return string(b)
}

// readIndexHeader reads the magic and the header.
func readIndexHeader(r *binReader) (indexHeader, error) {
	var h indexHeader
	magic := make([]byte, len(indexMagic))
	if _, err := io.ReadFull(r.r, magic); err != nil || !bytes.Equal(magic, indexMagic) {
		return h, errors.New("not an index file")
	}
	head := r.str()
	if r.err != nil {
		return h, r.err
	}
	if err := json.Unmarshal([]byte(head), &h); err != nil {
		return h, fmt.Errorf("header: %w", err)
	}
	if h.Version != indexVersion {
		return h, fmt.Errorf("version %d, want %d", h.Version, indexVersion)
	}
	return h, nil
}

// readIndexRows reads an index's rows into a store whose listings'
// files are mapped (files, by listing); every row must lie inside its file.
func readIndexRows(r *binReader, s *Store, files map[string][]byte) error {
	names := make([]string, r.count(1))
	for i := range names {
		names[i] = r.str()
	}
	name := func() string {
		n := r.u32()
		if int(n) >= len(names) {
			r.fail(fmt.Errorf("corrupt: identifier %d of %d", n, len(names)))
			return ""
		}
		return names[n]
	}
	rows := func(pr *blob, listing string, n int) func() {
		file := files[listing]
		pr.chunks = []chunk{{data: file, used: len(file), mapped: true}}
		pr.loc, pr.n = make([]uint64, 0, n), make([]uint32, 0, n)
		return func() {
			off, l := r.u64(), r.u32()
			if r.err == nil && off+uint64(l) > uint64(len(file)) {
				r.fail(fmt.Errorf("corrupt: a %s row at %d of %d bytes is outside its file of %d", listing, off, l, len(file)))
			}
			pr.loc, pr.n = append(pr.loc, off), append(pr.n, l)
		}
	}
	postings := func(nrows int) map[string][]int32 {
		m := map[string][]int32{}
		for k := r.count(12); k > 0 && r.err == nil; k-- {
			id := name()
			list := make([]int32, r.count(4))
			for i := range list {
				list[i] = int32(r.u32())
				if r.err == nil && (list[i] < 0 || int(list[i]) >= nrows || (i > 0 && list[i] <= list[i-1])) {
					r.fail(fmt.Errorf("corrupt: row list of %s", id))
				}
			}
			m[id] = list
		}
		return m
	}

	n := r.count(21)
	row := rows(&s.games.blob, generators.ListingGames, n)
	s.games.nodes = true
	s.gameKeys, s.gameTeams = make([]generators.GameKey, 0, n), make([]bool, 0, n)
	for i := 0; i < n && r.err == nil; i++ {
		row()
		k := generators.GameKey{Epoch: r.u64(), ID: name()}
		if i > 0 && r.err == nil && !gameLess(s.gameKeys[i-1], k) {
			r.fail(errors.New("corrupt: games out of order"))
		}
		s.gameKeys = append(s.gameKeys, k)
		s.gameTeams = append(s.gameTeams, r.u8() == 1)
		s.gamesByID[k.ID] = append(s.gamesByID[k.ID], int32(i))
	}
	s.gamesByTeam = postings(n)
	s.gamesByParty = postings(n)

	n = r.count(20)
	row = rows(&s.snapshots.blob, generators.ListingSnapshots, n)
	s.snapshots.nodes = true
	s.snapshotKeys = make([]generators.SnapshotKey, 0, n)
	for i := 0; i < n && r.err == nil; i++ {
		row()
		k := generators.SnapshotKey{BlockHeight: r.u64()}
		if i > 0 && r.err == nil && s.snapshotKeys[i-1].BlockHeight >= k.BlockHeight {
			r.fail(errors.New("corrupt: snapshots out of order"))
		}
		s.snapshotKeys = append(s.snapshotKeys, k)
	}

	n = r.count(24)
	row = rows(&s.rotations.blob, generators.ListingKeyRotations, n)
	s.rotations.nodes = true
	s.rotKeys = make([]generators.RotationKey, 0, n)
	for i := 0; i < n && r.err == nil; i++ {
		row()
		k := generators.RotationKey{BlockHeight: r.u64(), NodeID: name()}
		if i > 0 && r.err == nil && !rotationLess(s.rotKeys[i-1], k) {
			r.fail(errors.New("corrupt: key rotations out of order"))
		}
		s.rotKeys = append(s.rotKeys, k)
		s.rotByNode[k.NodeID] = append(s.rotByNode[k.NodeID], int32(i))
	}

	n = r.count(13)
	row = rows(&s.params.blob, generators.ListingNetworkParameters, n)
	s.params.nodes = true
	s.paramKeys = make([]string, 0, n)
	for i := 0; i < n && r.err == nil; i++ {
		row()
		k := r.str()
		if i > 0 && r.err == nil && s.paramKeys[i-1] >= k {
			r.fail(errors.New("corrupt: network parameters out of order"))
		}
		s.paramKeys = append(s.paramKeys, k)
	}

	n = r.count(28)
	row = rows(&s.txs, generators.ListingTransactions, n)
	s.txKeys, s.txTypes = make([]generators.TxKey, 0, n), make([]uint16, 0, n)
	for i := 0; i < n && r.err == nil; i++ {
		row()
		k := generators.TxKey{Block: r.u64(), Index: r.u32()}
		if i > 0 && r.err == nil && !s.txKeys[i-1].Less(k) {
			r.fail(errors.New("corrupt: transactions out of order"))
		}
		typ, err := s.typeNum(name())
		if err != nil {
			r.fail(err)
		}
		s.txKeys = append(s.txKeys, k)
		s.txTypes = append(s.txTypes, typ)
		s.txByType[s.typeNames[typ]] = append(s.txByType[s.typeNames[typ]], int32(i))
		s.latestBlock = max(s.latestBlock, k.Block)
	}
	s.txByParty = postings(n)

	end := make([]byte, len(indexMagic))
	if _, err := io.ReadFull(r.r, end); r.err == nil && (err != nil || !bytes.Equal(end, indexMagic)) {
		r.fail(errors.New("cut short: no end mark"))
	}
	return r.err
}
