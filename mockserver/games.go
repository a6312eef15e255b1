package mockserver

import (
	"math"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/chaindata/harness/generators/records"
	"github.com/chaindata/harness/mockserver/store"
)

// entityScopes maps the EntityScope names to their numbers. Only the names
// are accepted (docs/behaviour.md), not the numbers the gateway also takes.
var entityScopes = map[string]int{
	"ENTITY_SCOPE_UNSPECIFIED": 0,
	"ENTITY_SCOPE_INDIVIDUALS": 1,
	"ENTITY_SCOPE_TEAMS":       2,
}

const (
	scopeUnspecified = 0
	scopeIndividuals = 1
	scopeTeams       = 2
)

// epochWindow resolves the epochs a games request covers, by the four
// defaulting rules of spec section 8 and the cap on its span.
func (s *Server) epochWindow(st store.Reader, q query) (from, to uint64, e *apiError) {
	from, hasFrom, e := q.uint64("epochFrom", "epoch_from")
	if e != nil {
		return 0, 0, e
	}
	to, hasTo, e := q.uint64("epochTo", "epoch_to")
	if e != nil {
		return 0, 0, e
	}
	span := uint64(s.cfg.EpochWindow - 1)
	minus := func(x, y uint64) uint64 {
		if x < y {
			return 0
		}
		return x - y
	}
	firstEpoch, latestEpoch := st.Epochs()
	switch {
	case !hasFrom && !hasTo: // rules 1 and 2
		to = latestEpoch
		from = max(minus(to, span), firstEpoch)
	case !hasFrom: // rule 2
		from = max(minus(to, span), min(firstEpoch, to))
	case !hasTo: // rule 3, saturating: a window near the top of uint64 must not wrap to low epochs
		to = from + min(span, math.MaxUint64-from)
	}
	if from > to {
		if s.cfg.Strict {
			return 0, 0, invalidArgument("invalid epoch range", "epochFrom "+strconv.FormatUint(from, 10)+" is above epochTo "+strconv.FormatUint(to, 10)).as(RefusalEpochRange)
		}
		from = minus(to, span)
	}
	if to-from > span { // rule 4
		from = to - span
	}
	return from, to, nil
}

func (s *Server) listGames(w http.ResponseWriter, r *http.Request) {
	n := noteOf(w)
	s.answer(w, r, true, func(st store.Reader, b []byte) ([]byte, *apiError) { return s.gamesPage(st, r, b, n) })
}

// gamesPage appends the games page a request asks for, and tells n (nil:
// nobody) what it holds.
func (s *Server) gamesPage(st store.Reader, r *http.Request, b []byte, n *pageNote) ([]byte, *apiError) {
	q, p, err := s.pagedQuery(r, n)
	if err != nil {
		return b, err
	}
	from, to, err := s.epochWindow(st, q)
	if err != nil {
		return b, err
	}
	n.epochWindow(from, to)
	scope := scopeUnspecified
	if name, ok := q.Get("entityScope", "entity_scope"); ok {
		n, known := entityScopes[name]
		if !known {
			return b, parseError("entityScope", name, errUnknownEnum)
		}
		scope = n
	}
	keys := st.GameKeys()
	lo := sort.Search(len(keys), func(i int) bool { return keys[i].Epoch >= from })
	hi := sort.Search(len(keys), func(i int) bool { return keys[i].Epoch > to })

	// Start from the narrowest index the filters offer, cut to the epoch
	// window, then check the remaining filters row by row.
	var candidates []int32
	indexed := false
	narrow := func(list []int32) {
		a := sort.Search(len(list), func(i int) bool { return int(list[i]) >= lo })
		b := sort.Search(len(list), func(i int) bool { return int(list[i]) >= hi })
		if !indexed || b-a < len(candidates) {
			candidates = list[a:b]
		}
		indexed = true
	}
	gameID, _ := q.Get("gameId", "game_id")
	teamID, _ := q.Get("teamId", "team_id")
	partyID, _ := q.Get("partyId", "party_id")
	if scope == scopeIndividuals {
		teamID = "" // the team filter applies only to unspecified or team scope
	}
	if gameID != "" {
		narrow(st.GamesWithID(gameID))
	}
	if teamID != "" {
		narrow(st.GamesOfTeam(teamID))
	}
	if partyID != "" {
		narrow(st.GamesOfParty(partyID))
	}
	keep := func(i int) bool {
		switch teams := st.GameIsTeam(i); {
		case scope == scopeIndividuals && teams, scope == scopeTeams && !teams:
			return false
		case gameID != "" && keys[i].ID != gameID:
			return false
		case teamID != "" && !inList(st.GamesOfTeam(teamID), i):
			return false
		case partyID != "" && !inList(st.GamesOfParty(partyID), i):
			return false
		}
		return true
	}
	v := view{lo: lo, hi: hi, desc: p.newestFirst}
	if indexed || scope != scopeUnspecified {
		list := make([]int32, 0, 64)
		if indexed {
			for _, i := range candidates {
				if keep(int(i)) {
					list = append(list, i)
				}
			}
		} else {
			for i := lo; i < hi; i++ {
				if keep(i) {
					list = append(list, int32(i))
				}
			}
		}
		v = listView(list, p.newestFirst)
	}
	start, end, err := s.page(p, v, func(c string) (cmpFunc, error) {
		k, perr := records.ParseGameCursor(c)
		if perr != nil {
			return nil, perr
		}
		return func(i int) int {
			gk := keys[i]
			if d := cmpUint(gk.Epoch, k.Epoch); d != 0 {
				return d
			}
			return strings.Compare(k.ID, gk.ID) // IDs descend in base order
		}, nil
	})
	if err != nil {
		return b, err
	}
	return writePage(b, "games", v, st.Games(), start, end, n), nil
}

// inList reports whether a row is in an index list.
func inList(list []int32, i int) bool {
	k := sort.Search(len(list), func(j int) bool { return int(list[j]) >= i })
	return k < len(list) && int(list[k]) == i
}
