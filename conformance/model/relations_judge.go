package model

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// commandVariants are the command variants whose names the spec and
// docs/behaviour.md give: the five the spec details, the six standalone
// commands whose shapes it gives inside a batch, and the 27 more a real
// network carries.
var commandVariants = []string{
	"amendAmm", "announceNode", "applyReferralCode", "batchMarketInstructions", "batchProposalSubmission",
	"orderSubmission", "orderAmendment", "orderCancellation", "stopOrdersSubmission", "stopOrdersCancellation", "updateMarginMode",
	"withdrawSubmission", "proposalSubmission", "voteSubmission", "liquidityProvisionSubmission",
	"liquidityProvisionAmendment", "liquidityProvisionCancellation", "delegateSubmission",
	"undelegateSubmission", "transfer", "cancelTransfer", "createReferralSet", "updateReferralSet",
	"joinTeam", "updatePartyProfile", "submitAmm", "cancelAmm", "nodeVote", "nodeSignature",
	"chainEvent", "keyRotateSubmission", "stateVariableProposal", "validatorHeartbeat",
	"ethereumKeyRotateSubmission", "protocolUpgradeProposal", "issueSignatures",
	"oracleDataSubmission", "delayedTransactionsWrapper",
}

// commandTypes are the types docs/behaviour.md gives the kinds whose
// shapes are known.
var commandTypes = map[string]string{
	"amendAmm": "Amend AMM", "announceNode": "Register New Node", "applyReferralCode": "Apply Referral Code",
	"batchMarketInstructions": "Batch Market Instructions", "batchProposalSubmission": "Batch Proposal",
	"orderSubmission": "Submit Order", "orderAmendment": "Amend Order", "orderCancellation": "Cancel Order",
	"stopOrdersSubmission": "Stop Orders Submission", "stopOrdersCancellation": "Stop Orders Cancellation",
	"updateMarginMode": "Update Margin Mode",
}

func isObject(v any) bool { _, ok := v.(map[string]any); return ok }

// judgeRecord judges the relations inside one record.
func judgeRecord(l Listing, x *rowFacts, node []byte, chain chainClock, f *found) {
	switch l {
	case Rotations:
		if x.hasOld && x.hasNew {
			f.check(RelRotationsChange, x.oldAddress != x.newAddress,
				"newAddress and oldAddress are both %q: a rotation changes the node's address", x.newAddress)
		}
	case Transactions:
		judgeTransaction(x, node, chain, f)
	}
}

// judgeTransaction judges a transaction's own fields and its command.
func judgeTransaction(x *rowFacts, node []byte, chain chainClock, f *found) {
	if x.hasCommand {
		f.check(RelTxOneVariant, len(x.commandKind) <= 1, "the command sets %d variants (%s), want at most one", len(x.commandKind), strings.Join(x.commandKind, ", "))
	}
	if x.hasType && len(x.commandKind) == 1 {
		if want, ok := commandTypes[x.commandKind[0]]; ok {
			f.check(RelTxTypeKind, x.txType == want, "type is %q but the command is %s, whose type is %q", x.txType, x.commandKind[0], want)
		}
	}
	if x.hasCursor && x.hasBlock {
		want := strconv.FormatUint(x.block, 10) + "."
		ok := strings.HasPrefix(x.cursor, want)
		if x.hasIndex {
			want += strconv.FormatUint(x.index, 10)
			ok = x.cursor == want
		} else {
			_, err := strconv.ParseUint(strings.TrimPrefix(x.cursor, want), 10, 64)
			ok = ok && err == nil
			want += "<index>"
		}
		f.check(RelTxCursor, ok, "cursor is %q, want %q", x.cursor, want)
	}
	if x.hasCode {
		f.check(RelTxError, x.code != 0 || !x.hasError || x.errText == "", "code is 0 but error is %q", x.errText)
	}
	if !x.hasCommand || !x.hasCode || x.code != 0 {
		return
	}
	cmd := commandOf(node)
	if cmd == nil {
		return
	}
	clock := chain
	if !clock.ok {
		clock = createdClock(x.createdAt)
	}
	walkCommand(cmd, func(r role, path string, m map[string]any) {
		judgeObject(r, path, m, clock, f)
	})
}

