package generators

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/chaindata/harness/schemas"
)

// universe is what identifier formats draw from: the entities of a world, so
// that a command names parties, markets and assets that exist.
type universe struct {
	parties     []string
	markets     []string
	assets      []string
	nodes       []string
	corePubKeys []string
	teams       []string

	firstEpoch, lastEpoch uint64
	firstBlock, lastBlock uint64
	now                   time.Time // time of the newest block
	versions              []string  // core versions, oldest first
}

// defaultUniverse is a small stand-alone universe for Instance, used when no
// world is at hand.
func defaultUniverse(g *rng) *universe {
	u := &universe{
		firstEpoch: 1, lastEpoch: 120,
		firstBlock: 1, lastBlock: 250_000,
		now:      time.Date(2024, 6, 1, 12, 0, 0, 0, time.UTC),
		versions: []string{"v0.77.4", "v0.78.2"},
	}
	for i := 0; i < 8; i++ {
		u.parties = append(u.parties, g.hex(64))
		u.markets = append(u.markets, g.hex(64))
		u.assets = append(u.assets, g.hex(64))
		u.nodes = append(u.nodes, g.hex(64))
		u.corePubKeys = append(u.corePubKeys, g.hex(64))
		u.teams = append(u.teams, g.hex(64))
	}
	return u
}

// formatFunc makes a value for a schema node whose format it handles.
type formatFunc func(c *genContext, n *schemas.Node) value

