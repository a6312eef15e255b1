package mockserver

import (
	"bytes"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chaindata/harness/mockserver/warnings"
)

// warningCase is a request and the findings its answer must carry.
type warningCase struct {
	name, path, query string
	// want are texts each finding must contain, in order; none: the
	// answer carries no finding.
	want []string
	// status is the answer's status without StrictParams (0: 200).
	status int
}

// warningCases covers every kind of finding (warnings.go), and requests
// that draw none. The world is the shared one, its snapshot and game
// cursors given.
func warningCases(snapCursor, gameCursor string) []warningCase {
	esc := url.QueryEscape
	return []warningCase{
		// unknown parameters
		{"the transactions spelling on /api/v2", "/api/v2/games", "first=3", []string{`unknown parameter "first" ignored; write pagination.first (first is the transaction listing's spelling)`}, 0},
		{"the /api/v2 spelling on transactions", "/transactions", "pagination.first=3", []string{`unknown parameter "pagination.first" ignored; write first (pagination.* is the /api/v2 listings' spelling)`}, 0},
		{"newestFirst on transactions", "/transactions", "pagination.newestFirst=false", []string{"transactions are always newest first"}, 0},
		{"a name in the wrong case", "/api/v2/games", "epochfrom=3", []string{`unknown parameter "epochfrom" ignored; write epochFrom (names are case-sensitive)`}, 0},
		{"a misspelt name", "/api/v2/snapshots", "pagination.frist=3", []string{`unknown parameter "pagination.frist" ignored; did you mean pagination.first?`}, 0},
		{"another API's name", "/api/v2/snapshots", "limit=10", []string{"write pagination.first"}, 0},
		{"an offset", "/transactions", "offset=10", []string{"there are no offsets or page numbers: follow the cursors (last=N&before=<the oldest row's cursor>)"}, 0},
		{"another listing's filter", "/api/v2/games", "nodeId=ab", []string{"nodeId is read by key rotations, not by games"}, 0},
		{"a party filter of games on transactions", "/transactions", "partyId=ab", []string{`unknown parameter "partyId" ignored; write parties`}, 0},
		{"a name near nothing", "/api/v2/network/parameters", "zzzzzz=1", []string{"network parameters read pagination.first, pagination.after, pagination.last, pagination.before, pagination.newestFirst"}, 0},
		// bracketed keys
		{"orval's axios client", "/transactions", "cmdTypes[]=Submit+Order&cmdTypes[]=Cancel+Order", []string{`"cmdTypes[]" is not read (an unknown name); repeat the key: cmdTypes=A&cmdTypes=B`}, 0},
		{"indexed keys, one finding", "/transactions", "parties[0]=a&parties[1]=b", []string{"repeat the key: parties=A&parties=B"}, 0},
		{"a bracketed count", "/transactions", "first[]=3", []string{`"first[]" is not read (an unknown name); write first=N, without brackets`}, 0},
		{"a nested name in brackets", "/api/v2/games", "pagination[first]=3", []string{`"pagination[first]" is not read (an unknown name); write pagination.first=N: nested names take a dot`}, 0},
		{"the snake spelling in brackets", "/transactions", "cmd_types[]=Submit+Order", []string{"repeat the key: cmdTypes=A&cmdTypes=B"}, 0},
		// command types and enum values
		{"a command type without its space", "/transactions", "cmdTypes=SubmitOrder", []string{`cmdTypes="SubmitOrder" matches no transaction: no such command type; did you mean "Submit Order"?`}, 0},
		{"an excluded type in another case", "/transactions", "excludeCmdTypes=submit+order", []string{`excludeCmdTypes="submit order" excludes nothing: no such command type; did you mean "Submit Order"?`}, 0},
		{"a command's field name", "/transactions", "cmdTypes=orderSubmission", []string{`cmdTypes="orderSubmission" matches no transaction: it is the command's field name; write Submit Order`}, 0},
		{"a list in one value", "/transactions", "cmdTypes=" + esc("Submit Order,Cancel Order"), []string{"is one type name, not a list, and matches no transaction; repeat the key: cmdTypes=A&cmdTypes=B"}, 0},
		{"an empty command type", "/transactions", "cmdTypes=", []string{"cmdTypes= is empty and matches no transaction; drop it"}, 0},
		{"a list of parties in one value", "/transactions", "parties=a,b", []string{`parties="a,b" is one party ID, not a list; repeat the key`}, 0},
		{"an entity scope without its prefix", "/api/v2/games", "entityScope=individuals", []string{`entityScope="individuals" is refused: not an EntityScope name; did you mean ENTITY_SCOPE_INDIVIDUALS?`}, 400},
		{"an entity scope by number", "/api/v2/games", "entityScope=2", []string{"did you mean ENTITY_SCOPE_TEAMS?"}, 400},
		{"a boolean in capitals", "/api/v2/snapshots", "pagination.newestFirst=False", []string{`pagination.newestFirst="False" does not parse and is refused; write false`}, 400},
		// counts
		{"a page above the maximum", "/api/v2/snapshots", "pagination.first=6000", []string{"pagination.first=6000 is above the maximum page size 5000 and is refused; ask for at most 5000 and follow pageInfo.endCursor"}, 400},
		{"a transactions page above the maximum", "/transactions", "last=9000", []string{"last=9000 is above the maximum page size 5000 and is refused"}, 400},
		{"a count of 0 on transactions", "/transactions", "first=0", []string{"first=0 reads as not given; the answer holds the default 50 transactions"}, 0},
		// cursors of another listing
		{"a snapshots cursor on games", "/api/v2/games", "pagination.after=" + esc(snapCursor), []string{"pagination.after is a cursor of snapshots and is refused; use one from a page of games"}, 400},
		{"a games cursor on transactions", "/transactions", "before=" + esc(gameCursor), []string{"before is a cursor of games and is refused; use one from a transaction's cursor field"}, 400},
		// what the real node tolerates
		{"a parameter given twice", "/api/v2/snapshots", "pagination.first=2&pagination.first=3", []string{`pagination.first given 2 times; only the first value, "2", is read`}, 0},
		{"both spellings", "/api/v2/games", "epochFrom=1&epoch_from=2", []string{"epochFrom given 2 times"}, 0},
		{"first with last", "/api/v2/snapshots", "pagination.first=2&pagination.last=3", []string{"pagination.last is ignored beside pagination.first"}, 0},
		{"last with after", "/api/v2/snapshots", "pagination.last=2&pagination.after=" + esc(snapCursor), []string{"pagination.after is ignored beside pagination.last"}, 0},
		{"newestFirst on network parameters", "/api/v2/network/parameters", "pagination.newestFirst=false", []string{"network parameters are always in key order"}, 0},
		{"a window of more than 30 epochs", "/api/v2/games", "epochFrom=1&epochTo=50", []string{"epochFrom 1 to epochTo 50 spans 50 epochs; only the last 30 are read (from 21)"}, 0},
		{"a window turned round", "/api/v2/games", "epochFrom=9&epochTo=3", []string{"epochFrom 9 is above epochTo 3"}, 0},
		{"a team under individuals", "/api/v2/games", "entityScope=ENTITY_SCOPE_INDIVIDUALS&teamId=ab", []string{"teamId is ignored under entityScope=ENTITY_SCOPE_INDIVIDUALS"}, 0},
		// several findings, in order
		{"two findings", "/api/v2/games", "first=3&epochfrom=1", []string{`"epochfrom"`, `"first"`}, 0},
		// unknown paths
		{"the root", "/", "", []string{`unknown path "/"`}, 404},
		{"a listing misspelt", "/api/v2/game", "", []string{`unknown path "/api/v2/game"; did you mean /api/v2/games?`}, 404},
		{"transactions under /api/v2", "/api/v2/transactions", "first=3", []string{"did you mean /transactions or /rest/transactions?"}, 404},
		{"a trailing slash", "/api/v2/snapshots/", "", []string{"did you mean /api/v2/snapshots?"}, 404},
		// no finding
		{"a clean transactions page", "/transactions", "first=3&cmdTypes=Submit+Order&cmdTypes=Cancel+Order&excludeCmdTypes=Batch+Proposal", nil, 0},
		{"a clean games page", "/api/v2/games", "pagination.first=2&epochFrom=1&epochTo=30&entityScope=ENTITY_SCOPE_TEAMS", nil, 0},
		{"the snake spellings", "/api/v2/games", "pagination.newest_first=false&epoch_from=1&entity_scope=ENTITY_SCOPE_INDIVIDUALS", nil, 0},
		{"no query", "/api/v2/snapshots", "", nil, 0},
		{"a malformed query", "/api/v2/snapshots", "a=%zz", nil, 400},
	}
}

