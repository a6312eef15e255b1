package schemas_test

import (
	"strings"
	"testing"

	"github.com/chaindata/harness/schemas"
)

// IDs used by the hand-written rule cases below.
const (
	btcPerp = "4e9081e20e9e81f3e747d42cb0c9b8826454df01899e6027a22e771e19cc79fc"
	orderID = "7c0b1e5a3f9d2c8e6b4a0f7d3c9e5b1a8f6d4c2e0b9a7f5d3c1e8b6a4f2d0c9e"
	stopID  = "d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8"
)

// ruleCase is one document checked against one definition: valid, or
// rejected with a violation at a given path.
type ruleCase struct {
	name   string
	schema string
	doc    string
	valid  bool
	at     string // for an invalid document: a violation must be at this JSON pointer
}

func checkRuleCases(t *testing.T, tests []ruleCase) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := violationsOf(t, schemas.MustLoad(tc.schema), []byte(tc.doc))
			switch {
			case tc.valid && len(got) > 0:
				t.Fatalf("rejected, want valid: %v", got)
			case !tc.valid && len(got) == 0:
				t.Fatalf("accepted, want a violation at %q", tc.at)
			case !tc.valid && !hasViolation(got, tc.at):
				t.Fatalf("no violation at %q: %v", tc.at, got)
			}
		})
	}
}

// orderWith returns an OrderSubmission for BTC perp with the given extra members.
func orderWith(members string) string {
	return `{"marketId": "` + btcPerp + `", "side": "SIDE_BUY", "size": "10", ` + members + `}`
}

