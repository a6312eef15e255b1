package mockserver

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chaindata/harness/generators/records"
	"github.com/chaindata/harness/generators/world"
	"github.com/chaindata/harness/mockserver/store"
	"github.com/chaindata/harness/schemas"
)

// The helpers here are the test client (every response it receives is
// checked for its content type, CORS header and schema, and error bodies for
// the gateway's status mapping) and a model of the listings computed from a
// World's records with straightforward code, independent of the server's
// indexes and binary searches.

// sharedWorld is a small generated world, made once, that tests only read.
var sharedWorld = sync.OnceValues(func() (*world.World, error) {
	return world.Generate(world.Options{Seed: 7, Scale: 0.05})
})

func genWorld(t testing.TB) *world.World {
	t.Helper()
	w, err := sharedWorld()
	if err != nil {
		t.Fatalf("generate world: %v", err)
	}
	return w
}

// copyWorld returns a world sharing w's records but with its own record
// slices, so a test can add or drop records.
func copyWorld(w *world.World) *world.World {
	c := *w
	c.Games = slices.Clone(w.Games)
	c.Snapshots = slices.Clone(w.Snapshots)
	c.KeyRotations = slices.Clone(w.KeyRotations)
	c.NetworkParameters = slices.Clone(w.NetworkParameters)
	c.Transactions = slices.Clone(w.Transactions)
	return &c
}

// ---------------------------------------------------------------------------
// Hand-built records. Every one validates against its schema.

// hexID returns a stable 64-character lowercase hex ID named by label.
func hexID(label string) string {
	sum := sha256.Sum256([]byte(label))
	return hex.EncodeToString(sum[:])
}

func ethAddress(label string) string { return "0x" + hexID(label)[:40] }

// emptyWorld returns a world with no records at all.
func emptyWorld() *world.World {
	genesis := time.Date(2024, 1, 8, 0, 0, 0, 0, time.UTC)
	return &world.World{
		Seed: 1, Scale: 1, Genesis: genesis,
		LatestBlock: 5000, LatestBlockTime: genesis.Add(5000*time.Second + 123),
		FirstEpoch: 1, LatestEpoch: 1,
	}
}

func entry(party string, rank uint64) records.IndividualEntry {
	return records.IndividualEntry{
		Individual: party, Rank: rank,
		RewardEarned: "1000", RewardEarnedQuantum: "0.001", RewardMetric: "DISPATCH_METRIC_MAKER_FEES_PAID",
		TotalRewardsEarned: "5000", TotalRewardsEarnedQuantum: "0.005", Volume: "12.5",
	}
}

// individualGame is a game played by individuals.
func individualGame(epoch uint64, id string, parties ...string) records.Game {
	g := records.Game{
		Epoch: epoch, ID: id, Participants: uint64(len(parties)), RewardAssetID: hexID("asset"),
		Individual: &records.IndividualEntities{Individual: []records.IndividualEntry{}},
	}
	for i, p := range parties {
		g.Individual.Individual = append(g.Individual.Individual, entry(p, uint64(i+1)))
	}
	return g
}

// teamPlay is one team's part in a team game.
type teamPlay struct {
	team    string
	members []string
}

// teamGame is a game played by teams.
func teamGame(epoch uint64, id string, teams ...teamPlay) records.Game {
	g := records.Game{
		Epoch: epoch, ID: id, RewardAssetID: hexID("asset"),
		Team: &records.TeamEntities{Team: []records.TeamEntry{}},
	}
	for i, tp := range teams {
		te := records.TeamEntry{
			Rank: uint64(i + 1), RewardEarned: "2000", RewardEarnedQuantum: "0.002", RewardMetric: "DISPATCH_METRIC_MAKER_FEES_PAID",
			TotalRewardsEarned: "9000", TotalRewardsEarnedQuantum: "0.009", Volume: "100.25",
			Team: records.TeamParticipation{TeamID: tp.team, MembersParticipating: []records.IndividualEntry{}},
		}
		for j, m := range tp.members {
			te.Team.MembersParticipating = append(te.Team.MembersParticipating, entry(m, uint64(j+1)))
		}
		g.Participants += uint64(len(tp.members))
		g.Team.Team = append(g.Team.Team, te)
	}
	return g
}