// judgeQuery judges the relations between a record and the query of its
// answer.
func judgeQuery(rc ServedRow, x *rowFacts, f *found) {
	q := rc.Query
	switch rc.Listing {
	case Games:
		judgeGamesQuery(rc, x, f)
	case Rotations:
		if node, ok := plainParam(q, "nodeId", "node_id"); ok {
			f.check(RelRotationsNode, x.nodeID == node, "nodeId is %q, but the query asks for nodeId=%s", x.nodeID, node)
		}
	case Transactions:
		p := readParams(Transactions, q)
		if types, ok := p.v["cmdTypes"]; ok && x.hasType && !slices.Contains(types, "") {
			f.check(RelTxCmdFilter, slices.Contains(types, x.txType), "type is %q, not one of cmdTypes %q", x.txType, types)
		}
		if types, ok := p.v["excludeCmdTypes"]; ok && x.hasType && !slices.Contains(types, "") {
			f.check(RelTxCmdFilter, !slices.Contains(types, x.txType), "type is %q, which excludeCmdTypes %q excludes", x.txType, types)
		}
		if parties, ok := p.v["parties"]; ok && x.submitter != "" && !slices.Contains(parties, "") {
			match := slices.Contains(parties, x.submitter)
			for _, r := range x.receivers {
				match = match || slices.Contains(parties, r)
			}
			f.check(RelTxPartiesFilter, match, "neither the submitter %q nor a receiver %q is one of parties %q", x.submitter, x.receivers, parties)
		}
	}
}

// plainParam returns a parameter the query gives once, in the spelling of
// docs/behaviour.md; false when it is absent, empty, given twice or also
// spelt another way (the answer is then not judged at MUST).
func plainParam(q map[string][]string, name, other string) (string, bool) {
	v := q[name]
	if len(v) != 1 || len(q[other]) > 0 || v[0] == "" {
		return "", false // an empty value is docs/behaviour.md's to read
	}
	return v[0], true
}

// judgeGamesQuery judges a game against the window and filters asked for.
func judgeGamesQuery(rc ServedRow, x *rowFacts, f *found) {
	q := rc.Query
	if !x.hasEpoch {
		return
	}
	if lo, hi, ok := askedWindow(q); ok {
		f.check(RelGamesWindow, lo <= x.epoch && x.epoch <= hi,
			"epoch %d is outside the window [%d, %d] the query asks for", x.epoch, lo, hi)
	}
	if id, ok := plainParam(q, "gameId", "game_id"); ok {
		f.check(RelGamesID, x.id == id, "id is %q, but the query asks for gameId=%s", x.id, id)
	}
	p := readParams(Games, q)
	scope, _ := p.get("entityScope")
	switch scope {
	case ScopeIndividuals:
		f.check(RelGamesScope, x.individual, "the game has no individual entries, but the query asks for %s", scope)
	case ScopeTeams:
		f.check(RelGamesScope, x.team, "the game has no team entries, but the query asks for %s", scope)
	}
	if team, ok := p.get("teamId"); ok && team != "" && scope != ScopeIndividuals {
		f.check(RelGamesTeam, slices.Contains(x.teams, team), "no team entry of the game is team %s, which the query asks for", team)
	}
	if party, ok := p.get("partyId"); ok && party != "" {
		f.check(RelGamesParty, slices.Contains(x.players, party) || (x.team && slices.Contains(x.members, party)),
			"the game names party %s neither as an individual entry nor as a team member participating", party)
	}
}

// askedWindow is the range of epochs section 8 keeps for the query, at its
// widest over the readings the spec allows, when the query fixes one:
// with epochTo, [max(epochFrom, epochTo-29), epochTo] (epochFrom above
// epochTo: [epochTo-29, epochTo]); with epochFrom alone, [epochFrom,
// epochFrom+29]. Without either the window hangs on the latest epoch,
// which one answer does not tell (games-span judges it).
func askedWindow(q map[string][]string) (lo, hi uint64, ok bool) {
	const span = epochSpan - 1
	fromS, hasFrom := plainParam(q, "epochFrom", "epoch_from")
	toS, hasTo := plainParam(q, "epochTo", "epoch_to")
	if len(q["epochFrom"])+len(q["epoch_from"]) > 0 && !hasFrom || len(q["epochTo"])+len(q["epoch_to"]) > 0 && !hasTo {
		return 0, 0, false // a spelling or repetition only behaviour.md reads
	}
	from, errFrom := strconv.ParseUint(fromS, 10, 64)
	to, errTo := strconv.ParseUint(toS, 10, 64)
	if hasFrom && errFrom != nil || hasTo && errTo != nil {
		return 0, 0, false
	}
	switch {
	case hasTo:
		lo = satSub(to, span)
		if hasFrom && from <= to {
			lo = max(lo, from)
		}
		return lo, to, true
	case hasFrom:
		return from, satAdd(from, span), true
	}
	return 0, 0, false
}