func TestOrderSubmissionRules(t *testing.T) {
	const s = "OrderSubmission"
	tests := []ruleCase{
		// expiresAt only with GTT
		{"GTT with expiry", s, orderWith(`"price": "100", "type": "TYPE_LIMIT", "timeInForce": "TIME_IN_FORCE_GTT", "expiresAt": "1742040000000000000"`), true, ""},
		{"GTC with expiry", s, orderWith(`"price": "100", "type": "TYPE_LIMIT", "timeInForce": "TIME_IN_FORCE_GTC", "expiresAt": "1742040000000000000"`), false, "/timeInForce"},
		{"IOC with expiry", s, orderWith(`"type": "TYPE_MARKET", "timeInForce": "TIME_IN_FORCE_IOC", "expiresAt": "1"`), false, "/timeInForce"},
		{"GTC with expiry 0", s, orderWith(`"price": "100", "type": "TYPE_LIMIT", "timeInForce": "TIME_IN_FORCE_GTC", "expiresAt": "0"`), true, ""},
		{"GTT without expiry", s, orderWith(`"price": "100", "type": "TYPE_LIMIT", "timeInForce": "TIME_IN_FORCE_GTT"`), true, ""},
		// postOnly only on limit orders
		{"post-only limit", s, orderWith(`"price": "100", "type": "TYPE_LIMIT", "timeInForce": "TIME_IN_FORCE_GTC", "postOnly": true`), true, ""},
		{"post-only market", s, orderWith(`"type": "TYPE_MARKET", "timeInForce": "TIME_IN_FORCE_IOC", "postOnly": true`), false, "/type"},
		{"post-only network", s, orderWith(`"type": "TYPE_NETWORK", "timeInForce": "TIME_IN_FORCE_FOK", "postOnly": true`), false, "/type"},
		{"postOnly false on a market order", s, orderWith(`"type": "TYPE_MARKET", "timeInForce": "TIME_IN_FORCE_IOC", "postOnly": false`), true, ""},
		// reduceOnly only on non-persistent orders
		{"reduce-only IOC", s, orderWith(`"type": "TYPE_MARKET", "timeInForce": "TIME_IN_FORCE_IOC", "reduceOnly": true`), true, ""},
		{"reduce-only FOK", s, orderWith(`"price": "100", "type": "TYPE_LIMIT", "timeInForce": "TIME_IN_FORCE_FOK", "reduceOnly": true`), true, ""},
		{"reduce-only GTC", s, orderWith(`"price": "100", "type": "TYPE_LIMIT", "timeInForce": "TIME_IN_FORCE_GTC", "reduceOnly": true`), false, "/timeInForce"},
		{"reduce-only GTT", s, orderWith(`"price": "100", "type": "TYPE_LIMIT", "timeInForce": "TIME_IN_FORCE_GTT", "expiresAt": "1742040000000000000", "reduceOnly": true`), false, "/timeInForce"},
		{"reduce-only GFA", s, orderWith(`"price": "100", "type": "TYPE_LIMIT", "timeInForce": "TIME_IN_FORCE_GFA", "reduceOnly": true`), false, "/timeInForce"},
		{"reduceOnly false on GTC", s, orderWith(`"price": "100", "type": "TYPE_LIMIT", "timeInForce": "TIME_IN_FORCE_GTC", "reduceOnly": false`), true, ""},
		// limit orders need a price unless pegged
		{"limit without price", s, orderWith(`"type": "TYPE_LIMIT", "timeInForce": "TIME_IN_FORCE_GTC"`), false, "/price"},
		{"limit with empty price", s, orderWith(`"price": "", "type": "TYPE_LIMIT", "timeInForce": "TIME_IN_FORCE_GTC"`), false, "/price"},
		{"limit with price", s, orderWith(`"price": "6498750000", "type": "TYPE_LIMIT", "timeInForce": "TIME_IN_FORCE_GTC"`), true, ""},
		{"pegged limit without price", s, orderWith(`"type": "TYPE_LIMIT", "timeInForce": "TIME_IN_FORCE_GTC", "peggedOrder": {"offset": "2500", "reference": "PEGGED_REFERENCE_MID"}`), true, ""},
		{"pegged limit with empty price", s, orderWith(`"price": "", "type": "TYPE_LIMIT", "timeInForce": "TIME_IN_FORCE_GTC", "peggedOrder": {"offset": "2500", "reference": "PEGGED_REFERENCE_MID"}`), true, ""},
		{"limit with null peggedOrder and no price", s, orderWith(`"type": "TYPE_LIMIT", "timeInForce": "TIME_IN_FORCE_GTC", "peggedOrder": null`), false, "/price"},
		{"limit with null peggedOrder and a price", s, orderWith(`"price": "100", "type": "TYPE_LIMIT", "timeInForce": "TIME_IN_FORCE_GTC", "peggedOrder": null`), true, ""},
		{"market without price", s, orderWith(`"type": "TYPE_MARKET", "timeInForce": "TIME_IN_FORCE_FOK"`), true, ""},
		{"market with empty price", s, orderWith(`"price": "", "type": "TYPE_MARKET", "timeInForce": "TIME_IN_FORCE_FOK"`), true, ""},
		// required fields
		{"no side", s, `{"marketId": "` + btcPerp + `", "size": "10", "type": "TYPE_MARKET", "timeInForce": "TIME_IN_FORCE_IOC"}`, false, "/side"},
		{"null icebergOpts", s, orderWith(`"price": "100", "type": "TYPE_LIMIT", "timeInForce": "TIME_IN_FORCE_GTC", "icebergOpts": null`), true, ""},
		{"iceberg without minimum", s, orderWith(`"price": "100", "type": "TYPE_LIMIT", "timeInForce": "TIME_IN_FORCE_GTC", "icebergOpts": {"peakSize": "5"}`), false, "/icebergOpts/minimumVisibleSize"},
	}
	checkRuleCases(t, tests)
}

func TestOrderAmendmentRules(t *testing.T) {
	const s = "OrderAmendment"
	amend := func(members string) string {
		return `{"marketId": "` + btcPerp + `", "orderId": "` + orderID + `"` + members + `}`
	}
	tests := []ruleCase{
		{"size alone", s, amend(`, "size": "1800"`), true, ""},
		{"sizeDelta alone", s, amend(`, "sizeDelta": "-250"`), true, ""},
		{"positive sizeDelta alone", s, amend(`, "sizeDelta": "40"`), true, ""},
		{"size with sizeDelta 0", s, amend(`, "size": "1800", "sizeDelta": "0"`), true, ""},
		{"size with a negative sizeDelta", s, amend(`, "size": "1800", "sizeDelta": "-250"`), false, ""},
		{"size with a positive sizeDelta", s, amend(`, "size": "1800", "sizeDelta": "40"`), false, ""},
		{"price only", s, amend(`, "price": "6501250000"`), true, ""},
		{"no orderId", s, `{"marketId": "` + btcPerp + `"}`, false, "/orderId"},
		{"no marketId", s, `{"orderId": "` + orderID + `"}`, false, "/marketId"},
	}
	checkRuleCases(t, tests)
}

