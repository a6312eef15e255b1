package mockserver

import (
	"net/http"
	"strings"

	"github.com/chaindata/harness/generators/records"
	"github.com/chaindata/harness/mockserver/store"
)

func (s *Server) listSnapshots(w http.ResponseWriter, r *http.Request) {
	n := noteOf(w)
	s.answer(w, r, true, func(st store.Reader, b []byte) ([]byte, *apiError) {
		_, p, err := s.pagedQuery(r, n)
		if err != nil {
			return b, err
		}
		keys := st.SnapshotKeys()
		v := rangeView(len(keys), p.newestFirst)
		start, end, err := s.page(p, v, func(c string) (cmpFunc, error) {
			k, perr := records.ParseSnapshotCursor(c)
			if perr != nil {
				return nil, perr
			}
			return func(i int) int { return cmpUint(keys[i].BlockHeight, k.BlockHeight) }, nil
		})
		if err != nil {
			return b, err
		}
		return writePage(b, "coreSnapshots", v, st.Snapshots(), start, end, n), nil
	})
}

func (s *Server) listKeyRotations(w http.ResponseWriter, r *http.Request) {
	n := noteOf(w)
	s.answer(w, r, true, func(st store.Reader, b []byte) ([]byte, *apiError) {
		q, p, err := s.pagedQuery(r, n)
		if err != nil {
			return b, err
		}
		keys := st.RotationKeys()
		v := rangeView(len(keys), p.newestFirst)
		if node, ok := q.Get("nodeId", "node_id"); ok && node != "" {
			v = listView(st.RotationsOfNode(node), p.newestFirst)
			if v.list == nil {
				v.list = []int32{}
			}
		}
		start, end, err := s.page(p, v, func(c string) (cmpFunc, error) {
			k, perr := records.ParseRotationCursor(c)
			if perr != nil {
				return nil, perr
			}
			return func(i int) int {
				rk := keys[i]
				if d := cmpUint(rk.BlockHeight, k.BlockHeight); d != 0 {
					return d
				}
				return strings.Compare(k.NodeID, rk.NodeID) // node IDs descend in base order
			}, nil
		})
		if err != nil {
			return b, err
		}
		return writePage(b, "keyRotations", v, st.Rotations(), start, end, n), nil
	})
}

func (s *Server) listNetworkParameters(w http.ResponseWriter, r *http.Request) {
	n := noteOf(w)
	s.answer(w, r, true, func(st store.Reader, b []byte) ([]byte, *apiError) {
		_, p, err := s.pagedQuery(r, n)
		if err != nil {
			return b, err
		}
		// Parameters have no age: always in key order, newestFirst ignored.
		keys := st.ParameterKeys()
		v := rangeView(len(keys), false)
		start, end, err := s.page(p, v, func(c string) (cmpFunc, error) {
			k, perr := records.ParseParameterCursor(c)
			if perr != nil {
				return nil, perr
			}
			return func(i int) int { return strings.Compare(keys[i], k.Key) }, nil
		})
		if err != nil {
			return b, err
		}
		return writePage(b, "networkParameters", v, st.Parameters(), start, end, n), nil
	})
}

func cmpUint(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