// TestWarnings checks each finding's X-Harness-Warning header, and that the
// answer is what it is without them.
func TestWarnings(t *testing.T) {
	t.Parallel()
	w := genWorld(t)
	s := serve(t, Config{}, w)
	for _, tc := range warningCases(w.Snapshots[0].Cursor(), w.Games[0].Cursor()) {
		t.Run(tc.name, func(t *testing.T) {
			r := s.get(t, tc.path, tc.query)
			if want := max(tc.status, 200); r.status != want {
				t.Errorf("%s: status %d, want %d", r, r.status, want)
			}
			checkFindings(t, r, r.header.Values(WarningHeader), tc.want)
		})
	}
}

// checkFindings checks got holds a finding containing each of want, in
// order, and nothing more.
func checkFindings(t *testing.T, r *response, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d findings, want %d:\n%s", r, len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range want {
		if !strings.Contains(got[i], want[i]) {
			t.Errorf("%s: finding %d is\n  %s\nwant it to contain\n  %s", r, i, got[i], want[i])
		}
	}
}

// TestStrictParams checks Config.StrictParams refuses every request that
// draws a finding with a 400 whose details are the findings, leaves the
// others alone, and leaves unknown paths 404s.
func TestStrictParams(t *testing.T) {
	t.Parallel()
	w := genWorld(t)
	s := serve(t, Config{StrictParams: true}, w)
	for _, tc := range warningCases(w.Snapshots[0].Cursor(), w.Games[0].Cursor()) {
		t.Run(tc.name, func(t *testing.T) {
			r := s.get(t, tc.path, tc.query)
			switch {
			case tc.status == 404:
				checkError(t, r, errNotFoundBody)
				return
			case len(tc.want) == 0:
				if want := max(tc.status, 200); r.status != want {
					t.Fatalf("%s: status %d, want %d", r, r.status, want)
				}
				return
			}
			if r.status != http.StatusBadRequest {
				t.Fatalf("%s: status %d, want 400", r, r.status)
			}
			e := r.apiError(t)
			var inner []string
			for _, d := range e.Details {
				if d.Code != detailNotMapped || d.Message != "request refused by --strict-params" {
					t.Errorf("%s: detail %+v", r, d)
				}
				inner = append(inner, d.Inner)
			}
			if e.Code != codeInvalidArgument {
				t.Errorf("%s: code %d, want 3", r, e.Code)
			}
			checkFindings(t, r, inner, tc.want)
		})
	}
}

