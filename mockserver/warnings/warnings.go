// Package warnings finds what the mock reads differently from what a
// client likely meant. The spec and the real network accept such requests
// (an unknown parameter is ignored, an unknown command type matches
// nothing), so the mock does too; but a mock exists to catch a client's
// mistakes before the real network hides them, so each answer carries one
// X-Harness-Warning header per finding, short and with the likely fix.
// serve's log and the request journal show the same findings, and the
// mock's --strict-params refuses such requests instead. docs/behaviour.md
// lists the findings.
package warnings

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/chaindata/harness/generators/records"
	"github.com/chaindata/harness/generators/world"
	"github.com/chaindata/harness/internal/suggest"
)

// Header is the response header that carries one finding.
const Header = "X-Harness-Warning"

// MaxFindings bounds the findings of one request: a query of ten thousand
// unknown keys gets this many and a count of the rest.
const MaxFindings = 8

// maxShown is the most bytes of a client's value a finding echoes.
const maxShown = 64

// findings collects one request's warnings.
type findings struct {
	list []string
	more int
}

// add adds a finding, unless there are MaxFindings already.
func (f *findings) add(format string, a ...any) {
	if len(f.list) == MaxFindings {
		f.more++
		return
	}
	f.list = append(f.list, fmt.Sprintf(format, a...))
}

// full reports whether another finding would only be counted.
func (f *findings) full() bool { return len(f.list) == MaxFindings }

// done returns the findings, with the count of those left out.
func (f *findings) done() []string {
	if f.more > 0 {
		f.list = append(f.list, fmt.Sprintf("and %d more findings", f.more))
	}
	return f.list
}

