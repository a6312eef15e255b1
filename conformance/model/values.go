package model

import (
	"math"
	"net/url"
	"slices"
	"strings"
)

// Class is a kind of value the generator gives a parameter: a value a held
// row has, one beside it, a boundary, one that does not parse, and so on.
// Every class that applies to a parameter is drawn for it (see Plan).
type Class string

// The value classes.
const (
	// ClassExisting is a value a held row has (for a repeated filter: one
	// value).
	ClassExisting Class = "existing"
	// ClassAbsent is a well-formed value no held row has: an ID or type
	// name unlike any, a cursor of a key beyond the listing's ends.
	ClassAbsent Class = "absent"
	// ClassBeside is one step from a held value: a number ±1, an ID or
	// name with one character changed, a cursor of the key beside a held
	// row's.
	ClassBeside Class = "beside"
	// ClassPrefix, ClassSuffix and ClassCase are a held ID's or name's
	// first half, last half and letters in the other case.
	ClassPrefix Class = "prefix"
	ClassSuffix Class = "suffix"
	ClassCase   Class = "case variant"
	// The boundaries: of counts, 0, 1, the largest count the spec decides
	// (see WithMustCount), the maximum page size and one above; of epochs,
	// 0, 1, the latest epoch and one beyond, and windows whose ends are
	// 29, 30 and 31 epochs apart.
	ClassZero      Class = "0"
	ClassOne       Class = "1"
	ClassDecided   Class = "largest decided count"
	ClassMaxPage   Class = "maximum page size"
	ClassAboveMax  Class = "maximum page size + 1"
	ClassLatest    Class = "latest epoch"
	ClassBeyond    Class = "beyond the latest epoch"
	ClassWindow29  Class = "window 29 apart"
	ClassWindow30  Class = "window 30 apart"
	ClassWindow31  Class = "window 31 apart"
	ClassNegative  Class = "negative"
	ClassOver32    Class = "beyond int32"
	ClassOver64    Class = "beyond int64"
	ClassOverU64   Class = "beyond uint64"
	ClassEmpty     Class = "empty"
	ClassNotNumber Class = "not a number"
	// ClassNotName is a value of an enumerated or boolean parameter that
	// is none of its names.
	ClassNotName Class = "not a name"
	// ClassSpelling is a boolean spelt 1 or 0.
	ClassSpelling Class = "spelt 1 or 0"
	// ClassMalformed is a cursor no listing could have issued.
	ClassMalformed Class = "malformed"
	// ClassIssued is a cursor taken from an earlier filtered answer.
	ClassIssued Class = "from a filtered answer"
	// ClassUncarried is a valid command type no held row carries.
	ClassUncarried Class = "valid type no row carries"
	// ClassTwo, ClassSeveral and ClassMost are two, three and the most
	// values of a repeated filter (every type the listing holds; the most
	// parties the model can name, up to maxMostValues).
	ClassTwo     Class = "two values"
	ClassSeveral Class = "several values"
	ClassMost    Class = "most values"
	// The classes of the names parameter: a name no listing reads, a
	// listing's name misspelt, and one in the wrong case.
	ClassUnknownName Class = "unknown name"
	ClassMisspelt    Class = "misspelt name"
	ClassNameCase    Class = "name in another case"
)

// NamesParam is the pseudo-parameter the name classes are drawn for.
const NamesParam = "names"

// maxMostValues bounds the values of a "most values" query of parties, so
// that its URL stays short of the 8 KiB many servers refuse.
const maxMostValues = 20

// classCommandTypes are the valid command types the model can name: the block
// explorer's names of the command kinds the spec details, and of one it
// does not ("Withdraw", a withdrawSubmission). A type no held row carries
// selects nothing.
var classCommandTypes = []string{
	"Amend AMM", "Register New Node", "Apply Referral Code", "Batch Market Instructions",
	"Batch Proposal", "Submit Order", "Amend Order", "Cancel Order", "Stop Orders Submission",
	"Stop Orders Cancellation", "Update Margin Mode", "Withdraw",
}

// paramKind is the kind of value a parameter takes, which decides its
// classes.
type paramKind int

const (
	kindCount paramKind = iota
	kindCursor
	kindBool
	kindID
	kindEpoch
	kindEnum
	kindType
	kindParties
	kindNames
)

