package walker

import (
	"sort"
	"strconv"

	"github.com/chaindata/harness/generators/internal/random"
)

// fixups make generated objects of a definition consistent in ways a schema
// cannot say: bounds in order, destinations that match their account type.
// Each keeps the object valid; the tests validate every result.
var fixups = map[string]func(c *Walker, v *Value){
	"OrderSubmission": func(c *Walker, v *Value) {
		// Market orders carry no price.
		if t, ok := v.get("type"); ok && t.text == "TYPE_MARKET" {
			v.del("price")
		}
	},
	"NewTransferConfiguration": func(c *Walker, v *Value) {
		owner := func(typeField, ownerField string) {
			t, ok := v.get(typeField)
			if !ok {
				return
			}
			switch t.text {
			case "ACCOUNT_TYPE_GENERAL", "ACCOUNT_TYPE_VESTING_REWARDS":
				v.set(ownerField, str(random.Pick(c.g, c.u.Parties)))
			case "ACCOUNT_TYPE_INSURANCE":
				v.set(ownerField, str(random.Pick(c.g, c.u.Markets)))
			case "ACCOUNT_TYPE_NETWORK_TREASURY", "ACCOUNT_TYPE_GLOBAL_INSURANCE", "ACCOUNT_TYPE_GLOBAL_REWARD":
				v.set(ownerField, str(""))
			}
		}
		owner("sourceType", "source")
		owner("destinationType", "destination")
	},
	"AnnounceNode": func(c *Walker, v *Value) {
		// The node announced is one of the world's nodes, with its keys.
		i := c.g.Intn(len(c.u.Nodes))
		v.set("id", str(c.u.Nodes[i]))
		v.set("corePubKey", str(c.u.CorePubKeys[i]))
	},
	"RecurringTransfer": func(c *Walker, v *Value) {
		orderDigits(v, "startEpoch", "endEpoch")
	},
	"CompositePriceConfiguration": func(c *Walker, v *Value) {
		// One staleness tolerance for the trade-based price, one for the
		// book-based price, then one per oracle source (spec 2.8).
		st, ok := v.get("sourceStalenessTolerance")
		if !ok || st.kind != kArray {
			return
		}
		n := 2
		if ds, ok := v.get("dataSourcesSpec"); ok && ds.kind == kArray {
			n += len(ds.obj)
		}
		items := make([]field, n)
		copy(items, st.obj)
		for i := len(st.obj); i < n; i++ {
			items[i] = field{val: str(random.Pick(c.g, goDurations))}
		}
		st.obj = items
	},
	"PerpetualProduct":       orderPerpetualBounds,
	"UpdatePerpetualProduct": orderPerpetualBounds,
	"ConcentratedLiquidityParameters": func(c *Walker, v *Value) {
		base, ok := v.get("base")
		if !ok {
			return
		}
		b, _ := strconv.ParseInt(base.text, 10, 64)
		if _, ok := v.get("lowerBound"); ok {
			v.set("lowerBound", i64str(b-b/int64(c.g.Between(4, 20))))
		}
		if _, ok := v.get("upperBound"); ok {
			v.set("upperBound", i64str(b+b/int64(c.g.Between(4, 20))+1))
		}
	},
	"DispatchStrategy": func(c *Walker, v *Value) {
		// The rank table is ordered by start rank, each start rank once.
		rt, ok := v.get("rankTable")
		if !ok {
			return
		}
		for i := range rt.obj {
			rt.obj[i].val.set("startRank", num(int64(i*int(c.g.Between(1, 5))+i+1)))
		}
		sort.SliceStable(rt.obj, func(i, j int) bool {
			a, _ := rt.obj[i].val.get("startRank")
			b, _ := rt.obj[j].val.get("startRank")
			x, _ := strconv.Atoi(a.text)
			y, _ := strconv.Atoi(b.text)
			return x < y
		})
	},
}

// orderPerpetualBounds puts each lower bound at or below its upper bound.
func orderPerpetualBounds(_ *Walker, v *Value) {
	orderDecimals(v, "clampLowerBound", "clampUpperBound")
	orderDecimals(v, "fundingRateLowerBound", "fundingRateUpperBound")
}

// orderDecimals swaps two decimal-string properties when lo > hi.
func orderDecimals(v *Value, lo, hi string) {
	a, okA := v.get(lo)
	b, okB := v.get(hi)
	if !okA || !okB || a.text == "" || b.text == "" {
		return
	}
	x, errA := strconv.ParseFloat(a.text, 64)
	y, errB := strconv.ParseFloat(b.text, 64)
	if errA == nil && errB == nil && x > y {
		*a, *b = *b, *a
	}
}

// orderDigits swaps two unsigned digit-string properties when lo > hi.
func orderDigits(v *Value, lo, hi string) {
	a, okA := v.get(lo)
	b, okB := v.get(hi)
	if !okA || !okB {
		return
	}
	x, errA := strconv.ParseUint(a.text, 10, 64)
	y, errB := strconv.ParseUint(b.text, 10, 64)
	if errA == nil && errB == nil && x > y {
		*a, *b = *b, *a
	}
}
