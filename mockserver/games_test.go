package mockserver

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"testing"

	"github.com/chaindata/harness/generators/records"
	"github.com/chaindata/harness/generators/world"
)

// gamesEdgeWorld holds the exact cases of the games filters: games of both
// scopes in one epoch, one game ID over several epochs, a party playing as
// an individual and in two teams' games, two teams in one game.
func gamesEdgeWorld() *world.World {
	w := emptyWorld()
	P, Q, R, S := hexID("P"), hexID("Q"), hexID("R"), hexID("S")
	T1, T2 := hexID("T1"), hexID("T2")
	A, B, C, D := hexID("A"), hexID("B"), hexID("C"), hexID("D")
	w.Games = []records.Game{
		individualGame(5, A, P, Q),
		teamGame(5, B, teamPlay{T1, []string{P, R}}, teamPlay{T2, []string{S}}),
		teamGame(6, C, teamPlay{T2, []string{P}}),
		individualGame(6, D, Q),
		teamGame(6, B, teamPlay{T1, []string{R}}),
		individualGame(7, A, Q),
	}
	w.FirstEpoch, w.LatestEpoch = 5, 7
	return w
}

// TestGamesFilters checks each games filter, alone and combined, against
// the model, on hand-made edge cases and on generated data.
func TestGamesFilters(t *testing.T) {
	t.Parallel()
	P, Q, R := hexID("P"), hexID("Q"), hexID("R")
	T1, T2 := hexID("T1"), hexID("T2")
	A, B := hexID("A"), hexID("B")
	const ind, teams = "ENTITY_SCOPE_INDIVIDUALS", "ENTITY_SCOPE_TEAMS"

	edge := gamesEdgeWorld()
	gen := copyWorld(genWorld(t))
	// Keep the last ten epochs of games: enough variety, quick to validate.
	gen.Games = slices.DeleteFunc(gen.Games, func(g records.Game) bool { return g.Epoch+10 <= gen.LatestEpoch })
	team, member, soloist, teamGameID, soloGameID := pickGameSubjects(t, gen)

	tests := []struct {
		name  string
		world *world.World
		query string
		f     gameFilter
		want  int // number of rows expected, as a check on the model; -1: not checked
	}{
		{"edge/no filter", edge, "", gameFilter{}, 6},
		{"edge/party in an individual game and two teams' games", edge, "partyId=" + P, gameFilter{partyID: P}, 3},
		{"edge/party under teams scope matches team members", edge, "partyId=" + P + "&entityScope=" + teams, gameFilter{partyID: P, scope: teams}, 2},
		{"edge/party under individuals scope", edge, "partyId=" + P + "&entityScope=" + ind, gameFilter{partyID: P, scope: ind}, 1},
		{"edge/party only in individual games", edge, "partyId=" + Q, gameFilter{partyID: Q}, 3},
		{"edge/party only in individual games, teams scope", edge, "partyId=" + Q + "&entityScope=" + teams, gameFilter{partyID: Q, scope: teams}, 0},
		{"edge/team", edge, "teamId=" + T1, gameFilter{teamID: T1}, 2},
		{"edge/team, teams scope", edge, "teamId=" + T2 + "&entityScope=" + teams, gameFilter{teamID: T2, scope: teams}, 2},
		{"edge/team ignored under individuals scope", edge, "teamId=" + T1 + "&entityScope=" + ind, gameFilter{teamID: T1, scope: ind}, 3},
		{"edge/unknown team ignored under individuals scope", edge, "teamId=" + hexID("nobody") + "&entityScope=" + ind, gameFilter{teamID: hexID("nobody"), scope: ind}, 3},
		{"edge/unknown team", edge, "teamId=" + hexID("nobody"), gameFilter{teamID: hexID("nobody")}, 0},
		{"edge/team and party", edge, "teamId=" + T1 + "&partyId=" + P, gameFilter{teamID: T1, partyID: P}, 1},
		{"edge/whole records: a party of one team, a filter on the other", edge, "teamId=" + T2 + "&partyId=" + R, gameFilter{teamID: T2, partyID: R}, 1},
		{"edge/game ID over several epochs", edge, "gameId=" + B, gameFilter{gameID: B}, 2},
		{"edge/game ID and scope that excludes it", edge, "gameId=" + B + "&entityScope=" + ind, gameFilter{gameID: B, scope: ind}, 0},
		{"edge/game ID and party", edge, "gameId=" + A + "&partyId=" + P, gameFilter{gameID: A, partyID: P}, 1},
		{"edge/unknown game ID", edge, "gameId=" + hexID("none"), gameFilter{gameID: hexID("none")}, 0},
		{"edge/individuals scope", edge, "entityScope=" + ind, gameFilter{scope: ind}, 3},
		{"edge/teams scope", edge, "entityScope=" + teams, gameFilter{scope: teams}, 3},
		{"edge/unspecified scope", edge, "entityScope=ENTITY_SCOPE_UNSPECIFIED", gameFilter{}, 6},
		{"edge/empty filters are no filters", edge, "gameId=&teamId=&partyId=", gameFilter{}, 6},
		{"edge/first value of a repeated filter", edge, "gameId=" + B + "&gameId=" + A, gameFilter{gameID: B}, 2},
		{"edge/unknown parameters are ignored", edge, "gameID=" + B + "&party=" + P + "&foo=bar", gameFilter{}, 6},
		{"edge/snake_case names", edge, "game_id=" + B + "&team_id=" + T1 + "&party_id=" + R + "&entity_scope=" + teams, gameFilter{gameID: B, teamID: T1, partyID: R, scope: teams}, 2},

		{"generated/no filter", gen, "", gameFilter{}, -1},
		{"generated/team", gen, "teamId=" + team, gameFilter{teamID: team}, -1},
		{"generated/team, teams scope", gen, "teamId=" + team + "&entityScope=" + teams, gameFilter{teamID: team, scope: teams}, -1},
		{"generated/team ignored under individuals scope", gen, "teamId=" + team + "&entityScope=" + ind, gameFilter{teamID: team, scope: ind}, -1},
		{"generated/team member", gen, "partyId=" + member, gameFilter{partyID: member}, -1},
		{"generated/team member, teams scope", gen, "partyId=" + member + "&entityScope=" + teams, gameFilter{partyID: member, scope: teams}, -1},
		{"generated/team member, individuals scope", gen, "partyId=" + member + "&entityScope=" + ind, gameFilter{partyID: member, scope: ind}, -1},
		{"generated/individual player", gen, "partyId=" + soloist, gameFilter{partyID: soloist}, -1},
		{"generated/team game ID", gen, "gameId=" + teamGameID, gameFilter{gameID: teamGameID}, -1},
		{"generated/individual game ID and its player", gen, "gameId=" + soloGameID + "&partyId=" + soloist, gameFilter{gameID: soloGameID, partyID: soloist}, -1},
		{"generated/team and member", gen, "teamId=" + team + "&partyId=" + member, gameFilter{teamID: team, partyID: member}, -1},
		{"generated/teams scope", gen, "entityScope=" + teams, gameFilter{scope: teams}, -1},
		{"generated/individuals scope in an epoch window", gen, "entityScope=" + ind + "&epochFrom=33&epochTo=35", gameFilter{scope: ind, window: &[2]uint64{33, 35}}, -1},
	}
	servers := map[*world.World]*testServer{edge: serve(t, Config{}, edge), gen: serve(t, Config{}, gen)}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want := expectGames(tc.world, tc.f)
			if tc.want >= 0 && len(want) != tc.want {
				t.Fatalf("model selects %d games, the case expects %d", len(want), tc.want)
			}
			if tc.want < 0 && tc.f != (gameFilter{}) && len(want) == 0 {
				t.Fatalf("the filter selects nothing in the generated world; the case tests nothing")
			}
			s := servers[tc.world]
			checkPage(t, s.get(t, gamesListing.path, tc.query), gamesListing, want, 0, len(want))
			// The filtered listing pages like any other.
			for _, nf := range []bool{true, false} {
				rows := gamesListing.inOrder(want, nf)
				if len(rows) < 3 {
					continue
				}
				p := pageReq{first: 2, after: &rows[0].key, newestFirst: ptr(nf)}
				start, end := modelPage(rows, gamesListing.cmpIn(nf), p, 1000)
				q := tc.query + "&" + p.query(gamesListing).Encode()
				checkPage(t, s.get(t, gamesListing.path, q), gamesListing, rows, start, end)
				p = pageReq{last: 2, before: &rows[len(rows)-1].key, newestFirst: ptr(nf)}
				start, end = modelPage(rows, gamesListing.cmpIn(nf), p, 1000)
				q = tc.query + "&" + p.query(gamesListing).Encode()
				checkPage(t, s.get(t, gamesListing.path, q), gamesListing, rows, start, end)
			}
		})
	}
}