// kindOf is the kind of a listing's parameter.
func kindOf(name string) paramKind {
	switch name {
	case pFirst, pLast, "first", "last":
		return kindCount
	case pAfter, pBefore, "after", "before":
		return kindCursor
	case pNewest:
		return kindBool
	case "epochFrom", "epochTo":
		return kindEpoch
	case "entityScope":
		return kindEnum
	case "cmdTypes", "excludeCmdTypes":
		return kindType
	case "parties":
		return kindParties
	case NamesParam:
		return kindNames
	}
	return kindID
}

// classesOf are the value classes that apply to a parameter of the
// listing.
func classesOf(l Listing, name string) []Class {
	switch kindOf(name) {
	case kindCount:
		out := []Class{ClassZero, ClassOne, ClassDecided, ClassMaxPage, ClassAboveMax, ClassBeside, ClassNegative}
		if l.paged() {
			out = append(out, ClassOver32)
		}
		return append(out, ClassOver64, ClassOverU64, ClassEmpty, ClassNotNumber)
	case kindCursor:
		out := []Class{ClassExisting, ClassBeside, ClassAbsent}
		if hasFilter(l) {
			out = append(out, ClassIssued)
		}
		return append(out, ClassEmpty, ClassMalformed)
	case kindBool:
		return []Class{ClassExisting, ClassSpelling, ClassCase, ClassEmpty, ClassNotName}
	case kindEpoch:
		return []Class{ClassExisting, ClassBeside, ClassZero, ClassOne, ClassLatest, ClassBeyond,
			ClassWindow29, ClassWindow30, ClassWindow31, ClassNegative, ClassOverU64, ClassEmpty, ClassNotNumber}
	case kindEnum:
		return []Class{ClassExisting, ClassCase, ClassNotName, ClassEmpty}
	case kindType:
		return []Class{ClassExisting, ClassAbsent, ClassUncarried, ClassBeside, ClassPrefix, ClassSuffix, ClassCase,
			ClassEmpty, ClassTwo, ClassSeveral, ClassMost}
	case kindParties:
		return []Class{ClassExisting, ClassAbsent, ClassBeside, ClassPrefix, ClassSuffix, ClassCase,
			ClassEmpty, ClassTwo, ClassSeveral, ClassMost}
	case kindNames:
		return []Class{ClassUnknownName, ClassMisspelt, ClassNameCase}
	}
	return []Class{ClassExisting, ClassAbsent, ClassBeside, ClassPrefix, ClassSuffix, ClassCase, ClassEmpty}
}

// hasFilter reports whether a listing has a filter besides pagination.
func hasFilter(l Listing) bool { return len(filterParams(l)) > 0 }

// filterParams are a listing's parameters that select rows.
func filterParams(l Listing) []string {
	switch l {
	case Games:
		return []string{"gameId", "epochFrom", "epochTo", "entityScope", "teamId", "partyId"}
	case Rotations:
		return []string{"nodeId"}
	case Transactions:
		return []string{"cmdTypes", "excludeCmdTypes", "parties"}
	}
	return nil
}

// Numbers beyond the integer types the spec's parameters have.
const (
	beyondInt32  = "2147483648"
	beyondInt64  = "9223372036854775808"
	beyondUint64 = "18446744073709551616"
)

// pools are the values the held rows give each parameter, each once, in
// the order the rows give them.
type pools struct {
	gameIDs, nodeIDs, teams, parties, types, keys []string
	epochs                                        []uint64
	// carried are the command types held rows carry.
	carried map[string]bool
}

func newPools(rows []Row) pools {
	var p pools
	seen := map[string]bool{}
	add := func(list *[]string, tag, v string) {
		if v != "" && !seen[tag+v] {
			seen[tag+v] = true
			*list = append(*list, v)
		}
	}
	p.carried = map[string]bool{}
	lastEpoch := uint64(math.MaxUint64)
	for i := range rows {
		r := &rows[i]
		switch {
		case r.Type != "" || r.Submitter != "":
			add(&p.types, "t", r.Type)
			p.carried[r.Type] = true
			add(&p.parties, "p", r.Submitter)
			for _, x := range r.Receivers {
				add(&p.parties, "p", x)
			}
		case r.Individual || r.Team:
			add(&p.gameIDs, "g", r.Key.Str)
			for _, t := range r.Teams {
				add(&p.teams, "T", t)
			}
			for _, x := range append(slices.Clone(r.Players), r.Members...) {
				add(&p.parties, "p", x)
			}
		default:
			add(&p.keys, "k", r.Key.Str)
		}
		if r.Key.Num != lastEpoch {
			p.epochs = append(p.epochs, r.Key.Num)
			lastEpoch = r.Key.Num
		}
	}
	return p
}

