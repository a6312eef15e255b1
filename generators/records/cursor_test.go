package records

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"
)

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

func TestCursorsRoundTrip(t *testing.T) {
	const id = "0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9"
	g := GameKey{Epoch: 12, ID: id}
	if got, err := ParseGameCursor(g.Cursor()); err != nil || got != g {
		t.Errorf("game: got %+v, %v", got, err)
	}
	s := SnapshotKey{BlockHeight: 18446744073709551615}
	if got, err := ParseSnapshotCursor(s.Cursor()); err != nil || got != s {
		t.Errorf("snapshot: got %+v, %v", got, err)
	}
	r := RotationKey{BlockHeight: 7, NodeID: id}
	if got, err := ParseRotationCursor(r.Cursor()); err != nil || got != r {
		t.Errorf("rotation: got %+v, %v", got, err)
	}
	for _, key := range []string{"spam.pow.difficulty", `odd"key\with<escapes>`, "ünïcode"} {
		p := ParameterKey{Key: key}
		if got, err := ParseParameterCursor(p.Cursor()); err != nil || got != p {
			t.Errorf("parameter %q: got %+v, %v", key, got, err)
		}
	}
	tx := Transaction{Block: 250000, Index: 3}
	if got, err := ParseTxCursor(tx.Cursor()); err != nil || got != tx.Key() {
		t.Errorf("transaction: got %+v, %v", got, err)
	}
}

func TestCursorsRefuseWhatTheListingCouldNotIssue(t *testing.T) {
	const id = "0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9"
	game := GameKey{Epoch: 3, ID: id}.Cursor()
	snap := SnapshotKey{BlockHeight: 9}.Cursor()
	rot := RotationKey{BlockHeight: 9, NodeID: id}.Cursor()
	param := ParameterKey{Key: "a.b"}.Cursor()
	tests := []struct {
		name   string
		parse  func(string) error
		cursor string
	}{
		{"not base64", func(c string) error { _, err := ParseSnapshotCursor(c); return err }, "%%%"},
		{"base64 of text", func(c string) error { _, err := ParseSnapshotCursor(c); return err }, b64("hello")},
		{"empty", func(c string) error { _, err := ParseParameterCursor(c); return err }, ""},
		{"rotation cursor on snapshots", func(c string) error { _, err := ParseSnapshotCursor(c); return err }, rot},
		{"snapshot cursor on rotations", func(c string) error { _, err := ParseRotationCursor(c); return err }, snap},
		{"game cursor on parameters", func(c string) error { _, err := ParseParameterCursor(c); return err }, game},
		{"parameter cursor on games", func(c string) error { _, err := ParseGameCursor(c); return err }, param},
		{"snapshot cursor on games", func(c string) error { _, err := ParseGameCursor(c); return err }, snap},
		{"extra field", func(c string) error { _, err := ParseSnapshotCursor(c); return err }, b64(`{"blockHeight":"9","x":"1"}`)},
		{"fields swapped", func(c string) error { _, err := ParseGameCursor(c); return err }, b64(`{"id":"` + id + `","epoch":"3"}`)},
		{"number not string", func(c string) error { _, err := ParseSnapshotCursor(c); return err }, b64(`{"blockHeight":9}`)},
		{"spaces", func(c string) error { _, err := ParseSnapshotCursor(c); return err }, b64(`{"blockHeight": "9"}`)},
		{"leading zero", func(c string) error { _, err := ParseSnapshotCursor(c); return err }, b64(`{"blockHeight":"09"}`)},
		{"negative height", func(c string) error { _, err := ParseSnapshotCursor(c); return err }, b64(`{"blockHeight":"-9"}`)},
		{"height overflows", func(c string) error { _, err := ParseSnapshotCursor(c); return err }, b64(`{"blockHeight":"18446744073709551616"}`)},
		{"game id not hex", func(c string) error { _, err := ParseGameCursor(c); return err }, b64(`{"epoch":"3","id":"zz"}`)},
		{"node id upper case", func(c string) error { _, err := ParseRotationCursor(c); return err }, b64(`{"blockHeight":"9","nodeId":"0A1B2C3D4E5F60718293A4B5C6D7E8F90A1B2C3D4E5F60718293A4B5C6D7E8F9"}`)},
		{"empty key", func(c string) error { _, err := ParseParameterCursor(c); return err }, b64(`{"key":""}`)},
		{"trailing data", func(c string) error { _, err := ParseParameterCursor(c); return err }, b64(`{"key":"a"}x`)},
		{"tx no dot", func(c string) error { _, err := ParseTxCursor(c); return err }, "250000"},
		{"tx empty index", func(c string) error { _, err := ParseTxCursor(c); return err }, "250000."},
		{"tx empty block", func(c string) error { _, err := ParseTxCursor(c); return err }, ".3"},
		{"tx letters", func(c string) error { _, err := ParseTxCursor(c); return err }, "a.b"},
		{"tx three parts", func(c string) error { _, err := ParseTxCursor(c); return err }, "1.2.3"},
		{"tx negative", func(c string) error { _, err := ParseTxCursor(c); return err }, "-1.2"},
		{"tx index overflows uint32", func(c string) error { _, err := ParseTxCursor(c); return err }, "1.4294967296"},
		{"tx paged cursor", func(c string) error { _, err := ParseTxCursor(c); return err }, snap},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.parse(tc.cursor)
			if !errors.Is(err, ErrBadCursor) {
				t.Fatalf("cursor %q: got %v, want ErrBadCursor", tc.cursor, err)
			}
		})
	}
}