func TestCancellationRules(t *testing.T) {
	tests := []ruleCase{
		{"order: market and order", "OrderCancellation", `{"marketId": "` + btcPerp + `", "orderId": "` + orderID + `"}`, true, ""},
		{"order: market only", "OrderCancellation", `{"marketId": "` + btcPerp + `"}`, true, ""},
		{"order: market with empty order", "OrderCancellation", `{"marketId": "` + btcPerp + `", "orderId": ""}`, true, ""},
		{"order: nothing (all markets)", "OrderCancellation", `{}`, true, ""},
		{"order: both empty", "OrderCancellation", `{"marketId": "", "orderId": ""}`, true, ""},
		{"order: order without market", "OrderCancellation", `{"orderId": "` + orderID + `"}`, false, "/marketId"},
		{"order: order with empty market", "OrderCancellation", `{"marketId": "", "orderId": "` + orderID + `"}`, false, "/marketId"},
		{"stop: market and stop order", "StopOrderCancellation", `{"marketId": "` + btcPerp + `", "stopOrderId": "` + stopID + `"}`, true, ""},
		{"stop: market only", "StopOrderCancellation", `{"marketId": "` + btcPerp + `"}`, true, ""},
		{"stop: nothing (all markets)", "StopOrderCancellation", `{}`, true, ""},
		{"stop: stop order without market", "StopOrderCancellation", `{"stopOrderId": "` + stopID + `"}`, false, "/marketId"},
		{"stop: stop order with empty market", "StopOrderCancellation", `{"marketId": "", "stopOrderId": "` + stopID + `"}`, false, "/marketId"},
	}
	checkRuleCases(t, tests)
}

func TestMarginModeUpdateRules(t *testing.T) {
	const s = "MarginModeUpdate"
	tests := []ruleCase{
		{"cross margin", s, `{"marketId": "` + btcPerp + `", "mode": "MODE_CROSS_MARGIN"}`, true, ""},
		{"isolated margin with factor", s, `{"marketId": "` + btcPerp + `", "mode": "MODE_ISOLATED_MARGIN", "marginFactor": "0.25"}`, true, ""},
		{"unspecified mode", s, `{"marketId": "` + btcPerp + `", "mode": "MODE_UNSPECIFIED"}`, false, "/mode"},
		{"no mode", s, `{"marketId": "` + btcPerp + `"}`, false, "/mode"},
		{"unknown mode", s, `{"marketId": "` + btcPerp + `", "mode": "MODE_PORTFOLIO_MARGIN"}`, false, "/mode"},
	}
	checkRuleCases(t, tests)
}