// pool is the pool of values of a parameter.
func (g *gen) pool(name string) []string {
	switch name {
	case "gameId":
		return g.pools.gameIDs
	case "nodeId":
		return g.pools.keys
	case "teamId":
		return g.pools.teams
	case "partyId", "parties":
		return g.pools.parties
	case "cmdTypes", "excludeCmdTypes":
		return g.pools.types
	}
	return nil
}

// rowValue draws the value a row gives a filter parameter, or "" when it
// gives none.
func (g *gen) rowValue(name string, r *Row) string {
	switch name {
	case "gameId", "nodeId":
		return r.Key.Str
	case "teamId":
		if len(r.Teams) > 0 {
			return r.Teams[g.rng.IntN(len(r.Teams))]
		}
	case "partyId":
		all := append(slices.Clone(r.Players), r.Members...)
		if len(all) > 0 {
			return all[g.rng.IntN(len(all))]
		}
	case "parties":
		all := append([]string{r.Submitter}, r.Receivers...)
		return all[g.rng.IntN(len(all))]
	case "cmdTypes", "excludeCmdTypes":
		return r.Type
	}
	return ""
}

// firstName and lastName are the listing's count parameters.
func (g *gen) countNames() (first, last string) {
	if g.m.Listing == Transactions {
		return "first", "last"
	}
	return pFirst, pLast
}

// cursorNames are the listing's cursor parameters, forwards and backwards.
func (g *gen) cursorNames() (after, before string) {
	if g.m.Listing == Transactions {
		return "after", "before"
	}
	return pAfter, pBefore
}

// smallCount draws a count the spec decides: small ones most often.
func (g *gen) smallCount() int {
	if g.rng.IntN(4) == 0 {
		return 1
	}
	return 1 + g.rng.IntN(min(40, g.m.mustCount))
}

// oneChanged changes one character of s (its last) to another of the same
// kind: a hex digit to the next, a letter to the next letter, anything
// else to "0".
func oneChanged(s string) string {
	if s == "" {
		return "0"
	}
	b := []byte(s)
	c := b[len(b)-1]
	switch {
	case c >= '0' && c <= '8', c >= 'a' && c <= 'e', c >= 'A' && c <= 'E':
		c++
	case c == '9':
		c = 'a'
	case c == 'f':
		c = '0'
	case c >= 'g' && c < 'z', c >= 'G' && c < 'Z':
		c++
	case c == 'z':
		c = 'a'
	case c == 'Z':
		c = 'A'
	default:
		c = '0'
	}
	b[len(b)-1] = c
	return string(b)
}

// otherCase writes s with its letters in the other case (upper when it
// has lower-case letters), or "" when s has no letters.
func otherCase(s string) string {
	up := strings.ToUpper(s)
	if up != s {
		return up
	}
	if low := strings.ToLower(s); low != s {
		return low
	}
	return ""
}

// absentLike returns a value shaped like s (hex of the same length when s
// is hex) that is not in pool.
func absentLike(s string, pool []string) string {
	hex := s != "" && strings.Trim(strings.ToLower(s), "0123456789abcdef") == ""
	for i := 0; i < 16; i++ {
		var v string
		if hex {
			v = strings.Repeat(string("0123456789abcdef"[i]), len(s))
		} else {
			v = "absent " + strings.Repeat("x", i+1)
		}
		if !slices.Contains(pool, v) {
			return v
		}
	}
	return "absent value"
}

// misspelt are, for each listing, a name no listing reads, a name of the
// listing misspelt, and one in another case, with the name meant.
var misspelt = map[Listing][3][2]string{
	Games:        {{"limit", pFirst}, {"pagination.frist", pFirst}, {"epochfrom", "epochFrom"}},
	Snapshots:    {{"limit", pFirst}, {"pagination.frist", pFirst}, {"pagination.newestfirst", pNewest}},
	Rotations:    {{"limit", pFirst}, {"pagination.frist", pFirst}, {"nodeid", "nodeId"}},
	Parameters:   {{"limit", pFirst}, {"pagination.frist", pFirst}, {"pagination.newestfirst", pNewest}},
	Transactions: {{"limit", "first"}, {"cmdType", "cmdTypes"}, {"cmdtypes", "cmdTypes"}},
}

// without returns q without the parameter name.
func without(q url.Values, name string) url.Values {
	c := clone(q)
	delete(c, name)
	return c
}

// with returns q with the parameter name set to vals.
func with(q url.Values, name string, vals ...string) url.Values {
	c := clone(q)
	c[name] = vals
	return c
}