func TestTxKeyOrder(t *testing.T) {
	tests := []struct {
		a, b TxKey
		less bool
	}{
		{TxKey{1, 0}, TxKey{1, 1}, true},
		{TxKey{1, 9}, TxKey{2, 0}, true},
		{TxKey{2, 0}, TxKey{1, 9}, false},
		{TxKey{3, 3}, TxKey{3, 3}, false},
	}
	for _, tc := range tests {
		if got := tc.a.Less(tc.b); got != tc.less {
			t.Errorf("%v < %v: got %v, want %v", tc.a, tc.b, got, tc.less)
		}
	}
}

// TestAppendCursorIsCursor checks the cursors a page of nodes is given are
// the Cursor methods' own, for ordinary and extreme keys.
func TestAppendCursorIsCursor(t *testing.T) {
	ids := []string{"", "a", strings.Repeat("f", 64), strings.Repeat("x", 200), `q"uote`, "ünï"}
	for _, n := range []uint64{0, 1, 99, 1 << 40, 1<<64 - 1} {
		for _, id := range ids {
			gk := GameKey{Epoch: n, ID: id}
			if got := string(gk.AppendCursor([]byte("x"))); got != "x"+gk.Cursor() {
				t.Errorf("game %v: %q, want %q", gk, got, "x"+gk.Cursor())
			}
			rk := RotationKey{BlockHeight: n, NodeID: id}
			if got := string(rk.AppendCursor(nil)); got != rk.Cursor() {
				t.Errorf("rotation %v: %q, want %q", rk, got, rk.Cursor())
			}
		}
		sk := SnapshotKey{BlockHeight: n}
		for _, key := range append(ids, "network.markPriceUpdateMaximumFrequency", "a<b>&c", "tab\tnew\nline", "back\\slash", "del\x7f", "\xff", "\u2028") {
			pk := ParameterKey{Key: key}
			if got := string(pk.AppendCursor([]byte("x"))); got != "x"+pk.Cursor() {
				t.Errorf("parameter %q: %q, want %q", key, got, "x"+pk.Cursor())
			}
		}
		if got := string(sk.AppendCursor(nil)); got != sk.Cursor() {
			t.Errorf("snapshot %v: %q, want %q", sk, got, sk.Cursor())
		}
	}
}