// judgeAnswer judges the relations between the rows of one answer.
func judgeAnswer(rc ServedRow, x *rowFacts, f *found) {
	a := rc.Answer
	switch rc.Listing {
	case Games:
		if x.hasEpoch {
			f.check(RelGamesSpan, a.newestEpoch-x.epoch < epochSpan,
				"epoch %d and epoch %d are in one answer: %d epochs, more than 30", x.epoch, a.newestEpoch, a.newestEpoch-x.epoch+1)
		}
	case Rotations:
		if p := a.prevOfNode[rc.Index]; p >= 0 && x.hasOld && a.summary[p].hasNew {
			prev := a.summary[p]
			f.check(RelRotationsChain, x.oldAddress == prev.newAddress,
				"oldAddress is %q, but the node's previous rotation (height %d, in the same answer) made its address %q",
				x.oldAddress, prev.height, prev.newAddress)
		}
	case Parameters:
		if x.hasKey {
			first := a.firstOfKey[x.paramKey]
			f.check(RelParametersUnique, first == rc.Index, "the key %q is also row %d's", x.paramKey, first)
		}
	}
}

// judgeHeaders judges a record against the answer's block headers, and
// the headers themselves (the answer's first row stands for them).
func judgeHeaders(rc ServedRow, x *rowFacts, f *found) {
	hs := rc.Header.Get("X-Block-Height")
	if height, err := strconv.ParseUint(strings.TrimSpace(hs), 10, 64); err == nil && x.hasHeight {
		switch rc.Listing {
		case Snapshots:
			f.check(RelSnapshotsHeight, x.height <= height, "blockHeight %d is above the answer's X-Block-Height %d", x.height, height)
		case Rotations:
			f.check(RelRotationsHeight, x.height <= height, "blockHeight %d is above the answer's X-Block-Height %d", x.height, height)
		}
	}
	if rc.Index != 0 {
		return
	}
	if ts := rc.Header.Get("X-Block-Timestamp"); ts != "" {
		ns, err := strconv.ParseInt(strings.TrimSpace(ts), 10, 64)
		f.check(RelBlockTimestamp, err == nil && plausible(ns/int64(time.Second)),
			"X-Block-Timestamp is %q: read in Unix nanoseconds it is %s, not between 2000 and 2200", ts, describeUnix(ns, time.Nanosecond, err))
	}
}

// Times the units are judged against, in Unix seconds.
var (
	plausibleFrom = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	plausibleTo   = time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
)

// Bounds of "near the chain's time".
const (
	nearBefore = 20 * 365 * 24 * 3600
	nearAfter  = 100 * 365 * 24 * 3600
)

func plausible(secs int64) bool { return plausibleFrom <= secs && secs < plausibleTo }

// chainClock is the chain's time a timestamp is judged against, in Unix
// seconds, and what it was read from.
type chainClock struct {
	secs int64
	ok   bool
	from string
}

// day numbers the day of the chain's time, so that a record is judged
// again against another day's clock (0 without a clock: no plausible time
// falls on the first day of 1970).
func (c chainClock) day() int64 { return c.secs / 86400 }

// chainTime reads the chain's time from an answer's X-Block-Timestamp,
// when it is a plausible time read in Unix nanoseconds.
func chainTime(h http.Header) chainClock {
	ns, err := strconv.ParseInt(strings.TrimSpace(h.Get("X-Block-Timestamp")), 10, 64)
	if err != nil || !plausible(ns/int64(time.Second)) {
		return chainClock{}
	}
	return chainClock{secs: ns / int64(time.Second), ok: true, from: "the answer's X-Block-Timestamp"}
}

// createdClock reads the chain's time from a transaction's createdAt, when
// it is a plausible RFC 3339 time.
func createdClock(s string) chainClock {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil || !plausible(t.Unix()) {
		return chainClock{}
	}
	return chainClock{secs: t.Unix(), ok: true, from: "the transaction's createdAt"}
}

// near reports whether a time in Unix seconds is near the clock's (or,
// without a clock, plausible), and says what it was judged against.
func (c chainClock) near(secs int64) (bool, string) {
	if !c.ok {
		return plausible(secs), "a plausible time (2000 to 2200)"
	}
	return c.secs-nearBefore <= secs && secs <= c.secs+nearAfter,
		fmt.Sprintf("the chain's time %s (%s)", time.Unix(c.secs, 0).UTC().Format(time.RFC3339), c.from)
}

// describeUnix writes a Unix time in a unit for a message.
func describeUnix(v int64, unit time.Duration, err error) string {
	if err != nil {
		return "not an int64"
	}
	secs := v / int64(time.Second/unit)
	if secs < -62135596800 || secs > 253402300799 {
		return fmt.Sprintf("%d seconds from 1970, beyond the years 1 to 9999", secs)
	}
	return time.Unix(secs, 0).UTC().Format(time.RFC3339)
}
