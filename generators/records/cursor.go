package records

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Cursors of the four paged listings are base64 of a small JSON object with
// the row's sort key, as docs/behaviour.md describes. A row's cursor never
// changes, so any server holding the same data answers any page.

// GameKey is the sort key of a game row.
type GameKey struct {
	Epoch uint64
	ID    string
}

// SnapshotKey is the sort key of a core snapshot row.
type SnapshotKey struct {
	BlockHeight uint64
}

// RotationKey is the sort key of an Ethereum key rotation row.
type RotationKey struct {
	BlockHeight uint64
	NodeID      string
}

// ParameterKey is the sort key of a network parameter row.
type ParameterKey struct {
	Key string
}

// Cursor returns the game's cursor.
func (g *Game) Cursor() string { return GameKey{g.Epoch, g.ID}.Cursor() }

// Cursor returns the snapshot's cursor.
func (s *CoreSnapshot) Cursor() string { return SnapshotKey{s.BlockHeight}.Cursor() }

// Cursor returns the rotation's cursor.
func (r *EthereumKeyRotation) Cursor() string { return RotationKey{r.BlockHeight, r.NodeID}.Cursor() }

// Cursor returns the parameter's cursor.
func (p *NetworkParameter) Cursor() string { return ParameterKey{p.Key}.Cursor() }

// Cursor returns the transaction's cursor: "<block>.<index>".
func (t *Transaction) Cursor() string {
	return strconv.FormatUint(t.Block, 10) + "." + strconv.FormatUint(uint64(t.Index), 10)
}

// Cursor encodes the key.
func (k GameKey) Cursor() string {
	return encodeCursor(`{"epoch":"` + strconv.FormatUint(k.Epoch, 10) + `","id":"` + k.ID + `"}`)
}

// Cursor encodes the key.
func (k SnapshotKey) Cursor() string {
	return encodeCursor(`{"blockHeight":"` + strconv.FormatUint(k.BlockHeight, 10) + `"}`)
}

// Cursor encodes the key.
func (k RotationKey) Cursor() string {
	return encodeCursor(`{"blockHeight":"` + strconv.FormatUint(k.BlockHeight, 10) + `","nodeId":"` + k.NodeID + `"}`)
}

// Cursor encodes the key.
func (k ParameterKey) Cursor() string {
	b, _ := json.Marshal(struct {
		Key string `json:"key"`
	}{k.Key})
	return encodeCursor(string(b))
}