func snapshot(height uint64) records.CoreSnapshot {
	return records.CoreSnapshot{
		BlockHash: hexID(fmt.Sprint("block", height)), BlockHeight: height, CoreVersion: "v0.77.4",
	}
}

func rotation(height uint64, node string) records.EthereumKeyRotation {
	return records.EthereumKeyRotation{
		BlockHeight: height, NodeID: node,
		OldAddress: ethAddress(fmt.Sprint("old", height, node)), NewAddress: ethAddress(fmt.Sprint("new", height, node)),
	}
}

// ---------------------------------------------------------------------------
// The test client.

// testServer is a mock server on 127.0.0.1 and a client of it.
type testServer struct {
	url    string
	client *http.Client
	world  *world.World
}

// serve starts a server of w with cfg for the duration of the test.
func serve(t testing.TB, cfg Config, w *world.World) *testServer {
	t.Helper()
	st, err := store.New(w)
	if err != nil {
		t.Fatalf("store.New: %v", err)
	}
	return serveHandler(t, New(cfg, st), w)
}

// serveHandler starts h, a server of w, for the duration of the test.
func serveHandler(t testing.TB, h http.Handler, w *world.World) *testServer {
	t.Helper()
	hs := httptest.NewUnstartedServer(h)
	if s, ok := h.(*Server); ok {
		// Served as harness serve serves it: its http.Server, each page in
		// one write (Listener).
		hs.Config = s.HTTPServer()
		hs.Listener = Listener(hs.Listener)
	}
	hs.Start()
	t.Cleanup(hs.Close)
	return &testServer{
		url: hs.URL,
		// The timeout turns a hung request into a failure instead of a
		// stuck test; redirects are answers to check, not to follow.
		client: &http.Client{
			Timeout:       30 * time.Second,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
		world: w,
	}
}

// response is one answer of the server.
type response struct {
	req    string // the request, as a curl command, for failure messages
	status int
	header http.Header
	body   []byte
}

func (r *response) String() string { return r.req }

// get sends a GET of path with the raw (already encoded) query and checks
// the answer as do does.
func (s *testServer) get(t testing.TB, path, rawQuery string) *response {
	t.Helper()
	return s.do(t, http.MethodGet, path, rawQuery, nil)
}

// do sends one request and checks what every answer must satisfy: the CORS
// header; for an answer with a body, Content-Type application/json and a
// body valid against its schema (the listing's response for a 200, Error
// otherwise); for an error, the gateway's mapping of gRPC code to HTTP
// status.
func (s *testServer) do(t testing.TB, method, path, rawQuery string, hdr http.Header) *response {
	t.Helper()
	r, err := s.fetch(method, path, rawQuery, hdr)
	if err != nil {
		t.Fatal(err)
	}
	checkResponse(t, method, path, r)
	return r
}

// fetch sends one request and reads the answer, checking nothing; it is
// safe to call from any goroutine.
func (s *testServer) fetch(method, path, rawQuery string, hdr http.Header) (*response, error) {
	u := s.url + path
	if rawQuery != "" {
		u += "?" + rawQuery
	}
	req, err := http.NewRequest(method, u, nil)
	if err != nil {
		return nil, fmt.Errorf("new request %s %s: %w", method, u, err)
	}
	for k, v := range hdr {
		req.Header[k] = v
	}
	res, err := s.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, u, err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, fmt.Errorf("%s %s: read body: %w", method, u, err)
	}
	return &response{req: fmt.Sprintf("curl -X %s '%s'", method, u), status: res.StatusCode, header: res.Header, body: body}, nil
}

// checkResponse checks what every answer must satisfy.
func checkResponse(t testing.TB, method, path string, r *response) {
	t.Helper()
	if got := r.header.Get("Access-Control-Allow-Origin"); got != "*" {
		t.Errorf("%s: Access-Control-Allow-Origin = %q, want *", r, got)
	}
	if r.status == http.StatusNoContent {
		return // a CORS preflight answer
	}
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("%s: status %d, Content-Type %q, want application/json; body %.300s", r, r.status, ct, r.body)
	}
	if method == http.MethodHead {
		if len(r.body) != 0 {
			t.Errorf("%s: HEAD answered with a body of %d bytes", r, len(r.body))
		}
		return
	}
	schema := "Error"
	if r.status == http.StatusOK {
		schema = schemaOfPath(path)
		if schema == "" {
			t.Fatalf("%s: 200 on a path that is no listing; body %.300s", r, r.body)
		}
	}
	if err := validateCached(schema, r.body); err != nil {
		t.Fatalf("%s: status %d: %v\nbody: %.2000s", r, r.status, err, r.body)
	}
	if r.status != http.StatusOK {
		checkErrorMapping(t, r)
	}
}

