package mockserver

import (
	"net/http"
	"strings"

	"github.com/chaindata/harness/generators"
)

func (s *Server) listSnapshots(w http.ResponseWriter, r *http.Request) {
	s.answer(w, true, func(st *Store, b []byte) ([]byte, *apiError) {
		_, p, err := s.pagedQuery(r)
		if err != nil {
			return b, err
		}
		v := rangeView(st.snapshots.len(), p.newestFirst)
		start, end, err := s.page(p, v, func(c string) (cmpFunc, error) {
			k, perr := generators.ParseSnapshotCursor(c)
			if perr != nil {
				return nil, perr
			}
			return func(i int) int { return cmpUint(st.snapshotKeys[i].BlockHeight, k.BlockHeight) }, nil
		})
		if err != nil {
			return b, err
		}
		return writePage(b, "coreSnapshots", v, &st.snapshots, func(b []byte, i int) []byte { return appendSnapshotCursor(b, st.snapshotKeys[i]) }, start, end, noteOf(r)), nil
	})
}

func (s *Server) listKeyRotations(w http.ResponseWriter, r *http.Request) {
	s.answer(w, true, func(st *Store, b []byte) ([]byte, *apiError) {
		q, p, err := s.pagedQuery(r)
		if err != nil {
			return b, err
		}
		v := rangeView(st.rotations.len(), p.newestFirst)
		if node, ok := q.get("nodeId", "node_id"); ok && node != "" {
			v = listView(st.rotByNode[node], p.newestFirst)
			if v.list == nil {
				v.list = []int32{}
			}
		}
		start, end, err := s.page(p, v, func(c string) (cmpFunc, error) {
			k, perr := generators.ParseRotationCursor(c)
			if perr != nil {
				return nil, perr
			}
			return func(i int) int {
				rk := st.rotKeys[i]
				if d := cmpUint(rk.BlockHeight, k.BlockHeight); d != 0 {
					return d
				}
				return strings.Compare(k.NodeID, rk.NodeID) // node IDs descend in base order
			}, nil
		})
		if err != nil {
			return b, err
		}
		return writePage(b, "keyRotations", v, &st.rotations, func(b []byte, i int) []byte { return appendRotationCursor(b, st.rotKeys[i]) }, start, end, noteOf(r)), nil
	})
}

func (s *Server) listNetworkParameters(w http.ResponseWriter, r *http.Request) {
	s.answer(w, true, func(st *Store, b []byte) ([]byte, *apiError) {
		_, p, err := s.pagedQuery(r)
		if err != nil {
			return b, err
		}
		// Parameters have no age: always in key order, newestFirst ignored.
		v := rangeView(st.params.len(), false)
		start, end, err := s.page(p, v, func(c string) (cmpFunc, error) {
			k, perr := generators.ParseParameterCursor(c)
			if perr != nil {
				return nil, perr
			}
			return func(i int) int { return strings.Compare(st.paramKeys[i], k.Key) }, nil
		})
		if err != nil {
			return b, err
		}
		return writePage(b, "networkParameters", v, &st.params, func(b []byte, i int) []byte {
			return appendParamCursor(b, generators.ParameterKey{Key: st.paramKeys[i]})
		}, start, end, noteOf(r)), nil
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