// Quote quotes a client's value for a finding: in ASCII (a header value),
// at most maxShown bytes of it.
func Quote(s string) string {
	if len(s) > maxShown {
		cut := maxShown
		for cut > 0 && !isRuneStart(s[cut]) {
			cut--
		}
		return strconv.QuoteToASCII(s[:cut]+"…") + fmt.Sprintf(" (%d bytes)", len(s))
	}
	return strconv.QuoteToASCII(s)
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// paramSpec is the query parameters a listing reads.
type paramSpec struct {
	// names are the parameters' names, as docs/behaviour.md gives them.
	names []string
	// name maps every accepted spelling to its name.
	name map[string]string
	// repeated are the names read once per value.
	repeated map[string]bool
}

// newParamSpec makes a spec of pairs of a name and its snake_case spelling
// ("" for none); repeated names are read once per value.
func newParamSpec(repeated []string, pairs ...string) paramSpec {
	p := paramSpec{name: map[string]string{}, repeated: map[string]bool{}}
	for i := 0; i < len(pairs); i += 2 {
		p.names = append(p.names, pairs[i])
		p.name[pairs[i]] = pairs[i]
		if pairs[i+1] != "" {
			p.name[pairs[i+1]] = pairs[i]
		}
	}
	for _, r := range repeated {
		p.repeated[r] = true
	}
	return p
}

// pagingPairs are the pagination parameters of the four /api/v2 listings.
var pagingPairs = []string{
	"pagination.first", "", "pagination.after", "", "pagination.last", "",
	"pagination.before", "", "pagination.newestFirst", "pagination.newest_first",
}

// paramSpecs are the parameters of each listing.
var paramSpecs = map[string]paramSpec{
	records.ListingGames: newParamSpec(nil, append(slices.Clone(pagingPairs),
		"gameId", "game_id", "epochFrom", "epoch_from", "epochTo", "epoch_to",
		"entityScope", "entity_scope", "teamId", "team_id", "partyId", "party_id")...),
	records.ListingSnapshots:         newParamSpec(nil, pagingPairs...),
	records.ListingKeyRotations:      newParamSpec(nil, append(slices.Clone(pagingPairs), "nodeId", "node_id")...),
	records.ListingNetworkParameters: newParamSpec(nil, pagingPairs...),
	records.ListingTransactions: newParamSpec([]string{"cmdTypes", "excludeCmdTypes", "parties"},
		"first", "", "last", "", "before", "", "after", "",
		"cmdTypes", "cmd_types", "excludeCmdTypes", "exclude_cmd_types", "parties", ""),
}

// listingNames are the listings as findings name them.
var listingNames = map[string]string{
	records.ListingGames: "games", records.ListingSnapshots: "snapshots",
	records.ListingKeyRotations: "key rotations", records.ListingNetworkParameters: "network parameters",
	records.ListingTransactions: "transactions",
}

// otherSpelling maps the paging parameters of the transaction listing to
// the /api/v2 listings' and back: the mistake of a client of both.
var otherSpelling = map[bool]map[string]string{
	// on transactions
	true: {
		"pagination.first": "first", "pagination.last": "last", "pagination.after": "after",
		"pagination.before": "before", "pagination.newestFirst": "", "pagination.newest_first": "",
	},
	// on an /api/v2 listing
	false: {
		"first": "pagination.first", "last": "pagination.last", "after": "pagination.after",
		"before": "pagination.before", "newestFirst": "pagination.newestFirst", "newest_first": "pagination.newestFirst",
	},
}

// aliases are other APIs' names for the same thing, lower case, by whether
// the listing is transactions; "" means there is no such thing here.
var aliases = map[bool]map[string]string{
	true: {
		"limit": "first", "pagesize": "first", "page_size": "first", "per_page": "first", "count": "first", "size": "first",
		"cursor": "before", "pagetoken": "before", "page_token": "before", "offset": "", "page": "",
		"party": "parties", "partyid": "parties", "party_id": "parties", "partyids": "parties", "party_ids": "parties",
		"type": "cmdTypes", "types": "cmdTypes", "cmdtype": "cmdTypes", "cmd_type": "cmdTypes", "commandtypes": "cmdTypes",
	},
	false: {
		"limit": "pagination.first", "pagesize": "pagination.first", "page_size": "pagination.first", "per_page": "pagination.first",
		"count": "pagination.first", "size": "pagination.first", "cursor": "pagination.after", "pagetoken": "pagination.after",
		"page_token": "pagination.after", "offset": "", "page": "",
	},
}

// Checker finds the warnings of requests to a mock of these limits.
type Checker struct {
	// MaxPageSize is the largest count the /api/v2 listings answer.
	MaxPageSize int
	// TxMaxPageSize and TxDefaultPageSize are the transaction listing's
	// largest count and the count it answers when none is given.
	TxMaxPageSize, TxDefaultPageSize int
	// EpochWindow is the most epochs a games query reads.
	EpochWindow int
	// Strict is the mock's --strict: the requests it refuses draw no
	// warning of what they would otherwise be read as.
	Strict bool
	// Paths are the listings' paths, for an unknown path's nearest.
	Paths []string
	// CommandTypes returns every command type the mock serves, sorted (nil:
	// the generators' alone). It is called only for a type the generators
	// do not make.
	CommandTypes func() []string
}

// Of returns a request's query (nil when it has none or it does not parse)
// and its findings; known says whether its path is a listing's.
func (s *Checker) Of(r *http.Request, listing string, known bool) (url.Values, []string) {
	return s.OfInto(r, listing, known, nil)
}

// OfInto is Of, its query parsed into buf (nil: a map of its own), so that
// the query it returns is valid until buf's next use.
func (s *Checker) OfInto(r *http.Request, listing string, known bool, buf *QueryBuffer) (url.Values, []string) {
	var f findings
	if !known {
		f.add("unknown path %s%s", Quote(r.URL.Path), s.NearPath(r.URL.Path))
		return nil, f.done()
	}
	if r.URL.RawQuery == "" || (r.Method != http.MethodGet && r.Method != http.MethodHead) {
		return nil, nil
	}
	if buf == nil {
		buf = new(QueryBuffer)
	}
	q, err := buf.Parse(r.URL.RawQuery)
	if err != nil {
		return nil, nil // a 400 says what is wrong
	}
	s.nameWarnings(listing, q, &f)
	if listing == records.ListingTransactions {
		s.txWarnings(q, &f)
	} else {
		s.pagedWarnings(listing, q, &f)
	}
	return q, f.done()
}

// nameWarnings finds the parameters a listing does not read, and those it
// reads once that are given more than once.
func (s *Checker) nameWarnings(listing string, q url.Values, f *findings) {
	spec := paramSpecs[listing]
	if plainNames(spec, q) {
		return
	}
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	bracketed := map[string]bool{}
	for _, k := range keys {
		if f.full() {
			f.more++
			continue
		}
		if _, ok := spec.name[k]; ok {
			continue
		}
		if base, inner, ok := bracketKey(k); ok {
			if !bracketed[base] {
				bracketed[base] = true
				bracketWarning(listing, spec, k, base, inner, f)
			}
			continue
		}
		unknownWarning(listing, spec, k, f)
	}
	for _, name := range spec.names {
		if spec.repeated[name] {
			continue
		}
		var given []string
		for _, k := range keys {
			if spec.name[k] == name {
				given = append(given, q[k]...)
			}
		}
		if len(given) > 1 {
			v, _ := query(q).Get(spellings(spec, name)...)
			f.add("%s given %d times; only the first value, %s, is read", name, len(given), Quote(v))
		}
	}
}

// plainNames reports whether every key of q is a name the listing reads,
// and each name read once is given once: the common case, decided without
// allocating.
func plainNames(spec paramSpec, q url.Values) bool {
	for k, v := range q {
		name, ok := spec.name[k]
		switch {
		case !ok:
			return false
		case spec.repeated[name]:
		case len(v) > 1:
			return false
		case name != k: // another spelling: is the name given too?
			if _, both := q[name]; both {
				return false
			}
		}
	}
	return true
}

// spellings returns the spellings of a name, the name first.
func spellings(spec paramSpec, name string) []string {
	out := []string{name}
	for k, n := range spec.name {
		if n == name && k != name {
			out = append(out, k)
		}
	}
	return out
}

// bracketKey splits a key of the bracket style of PHP, Rails and the qs
// library (cmdTypes[], cmdTypes[0], pagination[first]) into its base and
// what is inside the brackets.
func bracketKey(k string) (base, inner string, ok bool) {
	i := strings.IndexByte(k, '[')
	if i <= 0 || !strings.HasSuffix(k, "]") {
		return "", "", false
	}
	return k[:i], k[i+1 : len(k)-1], true
}

// bracketWarning is the finding of a bracketed key, which the gateway and
// the explorer read as an unknown name.
func bracketWarning(listing string, spec paramSpec, key, base, inner string, f *findings) {
	if name, ok := spec.name[base+"."+inner]; ok && inner != "" && !isIndex(inner) {
		f.add("%s is not read (an unknown name); write %s=N: nested names take a dot, not brackets", Quote(key), name)
		return
	}
	name, ok := spec.name[base]
	switch {
	case ok && spec.repeated[name]:
		f.add("%s is not read (an unknown name); repeat the key: %s=A&%s=B", Quote(key), name, name)
	case ok:
		f.add("%s is not read (an unknown name); write %s=N, without brackets", Quote(key), name)
	default:
		unknownWarning(listing, spec, key, f)
	}
}

// isIndex reports whether s is empty or decimal digits: an array index.
func isIndex(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// unknownWarning is the finding of a parameter the listing does not read,
// with the name the client likely meant.
func unknownWarning(listing string, spec paramSpec, k string, f *findings) {
	tx := listing == records.ListingTransactions
	lead := "unknown parameter " + Quote(k) + " ignored"
	if fix, ok := otherSpelling[tx][k]; ok {
		switch {
		case fix == "":
			f.add("%s; transactions are always newest first", lead)
		case tx:
			f.add("%s; write %s (pagination.* is the /api/v2 listings' spelling)", lead, fix)
		default:
			f.add("%s; write %s (%s is the transaction listing's spelling)", lead, fix, k)
		}
		return
	}
	for spelling, name := range spec.name {
		if strings.EqualFold(spelling, k) {
			f.add("%s; write %s (names are case-sensitive)", lead, name)
			return
		}
	}
	if fix, ok := aliases[tx][strings.ToLower(k)]; ok {
		if fix == "" {
			cursor := "pagination.after=<pageInfo.endCursor>"
			if tx {
				cursor = "last=N&before=<the oldest row's cursor>"
			}
			f.add("%s; there are no offsets or page numbers: follow the cursors (%s)", lead, cursor)
		} else {
			f.add("%s; write %s", lead, fix)
		}
		return
	}
	if owners := ownersOf(k, listing); len(owners) > 0 {
		f.add("%s; %s is read by %s, not by %s", lead, k, strings.Join(owners, " and "), listingNames[listing])
		return
	}
	if near := suggest.Nearest(k, spec.names, 2); len(near) > 0 {
		f.add("%s%s", lead, suggest.Phrase(near, func(s string) string { return s }))
		return
	}
	f.add("%s; %s read %s", lead, listingNames[listing], strings.Join(spec.names, ", "))
}

// ownersOf names the other listings that read parameter k.
func ownersOf(k, listing string) []string {
	var out []string
	for _, l := range []string{records.ListingGames, records.ListingKeyRotations, records.ListingTransactions} {
		if _, ok := paramSpecs[l].name[k]; ok && l != listing {
			out = append(out, listingNames[l])
		}
	}
	return out
}

// pagedWarnings finds what the /api/v2 listings read differently in the
// values of a request.
func (s *Checker) pagedWarnings(listing string, q url.Values, f *findings) {
	qq := query(q)
	first, hasFirst := qq.Get("pagination.first")
	last, hasLast := qq.Get("pagination.last")
	_, hasAfter := qq.Get("pagination.after")
	_, hasBefore := qq.Get("pagination.before")
	for _, c := range []struct{ name, value, follow string }{
		{"pagination.first", first, "pageInfo.endCursor with pagination.after"},
		{"pagination.last", last, "pageInfo.startCursor with pagination.before"},
	} {
		if c.value == "" {
			continue
		}
		if n, err := strconv.ParseInt(c.value, 10, 64); err == nil && n > int64(s.MaxPageSize) {
			f.add("%s=%d is above the maximum page size %d and is refused; ask for at most %d and follow %s",
				c.name, n, s.MaxPageSize, s.MaxPageSize, c.follow)
		}
	}
	if !s.Strict {
		switch {
		case hasFirst && hasLast:
			f.add("pagination.last is ignored beside pagination.first, as on the real node; give one of them")
		case hasFirst && hasBefore:
			f.add("pagination.before is ignored beside pagination.first; page forwards with pagination.after, backwards with pagination.last")
		case hasLast && hasAfter:
			f.add("pagination.after is ignored beside pagination.last; page backwards with pagination.before")
		}
	}
	if v, ok := qq.Get("pagination.newestFirst", "pagination.newest_first"); ok {
		boolWarning("pagination.newestFirst", v, f)
		if listing == records.ListingNetworkParameters && (v == "false" || v == "0") {
			f.add("pagination.newestFirst=%s is ignored: network parameters are always in key order, A to Z", v)
		}
	}
	for _, name := range []string{"pagination.after", "pagination.before"} {
		if c, ok := qq.Get(name); ok && c != "" {
			cursorWarning(listing, name, c, f)
		}
	}
	if listing == records.ListingGames {
		s.gamesWarnings(qq, f)
	}
}

// boolWarning finds a boolean the mock refuses that the client likely meant
// as true or false.
func boolWarning(name, v string, f *findings) {
	switch strings.ToLower(v) {
	case "true", "false", "1", "0":
		if v != strings.ToLower(v) {
			f.add("%s=%s does not parse and is refused; write %s", name, Quote(v), strings.ToLower(v))
		}
	case "yes", "on", "t", "y":
		f.add("%s=%s does not parse and is refused; write true", name, Quote(v))
	case "no", "off", "f", "n":
		f.add("%s=%s does not parse and is refused; write false", name, Quote(v))
	}
}

// CursorListing names the listing whose cursor c looks like ("" when none):
// the shape alone, without allocating, since the handler checks the cursor
// whole anyway. A transaction's is "<block>.<index>"; the others are base64
// of a JSON object whose first field says whose it is.
func CursorListing(c string) string {
	if b, i, ok := strings.Cut(c, "."); ok && isIndex(b) && isIndex(i) && b != "" && i != "" {
		return records.ListingTransactions
	}
	var buf [96]byte
	head := c[:min(len(c), 128)] // 96 bytes of JSON, enough for the first field
	head = head[:len(head)/4*4]
	n, err := base64.StdEncoding.Decode(buf[:], []byte(head))
	if err != nil && n == 0 {
		return ""
	}
	j := buf[:n]
	switch {
	case bytes.HasPrefix(j, []byte(`{"epoch":`)):
		return records.ListingGames
	case bytes.HasPrefix(j, []byte(`{"blockHeight":`)) && bytes.Contains(j, []byte(`"nodeId":`)):
		return records.ListingKeyRotations
	case bytes.HasPrefix(j, []byte(`{"blockHeight":`)):
		return records.ListingSnapshots
	case bytes.HasPrefix(j, []byte(`{"key":`)):
		return records.ListingNetworkParameters
	}
	return ""
}

// cursorWarning finds a cursor of another listing, which the listing
// refuses.
func cursorWarning(listing, name, c string, f *findings) {
	other := CursorListing(c)
	if other == "" || other == listing {
		return
	}
	from := "a page of " + listingNames[listing]
	if listing == records.ListingTransactions {
		from = "a transaction's cursor field (<block>.<index>)"
	}
	f.add("%s is a cursor of %s and is refused; use one from %s", name, listingNames[other], from)
}

// gamesWarnings finds what the games listing reads differently: a scope
// that is no name, a window it cuts or turns round, a team filter the scope
// ignores.
func (s *Checker) gamesWarnings(q query, f *findings) {
	scope, hasScope := q.Get("entityScope", "entity_scope")
	if _, known := scopeNumbers[scope]; hasScope && !known {
		f.add("entityScope=%s is refused: not an EntityScope name%s", Quote(scope), suggest.Phrase(scopeNear(scope), func(s string) string { return s }))
	}
	if team, ok := q.Get("teamId", "team_id"); ok && team != "" && scope == "ENTITY_SCOPE_INDIVIDUALS" {
		f.add("teamId is ignored under entityScope=ENTITY_SCOPE_INDIVIDUALS (spec 4.1); drop one of them")
	}
	fromText, hasFrom := q.Get("epochFrom", "epoch_from")
	toText, hasTo := q.Get("epochTo", "epoch_to")
	if !hasFrom || !hasTo { // most requests: parsing "" would allocate its error
		return
	}
	from, err1 := strconv.ParseUint(fromText, 10, 64)
	to, err2 := strconv.ParseUint(toText, 10, 64)
	if err1 != nil || err2 != nil {
		return
	}
	span := uint64(s.EpochWindow)
	switch {
	case from > to && !s.Strict:
		f.add("epochFrom %d is above epochTo %d; the window read is the %d epochs up to %d: swap them", from, to, span, to)
	case to-from >= span && from <= to:
		f.add("epochFrom %d to epochTo %d spans %d epochs; only the last %d are read (from %d): ask in windows of %d epochs",
			from, to, to-from+1, span, to-span+1, span)
	}
}

// scopeNear returns the EntityScope names a refused scope likely meant: by
// number (the gateway reads numbers, the mock names only), without the
// ENTITY_SCOPE_ prefix, or the nearest.
func scopeNear(v string) []string {
	names := []string{"ENTITY_SCOPE_UNSPECIFIED", "ENTITY_SCOPE_INDIVIDUALS", "ENTITY_SCOPE_TEAMS"}
	if n, err := strconv.Atoi(v); err == nil && n >= 0 && n < len(names) {
		return names[n : n+1]
	}
	for _, name := range names {
		if strings.EqualFold(name, v) || strings.EqualFold(strings.TrimPrefix(name, "ENTITY_SCOPE_"), v) {
			return []string{name}
		}
	}
	return suggest.Nearest(v, names, 1)
}

// txWarnings finds what the transaction listing reads differently in the
// values of a request.
func (s *Checker) txWarnings(q url.Values, f *findings) {
	qq := query(q)
	for _, name := range []string{"first", "last"} {
		v, ok := qq.Get(name)
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		switch {
		case v == "" || (err == nil && n == 0):
			f.add("%s=%s reads as not given; the answer holds the default %d transactions", name, v, s.TxDefaultPageSize)
		case err == nil && n > int64(s.TxMaxPageSize):
			f.add("%s=%d is above the maximum page size %d and is refused; ask for at most %d and page on with the cursors",
				name, n, s.TxMaxPageSize, s.TxMaxPageSize)
		}
	}
	for _, name := range []string{"after", "before"} {
		if c, ok := qq.Get(name); ok && c != "" {
			cursorWarning(records.ListingTransactions, name, c, f)
		}
	}
	for _, names := range [...][2]string{{"cmdTypes", "cmd_types"}, {"excludeCmdTypes", "exclude_cmd_types"}} {
		// The common case, types the generators make, draws no finding:
		// it is decided without gathering the values.
		if !allTypeNames(q[names[0]]) || !allTypeNames(q[names[1]]) {
			s.cmdTypeWarnings(names[0], qq.All(names[0], names[1]), f)
		}
	}
	for _, p := range dedupe(qq.All("parties")) {
		switch {
		case p == "":
			f.add("parties= is empty and matches no transaction; drop it")
		case strings.Contains(p, ","):
			f.add("parties=%s is one party ID, not a list; repeat the key: parties=A&parties=B", Quote(p))
		}
	}
}

// allTypeNames reports whether every value is a command type the
// generators make (none is).
func allTypeNames(values []string) bool {
	for _, v := range values {
		if !commandTypeNames[v] {
			return false
		}
	}
	return true
}

// dedupe returns values without repeats, in order.
func dedupe(values []string) []string {
	var out []string
	seen := make(map[string]bool, len(values))
	for _, v := range values {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// cmdTypeWarnings finds command types that match no transaction, with the
// type the client likely meant.
func (s *Checker) cmdTypeWarnings(name string, values []string, f *findings) {
	effect := "matches no transaction"
	if name == "excludeCmdTypes" {
		effect = "excludes nothing"
	}
	var known []string
	for _, v := range dedupe(values) {
		if commandTypeNames[v] || f.full() {
			continue
		}
		if known == nil {
			known = s.commandTypes()
		}
		if slices.Contains(known, v) {
			continue
		}
		switch {
		case v == "":
			f.add("%s= is empty and %s; drop it", name, effect)
		case len(v) <= maxShown*4 && strings.Contains(v, ",") && allKnown(strings.Split(v, ","), known):
			f.add("%s=%s is one type name, not a list, and %s; repeat the key: %s=A&%s=B", name, Quote(v), effect, name, name)
		case world.CommandTypes[v] != "":
			f.add("%s=%s %s: it is the command's field name; write %s", name, Quote(v), effect, world.CommandTypes[v])
		default:
			f.add("%s=%s %s: no such command type%s", name, Quote(v), effect, suggest.Phrase(suggest.Nearest(v, known, 2), strconv.Quote))
		}
	}
}

// allKnown reports whether every trimmed part is a known type.
func allKnown(parts, known []string) bool {
	for _, p := range parts {
		if !slices.Contains(known, strings.TrimSpace(p)) {
			return false
		}
	}
	return true
}

// commandTypeNames are the type names of the commands the generators make.
var commandTypeNames = func() map[string]bool {
	m := map[string]bool{}
	for _, name := range world.CommandTypes {
		m[name] = true
	}
	return m
}()

// NearPath asks whether the client meant a listing's path: the same path
// cleaned or in another case, the one of the same last segment
// (/api/v2/transactions for /transactions), or the nearest; "" when none is
// near.
func (s *Checker) NearPath(p string) string {
	if len(p) > suggest.MaxWord {
		return ""
	}
	clean := strings.TrimSuffix(path.Clean("/"+p), "/")
	last := clean[strings.LastIndexByte(clean, '/')+1:]
	var near []string
	for _, lp := range s.Paths {
		if strings.EqualFold(lp, clean) || (last != "" && strings.EqualFold(lp[strings.LastIndexByte(lp, '/')+1:], last)) {
			near = append(near, lp)
		}
	}
	if len(near) == 0 {
		near = suggest.Nearest(clean, s.Paths, 2)
	}
	return suggest.Phrase(near[:min(len(near), 2)], func(s string) string { return s })
}

// commandTypes returns every command type the mock knows, sorted.
func (s *Checker) commandTypes() []string {
	var out []string
	if s.CommandTypes != nil {
		out = s.CommandTypes()
	}
	for name := range commandTypeNames {
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// scopeNumbers are the EntityScope names the games listing reads.
var scopeNumbers = map[string]int{"ENTITY_SCOPE_UNSPECIFIED": 0, "ENTITY_SCOPE_INDIVIDUALS": 1, "ENTITY_SCOPE_TEAMS": 2}

// query reads a request's parameters under any of their spellings.
type query = records.Query