// pickGameSubjects finds, in the games of w's default window, a team, a team
// member, a party playing as an individual, a team game's ID and an
// individual game's ID.
func pickGameSubjects(t *testing.T, w *world.World) (team, member, soloist, teamGame, soloGame string) {
	t.Helper()
	l := newestEpoch(w)
	for i := len(w.Games) - 1; i >= 0; i-- {
		g := &w.Games[i]
		if g.Epoch+29 < l {
			continue
		}
		if g.Team != nil && team == "" && len(g.Team.Team) > 0 && len(g.Team.Team[0].Team.MembersParticipating) > 0 {
			team, member, teamGame = g.Team.Team[0].Team.TeamID, g.Team.Team[0].Team.MembersParticipating[0].Individual, g.ID
		}
		if g.Individual != nil && soloist == "" && len(g.Individual.Individual) > 0 {
			soloist, soloGame = g.Individual.Individual[0].Individual, g.ID
		}
	}
	if team == "" || soloist == "" {
		t.Fatalf("the generated world has no team game or no individual game in its window")
	}
	return team, member, soloist, teamGame, soloGame
}

// epochWorld has one small game in each epoch 1..40 and two in the last
// three, while the world says its latest epoch is 100: the latest epoch is
// the newest in the data.
func epochWorld() *world.World {
	w := emptyWorld()
	for e := uint64(1); e <= 40; e++ {
		w.Games = append(w.Games, individualGame(e, hexID("every epoch"), hexID(fmt.Sprint("p", e%7))))
		if e >= 38 {
			w.Games = append(w.Games, teamGame(e, hexID("late"), teamPlay{hexID("t"), []string{hexID("m")}}))
		}
	}
	w.FirstEpoch, w.LatestEpoch = 1, 100
	return w
}

