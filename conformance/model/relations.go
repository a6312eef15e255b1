package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Relation is one entry of RelationCatalogue: a relation the spec fixes
// inside a record, between the records of an answer, between a record and
// the query that selected it, or between a timestamp and the chain's time
// in the unit its field names. A Relations judges rows against them.
type Relation struct {
	// Name is the relation's stable name (the relation rules and the docs
	// table use it).
	Name string
	// Scope is the suite label of the rows it judges: a listing's, or
	// "deployment" for the answers' block headers.
	Scope string
	// Section and Quote are the spec text it rests on (a MUST relation), or
	// empty (a SHOULD relation, which Why explains).
	Section, Quote string
	// Level is Must where the spec fixes the relation, Should where only
	// docs/behaviour.md or the spec's meanings do.
	Level Level
	// Text is the relation as one sentence: the rule's text.
	Text string
	// Why says, for a SHOULD relation, which document fixes it; for a MUST
	// one, anything the quote leaves to say (how it is read).
	Why string
	// Kind is where the relation lies: "record" (inside one record),
	// "answer" (between the records of one answer), "query" (between a
	// record and the query that selected it), "units" (a timestamp and the
	// chain's time) or "header" (a record and the answer's headers).
	Kind string
	// Accepted says the relation is judged on accepted transactions only
	// (code 0): a command's input rules are the network's acceptance rules,
	// and a rejected transaction carries its command as submitted, which
	// may break them (that may be why it was rejected).
	Accepted bool
}

// Violation is one row that breaks a relation.
type Violation struct {
	// Relation is the relation's name.
	Relation string
	// Key names the row (its listing's key: a game's epoch and ID, a
	// snapshot's or rotation's height, a transaction's block and index).
	Key string
	// URL is the answer the row came in, and Row the row's place there.
	URL string
	Row int
	// Detail says what differs.
	Detail string
}

// String writes the violation for a message.
func (v Violation) String() string {
	return fmt.Sprintf("%s (in %s): %s", v.Key, v.URL, v.Detail)
}

// ServedAnswer is one 200 answer of a listing, its rows as served: the records
// (a paged listing's nodes, the transactions) as raw JSON, with the answer's
// URL, query and headers. Relations between the rows of an answer are
// judged only on rows handed over with their Answer.
type ServedAnswer struct {
	Listing Listing
	URL     string
	Query   url.Values
	Header  http.Header
	// Nodes are the records, in the answer's order; Cursors the edges'
	// cursors (paged listings).
	Nodes   []json.RawMessage
	Cursors []string

	once    sync.Once
	summary []*rowFacts
	// What the relations between the rows read, worked out once: the
	// newest epoch (games), the first row of each key (network
	// parameters), and each rotation's previous rotation of its node (the
	// row of the highest height below its own; -1 for none).
	newestEpoch uint64
	firstOfKey  map[string]int
	prevOfNode  []int
}

// NewServedAnswer reads a 200 answer of the listing: its records as raw JSON. The
// query is read from rawURL.
func NewServedAnswer(l Listing, rawURL string, header http.Header, body []byte) (*ServedAnswer, error) {
	a := &ServedAnswer{Listing: l, URL: rawURL, Header: header, Query: url.Values{}}
	if u, err := url.Parse(rawURL); err == nil {
		a.Query = u.Query()
	}
	field := listingInfo[l].field
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		return nil, fmt.Errorf("body is not a JSON object: %w", err)
	}
	raw, ok := top[field]
	if !ok {
		return nil, fmt.Errorf("body has no %q field", field)
	}
	if !l.paged() {
		if err := json.Unmarshal(raw, &a.Nodes); err != nil {
			return nil, fmt.Errorf("field %q is not an array: %w", field, err)
		}
		return a, nil
	}
	var conn struct {
		Edges []struct {
			Cursor string          `json:"cursor"`
			Node   json.RawMessage `json:"node"`
		} `json:"edges"`
	}
	if err := json.Unmarshal(raw, &conn); err != nil {
		return nil, fmt.Errorf("field %q is not a page: %w", field, err)
	}
	for _, e := range conn.Edges {
		a.Nodes = append(a.Nodes, e.Node)
		a.Cursors = append(a.Cursors, e.Cursor)
	}
	return a, nil
}

