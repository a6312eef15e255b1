package model

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// relCase is one answer handed to the relation checks and what one
// relation must make of it: the cases judged and the violations found.
type relCase struct {
	name  string
	rel   string
	l     Listing
	query string
	// header holds the answer's headers (name: value).
	header map[string]string
	// nodes are the answer's records, in order.
	nodes []string
	cases int
	// bad holds the row of each violation, in order.
	bad []int
}

// chainNow is the chain's time of the transactions made by tx: their
// createdAt.
var chainNow = time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)

// nanos and secs write a time in Unix nanoseconds and seconds, as digit
// strings.
func nanos(t time.Time) string { return fmt.Sprint(t.UnixNano()) }
func secs(t time.Time) string  { return fmt.Sprint(t.Unix()) }

// tx writes a transaction of code 0 at block 12, index 3, with the command.
func tx(command string) string { return txCode(0, command) }

// txCode writes a transaction with a code.
func txCode(code int, command string) string {
	return fmt.Sprintf(`{"block":"12","index":3,"cursor":"12.3","code":%d,"createdAt":%q,"command":%s}`, code, chainNow.Format(time.RFC3339), command)
}

// cmd writes a command with one variant.
func cmd(variant, body string) string {
	return fmt.Sprintf(`{"nonce":"1","blockHeight":"11",%q:%s}`, variant, body)
}

// market writes a batch proposal whose one change is a market change of
// the kind (newMarket, newSpotMarket, updateMarket) with the configuration.
func market(kind, config string) string {
	return cmd("batchProposalSubmission", fmt.Sprintf(`{"terms":{"changes":[{"enactmentTimestamp":%q,%q:{"changes":%s}}]}}`, secs(chainNow.Add(time.Hour)), kind, config))
}

// transfer writes a batch proposal whose one change is a governance
// transfer with the configuration.
func transfer(config string) string {
	return cmd("batchProposalSubmission", fmt.Sprintf(`{"terms":{"changes":[{"newTransfer":{"changes":%s}}]}}`, config))
}

// perpetual writes a new market whose instrument is a perpetual with the
// fields.
func perpetual(fields string) string {
	return market("newMarket", `{"instrument":{"perpetual":{`+fields+`}}}`)
}

func gameRec(epoch, id, rest string) string {
	if rest != "" {
		rest = "," + rest
	}
	return fmt.Sprintf(`{"epoch":%s,"id":%q%s}`, epoch, id, rest)
}

func rotation(height, node, old, new string) string {
	return fmt.Sprintf(`{"blockHeight":%s,"nodeId":%q,"oldAddress":%q,"newAddress":%q}`, height, node, old, new)
}

// gamesCases judge the games' relations.
var gamesCases = []relCase{
	{"window holds", RelGamesWindow, Games, "epochFrom=10&epochTo=20", nil, []string{gameRec(`"15"`, "a", ""), gameRec(`"10"`, "b", ""), gameRec(`"20"`, "c", "")}, 3, nil},
	{"window below and above", RelGamesWindow, Games, "epochFrom=10&epochTo=20", nil, []string{gameRec(`"9"`, "a", ""), gameRec(`"21"`, "b", "")}, 2, []int{0, 1}},
	{"window as JSON integers", RelGamesWindow, Games, "epochFrom=10&epochTo=20", nil, []string{gameRec(`15`, "a", ""), gameRec(`9`, "b", "")}, 2, []int{1}},
	{"window epochTo alone", RelGamesWindow, Games, "epochTo=40", nil, []string{gameRec(`"11"`, "a", ""), gameRec(`"10"`, "b", "")}, 2, []int{1}},
	{"window epochFrom alone", RelGamesWindow, Games, "epochFrom=5", nil, []string{gameRec(`"34"`, "a", ""), gameRec(`"35"`, "b", ""), gameRec(`"4"`, "c", "")}, 3, []int{1, 2}},
	{"window epochFrom above epochTo", RelGamesWindow, Games, "epochFrom=30&epochTo=20", nil, []string{gameRec(`"15"`, "a", ""), gameRec(`"25"`, "b", "")}, 2, []int{1}},
	{"window over 30 epochs", RelGamesWindow, Games, "epochFrom=1&epochTo=50", nil, []string{gameRec(`"21"`, "a", ""), gameRec(`"20"`, "b", "")}, 2, []int{1}},
	{"window near epoch 0", RelGamesWindow, Games, "epochTo=3", nil, []string{gameRec(`"0"`, "a", "")}, 1, nil},
	{"window at the uint64 end", RelGamesWindow, Games, "epochFrom=18446744073709551615", nil, []string{gameRec(`"18446744073709551615"`, "a", "")}, 1, nil},
	{"window of one epoch", RelGamesWindow, Games, "epochFrom=20&epochTo=20", nil, []string{gameRec(`"20"`, "a", ""), gameRec(`"19"`, "b", "")}, 2, []int{1}},
	{"window with epochTo in snake case not judged", RelGamesWindow, Games, "epochFrom=10&epoch_to=20", nil, []string{gameRec(`"35"`, "a", "")}, 0, nil},
	{"window snake case not judged", RelGamesWindow, Games, "epoch_from=10&epochTo=20", nil, []string{gameRec(`"5"`, "a", "")}, 0, nil},
	{"window given twice not judged", RelGamesWindow, Games, "epochFrom=10&epochFrom=11&epochTo=20", nil, []string{gameRec(`"5"`, "a", "")}, 0, nil},
	{"window unreadable not judged", RelGamesWindow, Games, "epochFrom=abc", nil, []string{gameRec(`"5"`, "a", "")}, 0, nil},
	{"window absent not judged", RelGamesWindow, Games, "gameId=a", nil, []string{gameRec(`"5"`, "a", "")}, 0, nil},
	{"span of 30", RelGamesSpan, Games, "", nil, []string{gameRec(`"50"`, "a", ""), gameRec(`21`, "b", "")}, 2, nil},
	{"span of 31", RelGamesSpan, Games, "", nil, []string{gameRec(`"50"`, "a", ""), gameRec(`"20"`, "b", "")}, 2, []int{1}},
	{"id holds", RelGamesID, Games, "gameId=a", nil, []string{gameRec(`"5"`, "a", "")}, 1, nil},
	{"id differs", RelGamesID, Games, "gameId=a", nil, []string{gameRec(`"5"`, "b", "")}, 1, []int{0}},
	{"id of a game without its epoch not judged", RelGamesID, Games, "gameId=a", nil, []string{`{"id":"b"}`}, 0, nil},
	{"id snake case not judged", RelGamesID, Games, "game_id=a", nil, []string{gameRec(`"5"`, "b", "")}, 0, nil},
	{"scope individuals", RelGamesScope, Games, "entityScope=ENTITY_SCOPE_INDIVIDUALS", nil,
		[]string{gameRec(`"5"`, "a", `"individual":{"individual":[]}`), gameRec(`"5"`, "b", `"team":{"team":[]}`)}, 2, []int{1}},
	{"scope teams", RelGamesScope, Games, "entityScope=ENTITY_SCOPE_TEAMS", nil,
		[]string{gameRec(`"5"`, "a", `"individual":{"individual":[]}`), gameRec(`"5"`, "b", `"team":{"team":[]}`)}, 2, []int{0}},
	{"scope unspecified not judged", RelGamesScope, Games, "entityScope=ENTITY_SCOPE_UNSPECIFIED", nil, []string{gameRec(`"5"`, "a", "")}, 0, nil},
	{"team", RelGamesTeam, Games, "teamId=t1", nil,
		[]string{gameRec(`"5"`, "a", `"team":{"team":[{"team":{"teamId":"t1"}}]}`), gameRec(`"5"`, "b", `"team":{"team":[{"team":{"teamId":"t2"}}]}`)}, 2, []int{1}},
	{"team ignored under individuals", RelGamesTeam, Games, "teamId=t1&entityScope=ENTITY_SCOPE_INDIVIDUALS", nil, []string{gameRec(`"5"`, "a", "")}, 0, nil},
	{"party", RelGamesParty, Games, "partyId=p", nil, []string{
		gameRec(`"5"`, "a", `"individual":{"individual":[{"individual":"p"}]}`),
		gameRec(`"5"`, "b", `"team":{"team":[{"team":{"teamId":"t","membersParticipating":[{"individual":"p"}]}}]}`),
		gameRec(`"5"`, "c", `"individual":{"individual":[{"individual":"q"}]}`)}, 3, []int{2}},
}