func encodeCursor(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// ErrBadCursor is returned for a cursor the listing could not have issued.
var ErrBadCursor = errors.New("invalid cursor")

var (
	uint64Text = regexp.MustCompile(`^(0|[1-9][0-9]{0,19})$`)
	hex64Text  = regexp.MustCompile(`^[0-9a-f]{64}$`)
)

// decodeCursor decodes a cursor into the fields of its JSON object. Only
// the exact encoding this package writes is accepted: a cursor of another
// listing, with other or extra fields, or re-encoded differently is refused.
func decodeCursor(cursor string, want ...string) (map[string]string, error) {
	raw, err := base64.StdEncoding.DecodeString(cursor)
	if err != nil {
		return nil, fmt.Errorf("%w: not base64", ErrBadCursor)
	}
	fields := make(map[string]string, len(want))
	rest := raw
	for i, name := range want {
		sep := `,"`
		if i == 0 {
			sep = `{"`
		}
		prefix := sep + name + `":`
		if !bytes.HasPrefix(rest, []byte(prefix)) {
			return nil, fmt.Errorf("%w: not a cursor of this listing", ErrBadCursor)
		}
		rest = rest[len(prefix):]
		end := closingQuote(rest)
		if end < 0 {
			return nil, fmt.Errorf("%w: not a cursor of this listing", ErrBadCursor)
		}
		var v string
		if err := json.Unmarshal(rest[:end+1], &v); err != nil {
			return nil, fmt.Errorf("%w: not a cursor of this listing", ErrBadCursor)
		}
		fields[name] = v
		rest = rest[end+1:]
	}
	if string(rest) != "}" {
		return nil, fmt.Errorf("%w: not a cursor of this listing", ErrBadCursor)
	}
	return fields, nil
}

// closingQuote returns the index of the quote that ends the JSON string at
// the start of b, or -1.
func closingQuote(b []byte) int {
	if len(b) == 0 || b[0] != '"' {
		return -1
	}
	for i := 1; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

func parseUint(field, s string) (uint64, error) {
	if !uint64Text.MatchString(s) {
		return 0, fmt.Errorf("%w: %s is not an unsigned integer", ErrBadCursor, field)
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%w: %s is out of range", ErrBadCursor, field)
	}
	return n, nil
}

// ParseGameCursor decodes a games cursor.
func ParseGameCursor(c string) (GameKey, error) {
	f, err := decodeCursor(c, "epoch", "id")
	if err != nil {
		return GameKey{}, err
	}
	e, err := parseUint("epoch", f["epoch"])
	if err != nil {
		return GameKey{}, err
	}
	if !hex64Text.MatchString(f["id"]) {
		return GameKey{}, fmt.Errorf("%w: id is not a game ID", ErrBadCursor)
	}
	return GameKey{Epoch: e, ID: f["id"]}, nil
}

// ParseSnapshotCursor decodes a core snapshots cursor.
func ParseSnapshotCursor(c string) (SnapshotKey, error) {
	f, err := decodeCursor(c, "blockHeight")
	if err != nil {
		return SnapshotKey{}, err
	}
	h, err := parseUint("blockHeight", f["blockHeight"])
	return SnapshotKey{BlockHeight: h}, err
}

// ParseRotationCursor decodes a key rotations cursor.
func ParseRotationCursor(c string) (RotationKey, error) {
	f, err := decodeCursor(c, "blockHeight", "nodeId")
	if err != nil {
		return RotationKey{}, err
	}
	h, err := parseUint("blockHeight", f["blockHeight"])
	if err != nil {
		return RotationKey{}, err
	}
	if !hex64Text.MatchString(f["nodeId"]) {
		return RotationKey{}, fmt.Errorf("%w: nodeId is not a node ID", ErrBadCursor)
	}
	return RotationKey{BlockHeight: h, NodeID: f["nodeId"]}, nil
}

// ParseParameterCursor decodes a network parameters cursor.
func ParseParameterCursor(c string) (ParameterKey, error) {
	f, err := decodeCursor(c, "key")
	if err != nil {
		return ParameterKey{}, err
	}
	if f["key"] == "" {
		return ParameterKey{}, fmt.Errorf("%w: empty key", ErrBadCursor)
	}
	return ParameterKey{Key: f["key"]}, nil
}

// TxKey is the position of a transaction: its block and index in the block.
type TxKey struct {
	Block uint64
	Index uint32
}

// ParseTxCursor decodes a transaction cursor "<block>.<index>".
func ParseTxCursor(c string) (TxKey, error) {
	b, i, ok := strings.Cut(c, ".")
	if !ok || !uint64Text.MatchString(b) || !uint64Text.MatchString(i) {
		return TxKey{}, fmt.Errorf("%w: want <block>.<index>", ErrBadCursor)
	}
	block, err1 := strconv.ParseUint(b, 10, 64)
	index, err2 := strconv.ParseUint(i, 10, 32)
	if err1 != nil || err2 != nil {
		return TxKey{}, fmt.Errorf("%w: block or index out of range", ErrBadCursor)
	}
	return TxKey{Block: block, Index: uint32(index)}, nil
}

// Key returns the transaction's position.
func (t *Transaction) Key() TxKey { return TxKey{t.Block, t.Index} }

// Less orders positions oldest first.
func (k TxKey) Less(o TxKey) bool {
	if k.Block != o.Block {
		return k.Block < o.Block
	}
	return k.Index < o.Index
}

// Base order: the order a listing's rows are kept in, oldest first, so
// that its default order (newest first) is the reverse. Ties between rows
// of one epoch or height are broken by ID descending, so that the newest
// first listing has them ascending, as the real data node lists them.

// Compare compares two games in base order: epoch ascending, then ID
// descending. It returns -1, 0 or +1.
func (k GameKey) Compare(o GameKey) int {
	if c := cmp.Compare(k.Epoch, o.Epoch); c != 0 {
		return c
	}
	return cmp.Compare(o.ID, k.ID)
}

// Compare compares two key rotations in base order: height ascending, then
// node ID descending. It returns -1, 0 or +1.
func (k RotationKey) Compare(o RotationKey) int {
	if c := cmp.Compare(k.BlockHeight, o.BlockHeight); c != 0 {
		return c
	}
	return cmp.Compare(o.NodeID, k.NodeID)
}

// Compare compares two positions, oldest first. It returns -1, 0 or +1.
func (k TxKey) Compare(o TxKey) int {
	if c := cmp.Compare(k.Block, o.Block); c != 0 {
		return c
	}
	return cmp.Compare(k.Index, o.Index)
}