// schemaOfPath names the response schema of a listing path.
func schemaOfPath(path string) string {
	switch path {
	case "/api/v2/games":
		return "ListGamesResponse"
	case "/api/v2/snapshots":
		return "ListCoreSnapshotsResponse"
	case "/api/v2/core/keys/ethereum/rotations":
		return "ListEthereumKeyRotationsResponse"
	case "/api/v2/network/parameters":
		return "ListNetworkParametersResponse"
	}
	if strings.HasSuffix(path, "/transactions") {
		return "ListTransactionsResponse"
	}
	return ""
}

// statusOfCode is the gateway's mapping of the gRPC codes the API uses.
var statusOfCode = map[int32]int{3: 400, 5: 404, 7: 403, 12: 501, 13: 500, 16: 401}

func checkErrorMapping(t testing.TB, r *response) {
	t.Helper()
	e := r.apiError(t)
	if want, ok := statusOfCode[e.Code]; !ok || want != r.status {
		t.Errorf("%s: HTTP status %d with gRPC code %d; the gateway maps 3->400, 5->404, 7->403, 12->501, 13->500, 16->401", r, r.status, e.Code)
	}
	for i, d := range e.Details {
		if d.Type != errorDetailType {
			t.Errorf("%s: details[%d].@type = %q, want %q", r, i, d.Type, errorDetailType)
		}
	}
}

// validated remembers bodies already found valid, so identical answers
// (common across tests) are validated once. Bounded, so fuzzing cannot grow
// it without end.
var validated = struct {
	sync.Mutex
	ok map[[32]byte]bool
}{ok: map[[32]byte]bool{}}

func validateCached(schema string, body []byte) error {
	h := sha256.New()
	h.Write([]byte(schema))
	h.Write([]byte{0})
	h.Write(body)
	var key [32]byte
	h.Sum(key[:0])
	validated.Lock()
	hit := validated.ok[key]
	validated.Unlock()
	if hit {
		return nil
	}
	if err := schemas.MustLoad(schema).Validate(body); err != nil {
		return err
	}
	validated.Lock()
	if len(validated.ok) < 50_000 {
		validated.ok[key] = true
	}
	validated.Unlock()
	return nil
}

// apiErrorBody is the spec's error body.
type apiErrorBody struct {
	Code    int32  `json:"code"`
	Message string `json:"message"`
	Details []struct {
		Type    string `json:"@type"`
		Code    int32  `json:"code"`
		Message string `json:"message"`
		Inner   string `json:"inner"`
	} `json:"details"`
}

func (r *response) apiError(t testing.TB) apiErrorBody {
	t.Helper()
	var e apiErrorBody
	if err := json.Unmarshal(r.body, &e); err != nil {
		t.Fatalf("%s: error body: %v\n%s", r, err, r.body)
	}
	return e
}

// wantErr describes an expected error answer.
type wantErr struct {
	status int
	// detail is the ErrorDetail code of a broken rule; 0 means the body
	// has no details (a value that does not parse, 404, 501).
	detail int32
	// text must occur in the detail's message and inner, or in the message
	// when there is no detail.
	text string
}

var (
	errPagination = wantErr{status: 400, detail: detailInvalidPagination}
	errRule       = wantErr{status: 400, detail: detailNotMapped}
	errParse      = wantErr{status: 400, text: "parsing field"}
)

func (w wantErr) with(text string) wantErr { w.text = text; return w }