// pagedCases judge the relations of snapshots, key rotations, network
// parameters and the block headers.
var pagedCases = []relCase{
	{"snapshot at the height", RelSnapshotsHeight, Snapshots, "", map[string]string{"X-Block-Height": "100"}, []string{`{"blockHeight":"100"}`, `{"blockHeight":99}`}, 2, nil},
	{"snapshot above the height", RelSnapshotsHeight, Snapshots, "", map[string]string{"X-Block-Height": "100"}, []string{`{"blockHeight":"101"}`}, 1, []int{0}},
	{"snapshot without the header", RelSnapshotsHeight, Snapshots, "", nil, []string{`{"blockHeight":"101"}`}, 0, nil},
	{"snapshot with a header that is not a number", RelSnapshotsHeight, Snapshots, "", map[string]string{"X-Block-Height": "tall"}, []string{`{"blockHeight":"101"}`}, 0, nil},
	{"rotation above the height", RelRotationsHeight, Rotations, "", map[string]string{"X-Block-Height": "100"}, []string{rotation(`"101"`, "n", "0xa", "0xb"), rotation(`"100"`, "m", "0xa", "0xb")}, 2, []int{0}},
	{"chain newest first", RelRotationsChain, Rotations, "", nil, []string{rotation(`"20"`, "n", "0xb", "0xc"), rotation(`"15"`, "m", "0x1", "0x2"), rotation(`"10"`, "n", "0xa", "0xb")}, 1, nil},
	{"chain oldest first", RelRotationsChain, Rotations, "", nil, []string{rotation(`10`, "n", "0xa", "0xb"), rotation(`20`, "n", "0xb", "0xc"), rotation(`30`, "n", "0xc", "0xd")}, 2, nil},
	{"chain broken", RelRotationsChain, Rotations, "", nil, []string{rotation(`"20"`, "n", "0xz", "0xc"), rotation(`"10"`, "n", "0xa", "0xb")}, 1, []int{0}},
	{"chain of a row given twice", RelRotationsChain, Rotations, "", nil, []string{rotation(`"20"`, "n", "0xa", "0xb"), rotation(`"20"`, "n", "0xa", "0xb"), rotation(`"10"`, "n", "0x9", "0xa")}, 2, nil},
	{"chain after two rows of the height below: the last is the previous", RelRotationsChain, Rotations, "", nil, []string{rotation(`"20"`, "n", "0xb", "0xc"), rotation(`"10"`, "n", "0xa", "0xb"), rotation(`"10"`, "n", "0xa", "0xd")}, 1, []int{0}},
	{"chain of a row without its height", RelRotationsChain, Rotations, "", nil, []string{`{"nodeId":"n","oldAddress":"0xz","newAddress":"0xc"}`, rotation(`"10"`, "n", "0xa", "0xb")}, 0, nil},
	{"chain of other nodes", RelRotationsChain, Rotations, "", nil, []string{rotation(`"20"`, "n", "0xz", "0xc"), rotation(`"10"`, "m", "0xa", "0xb")}, 0, nil},
	{"change", RelRotationsChange, Rotations, "", nil, []string{rotation(`"20"`, "n", "0xa", "0xb"), rotation(`"10"`, "m", "0xa", "0xa")}, 2, []int{1}},
	{"node", RelRotationsNode, Rotations, "nodeId=n", nil, []string{rotation(`"20"`, "n", "0xa", "0xb"), rotation(`"10"`, "m", "0xa", "0xb")}, 2, []int{1}},
	{"node snake case not judged", RelRotationsNode, Rotations, "node_id=n", nil, []string{rotation(`"10"`, "m", "0xa", "0xb")}, 0, nil},
	{"keys unique", RelParametersUnique, Parameters, "", nil, []string{`{"key":"a","value":"1"}`, `{"key":"b","value":"1"}`, `{"key":"a","value":"2"}`}, 3, []int{2}},
	{"block timestamp in nanoseconds", RelBlockTimestamp, Snapshots, "", map[string]string{"X-Block-Timestamp": nanos(chainNow)}, []string{`{"blockHeight":"1"}`, `{"blockHeight":"2"}`}, 1, nil},
	{"block timestamp in milliseconds", RelBlockTimestamp, Snapshots, "", map[string]string{"X-Block-Timestamp": fmt.Sprint(chainNow.UnixMilli())}, []string{`{"blockHeight":"1"}`}, 1, []int{0}},
	{"block timestamp not a number", RelBlockTimestamp, Games, "", map[string]string{"X-Block-Timestamp": "now"}, []string{gameRec(`"1"`, "a", "")}, 1, []int{0}},
	{"block timestamp absent", RelBlockTimestamp, Snapshots, "", nil, []string{`{"blockHeight":"1"}`}, 0, nil},
}

// txRecordCases judge a transaction's own fields and the query.
var txRecordCases = []relCase{
	{"one variant", RelTxOneVariant, Transactions, "", nil, []string{tx(cmd("applyReferralCode", `{"id":"x"}`))}, 1, nil},
	{"two variants", RelTxOneVariant, Transactions, "", nil, []string{tx(`{"applyReferralCode":{"id":"x"},"transfer":{}}`)}, 1, []int{0}},
	{"an unknown object is no variant", RelTxOneVariant, Transactions, "", nil, []string{tx(`{"applyReferralCode":{"id":"x"},"alsoNew":{"n":"1"}}`)}, 1, nil},
	{"no command", RelTxOneVariant, Transactions, "", nil, []string{`{"block":"1","code":0}`}, 0, nil},
	{"type names the kind", RelTxTypeKind, Transactions, "", nil, []string{
		`{"block":"1","type":"Submit Order","command":{"orderSubmission":{}}}`,
		`{"block":"1","type":"Cancel Order","command":{"orderSubmission":{}}}`,
		`{"block":"1","command":{"orderSubmission":{}}}`,
		`{"block":"1","type":"Transfer","command":{"transfer":{}}}`}, 2, []int{1}},
	{"cursor", RelTxCursor, Transactions, "", nil, []string{
		`{"block":"12","index":3,"cursor":"12.3"}`, `{"block":12,"index":"3","cursor":"12.4"}`,
		`{"block":"12","cursor":"12.7"}`, `{"block":"12","cursor":"13.1"}`, `{"block":"12","cursor":"12.x"}`, `{"block":"12"}`}, 5, []int{1, 3, 4}},
	{"error and code", RelTxError, Transactions, "", nil, []string{
		`{"block":"1","code":0,"error":"failed"}`, `{"block":"1","code":"0","error":""}`, `{"block":"1","code":70,"error":"failed"}`,
		`{"block":"1","code":"70"}`, `{"block":"1"}`}, 4, []int{0}},
	{"cmdTypes", RelTxCmdFilter, Transactions, "cmdTypes=Submit+Order&cmdTypes=Amend+Order", nil, []string{
		`{"block":"1","type":"Submit Order"}`, `{"block":"1","type":"Cancel Order"}`, `{"block":"1"}`}, 2, []int{1}},
	{"excludeCmdTypes in snake case", RelTxCmdFilter, Transactions, "exclude_cmd_types=Submit+Order", nil, []string{
		`{"block":"1","type":"Submit Order"}`, `{"block":"1","type":"Cancel Order"}`}, 2, []int{0}},
	{"parties", RelTxPartiesFilter, Transactions, "parties=p", nil, []string{
		`{"block":"1","submitter":"p"}`, `{"block":"1","submitter":"q"}`,
		`{"block":"1","submitter":"q","command":` + transfer(`{"destinationType":"ACCOUNT_TYPE_GENERAL","destination":"p"}`) + `}`}, 3, []int{1}},
	// An empty value is docs/behaviour.md's to read (as absent): no
	// relation judges it.
	{"empty cmdTypes not judged", RelTxCmdFilter, Transactions, "cmdTypes=", nil, []string{`{"block":"1","type":"Submit Order"}`}, 0, nil},
	{"empty excludeCmdTypes not judged", RelTxCmdFilter, Transactions, "excludeCmdTypes=&excludeCmdTypes=Cancel+Order", nil, []string{`{"block":"1","type":"Cancel Order"}`}, 0, nil},
	{"empty parties not judged", RelTxPartiesFilter, Transactions, "parties=", nil, []string{`{"block":"1","submitter":"q"}`}, 0, nil},
	{"empty nodeId not judged", RelRotationsNode, Rotations, "nodeId=", nil, []string{rotation(`"20"`, "n", "0xa", "0xb")}, 0, nil},
	{"empty gameId not judged", RelGamesID, Games, "gameId=", nil, []string{gameRec(`"5"`, "a", "")}, 0, nil},
	{"empty teamId not judged", RelGamesTeam, Games, "teamId=", nil, []string{gameRec(`"5"`, "a", `"team":{"team":[{"team":{"teamId":"t2"}}]}`)}, 0, nil},
	{"empty partyId not judged", RelGamesParty, Games, "partyId=", nil, []string{gameRec(`"5"`, "a", `"individual":{"individual":[{"individual":"q"}]}`)}, 0, nil},
}