// Row returns the context of the answer's row i.
func (a *ServedAnswer) Row(i int) ServedRow {
	rc := ServedRow{Listing: a.Listing, URL: a.URL, Query: a.Query, Header: a.Header, Node: a.Nodes[i], Answer: a, Index: i}
	if i < len(a.Cursors) {
		rc.Cursor = a.Cursors[i]
	}
	return rc
}

// facts returns what the relations read of every row of the answer, read
// once however many rows are checked (and, through r, once for a record
// met in several answers).
func (a *ServedAnswer) facts(r *Relations) []*rowFacts {
	a.once.Do(func() {
		a.summary = make([]*rowFacts, len(a.Nodes))
		for i, n := range a.Nodes {
			a.summary[i] = r.factsOf(a.Listing, n, r.hash(n))
		}
		a.relate()
	})
	return a.summary
}

// relate works out what the relations between the rows read.
func (a *ServedAnswer) relate() {
	switch a.Listing {
	case Games:
		for _, x := range a.summary {
			if x.hasEpoch {
				a.newestEpoch = max(a.newestEpoch, x.epoch)
			}
		}
	case Parameters:
		a.firstOfKey = map[string]int{}
		for i, x := range a.summary {
			if _, dup := a.firstOfKey[x.paramKey]; x.hasKey && !dup {
				a.firstOfKey[x.paramKey] = i
			}
		}
	case Rotations:
		byNode := map[string][]int{}
		for i, x := range a.summary {
			if x.hasHeight && x.nodeID != "" {
				byNode[x.nodeID] = append(byNode[x.nodeID], i)
			}
		}
		a.prevOfNode = make([]int, len(a.summary))
		for i := range a.prevOfNode {
			a.prevOfNode[i] = -1
		}
		for _, rows := range byNode {
			slices.SortStableFunc(rows, func(i, j int) int { return cmpUint(a.summary[i].height, a.summary[j].height) })
			// Each row's previous is the last of the rows of the height
			// below its own (rows of one height, a row given twice, share
			// it).
			prev := -1
			for k := 0; k < len(rows); {
				j := k
				for ; j < len(rows) && a.summary[rows[j]].height == a.summary[rows[k]].height; j++ {
					a.prevOfNode[rows[j]] = prev
				}
				prev, k = rows[j-1], j
			}
		}
	}
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

// ServedRow is one row as served: its record, the answer's URL, query and
// headers, and (when the caller has it) the answer it came in with its
// place there.
type ServedRow struct {
	Listing Listing
	URL     string
	Query   url.Values
	Header  http.Header
	// Node is the record as served: a paged listing's node, a transaction.
	Node   json.RawMessage
	Cursor string
	// Answer is the answer the row came in and Index its place there; nil
	// when the caller has only the row (the relations between the rows of
	// an answer are then not judged).
	Answer *ServedAnswer
	Index  int
}

// Bounds of what a Relations keeps.
const (
	// maxViolations is how many violations of one relation are kept; the
	// rest are counted (Omitted).
	maxViolations = 50
	// maxRemembered is how many distinct records a Relations remembers
	// having judged inside, and maxFactsBytes about the memory of what it
	// keeps read of them; past either, it forgets them all and starts
	// again (a record may then be judged, and reported, again).
	maxRemembered = 200_000
	maxFactsBytes = 16 << 20
)

// Relations judges rows against the relation catalogue and tallies, per
// relation, the cases judged and the violations found. It is safe for
// concurrent use. A record met again with the same bytes is not judged
// inside again (its relations with the query and its answer are).
type Relations struct {
	seed maphash.Seed

	mu      sync.Mutex
	tallies map[string]*relTally
	// facts holds what was read of each distinct record (by its digest);
	// judged the day of the chain's time each was judged inside against.
	facts      map[uint64]*rowFacts
	factsBytes int
	judged     map[uint64]int64
	// The bounds of facts and judged (maxFactsBytes, maxRemembered).
	maxFacts, maxJudged int
}

type relTally struct {
	cases      int
	violations []Violation
	omitted    int
}

// NewRelations returns a Relations with nothing judged yet.
func NewRelations() *Relations {
	return &Relations{seed: maphash.MakeSeed(), tallies: map[string]*relTally{},
		facts: map[uint64]*rowFacts{}, judged: map[uint64]int64{}, maxFacts: maxFactsBytes, maxJudged: maxRemembered}
}

// Results returns what was found of one relation: how many cases were
// judged, and the violations kept (at most maxViolations, sorted by URL
// and key; Omitted counts the rest).
func (r *Relations) Results(name string) (cases int, violations []Violation) {
	r.mu.Lock()
	defer r.mu.Unlock()
	t, ok := r.tallies[name]
	if !ok {
		return 0, nil
	}
	out := slices.Clone(t.violations)
	slices.SortStableFunc(out, func(a, b Violation) int {
		if c := strings.Compare(a.URL, b.URL); c != 0 {
			return c
		}
		return strings.Compare(a.Key, b.Key)
	})
	return t.cases, out
}

// Omitted returns how many violations of a relation were found beyond
// those Results keeps.
func (r *Relations) Omitted(name string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if t, ok := r.tallies[name]; ok {
		return t.omitted
	}
	return 0
}

// CheckObserved checks every row of an answer the run's observer read
// (AnswerCheck): the records' bytes the decoder found, or the body read
// again when it found them not.
func (r *Relations) CheckObserved(a *Answer, p *Page) {
	sa := &ServedAnswer{Listing: a.Listing, URL: a.URL, Query: a.Query, Header: a.Header}
	for i := range p.Rows {
		n := p.Node(i)
		if n == nil {
			sa = nil
			break
		}
		sa.Nodes = append(sa.Nodes, n)
		if a.Listing.paged() {
			sa.Cursors = append(sa.Cursors, p.Rows[i].Cursor)
		}
	}
	if sa == nil {
		var err error
		if sa, err = NewServedAnswer(a.Listing, a.URL, a.Header, a.Body); err != nil {
			return // the schema rules judge an answer that cannot be read
		}
	}
	r.CheckAnswer(sa)
}

// CheckAnswer checks every row of an answer.
func (r *Relations) CheckAnswer(a *ServedAnswer) {
	for i := range a.Nodes {
		r.Check(a.Row(i))
	}
}

// finding is what one check of one row found: a case of a relation judged,
// with a detail when it was broken.
type finding struct {
	name, detail string
	broken       bool
}

// found collects the findings of one row.
type found []finding

func (f *found) judged(name string) { *f = append(*f, finding{name: name}) }
func (f *found) broken(name, format string, args ...any) {
	*f = append(*f, finding{name: name, broken: true, detail: fmt.Sprintf(format, args...)})
}

// check judges one case: ok, or broken with the detail.
func (f *found) check(name string, ok bool, format string, args ...any) {
	if ok {
		f.judged(name)
		return
	}
	f.broken(name, format, args...)
}

// Check judges one row against every relation of its listing.
func (r *Relations) Check(rc ServedRow) {
	h := r.hash(rc.Node)
	if rc.Answer != nil && (rc.Index < 0 || rc.Index >= len(rc.Answer.Nodes)) {
		rc.Answer = nil // not a row of that answer: judged alone
	}
	var facts *rowFacts
	if rc.Answer != nil {
		facts = rc.Answer.facts(r)[rc.Index]
	} else {
		facts = r.factsOf(rc.Listing, rc.Node, h)
	}
	var f found
	// Inside the record: once per distinct record (its bytes) and day of
	// the chain's time, which its timestamps are judged against.
	chain := chainTime(rc.Header)
	r.mu.Lock()
	day, judged := r.judged[h]
	inside := !judged || day != chain.day()
	if inside {
		if len(r.judged) >= r.maxJudged {
			clear(r.judged)
		}
		r.judged[h] = chain.day()
	}
	r.mu.Unlock()
	if inside {
		judgeRecord(rc.Listing, facts, rc.Node, chain, &f)
	}
	judgeQuery(rc, facts, &f)
	if rc.Answer != nil {
		judgeAnswer(rc, facts, &f)
	}
	judgeHeaders(rc, facts, &f)
	r.record(rc, facts, f)
}

// hash is the digest a record is remembered by.
func (r *Relations) hash(node []byte) uint64 { return maphash.Bytes(r.seed, node) }

// factsOf returns what the relations read of a record, read once per
// distinct record.
func (r *Relations) factsOf(l Listing, node []byte, h uint64) *rowFacts {
	r.mu.Lock()
	x, ok := r.facts[h]
	r.mu.Unlock()
	if ok {
		return x
	}
	x = readFacts(l, node)
	r.mu.Lock()
	if r.factsBytes+x.size() > r.maxFacts {
		clear(r.facts)
		r.factsBytes = 0
	}
	r.facts[h] = x
	r.factsBytes += x.size()
	r.mu.Unlock()
	return x
}

// record tallies one row's findings.
func (r *Relations) record(rc ServedRow, facts *rowFacts, f found) {
	if len(f) == 0 {
		return
	}
	key := facts.key
	if key == "" {
		key = fmt.Sprintf("row %d of the answer", rc.Index)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, x := range f {
		t, ok := r.tallies[x.name]
		if !ok {
			t = &relTally{}
			r.tallies[x.name] = t
		}
		t.cases++
		if !x.broken {
			continue
		}
		if len(t.violations) >= maxViolations {
			t.omitted++
			continue
		}
		t.violations = append(t.violations, Violation{Relation: x.name, Key: key, URL: rc.URL, Row: rc.Index, Detail: x.detail})
	}
}

// rowFacts is what the relations read of one record, read once.
type rowFacts struct {
	// key names the row; "" when the record lacks its key's fields.
	key string
	// Games.
	epoch      uint64
	hasEpoch   bool
	id         string
	individual bool
	team       bool
	teams      []string
	players    []string
	members    []string
	// Snapshots and key rotations.
	height     uint64
	hasHeight  bool
	nodeID     string
	oldAddress string
	newAddress string
	hasOld     bool
	hasNew     bool
	// Network parameters.
	paramKey string
	hasKey   bool
	// Transactions.
	block       uint64
	hasBlock    bool
	index       uint64
	hasIndex    bool
	cursor      string
	hasCursor   bool
	txType      string
	hasType     bool
	submitter   string
	receivers   []string
	code        int64
	hasCode     bool
	errText     string
	hasError    bool
	createdAt   string
	hasCommand  bool
	commandKind []string // the command variants set (known names)
	// bad says why the record could not be read ("" when it could).
	bad string
}

// relRecord holds every field of any listing's record the relations read;
// numbers are kept raw, so that both integer encodings (a digit string, a
// JSON integer) are read alike.
type relRecord struct {
	Epoch       json.RawMessage    `json:"epoch"`
	ID          *string            `json:"id"`
	Individual  *individualEntries `json:"individual"`
	Team        *teamEntries       `json:"team"`
	BlockHeight json.RawMessage    `json:"blockHeight"`
	NodeID      *string            `json:"nodeId"`
	OldAddress  *string            `json:"oldAddress"`
	NewAddress  *string            `json:"newAddress"`
	Key         *string            `json:"key"`
	Block       json.RawMessage    `json:"block"`
	Index       json.RawMessage    `json:"index"`
	Cursor      *string            `json:"cursor"`
	Type        *string            `json:"type"`
	Submitter   string             `json:"submitter"`
	Code        json.RawMessage    `json:"code"`
	Error       *string            `json:"error"`
	CreatedAt   string             `json:"createdAt"`
	Command     json.RawMessage    `json:"command"`
}

// readFacts reads one record of the listing.
func readFacts(l Listing, node json.RawMessage) *rowFacts {
	f := &rowFacts{}
	var rec relRecord
	if err := json.Unmarshal(node, &rec); err != nil {
		f.bad = "the record cannot be read: " + err.Error()
		return f
	}
	f.epoch, f.hasEpoch = rawUint(rec.Epoch)
	f.height, f.hasHeight = rawUint(rec.BlockHeight)
	f.id, _ = deref(rec.ID)
	f.nodeID, _ = deref(rec.NodeID)
	f.oldAddress, f.hasOld = deref(rec.OldAddress)
	f.newAddress, f.hasNew = deref(rec.NewAddress)
	f.paramKey, f.hasKey = deref(rec.Key)
	if rec.Individual != nil {
		f.individual = true
		for _, e := range rec.Individual.Individual {
			f.players = append(f.players, e.Individual)
		}
	}
	if rec.Team != nil {
		f.team = true
		for _, e := range rec.Team.Team {
			f.teams = append(f.teams, e.Team.TeamID)
			for _, m := range e.Team.MembersParticipating {
				f.members = append(f.members, m.Individual)
			}
		}
	}
	switch l {
	case Games:
		if f.hasEpoch && rec.ID != nil {
			f.key = fmt.Sprintf("game %s of epoch %d", f.id, f.epoch)
		}
	case Snapshots:
		if f.hasHeight {
			f.key = fmt.Sprintf("snapshot at height %d", f.height)
		}
	case Rotations:
		if f.hasHeight && rec.NodeID != nil {
			f.key = fmt.Sprintf("rotation of node %s at height %d", f.nodeID, f.height)
		}
	case Parameters:
		if f.hasKey {
			f.key = "parameter " + f.paramKey
		}
	case Transactions:
		readTransaction(f, &rec)
	}
	return f
}

// readTransaction reads the fields of a transaction.
func readTransaction(f *rowFacts, rec *relRecord) {
	f.block, f.hasBlock = rawUint(rec.Block)
	f.index, f.hasIndex = rawUint(rec.Index)
	f.cursor, f.hasCursor = deref(rec.Cursor)
	f.txType, f.hasType = deref(rec.Type)
	f.submitter, f.createdAt = rec.Submitter, rec.CreatedAt
	f.code, f.hasCode = rawInt(rec.Code)
	f.errText, f.hasError = deref(rec.Error)
	switch {
	case f.hasBlock && f.hasIndex:
		f.key = fmt.Sprintf("transaction %d.%d", f.block, f.index)
	case f.hasBlock && f.hasCursor:
		f.key = fmt.Sprintf("transaction %s", f.cursor)
	case f.hasBlock:
		f.key = fmt.Sprintf("a transaction of block %d", f.block)
	}
	if len(rec.Command) == 0 || string(rec.Command) == "null" {
		return
	}
	// The command's variants are read from its members alone; the command
	// itself is decoded whole only to judge it (decodeCommand), and not
	// kept.
	var members map[string]json.RawMessage
	if json.Unmarshal(rec.Command, &members) != nil {
		return
	}
	f.hasCommand = true
	for _, k := range commandVariants {
		if v := bytes.TrimSpace(members[k]); len(v) > 0 && v[0] == '{' {
			f.commandKind = append(f.commandKind, k)
		}
	}
	if bytes.Contains(rec.Command, []byte("ACCOUNT_TYPE_GENERAL")) {
		if cmd := decodeCommand(rec.Command); cmd != nil {
			f.receivers = receivers(cmd)
		}
	}
}

// decodeCommand decodes a command, its numbers kept as written; nil when
// it is not a JSON object.
func decodeCommand(raw []byte) map[string]any {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var cmd map[string]any
	if dec.Decode(&cmd) != nil {
		return nil
	}
	return cmd
}

// commandOf decodes the command of a transaction as served.
func commandOf(node []byte) map[string]any {
	var rec struct {
		Command json.RawMessage `json:"command"`
	}
	if json.Unmarshal(node, &rec) != nil || len(rec.Command) == 0 {
		return nil
	}
	return decodeCommand(rec.Command)
}

// size is about the memory the facts hold, for the bound on what a
// Relations remembers.
func (f *rowFacts) size() int {
	n := 256 + len(f.key) + len(f.id) + len(f.nodeID) + len(f.oldAddress) + len(f.newAddress) + len(f.paramKey) +
		len(f.cursor) + len(f.txType) + len(f.submitter) + len(f.errText) + len(f.createdAt)
	for _, list := range [][]string{f.teams, f.players, f.members, f.receivers, f.commandKind} {
		for _, s := range list {
			n += 16 + len(s)
		}
	}
	return n
}

// deref returns a string field and whether it was there.
func deref(s *string) (string, bool) {
	if s == nil {
		return "", false
	}
	return *s, true
}

// unquote strips the quotes of a JSON string holding a number: both
// integer encodings read alike.
func unquote(raw []byte) string {
	s := string(bytes.TrimSpace(raw))
	if inner, ok := strings.CutPrefix(s, `"`); ok {
		if inner, ok := strings.CutSuffix(inner, `"`); ok {
			return inner
		}
	}
	return s
}

// rawUint reads a uint64 written as a digit string or a JSON integer.
func rawUint(raw json.RawMessage) (uint64, bool) {
	if len(raw) == 0 {
		return 0, false
	}
	v, err := strconv.ParseUint(unquote(raw), 10, 64)
	return v, err == nil
}

// rawInt reads an int64 written as a digit string or a JSON integer.
func rawInt(raw json.RawMessage) (int64, bool) {
	if len(raw) == 0 {
		return 0, false
	}
	v, err := strconv.ParseInt(unquote(raw), 10, 64)
	return v, err == nil
}