// TestStrictKeepsItsMeaning checks --strict alone draws no refusal of
// findings, and StrictParams alone does not refuse what only Strict does.
func TestStrictKeepsItsMeaning(t *testing.T) {
	t.Parallel()
	w := genWorld(t)
	strict := serve(t, Config{Strict: true}, w)
	if r := strict.get(t, "/transactions", "cmdTypes[]=Submit+Order"); r.status != 200 || len(r.header.Values(WarningHeader)) != 1 {
		t.Errorf("%s under Strict: status %d, findings %q", r, r.status, r.header.Values(WarningHeader))
	}
	// Strict refuses first with last, so no finding says it is ignored.
	r := strict.get(t, "/api/v2/snapshots", "pagination.first=2&pagination.last=3")
	checkError(t, r, errPagination.with("cannot provide both first and last"))
	if got := r.header.Values(WarningHeader); len(got) != 0 {
		t.Errorf("%s under Strict: findings %q", r, got)
	}
}

// TestWindowCutWarning checks a transactions window cut at the maximum page
// size carries a finding, and is refused under StrictParams.
func TestWindowCutWarning(t *testing.T) {
	t.Parallel()
	w := genWorld(t)
	txs := w.Transactions
	q := "after=" + txs[0].Cursor() + "&before=" + txs[len(txs)-1].Cursor()
	r := serve(t, Config{TxMaxPageSize: 10, TxDefaultPageSize: 5}, w).get(t, "/transactions", q)
	checkFindings(t, r, r.header.Values(WarningHeader), []string{"the rows between after and before are more than the maximum page size 10"})
	narrow := "after=" + txs[0].Cursor() + "&before=" + txs[3].Cursor()
	if r := serve(t, Config{TxMaxPageSize: 10}, w).get(t, "/transactions", narrow); len(r.header.Values(WarningHeader)) != 0 {
		t.Errorf("%s: findings %q for a window within the maximum", r, r.header.Values(WarningHeader))
	}
	r = serve(t, Config{TxMaxPageSize: 10, StrictParams: true}, w).get(t, "/transactions", q)
	checkError(t, r, errRule.with("more than the maximum page size 10"))
}