// txCommandCases judge the command's input rules, on accepted transactions.
var txCommandCases = []relCase{
	{"amendment size and delta", RelTxAmendSize, Transactions, "", nil, []string{
		tx(cmd("orderAmendment", `{"size":"5","sizeDelta":"3"}`)),
		tx(cmd("orderAmendment", `{"size":5,"sizeDelta":-3}`)),
		tx(cmd("orderAmendment", `{"size":"5","sizeDelta":"0"}`)),
		tx(cmd("orderAmendment", `{"size":"0","sizeDelta":"3"}`)),
		tx(cmd("orderAmendment", `{"size":"5"}`))}, 5, []int{0, 1}},
	{"amendment of a rejected transaction", RelTxAmendSize, Transactions, "", nil, []string{txCode(70, cmd("orderAmendment", `{"size":"5","sizeDelta":"3"}`))}, 0, nil},
	{"cancellations", RelTxCancelMarket, Transactions, "", nil, []string{
		tx(cmd("orderCancellation", `{"orderId":"o"}`)),
		tx(cmd("orderCancellation", `{"orderId":"o","marketId":""}`)),
		tx(cmd("orderCancellation", `{"orderId":"o","marketId":"m"}`)),
		tx(cmd("orderCancellation", `{"marketId":"m"}`)),
		tx(cmd("batchMarketInstructions", `{"cancellations":[{"orderId":"o"},{}]}`))}, 6, []int{0, 1, 4}},
	{"stop cancellations", RelTxStopCancel, Transactions, "", nil, []string{
		tx(cmd("stopOrdersCancellation", `{"stopOrderId":"o"}`)),
		tx(cmd("stopOrdersCancellation", `{"stopOrderId":"o","marketId":"m"}`)),
		tx(cmd("batchMarketInstructions", `{"stopOrdersCancellation":[{"stopOrderId":"o"}]}`))}, 3, []int{0, 2}},
	{"expiry with GTT", RelTxExpiryGTT, Transactions, "", nil, []string{
		tx(cmd("orderSubmission", `{"expiresAt":"`+nanos(chainNow)+`","timeInForce":"TIME_IN_FORCE_GTC"}`)),
		tx(cmd("orderSubmission", `{"expiresAt":`+nanos(chainNow)+`,"timeInForce":"TIME_IN_FORCE_GTT"}`)),
		tx(cmd("orderSubmission", `{"expiresAt":"0","timeInForce":"TIME_IN_FORCE_GTC"}`)),
		tx(cmd("stopOrdersSubmission", `{"risesAbove":{"orderSubmission":{"expiresAt":"5"}}}`))}, 4, []int{0, 3}},
	{"limit price", RelTxLimitPrice, Transactions, "", nil, []string{
		tx(cmd("orderSubmission", `{"type":"TYPE_LIMIT"}`)),
		tx(cmd("orderSubmission", `{"type":"TYPE_LIMIT","price":""}`)),
		tx(cmd("orderSubmission", `{"type":"TYPE_LIMIT","price":"7"}`)),
		tx(cmd("orderSubmission", `{"type":"TYPE_LIMIT","peggedOrder":{"offset":"1"}}`)),
		tx(cmd("batchMarketInstructions", `{"submissions":[{"type":"TYPE_MARKET"},{"type":"TYPE_LIMIT","peggedOrder":null}]}`))}, 6, []int{0, 1, 4}},
	{"post-only", RelTxPostOnly, Transactions, "", nil, []string{
		tx(cmd("orderSubmission", `{"type":"TYPE_MARKET","postOnly":true}`)),
		tx(cmd("orderSubmission", `{"type":"TYPE_LIMIT","postOnly":true}`)),
		tx(cmd("orderSubmission", `{"type":"TYPE_MARKET","postOnly":false}`))}, 3, []int{0}},
	{"reduce-only", RelTxReduceOnly, Transactions, "", nil, []string{
		tx(cmd("orderSubmission", `{"timeInForce":"TIME_IN_FORCE_GTC","reduceOnly":true}`)),
		tx(cmd("orderSubmission", `{"timeInForce":"TIME_IN_FORCE_IOC","reduceOnly":true}`)),
		tx(cmd("orderSubmission", `{"timeInForce":"TIME_IN_FORCE_FOK","reduceOnly":true}`))}, 3, []int{0}},
	{"iceberg", RelTxIceberg, Transactions, "", nil, []string{
		tx(cmd("orderSubmission", `{"size":"10","icebergOpts":{"peakSize":"20","minimumVisibleSize":"1"}}`)),
		tx(cmd("orderSubmission", `{"size":"10","icebergOpts":{"peakSize":4,"minimumVisibleSize":5}}`)),
		tx(cmd("orderSubmission", `{"size":"10","icebergOpts":{"peakSize":"10","minimumVisibleSize":"10"}}`)),
		tx(cmd("orderSubmission", `{"size":"10"}`))}, 3, []int{0, 1}},
	{"pegged price", RelTxPeggedPrice, Transactions, "", nil, []string{
		tx(cmd("orderSubmission", `{"price":"5","peggedOrder":{"offset":"1"}}`)),
		tx(cmd("orderSubmission", `{"peggedOrder":{"offset":"1"}}`)),
		tx(cmd("orderSubmission", `{"price":"5"}`))}, 2, []int{0}},
	{"rationale at its lengths in unicode characters", RelTxRationale, Transactions, "", nil, []string{
		tx(cmd("batchProposalSubmission", `{"rationale":{"title":"`+strings.Repeat("é", 100)+`","description":"`+strings.Repeat("é", 20000)+`"}}`))}, 1, nil},
	{"rationale title too long", RelTxRationale, Transactions, "", nil, []string{
		tx(cmd("batchProposalSubmission", `{"rationale":{"title":"`+strings.Repeat("é", 101)+`","description":""}}`))}, 1, []int{0}},
	{"rationale description too long", RelTxRationale, Transactions, "", nil, []string{
		tx(cmd("batchProposalSubmission", `{"rationale":{"title":"","description":"`+strings.Repeat("a", 20001)+`"}}`))}, 1, []int{0}},
	{"individual scope", RelTxIndividualScope, Transactions, "", nil, []string{
		tx(transfer(`{"recurring":{"dispatchStrategy":{"entityScope":"ENTITY_SCOPE_TEAMS","individualScope":"INDIVIDUAL_SCOPE_ALL"}}}`)),
		tx(transfer(`{"recurring":{"dispatchStrategy":{"entityScope":"ENTITY_SCOPE_TEAMS","individualScope":"INDIVIDUAL_SCOPE_UNSPECIFIED"}}}`)),
		tx(transfer(`{"recurring":{"dispatchStrategy":{"entityScope":"ENTITY_SCOPE_INDIVIDUALS","individualScope":"INDIVIDUAL_SCOPE_ALL"}}}`))}, 3, []int{0}},
	{"rank table", RelTxRankTable, Transactions, "", nil, []string{
		tx(transfer(`{"recurring":{"dispatchStrategy":{"distributionStrategy":"DISTRIBUTION_STRATEGY_RANK"}}}`)),
		tx(transfer(`{"recurring":{"dispatchStrategy":{"distributionStrategy":"DISTRIBUTION_STRATEGY_RANK_LOTTERY","rankTable":[]}}}`)),
		tx(transfer(`{"recurring":{"dispatchStrategy":{"distributionStrategy":"DISTRIBUTION_STRATEGY_RANK","rankTable":[{"startRank":3},{"startRank":"1"}]}}}`)),
		tx(transfer(`{"recurring":{"dispatchStrategy":{"distributionStrategy":"DISTRIBUTION_STRATEGY_RANK","rankTable":[{"startRank":1},{"startRank":"3"},{"startRank":3}]}}}`)),
		tx(transfer(`{"recurring":{"dispatchStrategy":{"distributionStrategy":"DISTRIBUTION_STRATEGY_PRO_RATA"}}}`)),
		tx(transfer(`{"recurring":{"dispatchStrategy":{"distributionStrategy":"DISTRIBUTION_STRATEGY_RANK","rankTable":[{"startRank":2},{"shareRatio":1},{"startRank":"x"},{"startRank":2}]}}}`))}, 6, []int{0, 1, 2}},
	{"recurring ends before it starts", RelTxRecurring, Transactions, "", nil, []string{tx(transfer(`{"recurring":{"startEpoch":"10","endEpoch":"5"}}`))}, 1, []int{0}},
	{"recurring ends where it starts", RelTxRecurring, Transactions, "", nil, []string{tx(transfer(`{"recurring":{"startEpoch":10,"endEpoch":10}}`))}, 1, nil},
	{"recurring without an end", RelTxRecurring, Transactions, "", nil, []string{
		tx(transfer(`{"recurring":{"startEpoch":"10","endEpoch":"0"}}`)),
		tx(transfer(`{"recurring":{"startEpoch":"10"}}`)),
		tx(transfer(`{"recurring":{"endEpoch":"3"}}`))}, 3, nil},
	{"transfer accounts", RelTxAccounts, Transactions, "", nil, []string{
		tx(transfer(`{"sourceType":"ACCOUNT_TYPE_NETWORK_TREASURY","source":"m","destinationType":"ACCOUNT_TYPE_GENERAL","destination":""}`)),
		tx(transfer(`{"sourceType":"ACCOUNT_TYPE_NETWORK_TREASURY","source":"","destinationType":"ACCOUNT_TYPE_INSURANCE","destination":"m"}`)),
		tx(transfer(`{"sourceType":"ACCOUNT_TYPE_INSURANCE","destinationType":"ACCOUNT_TYPE_NETWORK_TREASURY","destination":"p"}`)),
		tx(transfer(`{"sourceType":"ACCOUNT_TYPE_GENERAL","source":"","destinationType":"ACCOUNT_TYPE_GLOBAL_REWARD","destination":""}`))}, 6, []int{0, 0, 2, 2}},
	{"fractions", RelTxFractions, Transactions, "", nil, []string{
		tx(market("newMarket", `{"liquidationStrategy":{"disposalFraction":"1.5","maxFractionConsumed":"1"},"successor":{"insurancePoolFraction":"0"}}`)),
		tx(market("updateMarket", `{"liquidationStrategy":{"disposalFraction":"-0.1","maxFractionConsumed":"0.5"}}`)),
		tx(perpetual(`"marginFundingFactor":"1.0000000000000000001"`))}, 6, []int{0, 1, 2}},
	{"signed bounds", RelTxSignedBounds, Transactions, "", nil, []string{
		tx(perpetual(`"clampLowerBound":"-1.01","clampUpperBound":"1","interestRate":"2"`)),
		tx(perpetual(`"clampLowerBound":"-1","clampUpperBound":"0.5","interestRate":"-1"`))}, 6, []int{0, 0}},
	{"non-negative", RelTxPositive, Transactions, "", nil, []string{
		tx(market("newMarket", `{"liquidationStrategy":{"disposalSlippageRange":"0"},"logNormal":{"tau":-0.5,"params":{"sigma":0}}}`)),
		tx(market("newMarket", `{"liquidationStrategy":{"disposalSlippageRange":"1.5"},"logNormal":{"tau":"0.1","params":{"sigma":-1}}}`)),
		tx(market("newMarket", `{"liquidationStrategy":{"disposalSlippageRange":"0.0001"},"logNormal":{"tau":0,"params":{"sigma":"0.3"}}}`))}, 9, []int{0, 0, 1}},
	{"bounds ordered", RelTxBoundsOrdered, Transactions, "", nil, []string{
		tx(perpetual(`"clampLowerBound":"0.5","clampUpperBound":"0.1","fundingRateLowerBound":"1","fundingRateUpperBound":"2"`)),
		tx(market("updateMarket", `{"instrument":{"perpetual":{"fundingRateLowerBound":"-1","fundingRateUpperBound":"-1.5","clampLowerBound":"0.1"}}}`))}, 3, []int{0, 1}},
	{"AMM bounds", RelTxAmmBounds, Transactions, "", nil, []string{
		tx(cmd("amendAmm", `{"concentratedLiquidityParameters":{"base":"100","lowerBound":"120","upperBound":"90"}}`)),
		tx(cmd("amendAmm", `{"concentratedLiquidityParameters":{"base":"100","lowerBound":"100","upperBound":"110"}}`)),
		tx(cmd("amendAmm", `{"concentratedLiquidityParameters":{"base":"100"}}`))}, 4, []int{0, 0}},
	{"two products", RelTxOneProduct, Transactions, "", nil, []string{tx(market("newMarket", `{"instrument":{"future":{},"perpetual":{}}}`))}, 1, []int{0}},
	{"a spot product of a futures market", RelTxOneProduct, Transactions, "", nil, []string{tx(market("newMarket", `{"instrument":{"spot":{}}}`))}, 1, []int{0}},
	{"one product", RelTxOneProduct, Transactions, "", nil, []string{
		tx(market("newSpotMarket", `{"instrument":{"spot":{}}}`)),
		tx(market("updateMarket", `{"instrument":{"future":{},"perpetual":null}}`))}, 2, nil},
	{"an instrument of no known market change", RelTxOneProduct, Transactions, "", nil, []string{
		tx(cmd("batchProposalSubmission", `{"terms":{"changes":[{"newSpotMarket":{"config":{"instrument":{"spot":{}}}}}]}}`))}, 1, []int{0}},
	{"changes of something else", RelTxSeconds, Transactions, "", nil, []string{
		tx(cmd("batchProposalSubmission", `{"other":{"changes":[{"enactmentTimestamp":"5"}]},"terms":{"changes":[{"enactmentTimestamp":"0"}]}}`))}, 0, nil},
	{"one risk model", RelTxOneRiskModel, Transactions, "", nil, []string{
		tx(market("newMarket", `{"logNormal":{},"simple":{}}`)),
		tx(market("newSpotMarket", `{"simple":{},"logNormal":null}`)),
		tx(market("updateMarket", `{"simple":{},"logNormal":{}}`))}, 3, []int{0, 2}},
	{"staleness per source", RelTxStaleness, Transactions, "", nil, []string{
		tx(market("newMarket", `{"markPriceConfiguration":{"sourceStalenessTolerance":["1s","2s","3s"],"dataSourcesSpec":[{},{}]}}`)),
		tx(perpetual(`"internalCompositePriceConfiguration":{"sourceStalenessTolerance":["1s","2s","3s","4s"],"dataSourcesSpec":[{},{}]}`)),
		tx(market("newMarket", `{"markPriceConfiguration":{"dataSourcesSpec":[{}]}}`))}, 3, []int{0}},
}

