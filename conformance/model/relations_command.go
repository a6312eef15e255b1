package model

import (
	"encoding/json"
	"math/big"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"
)

// role is what an object inside a command is, by where it lies: the spec
// names each object by the field that holds it.
type role int

const (
	roleNone role = iota
	roleSubmission
	roleAmendment
	roleCancellation
	roleStopCancellation
	roleStopSetup
	roleRationale
	roleChange
	roleTransfer
	roleRecurring
	roleOneOff
	roleDispatch
	roleMarket
	roleInstrument
	roleSpotInstrument
	rolePerpetual
	roleComposite
	roleLiquidation
	roleSuccessor
	roleLogNormal
	roleAmm
	roleEthTrigger
	roleInternalTrigger
)

// shapedVariants are the command variants whose shapes the spec gives: the
// walk goes into these only.
var shapedVariants = []string{
	"amendAmm", "announceNode", "applyReferralCode", "batchMarketInstructions", "batchProposalSubmission",
	"orderSubmission", "orderAmendment", "orderCancellation", "stopOrdersSubmission", "stopOrdersCancellation", "updateMarginMode",
}

// shapedChanges are the proposal changes whose shapes the spec gives
// (newTransfer is ours: the spec does not show its field's name).
var shapedChanges = []string{
	"cancelTransfer", "newAsset", "newFreeform", "newMarket", "newSpotMarket", "newTransfer", "updateAsset", "updateMarket",
}

// roleOf names the object at the end of a path of field names (an array's
// items are its name with "[]").
func roleOf(segs []string) role {
	// Two empty names before the path stand for the fields above the
	// command.
	segs = append([]string{"", ""}, segs...)
	n := len(segs)
	last, prev, prev2 := segs[n-1], segs[n-2], segs[n-3]
	switch last {
	case "orderSubmission", "submissions[]":
		return roleSubmission
	case "orderAmendment", "amendments[]":
		return roleAmendment
	case "orderCancellation", "cancellations[]":
		return roleCancellation
	case "stopOrdersCancellation", "stopOrdersCancellation[]":
		return roleStopCancellation
	case "fallsBelow", "risesAbove":
		return roleStopSetup
	case "rationale":
		return roleRationale
	case "recurring":
		return roleRecurring
	case "oneOff":
		return roleOneOff
	case "dispatchStrategy":
		return roleDispatch
	case "perpetual":
		return rolePerpetual
	case "markPriceConfiguration", "internalCompositePriceConfiguration":
		return roleComposite
	case "liquidationStrategy":
		return roleLiquidation
	case "successor":
		return roleSuccessor
	case "logNormal":
		return roleLogNormal
	case "concentratedLiquidityParameters":
		return roleAmm
	case "instrument":
		if prev == "changes" && prev2 == "newSpotMarket" {
			return roleSpotInstrument
		}
		return roleInstrument
	}
	switch {
	case last == "changes[]" && prev == "terms":
		return roleChange
	case last == "changes" && prev == "newTransfer":
		return roleTransfer
	case last == "changes" && (prev == "newMarket" || prev == "newSpotMarket" || prev == "updateMarket"):
		return roleMarket
	case last == "timeTrigger" && prev == "trigger":
		return roleEthTrigger
	case last == "triggers[]" && prev == "timeTrigger":
		return roleInternalTrigger
	}
	return roleNone
}

// walkCommand calls visit with every object of the command's variants
// whose shapes the spec gives, with its role and path.
func walkCommand(cmd map[string]any, visit func(r role, path string, m map[string]any)) {
	for _, k := range shapedVariants {
		if v, ok := cmd[k]; ok {
			walkValue(v, []string{k}, k, visit)
		}
	}
}