// TestGamesEpochWindow checks the four defaulting rules of spec section 8,
// the 30-epoch cap, a reversed range, and epochs far out of range.
func TestGamesEpochWindow(t *testing.T) {
	t.Parallel()
	w := epochWorld()
	s := serve(t, Config{}, w)
	strict := serve(t, Config{Strict: true}, w)
	const maxU64 = "18446744073709551615"
	tests := []struct {
		name     string
		query    string
		from, to uint64 // the window the rules give
	}{
		{"rule 1 and 2: no epochs, the 30 newest in the data", "", 11, 40},
		{"rule 1: epochTo omitted is the latest epoch", "epochFrom=20", 20, 40},
		{"rule 2: epochFrom omitted is epochTo-29", "epochTo=35", 6, 35},
		{"rule 2: or the first epoch if that is below it", "epochTo=20", 1, 20},
		{"rule 2: epochTo 29", "epochTo=29", 1, 29},
		{"rule 2: epochTo 30", "epochTo=30", 1, 30},
		{"rule 2: epochTo 31", "epochTo=31", 2, 31},
		{"rule 3: only epochFrom gives epochFrom+29", "epochFrom=5", 5, 34},
		{"rule 3: epochFrom 0", "epochFrom=0", 0, 29},
		{"rule 3: window past the newest epoch", "epochFrom=40", 40, 69},
		{"rule 3: window beyond the data", "epochFrom=41", 41, 70},
		{"rule 3: far beyond the data", "epochFrom=1000000", 1000000, 1000029},
		{"rule 3: epochFrom at the top of uint64", "epochFrom=" + maxU64, 1<<64 - 1, 1<<64 - 1},
		{"rule 3: epochFrom near the top of uint64", "epochFrom=18446744073709551600", 1<<64 - 16, 1<<64 - 1},
		{"both given", "epochFrom=5&epochTo=10", 5, 10},
		{"one epoch", "epochFrom=7&epochTo=7", 7, 7},
		{"from 0", "epochFrom=0&epochTo=5", 0, 5},
		{"exactly 30 epochs", "epochFrom=11&epochTo=40", 11, 40},
		{"rule 4: 31 epochs are capped to 30", "epochFrom=10&epochTo=40", 11, 40},
		{"rule 4: the whole chain is capped to 30", "epochFrom=1&epochTo=40", 11, 40},
		{"rule 4: beyond the data", "epochFrom=1&epochTo=100", 71, 100},
		{"epochFrom above epochTo gives the 30 epochs to epochTo", "epochFrom=20&epochTo=10", 0, 10},
		{"epochFrom above epochTo, high", "epochFrom=39&epochTo=35", 6, 35},
		{"epochTo 0", "epochTo=0", 0, 0},
		{"epochTo at the top of uint64", "epochTo=" + maxU64, 1<<64 - 30, 1<<64 - 1},
		{"snake_case names", "epoch_from=5&epoch_to=10", 5, 10},
		{"first value of a repeated epoch", "epochFrom=5&epochFrom=9&epochTo=10&epochTo=30", 5, 10},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want := expectGames(w, gameFilter{window: &[2]uint64{tc.from, tc.to}})
			checkPage(t, s.get(t, gamesListing.path, tc.query), gamesListing, want, 0, len(want))
			// Paging applies to the rows inside the window.
			if len(want) > 2 {
				rows := gamesListing.inOrder(want, false)
				p := pageReq{last: 2, newestFirst: ptr(false)}
				start, end := modelPage(rows, gamesListing.cmpIn(false), p, 1000)
				q, _ := url.ParseQuery(tc.query)
				for k, v := range p.query(gamesListing) {
					q[k] = v
				}
				checkPage(t, s.get(t, gamesListing.path, q.Encode()), gamesListing, rows, start, end)
			}
		})
	}
	for _, tc := range tests {
		if tc.name == "epochFrom above epochTo gives the 30 epochs to epochTo" || tc.name == "epochFrom above epochTo, high" {
			t.Run("strict/400 "+tc.name, func(t *testing.T) {
				checkError(t, strict.get(t, gamesListing.path, tc.query), errRule.with("epoch"))
			})
			continue
		}
		t.Run("strict/200 "+tc.name, func(t *testing.T) {
			want := expectGames(w, gameFilter{window: &[2]uint64{tc.from, tc.to}})
			checkPage(t, strict.get(t, gamesListing.path, tc.query), gamesListing, want, 0, len(want))
		})
	}
}