// checkError checks r is the error w describes.
func checkError(t testing.TB, r *response, w wantErr) {
	t.Helper()
	if r.status != w.status {
		t.Fatalf("%s: status %d, want %d; body %.500s", r, r.status, w.status, r.body)
	}
	e := r.apiError(t)
	if w.detail == 0 {
		if len(e.Details) != 0 {
			t.Errorf("%s: %d details, want none: %s", r, len(e.Details), r.body)
		}
		if !strings.Contains(e.Message, w.text) {
			t.Errorf("%s: message %q does not contain %q", r, e.Message, w.text)
		}
		return
	}
	if e.Message != "InvalidArgument error" && w.status == 400 {
		t.Errorf("%s: message %q, want \"InvalidArgument error\"", r, e.Message)
	}
	if len(e.Details) != 1 {
		t.Fatalf("%s: %d details, want 1: %s", r, len(e.Details), r.body)
	}
	d := e.Details[0]
	if d.Code != w.detail {
		t.Errorf("%s: detail code %d, want %d: %s", r, d.Code, w.detail, r.body)
	}
	if !strings.Contains(d.Message+" "+d.Inner, w.text) {
		t.Errorf("%s: detail %q / %q does not contain %q", r, d.Message, d.Inner, w.text)
	}
}

// ---------------------------------------------------------------------------
// The model of the four paged listings.

// rowKey is a row's sort key: n is the epoch or block height, s the game ID,
// node ID or parameter key.
type rowKey struct {
	n uint64
	s string
}

// expRow is a row as the listing must serve it.
type expRow struct {
	key    rowKey
	cursor string
	node   []byte
}