// formats maps each format used in the schemas to the function that makes
// realistic values for it. Every format a schema uses must be here (a test
// walks the schemas to check), so a new field gets values without code
// changes as long as it reuses a palette entry.
var formats = map[string]formatFunc{
	// integers carried as digit strings
	"uint64":           func(c *genContext, _ *schemas.Node) value { return i64str(c.g.between(0, 1_000_000)) },
	"int64":            func(c *genContext, _ *schemas.Node) value { return i64str(c.g.between(-1_000_000, 1_000_000)) },
	"block-height":     func(c *genContext, _ *schemas.Node) value { return u64str(c.blockHeight()) },
	"epoch":            func(c *genContext, _ *schemas.Node) value { return u64str(c.epoch()) },
	"count":            func(c *genContext, _ *schemas.Node) value { return i64str(c.g.between(0, 20)) },
	"rank":             func(c *genContext, _ *schemas.Node) value { return i64str(c.g.between(1, 50)) },
	"order-size":       func(c *genContext, _ *schemas.Node) value { return i64str(c.orderSize()) },
	"size-delta":       func(c *genContext, _ *schemas.Node) value { return i64str(c.sizeDelta()) },
	"decimal-places":   func(c *genContext, _ *schemas.Node) value { return i64str(pick(c.g, []int64{0, 2, 3, 5, 6, 8, 18})) },
	"unix-nanos":       func(c *genContext, _ *schemas.Node) value { return i64str(c.futureTime().UnixNano()) },
	"unix-seconds":     func(c *genContext, _ *schemas.Node) value { return i64str(c.futureTime().Unix()) },
	"duration-seconds": func(c *genContext, _ *schemas.Node) value { return i64str(pick(c.g, durationsSeconds)) },
	"nonce":            func(c *genContext, _ *schemas.Node) value { return u64str(c.g.src.Uint64() >> 1) },
	"chain-id":         func(c *genContext, _ *schemas.Node) value { return str(pick(c.g, chainIDs)) },
	"decay-power":      func(c *genContext, _ *schemas.Node) value { return i64str(c.g.between(1, 3)) },

	// JSON numbers
	"int32":             func(c *genContext, n *schemas.Node) value { return num(c.intIn(n, 0, 1000)) },
	"result-code":       func(c *genContext, _ *schemas.Node) value { return num(0) },
	"key-index":         func(c *genContext, _ *schemas.Node) value { return num(c.g.between(0, 8)) },
	"signature-version": func(c *genContext, _ *schemas.Node) value { return num(1) },
	"tx-index":          func(c *genContext, _ *schemas.Node) value { return num(c.g.between(0, 9)) },
	"start-rank":        func(c *genContext, _ *schemas.Node) value { return num(c.g.between(1, 10)) },
	"share-ratio":       func(c *genContext, _ *schemas.Node) value { return num(c.g.between(1, 100)) },
	"transfer-interval": func(c *genContext, _ *schemas.Node) value { return num(c.g.between(1, 10)) },
	"double":            func(c *genContext, n *schemas.Node) value { return c.float(n, 0, 1) },
	"probability":       func(c *genContext, n *schemas.Node) value { return c.float(n, 0, 1) },

	// decimal strings
	"amount":           func(c *genContext, _ *schemas.Node) value { return str(c.amount()) },
	"price":            func(c *genContext, _ *schemas.Node) value { return i64str(c.g.between(1, 250_000_000)) },
	"decimal":          func(c *genContext, _ *schemas.Node) value { return str(c.decimal(-50, 50, 4)) },
	"unsigned-decimal": func(c *genContext, _ *schemas.Node) value { return str(c.decimal(0, 100_000, 4)) },
	"ratio":            func(c *genContext, _ *schemas.Node) value { return str(c.decimal(0, 0, 4)) },
	"fraction":         func(c *genContext, _ *schemas.Node) value { return str(c.fraction(false)) },
	"signed-fraction":  func(c *genContext, _ *schemas.Node) value { return str(c.fraction(true)) },
	"positive-decimal": func(c *genContext, _ *schemas.Node) value { return str(c.positiveDecimal()) },

	// identifiers
	"party-id":      func(c *genContext, _ *schemas.Node) value { return str(pick(c.g, c.u.parties)) },
	"market-id":     func(c *genContext, _ *schemas.Node) value { return str(pick(c.g, c.u.markets)) },
	"asset-id":      func(c *genContext, _ *schemas.Node) value { return str(pick(c.g, c.u.assets)) },
	"node-id":       func(c *genContext, _ *schemas.Node) value { return str(pick(c.g, c.u.nodes)) },
	"team-id":       func(c *genContext, _ *schemas.Node) value { return str(pick(c.g, c.u.teams)) },
	"core-pubkey":   func(c *genContext, _ *schemas.Node) value { return str(pick(c.g, c.u.corePubKeys)) },
	"referral-code": func(c *genContext, _ *schemas.Node) value { return str(pick(c.g, c.u.teams)) },
	"game-id":       func(c *genContext, _ *schemas.Node) value { return str(c.g.hex(64)) },
	"order-id":      func(c *genContext, _ *schemas.Node) value { return str(c.g.hex(64)) },
	"stop-order-id": func(c *genContext, _ *schemas.Node) value { return str(c.g.hex(64)) },
	"transfer-id":   func(c *genContext, _ *schemas.Node) value { return str(c.g.hex(64)) },
	"block-hash":    func(c *genContext, _ *schemas.Node) value { return str(c.g.hex(64)) },
	"tx-hash":       func(c *genContext, _ *schemas.Node) value { return str(string(c.g.appendHex(nil, 64, upperHexDigits))) },
	"account-owner": func(c *genContext, _ *schemas.Node) value { return str(c.accountOwner()) },
	"eth-address":   func(c *genContext, _ *schemas.Node) value { return str("0x" + c.g.hex(40)) },
	"chain-pubkey":  func(c *genContext, _ *schemas.Node) value { return str(c.chainPubKey()) },
	"signature-hex": func(c *genContext, _ *schemas.Node) value { return str(c.g.hex(128)) },

	// text
	"signature-algo":          func(c *genContext, _ *schemas.Node) value { return str("core/ed25519") },
	"country":                 func(c *genContext, _ *schemas.Node) value { return str(c.g.faker.CountryAbr()) },
	"uri":                     func(c *genContext, _ *schemas.Node) value { return str(c.url()) },
	"core-version":            func(c *genContext, _ *schemas.Node) value { return str(pick(c.g, c.u.versions)) },
	"go-duration":             func(c *genContext, _ *schemas.Node) value { return str(pick(c.g, goDurations)) },
	"date-time":               func(c *genContext, _ *schemas.Node) value { return str(c.u.now.Format(time.RFC3339)) },
	"node-name":               func(c *genContext, _ *schemas.Node) value { return str(c.nodeName()) },
	"reference":               func(c *genContext, _ *schemas.Node) value { return str(c.reference()) },
	"instrument-name":         func(c *genContext, _ *schemas.Node) value { return str(c.instrumentName()) },
	"instrument-code":         func(c *genContext, _ *schemas.Node) value { return str(c.instrumentCode()) },
	"quote-name":              func(c *genContext, _ *schemas.Node) value { return str(pick(c.g, quoteSymbols)) },
	"asset-name":              func(c *genContext, _ *schemas.Node) value { return str(c.assetName()) },
	"asset-symbol":            func(c *genContext, _ *schemas.Node) value { return str(pick(c.g, baseSymbols)) },
	"metadata-tag":            func(c *genContext, _ *schemas.Node) value { return str(c.metadataTag()) },
	"property-name":           func(c *genContext, _ *schemas.Node) value { return str(c.propertyName()) },
	"abi":                     func(c *genContext, _ *schemas.Node) value { return str(oracleABI) },
	"contract-method":         func(c *genContext, _ *schemas.Node) value { return str(pick(c.g, contractMethods)) },
	"json-path":               func(c *genContext, _ *schemas.Node) value { return str(pick(c.g, jsonPaths)) },
	"condition-value":         func(c *genContext, _ *schemas.Node) value { return str(c.conditionValue()) },
	"proposal-title":          func(c *genContext, n *schemas.Node) value { return str(c.text(n, 4, 10)) },
	"proposal-description":    func(c *genContext, n *schemas.Node) value { return str(c.paragraph(n)) },
	"network-parameter-key":   func(c *genContext, _ *schemas.Node) value { return str(pick(c.g, defaultParameterKeys())) },
	"network-parameter-value": func(c *genContext, _ *schemas.Node) value { return str(c.decimal(0, 100, 2)) },
	"tx-type":                 func(c *genContext, _ *schemas.Node) value { return str("Submit Order") },
	"tx-cursor": func(c *genContext, _ *schemas.Node) value {
		return str(fmt.Sprintf("%d.%d", c.blockHeight(), c.g.between(0, 9)))
	},
	"tx-error": func(c *genContext, _ *schemas.Node) value { return str("") },
}

