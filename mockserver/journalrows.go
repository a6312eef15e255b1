package mockserver

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"github.com/chaindata/harness/generators/records"
	"github.com/chaindata/harness/mockserver/journal"
	"github.com/chaindata/harness/mockserver/store"
)

// What the journal's walks (package journal) read of the store: the row a
// cursor names, and the rows a walk should have seen.

// rowSource is the journal's journal.Source: the server's store, read for
// the walks.
type rowSource struct{ s *Server }

// CursorRow is cursorRow.
func (r rowSource) CursorRow(listing, c string) (int, bool) { return r.s.cursorRow(listing, c) }

// ExpectedRows is expectedRows.
func (r rowSource) ExpectedRows(listing string, q url.Values, first *journal.Page) ([]int32, error) {
	return r.s.expectedRows(listing, q, first)
}

// expectedRows returns the store indexes of the rows of listing that match
// the filters of q and that the listing held when page, a walk's first
// page, was made, ascending.
func (s *Server) expectedRows(listing string, q url.Values, page *journal.Page) ([]int32, error) {
	count := page.Total
	var rows []int32
	var found bool
	switch listing {
	case records.ListingTransactions:
		req := txRequest{
			cmdTypes:     records.Query(q).All("cmdTypes", "cmd_types"),
			excludeTypes: records.Query(q).All("excludeCmdTypes", "exclude_cmd_types"),
			parties:      records.Query(q).All("parties"),
		}
		s.store.Read(func(st store.Reader) {
			count := min(count, len(st.TxKeys()))
			rows, found = toInt32(s.txSource(st, req).ascend(nil, 0, count, count)), true
		})
	case records.ListingKeyRotations:
		if node, ok := records.Query(q).Get("nodeId", "node_id"); ok && node != "" {
			s.store.Read(func(st store.Reader) {
				list := st.RotationsOfNode(node)
				end, _ := slices.BinarySearch(list, int32(count))
				rows, found = slices.Clone(list[:end]), true
			})
		}
	case records.ListingGames:
		return s.gameRows(q, page)
	}
	if found {
		return rows, nil
	}
	out := make([]int32, count)
	for i := range out {
		out[i] = int32(i)
	}
	return out, nil
}

// gameRows reads the games a walk of the filters of q could see back from
// the store: the epochs first.EpochFrom to first.EpochTo (its window, or
// the span of its windows), window by window, every page, forwards.
func (s *Server) gameRows(q url.Values, first *journal.Page) ([]int32, error) {
	var out []int32
	span := uint64(s.cfg.EpochWindow - 1)
	for from := first.EpochFrom; from <= first.EpochTo; from += span + 1 {
		to := first.EpochTo
		if to-from > span {
			to = from + span
		}
		rows, err := s.windowRows(q, from, to, first.Total)
		if err != nil {
			return nil, err
		}
		out = append(out, rows...)
		if to == first.EpochTo {
			break
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// windowRows reads back the games of the filters of q in the epochs from
// to to, among the first total rows of the store.
func (s *Server) windowRows(q url.Values, from, to uint64, total int) ([]int32, error) {
	rq := url.Values{}
	for k, v := range q {
		if !journal.PagingParam(records.ListingGames, k) {
			rq[k] = v
		}
	}
	for _, k := range []string{"epochFrom", "epoch_from", "epochTo", "epoch_to"} {
		delete(rq, k)
	}
	rq.Set("epochFrom", strconv.FormatUint(from, 10))
	rq.Set("epochTo", strconv.FormatUint(to, 10))
	rq.Set("pagination.newestFirst", "false")
	rq.Set("pagination.first", strconv.Itoa(s.cfg.MaxPageSize))
	var out []int32
	var buf []byte
	for {
		n := &pageNote{}
		r := httpRequest("/api/v2/games", rq.Encode())
		var b []byte
		var err *apiError
		s.store.Read(func(st store.Reader) { b, err = s.gamesPage(st, r, buf[:0], n) })
		if err != nil {
			return nil, err
		}
		buf = b
		for _, run := range n.Runs {
			for i := run.First; i < run.First+run.N; i++ {
				if int(i) < total {
					out = append(out, i)
				}
			}
		}
		if !n.HasNext || n.end == "" {
			break
		}
		rq.Set("pagination.after", n.end)
	}
	return out, nil
}

func toInt32(x []int) []int32 {
	out := make([]int32, len(x))
	for i, v := range x {
		out[i] = int32(v)
	}
	return out
}

// cursorRow returns the store index of the row a cursor of listing names,
// when a row has that key.
func (s *Server) cursorRow(listing, c string) (row int, found bool) {
	s.store.Read(func(st store.Reader) { row, found = cursorRowIn(st, listing, c) })
	return row, found
}

// cursorRowIn is cursorRow within a read of the store.
func cursorRowIn(st store.Reader, listing, c string) (int, bool) {
	switch listing {
	case records.ListingGames:
		k, err := records.ParseGameCursor(c)
		if err != nil {
			return 0, false
		}
		return slices.BinarySearchFunc(st.GameKeys(), k, records.GameKey.Compare)
	case records.ListingSnapshots:
		k, err := records.ParseSnapshotCursor(c)
		if err != nil {
			return 0, false
		}
		return slices.BinarySearchFunc(st.SnapshotKeys(), k, func(a, b records.SnapshotKey) int { return cmpUint(a.BlockHeight, b.BlockHeight) })
	case records.ListingKeyRotations:
		k, err := records.ParseRotationCursor(c)
		if err != nil {
			return 0, false
		}
		return slices.BinarySearchFunc(st.RotationKeys(), k, records.RotationKey.Compare)
	case records.ListingNetworkParameters:
		k, err := records.ParseParameterCursor(c)
		if err != nil {
			return 0, false
		}
		return slices.BinarySearch(st.ParameterKeys(), k.Key)
	case records.ListingTransactions:
		k, err := records.ParseTxCursor(c)
		if err != nil {
			return 0, false
		}
		return slices.BinarySearchFunc(st.TxKeys(), k, func(a, b records.TxKey) int {
			switch {
			case a.Less(b):
				return -1
			case b.Less(a):
				return 1
			}
			return 0
		})
	}
	return 0, false
}

// httpRequest makes a GET of path and query for a handler called within
// the mock.
func httpRequest(p, rawQuery string) *http.Request {
	return &http.Request{Method: http.MethodGet, URL: &url.URL{Path: p, RawQuery: rawQuery}, Header: http.Header{}}
}