func walkValue(v any, segs []string, path string, visit func(role, string, map[string]any)) {
	switch t := v.(type) {
	case map[string]any:
		r := roleOf(segs)
		if r != roleNone {
			visit(r, path, t)
		}
		keys := make([]string, 0, len(t))
		for k, x := range t {
			switch x.(type) {
			case map[string]any, []any:
				if r != roleChange || slices.Contains(shapedChanges, k) {
					keys = append(keys, k)
				}
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			walkValue(t[k], append(slices.Clip(segs), k), path+"."+k, visit)
		}
	case []any:
		items := append(slices.Clone(segs[:len(segs)-1]), segs[len(segs)-1]+"[]")
		for i, x := range t {
			walkValue(x, items, path+"["+strconv.Itoa(i)+"]", visit)
		}
	}
}

// judgeObject judges the relations of one object of an accepted command.
func judgeObject(r role, path string, m map[string]any, clock chainClock, f *found) {
	switch r {
	case roleSubmission:
		judgeSubmission(path, m, clock, f)
	case roleAmendment:
		size, delta := intText(m["size"]), intText(m["sizeDelta"])
		f.check(RelTxAmendSize, size == "0" || size == "" || delta == "0" || delta == "",
			"%s sets size %s and sizeDelta %s: with size set, sizeDelta must be 0", path, size, delta)
		judgeTime(RelTxNanos, time.Nanosecond, path, "expiresAt", m, clock, f)
	case roleCancellation:
		f.check(RelTxCancelMarket, text(m, "orderId") == "" || text(m, "marketId") != "",
			"%s sets orderId %s without a marketId", path, text(m, "orderId"))
	case roleStopCancellation:
		f.check(RelTxStopCancel, text(m, "stopOrderId") == "" || text(m, "marketId") != "",
			"%s sets stopOrderId %s without a marketId", path, text(m, "stopOrderId"))
	case roleStopSetup:
		judgeTime(RelTxNanos, time.Nanosecond, path, "expiresAt", m, clock, f)
	case roleRationale:
		title, desc := utf8.RuneCountInString(text(m, "title")), utf8.RuneCountInString(text(m, "description"))
		f.check(RelTxRationale, title <= 100 && desc <= 20000,
			"%s has a title of %d and a description of %d unicode characters, want at most 100 and 20000", path, title, desc)
	case roleChange:
		judgeTime(RelTxSeconds, time.Second, path, "enactmentTimestamp", m, clock, f)
	case roleTransfer:
		judgeAccounts(path, m, f)
	case roleRecurring:
		start, end := uintOf(m["startEpoch"]), uintOf(m["endEpoch"])
		f.check(RelTxRecurring, end == nil || *end == 0 || start == nil || *end >= *start,
			"%s ends at epoch %s, before it starts at epoch %s", path, intText(m["endEpoch"]), intText(m["startEpoch"]))
	case roleOneOff:
		judgeTime(RelTxNanos, time.Nanosecond, path, "deliverOn", m, clock, f)
	case roleDispatch:
		judgeDispatch(path, m, f)
	case roleMarket:
		f.check(RelTxOneRiskModel, !(isObject(m["logNormal"]) && isObject(m["simple"])),
			"%s sets both logNormal and simple risk models", path)
	case roleInstrument, roleSpotInstrument:
		products := []string{"future", "perpetual"}
		if r == roleSpotInstrument {
			products = append(products, "spot")
		}
		var set []string
		for _, p := range products {
			if isObject(m[p]) {
				set = append(set, p)
			}
		}
		f.check(RelTxOneProduct, len(set) == 1, "%s has %d products %q, want exactly one of %q", path, len(set), set, products)
	case rolePerpetual:
		judgeRange(RelTxSignedBounds, path, m, "clampLowerBound", -1, 1, f)
		judgeRange(RelTxSignedBounds, path, m, "clampUpperBound", -1, 1, f)
		judgeRange(RelTxSignedBounds, path, m, "interestRate", -1, 1, f)
		judgeRange(RelTxFractions, path, m, "marginFundingFactor", 0, 1, f)
		judgeOrdered(RelTxBoundsOrdered, path, m, "clampLowerBound", "clampUpperBound", f)
		judgeOrdered(RelTxBoundsOrdered, path, m, "fundingRateLowerBound", "fundingRateUpperBound", f)
	case roleComposite:
		stale, _ := m["sourceStalenessTolerance"].([]any)
		sources, _ := m["dataSourcesSpec"].([]any)
		f.check(RelTxStaleness, len(stale) == 0 || len(stale) == 2+len(sources),
			"%s gives %d staleness tolerances for %d oracle sources, want %d (trades, the book, then one per source)", path, len(stale), len(sources), 2+len(sources))
	case roleLiquidation:
		judgeRange(RelTxFractions, path, m, "disposalFraction", 0, 1, f)
		judgeRange(RelTxFractions, path, m, "maxFractionConsumed", 0, 1, f)
		if v, ok := decimalOf(m["disposalSlippageRange"]); ok {
			f.check(RelTxPositive, v.Sign() > 0, "%s.disposalSlippageRange is %s, want above 0", path, v.RatString())
		}
	case roleSuccessor:
		judgeRange(RelTxFractions, path, m, "insurancePoolFraction", 0, 1, f)
	case roleLogNormal:
		if v, ok := decimalOf(m["tau"]); ok {
			f.check(RelTxPositive, v.Sign() >= 0, "%s.tau is %s, want at least 0", path, v.RatString())
		}
		if p, ok := m["params"].(map[string]any); ok {
			if v, ok := decimalOf(p["sigma"]); ok {
				f.check(RelTxPositive, v.Sign() >= 0, "%s.params.sigma is %s, want at least 0", path, v.RatString())
			}
		}
	case roleAmm:
		judgeOrdered(RelTxAmmBounds, path, m, "lowerBound", "base", f)
		judgeOrdered(RelTxAmmBounds, path, m, "base", "upperBound", f)
	case roleEthTrigger:
		judgeTime(RelTxSeconds, time.Second, path, "initial", m, clock, f)
		judgeTime(RelTxSeconds, time.Second, path, "until", m, clock, f)
	case roleInternalTrigger:
		judgeTime(RelTxSeconds, time.Second, path, "initial", m, clock, f)
	}
}

// Time in force values.
const (
	tifGTT = "TIME_IN_FORCE_GTT"
	tifIOC = "TIME_IN_FORCE_IOC"
	tifFOK = "TIME_IN_FORCE_FOK"
)

func judgeSubmission(path string, m map[string]any, clock chainClock, f *found) {
	tif, typ := text(m, "timeInForce"), text(m, "type")
	if exp := intText(m["expiresAt"]); exp != "" && exp != "0" {
		f.check(RelTxExpiryGTT, tif == tifGTT, "%s sets expiresAt %s with time in force %q, want %s", path, exp, tif, tifGTT)
	} else {
		f.judged(RelTxExpiryGTT)
	}
	pegged := isObject(m["peggedOrder"])
	f.check(RelTxLimitPrice, typ != "TYPE_LIMIT" || pegged || text(m, "price") != "", "%s is a limit order without a price", path)
	f.check(RelTxPostOnly, m["postOnly"] != true || typ == "TYPE_LIMIT", "%s is post-only but of type %q, want TYPE_LIMIT", path, typ)
	f.check(RelTxReduceOnly, m["reduceOnly"] != true || tif == tifIOC || tif == tifFOK,
		"%s is reduce-only with time in force %q, want IOC or FOK", path, tif)
	if pegged {
		f.check(RelTxPeggedPrice, text(m, "price") == "", "%s is pegged and has a price %q too", path, text(m, "price"))
	}
	if ice, ok := m["icebergOpts"].(map[string]any); ok {
		size, peak, least := uintOf(m["size"]), uintOf(ice["peakSize"]), uintOf(ice["minimumVisibleSize"])
		if size != nil && peak != nil && least != nil {
			f.check(RelTxIceberg, *least <= *peak && *peak <= *size,
				"%s: minimumVisibleSize %d, peakSize %d and size %d, want minimumVisibleSize <= peakSize <= size", path, *least, *peak, *size)
		}
	}
	judgeTime(RelTxNanos, time.Nanosecond, path, "expiresAt", m, clock, f)
}

// Account types whose owners the spec says.
const (
	accountTreasury  = "ACCOUNT_TYPE_NETWORK_TREASURY"
	accountGeneral   = "ACCOUNT_TYPE_GENERAL"
	accountInsurance = "ACCOUNT_TYPE_INSURANCE"
)

func judgeAccounts(path string, m map[string]any, f *found) {
	for _, side := range [][2]string{{"sourceType", "source"}, {"destinationType", "destination"}} {
		typ, owner := text(m, side[0]), text(m, side[1])
		switch {
		case typ == accountTreasury:
			f.check(RelTxAccounts, owner == "", "%s.%s is %q for the network treasury, want empty", path, side[1], owner)
		case typ == accountInsurance, typ == accountGeneral && side[1] == "destination":
			f.check(RelTxAccounts, owner != "", "%s.%s is empty for %s, want its owner (a market, a party)", path, side[1], typ)
		}
	}
}

func judgeDispatch(path string, m map[string]any, f *found) {
	scope, entity := text(m, "individualScope"), text(m, "entityScope")
	f.check(RelTxIndividualScope, scope == "" || scope == "INDIVIDUAL_SCOPE_UNSPECIFIED" || entity == "ENTITY_SCOPE_INDIVIDUALS",
		"%s sets individualScope %s with entityScope %q, want ENTITY_SCOPE_INDIVIDUALS", path, scope, entity)
	table, _ := m["rankTable"].([]any)
	strategy := text(m, "distributionStrategy")
	rank := strategy == "DISTRIBUTION_STRATEGY_RANK" || strategy == "DISTRIBUTION_STRATEGY_RANK_LOTTERY"
	if rank && len(table) == 0 {
		f.broken(RelTxRankTable, "%s has strategy %s and no rank table", path, strategy)
		return
	}
	var last *big.Rat
	for i, e := range table {
		entry, _ := e.(map[string]any)
		start, ok := decimalOf(entry["startRank"])
		if !ok {
			continue
		}
		if last != nil && start.Cmp(last) < 0 {
			f.broken(RelTxRankTable, "%s.rankTable[%d] starts at rank %s, below the entry before (%s): want the table ordered by start rank", path, i, start.RatString(), last.RatString())
			return
		}
		last = start
	}
	f.judged(RelTxRankTable)
}

// judgeRange judges a decimal field stated to lie in [lo, hi], when set.
func judgeRange(name, path string, m map[string]any, field string, lo, hi int64, f *found) {
	v, ok := decimalOf(m[field])
	if !ok {
		return
	}
	f.check(name, v.Cmp(big.NewRat(lo, 1)) >= 0 && v.Cmp(big.NewRat(hi, 1)) <= 0,
		"%s.%s is %s, want it in [%d, %d]", path, field, v.RatString(), lo, hi)
}

// judgeOrdered judges that a lower field is not above an upper one, when
// both are set.
func judgeOrdered(name, path string, m map[string]any, lower, upper string, f *found) {
	lo, okLo := decimalOf(m[lower])
	hi, okHi := decimalOf(m[upper])
	if !okLo || !okHi {
		return
	}
	f.check(name, lo.Cmp(hi) <= 0, "%s.%s is %s, above %s %s", path, lower, lo.RatString(), upper, hi.RatString())
}

// judgeTime judges a timestamp field in a unit against the chain's time;
// 0 and unset are not judged.
func judgeTime(name string, unit time.Duration, path, field string, m map[string]any, clock chainClock, f *found) {
	s := intText(m[field])
	if s == "" || s == "0" {
		return
	}
	unitName := "nanoseconds"
	if unit == time.Second {
		unitName = "seconds"
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		if _, uerr := strconv.ParseUint(s, 10, 64); uerr != nil {
			return // not an integer: the schema rules judge it
		}
		_, against := clock.near(0)
		f.broken(name, "%s.%s is %s: read in Unix %s it is beyond the year 9999, not near %s", path, field, s, unitName, against)
		return
	}
	near, against := clock.near(v / int64(time.Second/unit))
	f.check(name, near, "%s.%s is %s: read in Unix %s it is %s, not near %s", path, field, s, unitName, describeUnix(v, unit, nil), against)
}

// text returns a string field, or "".
func text(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

// intText returns an integer as the record writes it, a digit string or a
// JSON number, as text; "" when it is neither.
func intText(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case json.Number:
		return t.String()
	}
	return ""
}

// uintOf reads a uint64 in either encoding, or nil.
func uintOf(v any) *uint64 {
	n, err := strconv.ParseUint(intText(v), 10, 64)
	if err != nil {
		return nil
	}
	return &n
}

// decimalOf reads a decimal written as a string or a JSON number, exactly.
func decimalOf(v any) (*big.Rat, bool) {
	s := intText(v)
	if s == "" {
		return nil, false
	}
	r, ok := new(big.Rat).SetString(s)
	return r, ok
}