var (
	durationsSeconds = []int64{1, 5, 10, 30, 60, 300, 600, 900, 3600, 14400, 43200, 86400}
	goDurations      = []string{"10s", "30s", "1m0s", "5m0s", "15m0s", "1h0m0s", "24h0m0s"}
	chainIDs         = []string{"1", "100", "42161", "11155111"}
	baseSymbols      = []string{"BTC", "ETH", "SOL", "AVAX", "LINK", "ARB", "OP", "DOGE", "INJ", "TIA", "NEAR", "ATOM", "LDO", "UNI", "AAVE"}
	quoteSymbols     = []string{"USDT", "USDC", "DAI", "EUR", "USD"}
	contractMethods  = []string{"latestAnswer", "latestRoundData", "getPrice", "consult"}
	jsonPaths        = []string{"$[0]", "$[1]", "$.price", "$.answer", "$[0].value"}
	oracleABI        = `[{"inputs":[],"name":"latestAnswer","outputs":[{"internalType":"int256","name":"","type":"int256"}],"stateMutability":"view","type":"function"}]`
)

// numeric helpers

func (c *genContext) blockHeight() uint64 {
	return uint64(c.g.between(int64(c.u.firstBlock), int64(c.u.lastBlock)))
}

func (c *genContext) epoch() uint64 {
	return uint64(c.g.between(int64(c.u.firstEpoch), int64(c.u.lastEpoch)))
}

func (c *genContext) orderSize() int64 {
	return pick(c.g, []int64{1, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 10000})
}

func (c *genContext) sizeDelta() int64 {
	d := c.g.between(1, 500)
	if c.g.chance(0.5) {
		d = -d
	}
	return d
}

// futureTime is a time from a day before to 90 days after the newest block.
func (c *genContext) futureTime() time.Time {
	secs := c.g.between(-86_400, 90*86_400)
	return c.now.Add(time.Duration(secs) * time.Second)
}

// intIn returns an integer within the node's bounds, or within [lo, hi].
func (c *genContext) intIn(n *schemas.Node, lo, hi int64) int64 {
	if n.Minimum != nil && int64(*n.Minimum) > lo {
		lo = int64(*n.Minimum)
	}
	if n.Maximum != nil && int64(*n.Maximum) < hi {
		hi = int64(*n.Maximum)
	}
	return c.g.between(lo, hi)
}

// float returns a short decimal number within the node's bounds.
func (c *genContext) float(n *schemas.Node, lo, hi float64) value {
	if n.Minimum != nil && *n.Minimum > lo {
		lo = *n.Minimum
	}
	if n.Maximum != nil && *n.Maximum < hi {
		hi = *n.Maximum
	}
	x := lo + c.g.r.Float64()*(hi-lo)
	return numText(strconv.FormatFloat(float64(int64(x*1e6))/1e6, 'f', -1, 64))
}

// amount returns an amount in an asset's smallest unit: 1 to 24 digits, most
// often the size of a few tokens with 18 decimals.
func (c *genContext) amount() string {
	digits := int(c.g.between(1, 24))
	if c.g.chance(0.6) {
		digits = int(c.g.between(15, 22))
	}
	b := make([]byte, digits)
	b[0] = byte('1' + c.g.intn(9))
	for i := 1; i < digits; i++ {
		b[i] = byte('0' + c.g.intn(10))
	}
	return string(b)
}

// decimal returns a decimal in [lo, hi] with up to places decimals.
func (c *genContext) decimal(lo, hi int64, places int) string {
	whole := c.g.between(lo, hi)
	frac := c.g.between(0, pow10(places)-1)
	s := strconv.FormatInt(abs(whole), 10)
	if frac > 0 {
		s += "." + strings.TrimRight(fmt.Sprintf("%0*d", places, frac), "0")
	}
	if whole < 0 {
		s = "-" + s
	}
	return s
}