func TestDispatchStrategyRules(t *testing.T) {
	const s = "DispatchStrategy"
	strategy := func(members string) string {
		return `{"metric": "DISPATCH_METRIC_MAKER_FEES_PAID", "windowLength": "1"` + members + `}`
	}
	const table = `, "rankTable": [{"startRank": 1, "shareRatio": 10}, {"startRank": 2, "shareRatio": 5}]`
	tests := []ruleCase{
		{"individuals, all", s, strategy(`, "entityScope": "ENTITY_SCOPE_INDIVIDUALS", "individualScope": "INDIVIDUAL_SCOPE_ALL"`), true, ""},
		{"individuals, in team", s, strategy(`, "entityScope": "ENTITY_SCOPE_INDIVIDUALS", "individualScope": "INDIVIDUAL_SCOPE_IN_TEAM"`), true, ""},
		{"teams, no individual scope", s, strategy(`, "entityScope": "ENTITY_SCOPE_TEAMS", "nTopPerformers": "0.5"`), true, ""},
		{"teams, unspecified individual scope", s, strategy(`, "entityScope": "ENTITY_SCOPE_TEAMS", "individualScope": "INDIVIDUAL_SCOPE_UNSPECIFIED"`), true, ""},
		{"teams, individual scope all", s, strategy(`, "entityScope": "ENTITY_SCOPE_TEAMS", "individualScope": "INDIVIDUAL_SCOPE_ALL"`), false, "/entityScope"},
		{"teams, individual scope AMM", s, strategy(`, "entityScope": "ENTITY_SCOPE_TEAMS", "individualScope": "INDIVIDUAL_SCOPE_AMM"`), false, "/entityScope"},
		{"unspecified entity, individual scope", s, strategy(`, "entityScope": "ENTITY_SCOPE_UNSPECIFIED", "individualScope": "INDIVIDUAL_SCOPE_NOT_IN_TEAM"`), false, "/entityScope"},
		{"no entity scope", s, strategy(``), false, "/entityScope"},
		{"no entity scope, with individual scope", s, strategy(`, "individualScope": "INDIVIDUAL_SCOPE_ALL"`), false, "/entityScope"},
		{"rank with table", s, strategy(`, "entityScope": "ENTITY_SCOPE_INDIVIDUALS", "distributionStrategy": "DISTRIBUTION_STRATEGY_RANK"` + table), true, ""},
		{"rank lottery with table", s, strategy(`, "entityScope": "ENTITY_SCOPE_TEAMS", "distributionStrategy": "DISTRIBUTION_STRATEGY_RANK_LOTTERY"` + table), true, ""},
		{"rank without table", s, strategy(`, "entityScope": "ENTITY_SCOPE_INDIVIDUALS", "distributionStrategy": "DISTRIBUTION_STRATEGY_RANK"`), false, "/rankTable"},
		{"rank with empty table", s, strategy(`, "entityScope": "ENTITY_SCOPE_INDIVIDUALS", "distributionStrategy": "DISTRIBUTION_STRATEGY_RANK", "rankTable": []`), false, "/rankTable"},
		{"rank lottery without table", s, strategy(`, "entityScope": "ENTITY_SCOPE_INDIVIDUALS", "distributionStrategy": "DISTRIBUTION_STRATEGY_RANK_LOTTERY"`), false, "/rankTable"},
		{"rank lottery with empty table", s, strategy(`, "entityScope": "ENTITY_SCOPE_TEAMS", "distributionStrategy": "DISTRIBUTION_STRATEGY_RANK_LOTTERY", "rankTable": []`), false, "/rankTable"},
		{"pro rata without table", s, strategy(`, "entityScope": "ENTITY_SCOPE_INDIVIDUALS", "distributionStrategy": "DISTRIBUTION_STRATEGY_PRO_RATA"`), true, ""},
		{"pro rata with empty table", s, strategy(`, "entityScope": "ENTITY_SCOPE_INDIVIDUALS", "distributionStrategy": "DISTRIBUTION_STRATEGY_PRO_RATA", "rankTable": []`), true, ""},
		{"start rank 0", s, strategy(`, "entityScope": "ENTITY_SCOPE_INDIVIDUALS", "distributionStrategy": "DISTRIBUTION_STRATEGY_RANK", "rankTable": [{"startRank": 0, "shareRatio": 10}]`), false, "/rankTable/0/startRank"},
		{"transfer interval 0", s, strategy(`, "entityScope": "ENTITY_SCOPE_INDIVIDUALS", "transferInterval": 0`), false, "/transferInterval"},
	}
	checkRuleCases(t, tests)
}

// detailedCommandKinds maps each command kind whose shape the harness
// inspects to the transaction type the block explorer gives it.
var detailedCommandKinds = []struct{ kind, txType string }{
	{"amendAmm", "Amend AMM"},
	{"announceNode", "Register New Node"},
	{"applyReferralCode", "Apply Referral Code"},
	{"batchMarketInstructions", "Batch Market Instructions"},
	{"batchProposalSubmission", "Batch Proposal"},
	{"orderSubmission", "Submit Order"},
	{"orderAmendment", "Amend Order"},
	{"orderCancellation", "Cancel Order"},
	{"stopOrdersSubmission", "Stop Orders Submission"},
	{"stopOrdersCancellation", "Stop Orders Cancellation"},
	{"updateMarginMode", "Update Margin Mode"},
}

// transactionWith returns the Transaction example carrying the Command
// example of the given kind, typed txType.
func transactionWith(t testing.TB, kind, txType string) any {
	t.Helper()
	tx := exampleDoc(t, "Transaction.json")
	tx = setAt(t, tx, "/command", exampleDoc(t, "Command."+kind+".json"))
	return setAt(t, tx, "/type", txType)
}