// unitCases judge the units of the commands' timestamps.
var unitCases = []relCase{
	{"nanoseconds", RelTxNanos, Transactions, "", nil, []string{
		tx(cmd("orderSubmission", `{"expiresAt":"`+nanos(chainNow.Add(90*24*time.Hour))+`"}`)),
		tx(cmd("orderAmendment", `{"expiresAt":`+nanos(chainNow.Add(-time.Hour))+`}`)),
		tx(cmd("stopOrdersSubmission", `{"fallsBelow":{"expiresAt":"`+nanos(chainNow.Add(time.Hour))+`"}}`)),
		tx(transfer(`{"oneOff":{"deliverOn":"` + nanos(chainNow.Add(time.Hour)) + `"}}`))}, 4, nil},
	{"milliseconds and seconds where nanoseconds", RelTxNanos, Transactions, "", nil, []string{
		tx(cmd("orderSubmission", `{"expiresAt":"`+fmt.Sprint(chainNow.UnixMilli())+`"}`)),
		tx(cmd("orderAmendment", `{"expiresAt":"`+secs(chainNow)+`"}`)),
		tx(transfer(`{"oneOff":{"deliverOn":"-5"}}`))}, 3, []int{0, 1, 2}},
	{"unset and 0 not judged", RelTxNanos, Transactions, "", nil, []string{
		tx(cmd("orderSubmission", `{"expiresAt":"0"}`)),
		tx(cmd("orderSubmission", `{"expiresAt":0,"type":"TYPE_MARKET"}`)),
		tx(cmd("orderSubmission", `{"expiresAt":"soon"}`))}, 0, nil},
	{"a rejected transaction not judged", RelTxNanos, Transactions, "", nil, []string{txCode(70, cmd("orderSubmission", `{"expiresAt":"5"}`))}, 0, nil},
	{"the header's time before createdAt", RelTxNanos, Transactions, "", map[string]string{"X-Block-Timestamp": nanos(chainNow.AddDate(40, 0, 0))}, []string{
		tx(cmd("orderSubmission", `{"expiresAt":"`+nanos(chainNow)+`"}`))}, 1, []int{0}},
	{"a header in another unit is passed over", RelTxNanos, Transactions, "", map[string]string{"X-Block-Timestamp": secs(chainNow)}, []string{
		tx(cmd("orderSubmission", `{"expiresAt":"`+nanos(chainNow)+`"}`))}, 1, nil},
	{"no clock: a plausible time", RelTxNanos, Transactions, "", nil, []string{
		`{"block":"1","code":0,"command":` + cmd("orderSubmission", `{"expiresAt":"`+nanos(time.Date(2150, 1, 1, 0, 0, 0, 0, time.UTC))+`"}`) + `}`,
		`{"block":"1","code":0,"createdAt":"yesterday","command":` + cmd("orderSubmission", `{"expiresAt":"`+fmt.Sprint(chainNow.UnixMilli())+`"}`) + `}`}, 2, []int{1}},
	{"beyond int64", RelTxSeconds, Transactions, "", nil, []string{
		tx(market("newMarket", `{"instrument":{"future":{"dataSourceSpecForSettlementData":{"external":{"ethOracle":{"trigger":{"timeTrigger":{"initial":"18446744073709551615"}}}}}}}}`))}, 2, []int{0}},
	{"seconds", RelTxSeconds, Transactions, "", nil, []string{
		tx(market("newMarket", `{"instrument":{"future":{"dataSourceSpecForTradingTermination":{"external":{"ethOracle":{"trigger":{"timeTrigger":{"initial":"`+secs(chainNow)+`","until":`+secs(chainNow.AddDate(5, 0, 0))+`}}}}}}}}`)),
		tx(market("newMarket", `{"instrument":{"perpetual":{"dataSourceSpecForSettlementSchedule":{"internal":{"timeTrigger":{"triggers":[{"initial":"`+secs(chainNow)+`","every":"60"}]}}}}}}`))}, 5, nil},
	{"nanoseconds and milliseconds where seconds", RelTxSeconds, Transactions, "", nil, []string{
		tx(cmd("batchProposalSubmission", `{"terms":{"changes":[{"enactmentTimestamp":"`+nanos(chainNow)+`","newFreeform":{}},{"enactmentTimestamp":"`+fmt.Sprint(chainNow.UnixMilli())+`"}]}}`)),
		tx(market("newMarket", `{"instrument":{"perpetual":{"dataSourceSpecForSettlementSchedule":{"internal":{"timeTrigger":{"triggers":[{"initial":"`+nanos(chainNow)+`"}]}}}}}}`))}, 4, []int{0, 0, 1}},
}

