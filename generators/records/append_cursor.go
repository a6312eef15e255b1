package records

import (
	"encoding/base64"
	"strconv"
)

// The AppendCursor methods append the bytes Cursor returns without
// allocating: the mock makes a row's cursor as a page is written, for rows
// served from fixture files (which hold nodes, not edges).

// AppendCursor appends the key's cursor to b.
func (k GameKey) AppendCursor(b []byte) []byte {
	var buf [160]byte
	j := append(buf[:0], `{"epoch":"`...)
	j = strconv.AppendUint(j, k.Epoch, 10)
	j = append(j, `","id":"`...)
	j = append(j, k.ID...)
	j = append(j, `"}`...)
	return base64.StdEncoding.AppendEncode(b, j)
}

// AppendCursor appends the key's cursor to b.
func (k SnapshotKey) AppendCursor(b []byte) []byte {
	var buf [64]byte
	j := append(buf[:0], `{"blockHeight":"`...)
	j = strconv.AppendUint(j, k.BlockHeight, 10)
	j = append(j, `"}`...)
	return base64.StdEncoding.AppendEncode(b, j)
}

// AppendCursor appends the key's cursor to b.
func (k RotationKey) AppendCursor(b []byte) []byte {
	var buf [160]byte
	j := append(buf[:0], `{"blockHeight":"`...)
	j = strconv.AppendUint(j, k.BlockHeight, 10)
	j = append(j, `","nodeId":"`...)
	j = append(j, k.NodeID...)
	j = append(j, `"}`...)
	return base64.StdEncoding.AppendEncode(b, j)
}

// AppendCursor appends the key's cursor to b.
func (k ParameterKey) AppendCursor(b []byte) []byte {
	if !plainJSON(k.Key) {
		return append(b, k.Cursor()...) // encoding/json escapes it
	}
	var buf [160]byte
	j := append(buf[:0], `{"key":"`...)
	j = append(j, k.Key...)
	j = append(j, `"}`...)
	return base64.StdEncoding.AppendEncode(b, j)
}

// plainJSON reports whether encoding/json writes s as it is between its
// quotes: printable ASCII without a quote, a backslash or the characters
// it escapes for HTML.
func plainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}