func (c *genContext) fraction(signed bool) string {
	var s string
	switch c.g.intn(10) {
	case 0:
		s = "0"
	case 1:
		s = "1"
	default:
		s = c.decimal(0, 0, 4)
	}
	if signed && s != "0" && c.g.chance(0.4) {
		s = "-" + s
	}
	return s
}

func (c *genContext) positiveDecimal() string {
	for {
		s := c.decimal(0, 3, 4)
		if s != "0" {
			return s
		}
	}
}

func pow10(n int) int64 {
	p := int64(1)
	for i := 0; i < n; i++ {
		p *= 10
	}
	return p
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// identifier and text helpers

func (c *genContext) accountOwner() string {
	switch c.g.intn(5) {
	case 0:
		return ""
	case 1, 2:
		return pick(c.g, c.u.markets)
	default:
		return pick(c.g, c.u.parties)
	}
}

func (c *genContext) chainPubKey() string {
	b := make([]byte, 32)
	for i := 0; i < 32; i += 8 {
		v := c.g.src.Uint64()
		for j := 0; j < 8; j++ {
			b[i+j] = byte(v >> (8 * j))
		}
	}
	return base64.StdEncoding.EncodeToString(b)
}

func (c *genContext) url() string {
	switch c.g.intn(3) {
	case 0:
		return "https://" + strings.ToLower(c.g.faker.DomainName()) + "/"
	case 1:
		return "https://" + strings.ToLower(c.g.faker.DomainName()) + "/avatar.png"
	}
	return "https://" + strings.ToLower(c.g.faker.DomainName()) + "/" + strings.ToLower(c.g.faker.Word())
}

func (c *genContext) nodeName() string {
	return c.g.faker.Company() + " " + pick(c.g, []string{"Validator", "Node", "Staking", "Labs"})
}

func (c *genContext) reference() string {
	return pick(c.g, []string{"bot", "ui", "mm", "arb", "hedge", "api"}) + "-" + c.g.hex(8)
}

func (c *genContext) instrumentName() string {
	base, quote := pick(c.g, baseSymbols), pick(c.g, quoteSymbols)
	return fmt.Sprintf("%s/%s %s", base, quote, pick(c.g, []string{"Perpetual", "Futures", "Spot", "Dec 2025"}))
}

func (c *genContext) instrumentCode() string {
	base, quote := pick(c.g, baseSymbols), pick(c.g, quoteSymbols)
	return base + quote + pick(c.g, []string{".PERP", ".FUT", "", ".Q4"})
}

func (c *genContext) assetName() string {
	return c.g.faker.Adjective() + " " + pick(c.g, []string{"Token", "Coin", "Dollar", "Credit"})
}

func (c *genContext) metadataTag() string {
	switch c.g.intn(4) {
	case 0:
		return "base:" + pick(c.g, baseSymbols)
	case 1:
		return "quote:" + pick(c.g, quoteSymbols)
	case 2:
		return "class:" + pick(c.g, []string{"fx/crypto", "equities", "commodities"})
	}
	return "sector:" + pick(c.g, []string{"defi", "l1", "l2", "ai"})
}

func (c *genContext) propertyName() string {
	switch c.g.intn(3) {
	case 0:
		return "prices." + pick(c.g, baseSymbols) + ".value"
	case 1:
		return "trading.terminated"
	}
	return "core.time"
}

func (c *genContext) conditionValue() string {
	if c.g.chance(0.5) {
		return strconv.FormatInt(c.futureTime().Unix(), 10)
	}
	return strconv.FormatInt(c.g.between(0, 100_000), 10)
}

// text returns a sentence of minWords to maxWords words that fits the node's
// maxLength.
func (c *genContext) text(n *schemas.Node, minWords, maxWords int) string {
	s := strings.TrimSuffix(c.g.faker.Sentence(int(c.g.between(int64(minWords), int64(maxWords)))), ".")
	return fitLength(s, n)
}

func (c *genContext) paragraph(n *schemas.Node) string {
	s := c.g.faker.Paragraph(int(c.g.between(1, 3)), int(c.g.between(2, 5)), int(c.g.between(6, 14)), "\n\n")
	return fitLength(s, n)
}

// fitLength cuts s to the node's maxLength, counted in code points.
func fitLength(s string, n *schemas.Node) string {
	if n.MaxLength == nil {
		return s
	}
	r := []rune(s)
	if len(r) <= *n.MaxLength {
		return s
	}
	return strings.TrimSpace(string(r[:*n.MaxLength]))
}