// servedOf makes the answer of a case: its records served in a body, read
// back by NewServedAnswer.
func servedOf(t *testing.T, c relCase) *ServedAnswer {
	t.Helper()
	rows := strings.Join(c.nodes, ",")
	var body string
	if c.l == Transactions {
		body = `{"transactions":[` + rows + `]}`
	} else {
		var edges []string
		for i, n := range c.nodes {
			edges = append(edges, fmt.Sprintf(`{"cursor":"c%d","node":%s}`, i, n))
		}
		body = fmt.Sprintf(`{%q:{"edges":[%s],"pageInfo":{}}}`, listingInfo[c.l].field, strings.Join(edges, ","))
	}
	h := http.Header{}
	for k, v := range c.header {
		h.Set(k, v)
	}
	u := "http://127.0.0.1:1" + c.l.Path()
	if c.query != "" {
		u += "?" + c.query
	}
	a, err := NewServedAnswer(c.l, u, h, []byte(body))
	if err != nil {
		t.Fatalf("%s: %v\n%s", c.name, err, body)
	}
	return a
}

func allRelCases() []relCase {
	return slices.Concat(gamesCases, pagedCases, txRecordCases, txCommandCases, unitCases)
}

// TestRelations judges each case's answer: the relation judges as many
// cases and finds as many violations as the case says, each naming the
// row's key, the answer's URL and what differs.
func TestRelations(t *testing.T) {
	for _, c := range allRelCases() {
		t.Run(c.rel+"/"+c.name, func(t *testing.T) {
			a := servedOf(t, c)
			r := NewRelations()
			r.CheckAnswer(a)
			cases, vs := r.Results(c.rel)
			var bad []int
			for _, v := range vs {
				bad = append(bad, v.Row)
			}
			slices.Sort(bad)
			if cases != c.cases || fmt.Sprint(bad) != fmt.Sprint(c.bad) {
				t.Errorf("judged %d cases and found violations in rows %v, want %d and %v: %v", cases, bad, c.cases, c.bad, vs)
			}
			for _, v := range vs {
				if v.Relation != c.rel || v.URL != a.URL || v.Key == "" || v.Detail == "" {
					t.Errorf("an incomplete violation: %+v", v)
				}
			}
		})
	}
}