// TestGamesEpochWindowConfig checks Config.EpochWindow sets the cap and
// the defaults' span.
func TestGamesEpochWindowConfig(t *testing.T) {
	t.Parallel()
	w := epochWorld()
	s := serve(t, Config{EpochWindow: 5}, w)
	tests := []struct {
		query    string
		from, to uint64
	}{
		{"", 36, 40},
		{"epochFrom=10", 10, 14},
		{"epochTo=20", 16, 20},
		{"epochTo=3", 1, 3},
		{"epochFrom=1&epochTo=40", 36, 40},
		{"epochFrom=12&epochTo=10", 6, 10},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			want := expectGames(w, gameFilter{window: &[2]uint64{tc.from, tc.to}})
			checkPage(t, s.get(t, gamesListing.path, tc.query), gamesListing, want, 0, len(want))
		})
	}
}

// TestGamesBadValues checks filter values that do not parse are 400s.
func TestGamesBadValues(t *testing.T) {
	t.Parallel()
	s := serve(t, Config{}, gamesEdgeWorld())
	tests := []errCase{
		{"epochFrom negative", "epochFrom=-1", errParse.with("epochFrom")},
		{"epochFrom not a number", "epochFrom=abc", errParse},
		{"epochFrom empty", "epochFrom=", errParse},
		{"epochFrom beyond uint64", "epochFrom=18446744073709551616", errParse},
		{"epochTo a fraction", "epochTo=1.5", errParse.with("epochTo")},
		{"epoch_to not a number", "epoch_to=x", errParse},
		{"entityScope unknown", "entityScope=ENTITY_SCOPE_BOGUS", errParse.with("entityScope")},
		{"entityScope in lower case", "entityScope=entity_scope_teams", errParse},
		{"entityScope by number, not name", "entityScope=2", errParse},
		{"entityScope empty", "entityScope=", errParse},
		{"entity_scope unknown", "entity_scope=TEAMS", errParse},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { checkError(t, s.get(t, gamesListing.path, tc.query), tc.want) })
	}
}

