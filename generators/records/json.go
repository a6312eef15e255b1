package records

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
)

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

// ErrNoListing is returned for a listing name that is none of Listings.
var ErrNoListing = errors.New("no listing")

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
	return nil, fmt.Errorf("%w %q", ErrNoListing, listing)
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

// hexDigits are the digits of the \u escapes AppendQuoted writes.
const hexDigits = "0123456789abcdef"

// plainByte reports, for each byte, whether it stands for itself inside a
// JSON string as encoding/json writes it: ASCII other than control
// characters, '"', '\\', '<', '>' and '&'.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// AppendQuoted appends s as a JSON string, escaping as encoding/json does
// (including <, > and & as \u escapes, so output matches json.Marshal).
func AppendQuoted(b []byte, s string) []byte {
	b = append(b, '"')
	// Most strings (IDs, digits, enum names) need no escaping: copy them
	// whole.
	i := 0
	for i < len(s) && plainByte[s[i]] {
		i++
	}
	if i == len(s) {
		b = append(b, s...)
		return append(b, '"')
	}
	start := 0
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if plainByte[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