// TestEveryRelationHasCases keeps the table honest: every relation of the
// catalogue has a case where it holds and one where it is broken.
func TestEveryRelationHasCases(t *testing.T) {
	holds, breaks := map[string]bool{}, map[string]bool{}
	for _, c := range allRelCases() {
		if c.cases > len(c.bad) {
			holds[c.rel] = true
		}
		if len(c.bad) > 0 {
			breaks[c.rel] = true
		}
	}
	for _, r := range RelationCatalogue {
		if !holds[r.Name] || !breaks[r.Name] {
			t.Errorf("relation %s has a case where it holds: %v, where it is broken: %v", r.Name, holds[r.Name], breaks[r.Name])
		}
	}
}

// TestRelationsRememberRecords checks that a record met again with the same
// bytes is judged inside once (the same day of the chain's time), while its
// relations with each query and answer are judged every time; a record
// judged against another day's clock is judged again.
func TestRelationsRememberRecords(t *testing.T) {
	node := strings.Replace(tx(cmd("orderAmendment", `{"size":"5","sizeDelta":"3"}`)), `{"block"`, `{"type":"Amend Order","block"`, 1)
	r := NewRelations()
	for _, q := range []string{"cmdTypes=Amend+Order", "cmdTypes=Amend+Order&first=3"} {
		r.CheckAnswer(servedOf(t, relCase{l: Transactions, query: q, nodes: []string{node}}))
		if cases, _ := r.Results(RelTxAmendSize); cases != 1 {
			t.Fatalf("after the answer to %s: %d cases, want the record judged once", q, cases)
		}
	}
	if cases, vs := r.Results(RelTxAmendSize); cases != 1 || len(vs) != 1 {
		t.Errorf("the record's own relation: %d cases, %d violations, want it judged once", cases, len(vs))
	}
	if cases, _ := r.Results(RelTxCmdFilter); cases != 2 {
		t.Errorf("the query's relation: %d cases, want one per answer", cases)
	}
	// Judged under a clock of another day, and again under the same day.
	for _, day := range []time.Time{chainNow.AddDate(0, 0, 1), chainNow.AddDate(0, 0, 1).Add(time.Hour)} {
		r.CheckAnswer(servedOf(t, relCase{l: Transactions, header: map[string]string{"X-Block-Timestamp": nanos(day)}, nodes: []string{node}}))
	}
	if cases, _ := r.Results(RelTxAmendSize); cases != 2 {
		t.Errorf("under another day's clock: %d cases, want 2 (judged again once)", cases)
	}
}

// TestRelationsOfARowAlone checks a row handed over without its answer:
// its own relations and its query's are judged, those between the rows of
// an answer are not.
func TestRelationsOfARowAlone(t *testing.T) {
	a := servedOf(t, relCase{l: Rotations, query: "nodeId=n", nodes: []string{rotation(`"20"`, "n", "0xz", "0xz"), rotation(`"10"`, "n", "0xa", "0xb")}})
	r := NewRelations()
	for i := range a.Nodes {
		rc := a.Row(i)
		rc.Answer = nil
		r.Check(rc)
	}
	for _, want := range []struct {
		rel           string
		cases, broken int
	}{{RelRotationsChain, 0, 0}, {RelRotationsChange, 2, 1}, {RelRotationsNode, 2, 0}} {
		if cases, vs := r.Results(want.rel); cases != want.cases || len(vs) != want.broken {
			t.Errorf("%s: %d cases, %d violations, want %d and %d", want.rel, cases, len(vs), want.cases, want.broken)
		}
	}
	// A row handed over with an answer it is not a row of is judged alone.
	for _, i := range []int{-1, 2} {
		rc := a.Row(0)
		rc.Index = i
		r.Check(rc)
	}
	if cases, _ := r.Results(RelRotationsChain); cases != 0 {
		t.Errorf("rows outside their answer were judged against it: %d cases", cases)
	}
	if rc := a.Row(1); rc.Cursor != "c1" || rc.Index != 1 || rc.Query.Get("nodeId") != "n" || rc.Listing != Rotations {
		t.Errorf("Row(1) = %+v", rc)
	}
}

// TestRelationsKeepABoundedSortedList checks that violations come sorted by
// URL and key, that at most maxViolations are kept and the rest counted.
func TestRelationsKeepABoundedSortedList(t *testing.T) {
	r := NewRelations()
	for i := maxViolations + 4; i >= 0; i-- {
		r.CheckAnswer(servedOf(t, relCase{l: Games, query: fmt.Sprintf("gameId=x&pagination.first=%03d", i), nodes: []string{gameRec(`"1"`, "a", "")}}))
	}
	cases, vs := r.Results(RelGamesID)
	if cases != maxViolations+5 || len(vs) != maxViolations || r.Omitted(RelGamesID) != 5 {
		t.Fatalf("%d cases, %d kept, %d omitted; want %d, %d and 5", cases, len(vs), r.Omitted(RelGamesID), maxViolations+5, maxViolations)
	}
	if !slices.IsSortedFunc(vs, func(a, b Violation) int { return strings.Compare(a.URL, b.URL) }) {
		t.Errorf("violations not sorted by URL")
	}
	if r.Omitted("no-such-relation") != 0 {
		t.Errorf("a relation never judged has omitted violations")
	}
	if cases, vs := r.Results("no-such-relation"); cases != 0 || vs != nil {
		t.Errorf("a relation never judged has results")
	}
	r2 := NewRelations()
	for i := range 3 {
		r2.CheckAnswer(servedOf(t, relCase{l: Games, query: "gameId=x", nodes: []string{gameRec(`"1"`, fmt.Sprint("b", 3-i), ""), gameRec(`"1"`, "a", "")}}))
	}
	_, vs = r2.Results(RelGamesID)
	if !slices.IsSortedFunc(vs, func(a, b Violation) int { return strings.Compare(a.Key, b.Key) }) || len(vs) != 6 {
		t.Errorf("violations of one URL not sorted by key: %v", vs)
	}
}

// TestRelationKeys checks how a violation names its row.
func TestRelationKeys(t *testing.T) {
	tests := []struct {
		l    Listing
		node string
		want string
	}{
		{Games, gameRec(`"7"`, "g", ""), "game g of epoch 7"},
		{Snapshots, `{"blockHeight":9}`, "snapshot at height 9"},
		{Rotations, rotation(`"9"`, "n", "", ""), "rotation of node n at height 9"},
		{Parameters, `{"key":"k"}`, "parameter k"},
		{Transactions, `{"block":"12","index":3}`, "transaction 12.3"},
		{Transactions, `{"block":"12","cursor":"12.x"}`, "transaction 12.x"},
		{Transactions, `{"block":12}`, "a transaction of block 12"},
		{Games, `{"id":"g"}`, ""},
		{Snapshots, `{}`, ""},
		{Rotations, `{"blockHeight":"1"}`, ""},
		{Parameters, `{"value":"1"}`, ""},
		{Transactions, `{"index":1}`, ""},
		{Transactions, `[1]`, ""},
	}
	for _, tc := range tests {
		if got := readFacts(tc.l, []byte(tc.node)).key; got != tc.want {
			t.Errorf("%s %s: key %q, want %q", tc.l, tc.node, got, tc.want)
		}
	}
	if f := readFacts(Games, []byte(`[1]`)); f.bad == "" {
		t.Errorf("a record that is not an object was read")
	}
	r := NewRelations()
	r.CheckAnswer(servedOf(t, relCase{l: Games, query: "gameId=x", nodes: []string{`{"id":"a","epoch":"1"}`, `{"epoch":"2"}`}}))
	_, vs := r.Results(RelGamesID)
	if len(vs) != 2 || vs[1].Key != "row 1 of the answer" {
		t.Errorf("a row without its key is named %v, want by its place", vs)
	}
	if s := vs[0].String(); !strings.Contains(s, vs[0].Key) || !strings.Contains(s, vs[0].URL) || !strings.Contains(s, vs[0].Detail) {
		t.Errorf("Violation.String() = %q", s)
	}
}