func TestTransactionTypeMatchesCommandKind(t *testing.T) {
	v := schemas.MustLoad("Transaction")
	for i, k := range detailedCommandKinds {
		other := detailedCommandKinds[(i+1)%len(detailedCommandKinds)].txType
		tests := []struct {
			name   string
			txType string
			valid  bool
		}{
			{"its own type", k.txType, true},
			{"another kind's type", other, false},
			{"lower case", strings.ToLower(k.txType), false},
			{"a type of an opaque kind", "Withdraw", false},
		}
		for _, tc := range tests {
			t.Run(k.kind+"/"+tc.name, func(t *testing.T) {
				got := violationsOf(t, v, encodeJSON(t, transactionWith(t, k.kind, tc.txType)))
				switch {
				case tc.valid && len(got) > 0:
					t.Fatalf("type %q rejected: %v", tc.txType, got)
				case !tc.valid && !hasViolation(got, "/type", "const"):
					t.Fatalf("type %q: want a const violation at /type, got %v", tc.txType, got)
				}
			})
		}
	}
}

func TestEveryDetailedCommandKindHasATransactionType(t *testing.T) {
	listed := map[string]bool{}
	for _, k := range detailedCommandKinds {
		listed[k.kind] = true
	}
	for _, p := range schemas.MustLookup("Command").Properties {
		if p.Name == "nonce" || p.Name == "blockHeight" || p.Schema.IsOpaque() {
			continue
		}
		if !listed[p.Name] {
			t.Errorf("command kind %s has no row in detailedCommandKinds", p.Name)
		}
		delete(listed, p.Name)
	}
	for kind := range listed {
		t.Errorf("detailedCommandKinds lists %s, which Command does not define", kind)
	}
}

func TestTransactionResultCodeRules(t *testing.T) {
	v := schemas.MustLoad("Transaction")
	tests := []struct {
		name  string
		edit  func(t *testing.T, tx any) any
		valid bool
		at    string
	}{
		{"success without error", func(t *testing.T, tx any) any { return tx }, true, ""},
		{"success with an empty error", func(t *testing.T, tx any) any { return setAt(t, tx, "/error", "") }, true, ""},
		{"success with an error", func(t *testing.T, tx any) any { return setAt(t, tx, "/error", "OrderError: Order Not Found") }, false, "/error"},
		{"failure with an error", func(t *testing.T, tx any) any {
			return setAt(t, setAt(t, tx, "/code", mustDecode(t, "60")), "/error", "OrderError: Order Not Found")
		}, true, ""},
		{"failure without error", func(t *testing.T, tx any) any { return setAt(t, tx, "/code", mustDecode(t, "60")) }, false, "/error"},
		{"negative code without error", func(t *testing.T, tx any) any { return setAt(t, tx, "/code", mustDecode(t, "-1")) }, false, "/error"},
		{"failure with an empty error", func(t *testing.T, tx any) any {
			return setAt(t, setAt(t, tx, "/code", mustDecode(t, "89")), "/error", "")
		}, false, "/error"},
		{"code as a string", func(t *testing.T, tx any) any { return setAt(t, tx, "/code", "0") }, false, "/code"},
		{"code beyond int32", func(t *testing.T, tx any) any {
			return setAt(t, setAt(t, tx, "/code", mustDecode(t, "2147483648")), "/error", "overflow")
		}, false, "/code"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc := tc.edit(t, exampleDoc(t, "Transaction.json"))
			got := violationsOf(t, v, encodeJSON(t, doc))
			switch {
			case tc.valid && len(got) > 0:
				t.Fatalf("rejected: %v", got)
			case !tc.valid && !hasViolation(got, tc.at):
				t.Fatalf("want a violation at %q, got %v", tc.at, got)
			}
		})
	}
}

const commandHead = `"nonce": "7139274626518473152", "blockHeight": "45120311"`