// listing describes one paged listing for the tests.
type listing struct {
	name, path, wrapper string
	// order compares keys in the listing's newestFirst=true order.
	order func(a, b rowKey) int
	// fixed listings (network parameters) ignore newestFirst.
	fixed bool
	// cursor encodes a key as docs/behaviour.md describes, written here
	// independently of package records.
	cursor func(rowKey) string
	// rows returns every row of a world in newest-first order (games: of
	// the default epoch window).
	rows func(w *world.World) []expRow
	// absent returns well-formed keys that have no row in rows.
	absent func(rows []expRow) []rowKey
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

func byNewestThenAsc(a, b rowKey) int {
	return cmp.Or(cmp.Compare(b.n, a.n), strings.Compare(a.s, b.s))
}

var (
	gamesListing = &listing{
		name: "games", path: "/api/v2/games", wrapper: "games",
		order: byNewestThenAsc,
		cursor: func(k rowKey) string {
			return b64(fmt.Sprintf(`{"epoch":"%d","id":"%s"}`, k.n, k.s))
		},
		rows: func(w *world.World) []expRow { return gameRows(w, gameFilter{}) },
		absent: func(rows []expRow) []rowKey {
			mid := rows[len(rows)/2].key
			return []rowKey{
				{mid.n, strings.Repeat("0", 64)}, {mid.n, strings.Repeat("f", 64)},
				{mid.n, strings.Repeat("8", 64)}, {0, strings.Repeat("a", 64)}, {1 << 40, strings.Repeat("a", 64)},
			}
		},
	}
	snapshotsListing = &listing{
		name: "snapshots", path: "/api/v2/snapshots", wrapper: "coreSnapshots",
		order:  func(a, b rowKey) int { return cmp.Compare(b.n, a.n) },
		cursor: func(k rowKey) string { return b64(fmt.Sprintf(`{"blockHeight":"%d"}`, k.n)) },
		rows: func(w *world.World) []expRow {
			var out []expRow
			for i := range w.Snapshots {
				s := &w.Snapshots[i]
				out = append(out, expRow{key: rowKey{n: s.BlockHeight}, node: records.RecordJSON(s)})
			}
			return out
		},
		absent: func(rows []expRow) []rowKey {
			mid := rows[len(rows)/2].key
			return []rowKey{{n: mid.n + 1}, {n: mid.n - 1}, {n: 0}, {n: 1<<64 - 1}}
		},
	}
	rotationsListing = &listing{
		name: "key rotations", path: "/api/v2/core/keys/ethereum/rotations", wrapper: "keyRotations",
		order: byNewestThenAsc,
		cursor: func(k rowKey) string {
			return b64(fmt.Sprintf(`{"blockHeight":"%d","nodeId":"%s"}`, k.n, k.s))
		},
		rows: func(w *world.World) []expRow { return rotationRows(w, "") },
		absent: func(rows []expRow) []rowKey {
			mid := rows[len(rows)/2].key
			return []rowKey{
				{mid.n, strings.Repeat("0", 64)}, {mid.n, strings.Repeat("f", 64)}, {mid.n + 1, strings.Repeat("8", 64)},
				{0, strings.Repeat("8", 64)}, {1<<64 - 1, strings.Repeat("8", 64)},
			}
		},
	}
	paramsListing = &listing{
		name: "network parameters", path: "/api/v2/network/parameters", wrapper: "networkParameters",
		order: func(a, b rowKey) int { return strings.Compare(a.s, b.s) },
		fixed: true,
		cursor: func(k rowKey) string {
			b, _ := json.Marshal(map[string]string{"key": k.s})
			return b64(string(b))
		},
		rows: func(w *world.World) []expRow {
			var out []expRow
			for i := range w.NetworkParameters {
				p := &w.NetworkParameters[i]
				out = append(out, expRow{key: rowKey{s: p.Key}, node: records.RecordJSON(p)})
			}
			return out
		},
		absent: func(rows []expRow) []rowKey {
			mid := rows[len(rows)/2].key
			return []rowKey{{s: mid.s + "!"}, {s: mid.s + "zzz"}, {s: "A"}, {s: "~~~"}}
		},
	}
	pagedListings = []*listing{gamesListing, snapshotsListing, rotationsListing, paramsListing}
)

// finish sorts rows into the listing's newest-first order and fills in
// their cursors.
func (l *listing) finish(rows []expRow) []expRow {
	slices.SortStableFunc(rows, func(a, b expRow) int { return l.order(a.key, b.key) })
	for i := range rows {
		rows[i].cursor = l.cursor(rows[i].key)
	}
	return rows
}

// inOrder returns rows (newest first) in the order newestFirst asks for.
func (l *listing) inOrder(rows []expRow, newestFirst bool) []expRow {
	if newestFirst || l.fixed {
		return rows
	}
	out := slices.Clone(rows)
	slices.Reverse(out)
	return out
}

// cmpIn returns the comparison of keys in the order newestFirst asks for.
func (l *listing) cmpIn(newestFirst bool) func(a, b rowKey) int {
	if newestFirst || l.fixed {
		return l.order
	}
	return func(a, b rowKey) int { return l.order(b, a) }
}

// expected returns the listing's rows of w, newest first.
func (l *listing) expected(w *world.World) []expRow { return l.finish(l.rows(w)) }

// gameFilter is the filters of a games request, as the model applies them.
type gameFilter struct {
	window         *[2]uint64 // the resolved epoch window, inclusive; nil: the default
	gameID, teamID string
	partyID        string
	scope          string // "", ENTITY_SCOPE_INDIVIDUALS or ENTITY_SCOPE_TEAMS
}

// newestEpoch is the newest epoch in the data.
func newestEpoch(w *world.World) uint64 {
	var l uint64
	for i := range w.Games {
		l = max(l, w.Games[i].Epoch)
	}
	return l
}

// expectGames returns the games of w the filter selects, newest first.
func expectGames(w *world.World, f gameFilter) []expRow {
	return gamesListing.finish(gameRows(w, f))
}

// gameRows returns the games of w the filter selects, in no order.
func gameRows(w *world.World, f gameFilter) []expRow {
	from, to := uint64(0), newestEpoch(w)
	from = max(to, 29) - 29
	if f.window != nil {
		from, to = f.window[0], f.window[1]
	}
	var out []expRow
	for i := range w.Games {
		g := &w.Games[i]
		isTeam := g.Team != nil
		var teams, parties []string
		if isTeam {
			for _, te := range g.Team.Team {
				teams = append(teams, te.Team.TeamID)
				for _, m := range te.Team.MembersParticipating {
					parties = append(parties, m.Individual)
				}
			}
		} else {
			for _, e := range g.Individual.Individual {
				parties = append(parties, e.Individual)
			}
		}
		switch {
		case g.Epoch < from || g.Epoch > to:
		case f.gameID != "" && g.ID != f.gameID:
		case f.scope == "ENTITY_SCOPE_INDIVIDUALS" && isTeam:
		case f.scope == "ENTITY_SCOPE_TEAMS" && !isTeam:
		case f.teamID != "" && f.scope != "ENTITY_SCOPE_INDIVIDUALS" && !slices.Contains(teams, f.teamID):
		case f.partyID != "" && !slices.Contains(parties, f.partyID):
		default:
			out = append(out, expRow{key: rowKey{g.Epoch, g.ID}, node: records.RecordJSON(g)})
		}
	}
	return out
}

// expectRotations returns the rotations of w (of one node when node is not
// empty), newest first.
func expectRotations(w *world.World, node string) []expRow {
	return rotationsListing.finish(rotationRows(w, node))
}

func rotationRows(w *world.World, node string) []expRow {
	var out []expRow
	for i := range w.KeyRotations {
		r := &w.KeyRotations[i]
		if node == "" || r.NodeID == node {
			out = append(out, expRow{key: rowKey{r.BlockHeight, r.NodeID}, node: records.RecordJSON(r)})
		}
	}
	return out
}

// pageReq is the pagination of a request, as the model reads it.
type pageReq struct {
	first, last   int
	after, before *rowKey
	newestFirst   *bool // nil: not given (true)
}

func (p pageReq) nf() bool { return p.newestFirst == nil || *p.newestFirst }

func ptr[T any](v T) *T { return &v }

// query encodes the request for listing l.
func (p pageReq) query(l *listing) url.Values {
	q := url.Values{}
	if p.first != 0 {
		q.Set("pagination.first", strconv.Itoa(p.first))
	}
	if p.last != 0 {
		q.Set("pagination.last", strconv.Itoa(p.last))
	}
	if p.after != nil {
		q.Set("pagination.after", l.cursor(*p.after))
	}
	if p.before != nil {
		q.Set("pagination.before", l.cursor(*p.before))
	}
	if p.newestFirst != nil {
		q.Set("pagination.newestFirst", strconv.FormatBool(*p.newestFirst))
	}
	return q
}

// modelPage returns the positions [start, end) of rows (in the requested
// order, compared by order) a non-strict server answers p with: first wins
// over last, and a cursor of the other direction is ignored.
func modelPage(rows []expRow, order func(a, b rowKey) int, p pageReq, defaultSize int) (start, end int) {
	n := len(rows)
	forward := func(count int) (int, int) {
		start := 0
		if p.after != nil {
			for start < n && order(rows[start].key, *p.after) <= 0 {
				start++
			}
		}
		return start, min(n, start+count)
	}
	backward := func(count int) (int, int) {
		end := 0
		if p.before == nil {
			end = n
		} else {
			for end < n && order(rows[end].key, *p.before) < 0 {
				end++
			}
		}
		return max(0, end-count), end
	}
	switch {
	case p.first > 0:
		return forward(p.first)
	case p.last > 0:
		return backward(p.last)
	case p.before != nil:
		return backward(defaultSize)
	default:
		return forward(defaultSize)
	}
}

// page is a decoded page of a paged listing.
type page struct {
	Edges []struct {
		Node   json.RawMessage `json:"node"`
		Cursor string          `json:"cursor"`
	} `json:"edges"`
	PageInfo struct {
		StartCursor     string `json:"startCursor"`
		EndCursor       string `json:"endCursor"`
		HasNextPage     bool   `json:"hasNextPage"`
		HasPreviousPage bool   `json:"hasPreviousPage"`
	} `json:"pageInfo"`
}

// page decodes a 200 answer of a paged listing.
func (r *response) page(t testing.TB, l *listing) page {
	t.Helper()
	if r.status != http.StatusOK {
		t.Fatalf("%s: status %d, want 200; body %.500s", r, r.status, r.body)
	}
	var wrapped map[string]json.RawMessage
	if err := json.Unmarshal(r.body, &wrapped); err != nil {
		t.Fatalf("%s: %v", r, err)
	}
	var p page
	if err := json.Unmarshal(wrapped[l.wrapper], &p); err != nil {
		t.Fatalf("%s: %s: %v", r, l.wrapper, err)
	}
	return p
}

func compactJSON(b []byte) string {
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return string(b)
	}
	return buf.String()
}