// TestNewAnswer checks what answers NewServedAnswer reads and refuses.
func TestNewAnswer(t *testing.T) {
	tests := []struct {
		l       Listing
		body    string
		rows    int
		wantErr string
	}{
		{Games, `{"games":{"edges":[{"cursor":"a","node":{"id":"x"}}],"pageInfo":{}}}`, 1, ""},
		{Transactions, `{"transactions":[{"block":"1"},{"block":"2"}]}`, 2, ""},
		{Snapshots, `not json`, 0, "not a JSON object"},
		{Snapshots, `{"games":{}}`, 0, `no "coreSnapshots" field`},
		{Transactions, `{"transactions":{}}`, 0, "not an array"},
		{Parameters, `{"networkParameters":[]}`, 0, "not a page"},
	}
	for _, tc := range tests {
		a, err := NewServedAnswer(tc.l, "http://h"+tc.l.Path()+"?a=1&a=2", nil, []byte(tc.body))
		switch {
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%s %s: error %v, want one saying %q", tc.l, tc.body, err, tc.wantErr)
		case tc.wantErr == "" && err != nil:
			t.Errorf("%s %s: %v", tc.l, tc.body, err)
		case tc.wantErr == "" && (len(a.Nodes) != tc.rows || len(a.Query["a"]) != 2):
			t.Errorf("%s %s: %d rows and query %v, want %d rows", tc.l, tc.body, len(a.Nodes), a.Query, tc.rows)
		}
	}
	a, err := NewServedAnswer(Games, "::not a url", nil, []byte(`{"games":{"edges":[]}}`))
	if err != nil || a.Query == nil || len(a.Query) != 0 {
		t.Errorf("an answer of an unreadable URL: %v, query %v, want an empty query", err, a.Query)
	}
}

// TestRelationCatalogue keeps the catalogue consistent: names unique, a
// MUST relation cites the spec and a SHOULD one says which document fixes
// it, scopes are the suite's, and only transactions are judged on accepted
// ones alone.
func TestRelationCatalogue(t *testing.T) {
	scopes := []string{DeploymentScope}
	for _, l := range Listings {
		scopes = append(scopes, l.String())
	}
	kinds := []string{"record", "answer", "query", "units", "header"}
	seen := map[string]bool{}
	for _, r := range RelationCatalogue {
		if seen[r.Name] {
			t.Errorf("two relations are named %s", r.Name)
		}
		seen[r.Name] = true
		if got, ok := RelationNamed(r.Name); !ok || got.Text != r.Text {
			t.Errorf("RelationNamed(%s) = %v, %v", r.Name, got, ok)
		}
		switch {
		case r.Level == Must && (r.Section == "" || r.Quote == ""):
			t.Errorf("MUST relation %s cites no spec text", r.Name)
		case r.Level == Should && (r.Section != "" || r.Quote != "" || r.Why == ""):
			t.Errorf("SHOULD relation %s cites the spec or does not say why", r.Name)
		case !slices.Contains(scopes, r.Scope), !slices.Contains(kinds, r.Kind), r.Text == "":
			t.Errorf("relation %s: scope %q, kind %q, text %q", r.Name, r.Scope, r.Kind, r.Text)
		case r.Accepted && r.Scope != Transactions.String():
			t.Errorf("relation %s is judged on accepted transactions but is of %s", r.Name, r.Scope)
		}
	}
	if _, ok := RelationNamed("no-such-relation"); ok {
		t.Errorf("RelationNamed found a relation that does not exist")
	}
}

// TestDescribeUnix checks how a timestamp is written in messages.
func TestDescribeUnix(t *testing.T) {
	tests := []struct {
		v    int64
		unit time.Duration
		err  error
		want string
	}{
		{chainNow.UnixNano(), time.Nanosecond, nil, "2024-03-01T12:00:00Z"},
		{chainNow.Unix(), time.Second, nil, "2024-03-01T12:00:00Z"},
		{chainNow.UnixNano(), time.Second, nil, "beyond the years 1 to 9999"},
		{-chainNow.UnixNano(), time.Second, nil, "beyond the years 1 to 9999"},
		{253402300799, time.Second, nil, "9999-12-31T23:59:59Z"},
		{253402300800, time.Second, nil, "beyond the years 1 to 9999"},
		{-62135596800, time.Second, nil, "0001-01-01T00:00:00Z"},
		{-62135596801, time.Second, nil, "beyond the years 1 to 9999"},
		{0, time.Second, fmt.Errorf("x"), "not an int64"},
	}
	for _, tc := range tests {
		if got := describeUnix(tc.v, tc.unit, tc.err); !strings.Contains(got, tc.want) {
			t.Errorf("describeUnix(%d, %s) = %q, want %q", tc.v, tc.unit, got, tc.want)
		}
	}
}

// TestRelationsAreSafeForConcurrentUse checks answers from many goroutines
// (run with -race): every case is counted once.
func TestRelationsAreSafeForConcurrentUse(t *testing.T) {
	r := NewRelations()
	c := relCase{l: Games, query: "gameId=a", nodes: []string{gameRec(`"1"`, "a", ""), gameRec(`"2"`, "b", "")}}
	a := servedOf(t, c)
	done := make(chan struct{})
	for range 8 {
		go func() {
			defer func() { done <- struct{}{} }()
			for range 20 {
				r.CheckAnswer(a)
				r.CheckAnswer(servedOf(t, c))
			}
		}()
	}
	for range 8 {
		<-done
	}
	if cases, vs := r.Results(RelGamesID); cases != 8*40*2 || len(vs) != maxViolations || r.Omitted(RelGamesID) != 8*40-maxViolations {
		t.Errorf("%d cases, %d violations, %d omitted", cases, len(vs), r.Omitted(RelGamesID))
	}
}

// TestRelationsForgetPastTheirBounds checks the bounds of what a Relations
// remembers: past the bytes of facts or the records judged, it forgets
// them all and starts again, so a record is then judged inside again.
func TestRelationsForgetPastTheirBounds(t *testing.T) {
	r := NewRelations()
	if r.maxFacts != maxFactsBytes || r.maxJudged != maxRemembered {
		t.Fatalf("bounds %d and %d, want %d and %d", r.maxFacts, r.maxJudged, maxFactsBytes, maxRemembered)
	}
	one := readFacts(Rotations, []byte(rotation(`"1"`, "n", "0xa", "0xa")))
	r.maxFacts, r.maxJudged = 2*one.size(), 2
	check := func(height int) {
		a := servedOf(t, relCase{l: Rotations, nodes: []string{rotation(fmt.Sprint(height), "n", "0xa", "0xa")}})
		r.Check(ServedRow{Listing: Rotations, URL: a.URL, Node: a.Nodes[0]})
	}
	// Held after each height: the facts and the records judged.
	held := []int{1, 2, 1, 2}
	for i, h := range []int{1, 2, 3, 1} {
		check(h)
		if r.factsBytes > r.maxFacts || len(r.facts) != held[i] || len(r.judged) != held[i] || r.factsBytes != held[i]*one.size() {
			t.Fatalf("after height %d: %d bytes of %d facts, %d judged; want %d of each, within %d bytes", h, r.factsBytes, len(r.facts), len(r.judged), held[i], r.maxFacts)
		}
	}
	// Heights 1 and 2 are judged, 3 forgets them and is judged, then 1
	// again: four cases.
	if cases, vs := r.Results(RelRotationsChange); cases != 4 || len(vs) != 4 {
		t.Errorf("%d cases, %d violations, want the forgotten record judged again (4 and 4)", cases, len(vs))
	}
	if s := one.size(); s < 256+len(one.key)+len(one.nodeID) {
		t.Errorf("size %d is below what the facts hold", s)
	}
	g := readFacts(Games, []byte(gameRec(`"1"`, "g", `"individual":{"individual":[{"individual":"p1"},{"individual":"p2"}]}`)))
	if g.size() < 256+len(g.key)+2*(16+2) {
		t.Errorf("a game's size %d does not count its players", g.size())
	}
}

