package walker

import (
	"strconv"
	"strings"

	"github.com/chaindata/harness/generators/internal/random"
	"github.com/chaindata/harness/schemas"
)

// optionalChance overrides, per "Definition.property", how often an optional
// property is set, where the default (0.6) would make rare features common.
var optionalChance = map[string]float64{
	"OrderSubmission.peggedOrder":            0.08,
	"OrderSubmission.icebergOpts":            0.05,
	"OrderSubmission.postOnly":               0.3,
	"OrderSubmission.reduceOnly":             0.15,
	"OrderSubmission.expiresAt":              0.4,
	"OrderSubmission.reference":              0.5,
	"OrderAmendment.peggedOffset":            0.1,
	"OrderAmendment.peggedReference":         0.1,
	"OrderAmendment.size":                    0.2,
	"StopOrderSetup.sizeOverrideValue":       0.2,
	"StopOrderSetup.sizeOverrideSetting":     0.3,
	"NewMarketConfiguration.successor":       0.2,
	"NewMarketConfiguration.lpPriceRange":    0.1,
	"UpdateMarketConfiguration.lpPriceRange": 0.1,
	"FutureProduct.cap":                      0.3,
	"LogNormalRiskModel.riskFactorOverride":  0.2,
}

// rareEnumValues are chosen with rareChance outside coverage runs: protobuf
// zero values (which real clients rarely send) and values only the network
// itself uses.
const rareChance = 0.01

func isRareEnumValue(s string) bool {
	return strings.HasSuffix(s, "_UNSPECIFIED") || s == "TYPE_NETWORK"
}

// chooseCommon picks among an enum's values, rarely a rare one.
func (c *Walker) chooseCommon(n *schemas.Node) any {
	values := n.Enum
	common, ok := c.commons[n]
	if !ok {
		for _, v := range values {
			if s, ok := v.(string); !ok || !isRareEnumValue(s) {
				common = append(common, v)
			}
		}
		c.commons[n] = common
	}
	if len(common) == 0 || len(common) == len(values) || c.g.Chance(rareChance) {
		return random.Pick(c.g, values)
	}
	return random.Pick(c.g, common)
}

func init() {
	// Pegged orders take their price from the peg; iceberg peaks fit in the
	// order, and the visible minimum fits in the peak.
	prev := fixups["OrderSubmission"]
	fixups["OrderSubmission"] = func(c *Walker, v *Value) {
		prev(c, v)
		if p, ok := v.get("peggedOrder"); ok && p.kind == kObject {
			v.del("price")
		}
		ice, ok := v.get("icebergOpts")
		if !ok || ice.kind != kObject {
			return
		}
		size, _ := v.get("size")
		total, _ := strconv.ParseInt(size.text, 10, 64)
		peak := c.g.Between(1, max(1, total))
		ice.set("peakSize", i64str(peak))
		ice.set("minimumVisibleSize", i64str(c.g.Between(1, peak)))
	}
}