func cursorsOf(rows []expRow) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.cursor
	}
	return out
}

// checkPage checks that r is the page of rows [start, end) of want, the
// listing's rows in the requested order: the same rows in the same order,
// each edge's node and cursor, and pageInfo.
func checkPage(t testing.TB, r *response, l *listing, want []expRow, start, end int) page {
	t.Helper()
	p := r.page(t, l)
	got := make([]string, len(p.Edges))
	for i, e := range p.Edges {
		got[i] = e.Cursor
	}
	if wantCursors := cursorsOf(want[start:end]); !slices.Equal(got, wantCursors) {
		t.Fatalf("%s: got %d rows, want rows %d..%d of %d\n got cursors %s\nwant cursors %s",
			r, len(got), start, end, len(want), describeCursors(got), describeCursors(wantCursors))
	}
	for i, e := range p.Edges {
		if g, w := compactJSON(e.Node), compactJSON(want[start+i].node); g != w {
			t.Fatalf("%s: edge %d node\n got %.400s\nwant %.400s", r, i, g, w)
		}
	}
	wantStart, wantEnd := "", ""
	if end > start {
		wantStart, wantEnd = want[start].cursor, want[end-1].cursor
	}
	pi := p.PageInfo
	if pi.StartCursor != wantStart || pi.EndCursor != wantEnd {
		t.Errorf("%s: pageInfo cursors %q..%q, want %q..%q", r, pi.StartCursor, pi.EndCursor, wantStart, wantEnd)
	}
	if pi.HasNextPage != (end < len(want)) || pi.HasPreviousPage != (start > 0) {
		t.Errorf("%s: hasNextPage %v hasPreviousPage %v, want %v %v (rows %d..%d of %d)",
			r, pi.HasNextPage, pi.HasPreviousPage, end < len(want), start > 0, start, end, len(want))
	}
	return p
}