func TestCommandHasExactlyOneKind(t *testing.T) {
	const s = "Command"
	cancel := `"orderCancellation": {"marketId": "` + btcPerp + `"}`
	margin := `"updateMarginMode": {"marketId": "` + btcPerp + `", "mode": "MODE_CROSS_MARGIN"}`
	tests := []ruleCase{
		{"one kind", s, `{` + commandHead + `, ` + cancel + `}`, true, ""},
		{"two detailed kinds", s, `{` + commandHead + `, ` + cancel + `, ` + margin + `}`, false, "/updateMarginMode"},
		{"a detailed and an opaque kind", s, `{` + commandHead + `, ` + cancel + `, "transfer": {}}`, false, "/transfer"},
		{"two opaque kinds", s, `{` + commandHead + `, "transfer": {}, "joinTeam": {}}`, false, "/joinTeam"},
		{"three kinds", s, `{` + commandHead + `, ` + cancel + `, ` + margin + `, "transfer": {}}`, false, "/transfer"},
		{"no kind", s, `{` + commandHead + `}`, false, ""},
		{"nothing", s, `{}`, false, ""},
		{"not an object", s, `"orderCancellation"`, false, ""},
		{"unknown kind", s, `{` + commandHead + `, "mintTokens": {}}`, false, "/mintTokens"},
		{"misspelt kind", s, `{` + commandHead + `, "withdrawalSubmission": {}}`, false, "/withdrawalSubmission"},
		{"unknown kind beside a known one", s, `{` + commandHead + `, ` + cancel + `, "mintTokens": {}}`, false, "/mintTokens"},
		{"no nonce", s, `{"blockHeight": "45120311", ` + cancel + `}`, false, "/nonce"},
		{"no block height", s, `{"nonce": "1", ` + cancel + `}`, false, "/blockHeight"},
		{"null kind", s, `{` + commandHead + `, "orderCancellation": null}`, false, "/orderCancellation"},
	}
	checkRuleCases(t, tests)
}

// TestOpaqueKindsAreAcceptedByName checks every kind the schemas accept
// without inspecting it, as the model lists them: alone it passes as {} or
// with any content, beside another kind it fails, and it must be an object.
func TestOpaqueKindsAreAcceptedByName(t *testing.T) {
	heads := map[string]string{
		"Command":        commandHead,
		"ProposalChange": `"enactmentTimestamp": "1742990400"`,
	}
	for def, head := range heads {
		var kinds []string
		for _, p := range schemas.MustLookup(def).Properties {
			if p.Schema.IsOpaque() {
				kinds = append(kinds, p.Name)
			}
		}
		if len(kinds) == 0 {
			t.Fatalf("%s has no opaque kinds", def)
		}
		for i, kind := range kinds {
			other := kinds[(i+1)%len(kinds)]
			tests := []ruleCase{
				{"empty", def, `{` + head + `, "` + kind + `": {}}`, true, ""},
				{"with content", def, `{` + head + `, "` + kind + `": {"amount": "1", "nested": {"any": [1, "two", null]}}}`, true, ""},
				{"not an object", def, `{` + head + `, "` + kind + `": "yes"}`, false, "/" + kind},
				{"null", def, `{` + head + `, "` + kind + `": null}`, false, "/" + kind},
				// Keyed (README): each kind is a property the other does
				// not allow beside it.
				{"beside another kind", def, `{` + head + `, "` + kind + `": {}, "` + other + `": {}}`, false, "/" + other},
			}
			t.Run(def+"/"+kind, func(t *testing.T) { checkRuleCases(t, tests) })
		}
	}
}

func TestProposalChangeHasExactlyOneKind(t *testing.T) {
	const s = "ProposalChange"
	const head = `"enactmentTimestamp": "1742990400"`
	cancel := `"cancelTransfer": {"changes": {"transferId": "3a8f1c6e9b2d5a7f0c3e6b9d2a5f8c1e4b7d0a3f6c9e2b5d8a1f4c7e0b3d6a9f"}}`
	tests := []ruleCase{
		{"one kind", s, `{` + head + `, ` + cancel + `}`, true, ""},
		{"freeform", s, `{` + head + `, "newFreeform": {}}`, true, ""},
		{"two kinds", s, `{` + head + `, ` + cancel + `, "newFreeform": {}}`, false, "/newFreeform"},
		{"a detailed and an opaque kind", s, `{` + head + `, "newFreeform": {}, "updateNetworkParameter": {}}`, false, "/updateNetworkParameter"},
		{"no kind", s, `{` + head + `}`, false, ""},
		{"no kind beside both timestamps", s, `{` + head + `, "validationTimestamp": "1742990000"}`, false, ""},
		{"unknown kind", s, `{` + head + `, "newPerpetualMarket": {}}`, false, "/newPerpetualMarket"},
		{"no enactment timestamp", s, `{` + cancel + `}`, false, "/enactmentTimestamp"},
		{"freeform with a parameter", s, `{` + head + `, "newFreeform": {"url": "https://example.org"}}`, false, "/newFreeform/url"},
	}
	checkRuleCases(t, tests)
}