// TestWarningsBounded checks a query of many unknown keys draws at most
// warnings.MaxFindings findings and a count of the rest, each short.
func TestWarningsBounded(t *testing.T) {
	t.Parallel()
	s := serve(t, Config{}, genWorld(t))
	var q []string
	for i := range 500 {
		q = append(q, fmt.Sprintf("%s%03d=1", strings.Repeat("k", 100), i))
	}
	r := s.get(t, "/api/v2/snapshots", strings.Join(q, "&"))
	got := r.header.Values(WarningHeader)
	if len(got) != warnings.MaxFindings+1 || got[warnings.MaxFindings] != fmt.Sprintf("and %d more findings", 500-warnings.MaxFindings) {
		t.Fatalf("%d findings: %q", len(got), got)
	}
	for _, f := range got {
		if len(f) > 400 {
			t.Errorf("a finding of %d bytes: %.100s", len(f), f)
		}
	}
}

// TestWarningsLoggedAndExposed checks serve's log line carries each finding
// and CORS exposes the header to browser clients.
func TestWarningsLoggedAndExposed(t *testing.T) {
	t.Parallel()
	var log lockedLog
	s := serve(t, Config{Logger: slog.New(slog.NewTextHandler(&log, nil))}, genWorld(t))
	r := s.get(t, "/api/v2/games", "first=3&epochfrom=1")
	if !strings.Contains(r.header.Get("Access-Control-Expose-Headers"), WarningHeader) {
		t.Errorf("Access-Control-Expose-Headers = %q", r.header.Get("Access-Control-Expose-Headers"))
	}
	// The line is written once the handler returns, which may be after the
	// client has read the answer.
	for _, want := range []string{`warning="unknown parameter \"epochfrom\" ignored`, `warning="unknown parameter \"first\" ignored`} {
		if got, ok := log.await(want, 10*time.Second); !ok {
			t.Errorf("the log does not hold %s:\n%s", want, got)
		}
	}
}

// lockedLog is a log destination that handlers on the server's goroutines
// may write while the test reads it.
type lockedLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// await waits up to limit for the log to hold want, and returns what it holds.
func (l *lockedLog) await(want string, limit time.Duration) (string, bool) {
	deadline := time.Now().Add(limit)
	for {
		l.mu.Lock()
		got := l.buf.String()
		l.mu.Unlock()
		if strings.Contains(got, want) {
			return got, true
		}
		if time.Now().After(deadline) {
			return got, false
		}
		time.Sleep(5 * time.Millisecond)
	}
}