// describeCursors decodes cursors for a readable failure message.
func describeCursors(cs []string) string {
	const most = 12
	parts := make([]string, 0, min(len(cs), most)+1)
	for i, c := range cs {
		if i == most {
			parts = append(parts, fmt.Sprintf("... (%d in all)", len(cs)))
			break
		}
		if raw, err := base64.StdEncoding.DecodeString(c); err == nil {
			parts = append(parts, string(raw))
		} else {
			parts = append(parts, c)
		}
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// ---------------------------------------------------------------------------
// The model of the transaction listing.

// txModel is one transaction as the tests see it, read from its JSON.
type txModel struct {
	block     uint64
	index     uint32
	cursor    string
	typ       string
	submitter string
	receivers []string
	json      []byte
}

func (a txModel) less(b txModel) bool {
	return a.block < b.block || a.block == b.block && a.index < b.index
}

// txModels reads w's transactions from their JSON, oldest first.
func txModels(t testing.TB, w *world.World) []txModel {
	t.Helper()
	out := make([]txModel, 0, len(w.Transactions))
	for i := range w.Transactions {
		raw := w.Transactions[i].JSON
		var tx struct {
			Block     string `json:"block"`
			Index     uint32 `json:"index"`
			Type      string `json:"type"`
			Submitter string `json:"submitter"`
			Cursor    string `json:"cursor"`
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
		if err := json.Unmarshal(raw, &tx); err != nil {
			t.Fatalf("transaction %d: %v", i, err)
		}
		block, err := strconv.ParseUint(tx.Block, 10, 64)
		if err != nil {
			t.Fatalf("transaction %d: block %q: %v", i, tx.Block, err)
		}
		m := txModel{block: block, index: tx.Index, cursor: tx.Cursor, typ: tx.Type, submitter: tx.Submitter, json: raw}
		if tx.Command.Batch != nil {
			for _, c := range tx.Command.Batch.Terms.Changes {
				if nt := c.NewTransfer; nt != nil && nt.Changes.DestinationType == "ACCOUNT_TYPE_GENERAL" && nt.Changes.Destination != "" {
					m.receivers = append(m.receivers, nt.Changes.Destination)
				}
			}
		}
		out = append(out, m)
	}
	slices.SortFunc(out, func(a, b txModel) int {
		if a.less(b) {
			return -1
		}
		if b.less(a) {
			return 1
		}
		return 0
	})
	return out
}

// txQuery is a transaction listing request, as the model reads it.
type txQuery struct {
	first, last     int
	before, after   string // cursors "<block>.<index>"
	cmdTypes        []string
	excludeCmdTypes []string
	parties         []string
}

func (q txQuery) values() url.Values {
	v := url.Values{}
	if q.first != 0 {
		v.Set("first", strconv.Itoa(q.first))
	}
	if q.last != 0 {
		v.Set("last", strconv.Itoa(q.last))
	}
	if q.before != "" {
		v.Set("before", q.before)
	}
	if q.after != "" {
		v.Set("after", q.after)
	}
	v["cmdTypes"] = q.cmdTypes
	v["excludeCmdTypes"] = q.excludeCmdTypes
	v["parties"] = q.parties
	return v
}

func parseTxCursor(t testing.TB, c string) txModel {
	t.Helper()
	b, i, ok := strings.Cut(c, ".")
	block, err1 := strconv.ParseUint(b, 10, 64)
	index, err2 := strconv.ParseUint(i, 10, 32)
	if !ok || err1 != nil || err2 != nil {
		t.Fatalf("bad test cursor %q", c)
	}
	return txModel{block: block, index: uint32(index)}
}

// expectTxs returns what the listing answers q with, newest first, over all
// (oldest first), with the server's default and maximum counts.
func expectTxs(t testing.TB, all []txModel, q txQuery, defaultSize, maxSize int) []txModel {
	t.Helper()
	var rows []txModel
	for _, tx := range all {
		switch {
		case len(q.cmdTypes) > 0 && !slices.Contains(q.cmdTypes, tx.typ):
		case slices.Contains(q.excludeCmdTypes, tx.typ):
		case len(q.parties) > 0 && !slices.Contains(q.parties, tx.submitter) &&
			!slices.ContainsFunc(tx.receivers, func(p string) bool { return slices.Contains(q.parties, p) }):
		default:
			rows = append(rows, tx)
		}
	}
	lo, hi := 0, len(rows) // rows newer than after start at lo; rows older than before end at hi
	if q.after != "" {
		c := parseTxCursor(t, q.after)
		for lo < len(rows) && !c.less(rows[lo]) {
			lo++
		}
	}
	if q.before != "" {
		c := parseTxCursor(t, q.before)
		hi = 0
		for hi < len(rows) && rows[hi].less(c) {
			hi++
		}
	}
	var picked []txModel
	switch {
	case q.after != "" && q.before != "":
		if lo < hi {
			picked = rows[max(lo, hi-maxSize):hi]
		}
	case q.last > 0 && q.before != "":
		picked = rows[max(0, hi-q.last):hi]
	case q.last > 0:
		picked = rows[:min(q.last, len(rows))]
	case q.before != "": // no count: the default number just older
		picked = rows[max(0, hi-defaultSize):hi]
	case q.after != "":
		picked = rows[lo:min(len(rows), lo+cmp.Or(q.first, defaultSize))]
	default:
		picked = rows[max(0, len(rows)-cmp.Or(q.first, defaultSize)):]
	}
	out := slices.Clone(picked)
	slices.Reverse(out)
	return out
}

// txPage decodes a 200 answer of the transaction listing.
func (r *response) txPage(t testing.TB) []json.RawMessage {
	t.Helper()
	if r.status != http.StatusOK {
		t.Fatalf("%s: status %d, want 200; body %.500s", r, r.status, r.body)
	}
	var body struct {
		Transactions []json.RawMessage `json:"transactions"`
	}
	if err := json.Unmarshal(r.body, &body); err != nil {
		t.Fatalf("%s: %v", r, err)
	}
	return body.Transactions
}

// checkTxs checks r lists exactly want, in order, each as the world holds it.
func checkTxs(t testing.TB, r *response, want []txModel) {
	t.Helper()
	txs := r.txPage(t)
	got := make([]string, len(txs))
	for i, raw := range txs {
		var tx struct {
			Cursor string `json:"cursor"`
		}
		if err := json.Unmarshal(raw, &tx); err != nil {
			t.Fatalf("%s: transaction %d: %v", r, i, err)
		}
		got[i] = tx.Cursor
	}
	wantCursors := make([]string, len(want))
	for i, tx := range want {
		wantCursors[i] = tx.cursor
	}
	if !slices.Equal(got, wantCursors) {
		t.Fatalf("%s: got %d transactions, want %d\n got %v\nwant %v", r, len(got), len(want), abbreviate(got), abbreviate(wantCursors))
	}
	for i, raw := range txs {
		if g, w := compactJSON(raw), compactJSON(want[i].json); g != w {
			t.Fatalf("%s: transaction %s\n got %.300s\nwant %.300s", r, want[i].cursor, g, w)
		}
	}
}

func abbreviate(s []string) []string {
	if len(s) <= 12 {
		return s
	}
	return append(slices.Clone(s[:12]), fmt.Sprintf("... (%d in all)", len(s)))
}