func TestOneOfGroupsNeedExactlyOneMember(t *testing.T) {
	game := func(members string) string {
		return `{"epoch": "1298", "id": "b7f0a9c1d3e5f7092b4d6f8a0c2e4f6a8b0d2f4a6c8e0a2c4e6a8c0e2a4c6e8a", "participants": "0",
			"rewardAssetId": "bf1e88d19db4b3ca0d1d5bdb73718a01686b18cf731ca26adedf3c8b83802bba"` + members + `}`
	}
	setup := func(members string) string {
		return `{"orderSubmission": {"marketId": "` + btcPerp + `", "side": "SIDE_SELL", "size": "0", "type": "TYPE_MARKET",
			"timeInForce": "TIME_IN_FORCE_IOC", "reduceOnly": true}` + members + `}`
	}
	tests := []ruleCase{
		{"game: individual", "Game", game(`, "individual": {"individual": []}`), true, ""},
		{"game: team", "Game", game(`, "team": {"team": []}`), true, ""},
		{"game: individual and team", "Game", game(`, "individual": {"individual": []}, "team": {"team": []}`), false, ""},
		{"game: neither", "Game", game(``), false, ""},
		{"stop order: price", "StopOrderSetup", setup(`, "price": "6150000000"`), true, ""},
		{"stop order: trailing offset", "StopOrderSetup", setup(`, "trailingPercentOffset": "0.05"`), true, ""},
		{"stop order: price and trailing offset", "StopOrderSetup", setup(`, "price": "6150000000", "trailingPercentOffset": "0.05"`), false, ""},
		{"stop order: no trigger", "StopOrderSetup", setup(``), false, ""},
		{"data source: both", "DataSourceDefinition", `{"internal": {"time": {"conditions": []}}, "external": {"oracle": {"signers": [], "filters": []}}}`, false, ""},
		{"data source: neither", "DataSourceDefinition", `{}`, false, ""},
		{"signer: both", "Signer", `{"ethAddress": {"address": "0xfCEAdAFab14d46e20144F48824d0C09B1a03F2BC"}, "pubKey": {"key": "e1c2a3b4d5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90"}}`, false, ""},
		{"signer: neither", "Signer", `{}`, false, ""},
		{"asset: both sources", "AssetDetails", `{"name": "Tether USD", "symbol": "USDT", "quantum": "1000000", "decimals": "6",
			"builtinAsset": {"maxFaucetAmountMint": "1"}, "erc20": {"chainId": "1", "contractAddress": "0xdAC17F958D2ee523a2206206994597C13D831ec7"}}`, false, ""},
	}
	checkRuleCases(t, tests)
}

func TestOneOfGroupsRejectTwoBranches(t *testing.T) {
	// Each definition with a oneOf group, with the members of two of its
	// branch examples merged, must fail: the rule holds for every group, not
	// only the ones listed above.
	files := map[string]example{}
	for _, ex := range examples(t) {
		files[ex.file] = ex
	}
	checked := 0
	for _, name := range objectDefinitions(t) {
		n := schemas.MustLookup(name).Resolve()
		group := n.ExclusiveGroup()
		var branches []map[string]any
		var members []string
		for _, b := range group {
			if ex, ok := files[name+"."+b+".json"]; ok {
				branches = append(branches, ex.doc.(map[string]any))
				members = append(members, b)
			}
		}
		if len(branches) < 2 {
			continue
		}
		checked++
		t.Run(name, func(t *testing.T) {
			merged := cloneJSON(branches[0]).(map[string]any)
			for k, v := range branches[1] {
				if _, ok := merged[k]; !ok {
					merged[k] = cloneJSON(v)
				}
			}
			got := violationsOf(t, schemas.MustLoad(name), encodeJSON(t, merged))
			if n.KeyedGroup() != nil {
				// Keyed: each member is a property the other one does
				// not allow beside it.
				for _, m := range members[:2] {
					if !hasViolation(got, "/"+m, "invalid_property_name") {
						t.Fatalf("two branches set: want invalid_property_name at /%s, got %v", m, got)
					}
				}
				return
			}
			if !hasViolation(got, "", "number_one_of") {
				t.Fatalf("two branches set: want number_one_of at the root, got %v", got)
			}
		})
	}
	if checked < 15 {
		t.Fatalf("only %d oneOf groups checked", checked)
	}
}