// TestFactsSize checks that the size of what is read of a record counts
// every string it holds, each list's items with their headers.
func TestFactsSize(t *testing.T) {
	f := rowFacts{key: "k", id: "ii", nodeID: "nnn", oldAddress: "oooo", newAddress: "55555", paramKey: "666666",
		cursor: "7777777", txType: "88888888", submitter: "999999999", errText: "1010101010", createdAt: "11111111111",
		teams: []string{"t"}, players: []string{"pp"}, members: []string{"mmm"}, receivers: []string{"rrrr"}, commandKind: []string{"ccccc"}}
	want := 256 + (1 + 2 + 3 + 4 + 5 + 6 + 7 + 8 + 9 + 10 + 11) + 5*16 + (1 + 2 + 3 + 4 + 5)
	if got := f.size(); got != want {
		t.Errorf("size() = %d, want %d", got, want)
	}
}

// TestRelationDetails checks that a violation says what differs, with the
// values and what was wanted.
func TestRelationDetails(t *testing.T) {
	tests := []struct {
		rel  string
		c    relCase
		want []string
	}{
		{RelTxStaleness, relCase{l: Transactions, nodes: []string{tx(market("newMarket", `{"markPriceConfiguration":{"sourceStalenessTolerance":["1s"],"dataSourcesSpec":[{},{}]}}`))}},
			[]string{"markPriceConfiguration gives 1 staleness tolerances for 2 oracle sources, want 4"}},
		{RelTxNanos, relCase{l: Transactions, nodes: []string{tx(cmd("orderSubmission", `{"expiresAt":"`+fmt.Sprint(chainNow.UnixMilli())+`"}`))}},
			[]string{"orderSubmission.expiresAt is " + fmt.Sprint(chainNow.UnixMilli()), "read in Unix nanoseconds it is 1970-01-01T00:28:29Z", "not near the chain's time 2024-03-01T12:00:00Z (the transaction's createdAt)"}},
		{RelTxSeconds, relCase{l: Transactions, header: map[string]string{"X-Block-Timestamp": nanos(chainNow)},
			nodes: []string{tx(cmd("batchProposalSubmission", `{"terms":{"changes":[{"enactmentTimestamp":"`+nanos(chainNow)+`"}]}}`))}},
			[]string{"batchProposalSubmission.terms.changes[0].enactmentTimestamp is", "read in Unix seconds it is", "beyond the years 1 to 9999", "the chain's time 2024-03-01T12:00:00Z (the answer's X-Block-Timestamp)"}},
		{RelTxNanos, relCase{l: Transactions, nodes: []string{`{"block":"1","code":0,"command":` + cmd("orderSubmission", `{"expiresAt":"5"}`) + `}`}},
			[]string{"not near a plausible time (2000 to 2200)"}},
		{RelRotationsChain, relCase{l: Rotations, nodes: []string{rotation(`"20"`, "n", "0xz", "0xc"), rotation(`"10"`, "n", "0xa", "0xb")}},
			[]string{`oldAddress is "0xz", but the node's previous rotation (height 10, in the same answer) made its address "0xb"`}},
		{RelGamesSpan, relCase{l: Games, nodes: []string{gameRec(`"50"`, "a", ""), gameRec(`"20"`, "b", "")}},
			[]string{"epoch 20 and epoch 50 are in one answer: 31 epochs"}},
		{RelGamesWindow, relCase{l: Games, query: "epochTo=40", nodes: []string{gameRec(`"5"`, "a", "")}},
			[]string{"epoch 5 is outside the window [11, 40]"}},
		{RelTxPositive, relCase{l: Transactions, nodes: []string{tx(market("newMarket", `{"logNormal":{"tau":"-0.5"}}`))}},
			[]string{"logNormal.tau is -1/2, want at least 0"}},
		{RelTxSignedBounds, relCase{l: Transactions, nodes: []string{tx(perpetual(`"interestRate":"2"`))}},
			[]string{"perpetual.interestRate is 2, want it in [-1, 1]"}},
		{RelTxBoundsOrdered, relCase{l: Transactions, nodes: []string{tx(perpetual(`"clampLowerBound":"0.5","clampUpperBound":"0.25"`))}},
			[]string{"perpetual.clampLowerBound is 1/2, above clampUpperBound 1/4"}},
		{RelTxRankTable, relCase{l: Transactions, nodes: []string{tx(transfer(`{"recurring":{"dispatchStrategy":{"rankTable":[{"startRank":3},{"startRank":1}]}}}`))}},
			[]string{"rankTable[1] starts at rank 1, below the entry before (3)"}},
		{RelTxCursor, relCase{l: Transactions, nodes: []string{`{"block":"12","cursor":"13.1"}`}},
			[]string{`cursor is "13.1", want "12.<index>"`}},
		{RelBlockTimestamp, relCase{l: Snapshots, header: map[string]string{"X-Block-Timestamp": "soon"}, nodes: []string{`{"blockHeight":"1"}`}},
			[]string{`X-Block-Timestamp is "soon": read in Unix nanoseconds it is not an int64`}},
	}
	for _, tc := range tests {
		r := NewRelations()
		r.CheckAnswer(servedOf(t, tc.c))
		_, vs := r.Results(tc.rel)
		if len(vs) != 1 {
			t.Errorf("%s: %d violations, want 1: %v", tc.rel, len(vs), vs)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(vs[0].Detail, w) {
				t.Errorf("%s: the detail %q does not say %q", tc.rel, vs[0].Detail, w)
			}
		}
	}
}

// TestNearTheChainsTime checks the edges of "near the chain's time" and of
// a plausible time.
func TestNearTheChainsTime(t *testing.T) {
	clock := createdClock(chainNow.Format(time.RFC3339))
	if !clock.ok || clock.secs != chainNow.Unix() || clock.day() != chainNow.Unix()/86400 {
		t.Fatalf("the clock of createdAt %s is %+v", chainNow, clock)
	}
	now := chainNow.Unix()
	tests := []struct {
		clock chainClock
		secs  int64
		near  bool
	}{
		// near is 20 years (of 365 days) before the chain's time to 100
		// after, written here in seconds apart from the constants.
		{clock, now - 630_720_000, true},
		{clock, now - 19*365*86400, true},
		{clock, now - 21*365*86400, false},
		{clock, now + 3_153_600_000, true},
		{clock, now + 101*365*86400, false},
		{clock, now - nearBefore, true},
		{clock, now - nearBefore - 1, false},
		{clock, now + nearAfter, true},
		{clock, now + nearAfter + 1, false},
		{chainClock{}, plausibleFrom, true},
		{chainClock{}, plausibleFrom - 1, false},
		{chainClock{}, plausibleTo - 1, true},
		{chainClock{}, plausibleTo, false},
	}
	for _, tc := range tests {
		if got, _ := tc.clock.near(tc.secs); got != tc.near {
			t.Errorf("near(%d) with clock %+v = %v, want %v", tc.secs, tc.clock, got, tc.near)
		}
	}
	if c := createdClock("1999-12-31T23:59:59Z"); c.ok || c.day() != 0 {
		t.Errorf("a createdAt before 2000 gave the clock %+v", c)
	}
	h := http.Header{}
	h.Set("X-Block-Timestamp", nanos(chainNow))
	if c := chainTime(h); !c.ok || c.secs != now {
		t.Errorf("the clock of X-Block-Timestamp %s is %+v", nanos(chainNow), c)
	}
}