// TestKeyRotationsFilter checks the nodeId filter, with rotations of several
// nodes at one height.
func TestKeyRotationsFilter(t *testing.T) {
	t.Parallel()
	w := copyWorld(genWorld(t))
	busy := map[string]int{}
	for _, r := range w.KeyRotations {
		busy[r.NodeID]++
	}
	var node string
	for n, c := range busy {
		if c >= 2 && (node == "" || n < node) {
			node = n
		}
	}
	if node == "" {
		t.Fatal("no node rotated its key twice in the generated world")
	}
	h := w.KeyRotations[0].BlockHeight
	tied := []string{hexID("tie-1"), hexID("tie-2"), node}
	for _, n := range tied {
		w.KeyRotations = append(w.KeyRotations, rotation(h, n))
	}
	s := serve(t, Config{}, w)
	tests := []struct {
		name  string
		query string
		node  string
		want  int // rows, as a check on the model; -1: not checked
	}{
		{"a node with several rotations", "nodeId=" + node, node, busy[node] + 1},
		{"a node with one rotation at a tied height", "nodeId=" + tied[0], tied[0], 1},
		{"an unknown node", "nodeId=" + hexID("nobody"), hexID("nobody"), 0},
		{"empty nodeId is no filter", "nodeId=", "", -1},
		{"snake_case", "node_id=" + node, node, busy[node] + 1},
		{"first value of a repeated nodeId", "nodeId=" + tied[1] + "&nodeId=" + node, tied[1], 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want := expectRotations(w, tc.node)
			if tc.want >= 0 && len(want) != tc.want {
				t.Fatalf("model selects %d rotations, the case expects %d", len(want), tc.want)
			}
			checkPage(t, s.get(t, rotationsListing.path, tc.query), rotationsListing, want, 0, len(want))
			for _, nf := range []bool{true, false} {
				rows := rotationsListing.inOrder(want, nf)
				if len(rows) < 3 {
					continue
				}
				for _, p := range []pageReq{
					{first: 2, after: &rows[0].key, newestFirst: ptr(nf)},
					{last: 1, before: &rows[len(rows)-1].key, newestFirst: ptr(nf)},
				} {
					start, end := modelPage(rows, rotationsListing.cmpIn(nf), p, 1000)
					checkPage(t, s.get(t, rotationsListing.path, tc.query+"&"+p.query(rotationsListing).Encode()), rotationsListing, rows, start, end)
				}
			}
		})
	}
	t.Run("ties of height are in node ID order", func(t *testing.T) {
		var want []string
		for _, r := range w.KeyRotations {
			if r.BlockHeight == h {
				want = append(want, r.NodeID)
			}
		}
		slices.Sort(want)
		for _, nf := range []bool{true, false} {
			// The oldest rows are last newest first, first oldest first.
			q := fmt.Sprintf("pagination.last=%d&pagination.newestFirst=%v", len(want), nf)
			if !nf {
				q = fmt.Sprintf("pagination.first=%d&pagination.newestFirst=false", len(want))
			}
			r := s.get(t, rotationsListing.path, q)
			var got []string
			for _, e := range r.page(t, rotationsListing).Edges {
				var n struct {
					NodeID      string `json:"nodeId"`
					BlockHeight string `json:"blockHeight"`
				}
				if err := json.Unmarshal(e.Node, &n); err != nil {
					t.Fatal(err)
				}
				if n.BlockHeight != fmt.Sprint(h) {
					t.Fatalf("%s: row at height %s, want %d", r, n.BlockHeight, h)
				}
				got = append(got, n.NodeID)
			}
			if !nf {
				slices.Reverse(got)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%s: nodes at height %d are %v, want %v", r, h, got, want)
			}
		}
	})
}