func TestProposalRationaleLengths(t *testing.T) {
	const s = "ProposalRationale"
	rationale := func(title, description string) string {
		return string(encodeJSON(t, map[string]any{"title": title, "description": description}))
	}
	r := strings.Repeat
	tests := []ruleCase{
		{"empty title and description", s, rationale("", ""), true, ""},
		{"title of 100 ASCII characters", s, rationale(r("a", 100), "d"), true, ""},
		{"title of 101 ASCII characters", s, rationale(r("a", 101), "d"), false, "/title"},
		{"title of 100 two-byte characters", s, rationale(r("é", 100), "d"), true, ""},
		{"title of 101 two-byte characters", s, rationale(r("é", 101), "d"), false, "/title"},
		{"title of 100 four-byte characters", s, rationale(r("🚀", 100), "d"), true, ""},
		{"title of 101 four-byte characters", s, rationale(r("🚀", 101), "d"), false, "/title"},
		{"title of 99 emoji and one ASCII", s, rationale(r("😀", 99)+"!", "d"), true, ""},
		{"description of 20000 characters", s, rationale("t", r("é", 20000)), true, ""},
		{"description of 20001 characters", s, rationale("t", r("é", 20001)), false, "/description"},
		{"description of 20000 emoji", s, rationale("t", r("🚀", 20000)), true, ""},
		{"description of 20001 ASCII characters", s, rationale("t", r("x", 20001)), false, "/description"},
		{"no title", s, `{"description": "d"}`, false, "/title"},
		{"no description", s, `{"title": "t"}`, false, "/description"},
	}
	checkRuleCases(t, tests)
}

// TestAnnounceNodeOptionalFields: a real gateway writes "" for the optional
// string fields of a command (README), announceNode's included.
func TestAnnounceNodeOptionalFields(t *testing.T) {
	node := func(members string) string {
		return `{"id": "55504e9bfd914a7bbefa342c82f59a2f4dee344e5b6863a14c02a812f4fbde32", "name": "Arctic Stake",
			"chainPubKey": "n8f3ZqQ2w9Lk0PbXyT7vR1aE4sGd6HjKm5NcUoVi8Bg=",
			"corePubKey": "e1c2a3b4d5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90",
			"ethereumAddress": "0x1b4e7a0d3f6c9b2e5a8d1f4c7b0e3a6d9f2c5b8e", "fromEpoch": "1299"` + members + `}`
	}
	const s = "AnnounceNode"
	tests := []ruleCase{
		{"optional fields left out", s, node(``), true, ""},
		{"optional fields empty", s, node(`, "avatarUrl": "", "infoUrl": "", "country": "", "submitterAddress": "", "corePubKeyIndex": 0`), true, ""},
		{"country name instead of code", s, node(`, "country": "Norway"`), false, "/country"},
		{"submitter that is not an address", s, node(`, "submitterAddress": "0x1234"`), false, "/submitterAddress"},
		{"info URL without scheme", s, node(`, "infoUrl": "arcticstake.example.com"`), false, "/infoUrl"},
		{"no Ethereum address", s, `{"id": "55504e9bfd914a7bbefa342c82f59a2f4dee344e5b6863a14c02a812f4fbde32", "name": "x",
			"chainPubKey": "n8f3ZqQ2w9Lk0PbXyT7vR1aE4sGd6HjKm5NcUoVi8Bg=",
			"corePubKey": "e1c2a3b4d5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90", "fromEpoch": "1299"}`, false, "/ethereumAddress"},
	}
	checkRuleCases(t, tests)
}
