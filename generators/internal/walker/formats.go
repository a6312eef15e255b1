package walker

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/chaindata/harness/generators/internal/netparams"
	"github.com/chaindata/harness/generators/internal/random"
	"github.com/chaindata/harness/schemas"
)

// Universe is what identifier formats draw from: the entities of a world, so
// that a command names parties, markets and assets that exist. Every list
// must hold at least one entry.
type Universe struct {
	Parties     []string
	Markets     []string
	Assets      []string
	Nodes       []string
	CorePubKeys []string // CorePubKeys[i] is the key of Nodes[i]
	Teams       []string

	FirstEpoch, LastEpoch uint64
	FirstBlock, LastBlock uint64
	Now                   time.Time // time of the newest block
	Versions              []string  // core versions, oldest first
}

// defaultUniverse is a small stand-alone Universe for Instance, used when no
// world is at hand.
func defaultUniverse(g *random.Stream) *Universe {
	u := &Universe{
		FirstEpoch: 1, LastEpoch: 120,
		FirstBlock: 1, LastBlock: 250_000,
		Now:      time.Date(2024, 6, 1, 12, 0, 0, 0, time.UTC),
		Versions: []string{"v0.77.4", "v0.78.2"},
	}
	for i := 0; i < 8; i++ {
		u.Parties = append(u.Parties, g.Hex(64))
		u.Markets = append(u.Markets, g.Hex(64))
		u.Assets = append(u.Assets, g.Hex(64))
		u.Nodes = append(u.Nodes, g.Hex(64))
		u.CorePubKeys = append(u.CorePubKeys, g.Hex(64))
		u.Teams = append(u.Teams, g.Hex(64))
	}
	return u
}

// formatFunc makes a value for a schema node whose format it handles.
type formatFunc func(c *Walker, n *schemas.Node) Value

// formats maps each format used in the schemas to the function that makes
// realistic values for it. Every format a schema uses must be here (a test
// walks the schemas to check), so a new field gets values without code
// changes as long as it reuses a palette entry.
var formats = map[string]formatFunc{
	// integers carried as digit strings
	"uint64":           func(c *Walker, _ *schemas.Node) Value { return i64str(c.g.Between(0, 1_000_000)) },
	"int64":            func(c *Walker, _ *schemas.Node) Value { return i64str(c.g.Between(-1_000_000, 1_000_000)) },
	"block-height":     func(c *Walker, _ *schemas.Node) Value { return u64str(c.blockHeight()) },
	"epoch":            func(c *Walker, _ *schemas.Node) Value { return u64str(c.epoch()) },
	"count":            func(c *Walker, _ *schemas.Node) Value { return i64str(c.g.Between(0, 20)) },
	"rank":             func(c *Walker, _ *schemas.Node) Value { return i64str(c.g.Between(1, 50)) },
	"order-size":       func(c *Walker, _ *schemas.Node) Value { return i64str(c.orderSize()) },
	"size-delta":       func(c *Walker, _ *schemas.Node) Value { return i64str(c.sizeDelta()) },
	"decimal-places":   func(c *Walker, _ *schemas.Node) Value { return i64str(random.Pick(c.g, []int64{0, 2, 3, 5, 6, 8, 18})) },
	"unix-nanos":       func(c *Walker, _ *schemas.Node) Value { return i64str(c.futureTime().UnixNano()) },
	"unix-seconds":     func(c *Walker, _ *schemas.Node) Value { return i64str(c.futureTime().Unix()) },
	"duration-seconds": func(c *Walker, _ *schemas.Node) Value { return i64str(random.Pick(c.g, durationsSeconds)) },
	"nonce":            func(c *Walker, _ *schemas.Node) Value { return u64str(c.g.Uint64() >> 1) },
	"chain-id":         func(c *Walker, _ *schemas.Node) Value { return str(random.Pick(c.g, chainIDs)) },
	"decay-power":      func(c *Walker, _ *schemas.Node) Value { return i64str(c.g.Between(1, 3)) },

	// JSON numbers
	"int32":             func(c *Walker, n *schemas.Node) Value { return num(c.intIn(n, 0, 1000)) },
	"result-code":       func(c *Walker, _ *schemas.Node) Value { return num(0) },
	"key-index":         func(c *Walker, _ *schemas.Node) Value { return num(c.g.Between(0, 8)) },
	"signature-version": func(c *Walker, _ *schemas.Node) Value { return num(1) },
	"tx-index":          func(c *Walker, _ *schemas.Node) Value { return num(c.g.Between(0, 9)) },
	"start-rank":        func(c *Walker, _ *schemas.Node) Value { return num(c.g.Between(1, 10)) },
	"share-ratio":       func(c *Walker, _ *schemas.Node) Value { return num(c.g.Between(1, 100)) },
	"transfer-interval": func(c *Walker, _ *schemas.Node) Value { return num(c.g.Between(1, 10)) },
	"double":            func(c *Walker, n *schemas.Node) Value { return c.float(n, 0, 1) },
	"probability":       func(c *Walker, n *schemas.Node) Value { return c.float(n, 0, 1) },

	// decimal strings
	"amount":           func(c *Walker, _ *schemas.Node) Value { return str(c.amount()) },
	"price":            func(c *Walker, _ *schemas.Node) Value { return i64str(c.g.Between(1, 250_000_000)) },
	"decimal":          func(c *Walker, _ *schemas.Node) Value { return str(c.decimal(-50, 50, 4)) },
	"unsigned-decimal": func(c *Walker, _ *schemas.Node) Value { return str(c.decimal(0, 100_000, 4)) },
	"ratio":            func(c *Walker, _ *schemas.Node) Value { return str(c.decimal(0, 0, 4)) },
	"fraction":         func(c *Walker, _ *schemas.Node) Value { return str(c.fraction(false)) },
	"signed-fraction":  func(c *Walker, _ *schemas.Node) Value { return str(c.fraction(true)) },
	"positive-decimal": func(c *Walker, _ *schemas.Node) Value { return str(c.positiveDecimal()) },

	// identifiers
	"party-id":      func(c *Walker, _ *schemas.Node) Value { return str(random.Pick(c.g, c.u.Parties)) },
	"market-id":     func(c *Walker, _ *schemas.Node) Value { return str(random.Pick(c.g, c.u.Markets)) },
	"asset-id":      func(c *Walker, _ *schemas.Node) Value { return str(random.Pick(c.g, c.u.Assets)) },
	"node-id":       func(c *Walker, _ *schemas.Node) Value { return str(random.Pick(c.g, c.u.Nodes)) },
	"team-id":       func(c *Walker, _ *schemas.Node) Value { return str(random.Pick(c.g, c.u.Teams)) },
	"core-pubkey":   func(c *Walker, _ *schemas.Node) Value { return str(random.Pick(c.g, c.u.CorePubKeys)) },
	"referral-code": func(c *Walker, _ *schemas.Node) Value { return str(random.Pick(c.g, c.u.Teams)) },
	"game-id":       func(c *Walker, _ *schemas.Node) Value { return str(c.g.Hex(64)) },
	"order-id":      func(c *Walker, _ *schemas.Node) Value { return str(c.g.Hex(64)) },
	"stop-order-id": func(c *Walker, _ *schemas.Node) Value { return str(c.g.Hex(64)) },
	"transfer-id":   func(c *Walker, _ *schemas.Node) Value { return str(c.g.Hex(64)) },
	"block-hash":    func(c *Walker, _ *schemas.Node) Value { return str(c.g.Hex(64)) },
	"tx-hash": func(c *Walker, _ *schemas.Node) Value {
		return str(string(c.g.AppendHex(nil, 64, random.UpperHexDigits)))
	},
	"account-owner": func(c *Walker, _ *schemas.Node) Value { return str(c.accountOwner()) },
	"eth-address":   func(c *Walker, _ *schemas.Node) Value { return str("0x" + c.g.Hex(40)) },
	"chain-pubkey":  func(c *Walker, _ *schemas.Node) Value { return str(c.chainPubKey()) },
	"signature-hex": func(c *Walker, _ *schemas.Node) Value { return str(c.g.Hex(128)) },

	// text
	"signature-algo":          func(c *Walker, _ *schemas.Node) Value { return str("core/ed25519") },
	"country":                 func(c *Walker, _ *schemas.Node) Value { return str(c.g.Faker().CountryAbr()) },
	"uri":                     func(c *Walker, _ *schemas.Node) Value { return str(c.url()) },
	"core-version":            func(c *Walker, _ *schemas.Node) Value { return str(random.Pick(c.g, c.u.Versions)) },
	"go-duration":             func(c *Walker, _ *schemas.Node) Value { return str(random.Pick(c.g, goDurations)) },
	"date-time":               func(c *Walker, _ *schemas.Node) Value { return str(c.u.Now.Format(time.RFC3339)) },
	"node-name":               func(c *Walker, _ *schemas.Node) Value { return str(c.nodeName()) },
	"reference":               func(c *Walker, _ *schemas.Node) Value { return str(c.reference()) },
	"instrument-name":         func(c *Walker, _ *schemas.Node) Value { return str(c.instrumentName()) },
	"instrument-code":         func(c *Walker, _ *schemas.Node) Value { return str(c.instrumentCode()) },
	"quote-name":              func(c *Walker, _ *schemas.Node) Value { return str(random.Pick(c.g, quoteSymbols)) },
	"asset-name":              func(c *Walker, _ *schemas.Node) Value { return str(c.assetName()) },
	"asset-symbol":            func(c *Walker, _ *schemas.Node) Value { return str(random.Pick(c.g, BaseSymbols)) },
	"metadata-tag":            func(c *Walker, _ *schemas.Node) Value { return str(c.metadataTag()) },
	"property-name":           func(c *Walker, _ *schemas.Node) Value { return str(c.propertyName()) },
	"abi":                     func(c *Walker, _ *schemas.Node) Value { return str(oracleABI) },
	"contract-method":         func(c *Walker, _ *schemas.Node) Value { return str(random.Pick(c.g, contractMethods)) },
	"json-path":               func(c *Walker, _ *schemas.Node) Value { return str(random.Pick(c.g, jsonPaths)) },
	"condition-value":         func(c *Walker, _ *schemas.Node) Value { return str(c.conditionValue()) },
	"proposal-title":          func(c *Walker, n *schemas.Node) Value { return str(c.text(n, 4, 10)) },
	"proposal-description":    func(c *Walker, n *schemas.Node) Value { return str(c.paragraph(n)) },
	"network-parameter-key":   func(c *Walker, _ *schemas.Node) Value { return str(random.Pick(c.g, netparams.Keys())) },
	"network-parameter-value": func(c *Walker, _ *schemas.Node) Value { return str(c.decimal(0, 100, 2)) },
	"tx-type":                 func(c *Walker, _ *schemas.Node) Value { return str("Submit Order") },
	"tx-cursor": func(c *Walker, _ *schemas.Node) Value {
		return str(fmt.Sprintf("%d.%d", c.blockHeight(), c.g.Between(0, 9)))
	},
	"tx-error": func(c *Walker, _ *schemas.Node) Value { return str("") },
}

var (
	durationsSeconds = []int64{1, 5, 10, 30, 60, 300, 600, 900, 3600, 14400, 43200, 86400}
	goDurations      = []string{"10s", "30s", "1m0s", "5m0s", "15m0s", "1h0m0s", "24h0m0s"}
	chainIDs         = []string{"1", "100", "42161", "11155111"}
	BaseSymbols      = []string{"BTC", "ETH", "SOL", "AVAX", "LINK", "ARB", "OP", "DOGE", "INJ", "TIA", "NEAR", "ATOM", "LDO", "UNI", "AAVE"}
	quoteSymbols     = []string{"USDT", "USDC", "DAI", "EUR", "USD"}
	contractMethods  = []string{"latestAnswer", "latestRoundData", "getPrice", "consult"}
	jsonPaths        = []string{"$[0]", "$[1]", "$.price", "$.answer", "$[0].value"}
	oracleABI        = `[{"inputs":[],"name":"latestAnswer","outputs":[{"internalType":"int256","name":"","type":"int256"}],"stateMutability":"view","type":"function"}]`
)

// numeric helpers

func (c *Walker) blockHeight() uint64 {
	return uint64(c.g.Between(int64(c.u.FirstBlock), int64(c.u.LastBlock)))
}

func (c *Walker) epoch() uint64 {
	return uint64(c.g.Between(int64(c.u.FirstEpoch), int64(c.u.LastEpoch)))
}

func (c *Walker) orderSize() int64 {
	return random.Pick(c.g, []int64{1, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 10000})
}

func (c *Walker) sizeDelta() int64 {
	d := c.g.Between(1, 500)
	if c.g.Chance(0.5) {
		d = -d
	}
	return d
}

// futureTime is a time from a day before to 90 days after the newest block.
func (c *Walker) futureTime() time.Time {
	secs := c.g.Between(-86_400, 90*86_400)
	return c.now.Add(time.Duration(secs) * time.Second)
}

// intIn returns an integer within the node's bounds, or within [lo, hi].
func (c *Walker) intIn(n *schemas.Node, lo, hi int64) int64 {
	if n.Minimum != nil && int64(*n.Minimum) > lo {
		lo = int64(*n.Minimum)
	}
	if n.Maximum != nil && int64(*n.Maximum) < hi {
		hi = int64(*n.Maximum)
	}
	return c.g.Between(lo, hi)
}

// float returns a short decimal number within the node's bounds.
func (c *Walker) float(n *schemas.Node, lo, hi float64) Value {
	if n.Minimum != nil && *n.Minimum > lo {
		lo = *n.Minimum
	}
	if n.Maximum != nil && *n.Maximum < hi {
		hi = *n.Maximum
	}
	x := lo + c.g.Float64()*(hi-lo)
	return numText(strconv.FormatFloat(float64(int64(x*1e6))/1e6, 'f', -1, 64))
}

// amount returns an amount in an asset's smallest unit: 1 to 24 digits, most
// often the size of a few tokens with 18 decimals.
func (c *Walker) amount() string {
	digits := int(c.g.Between(1, 24))
	if c.g.Chance(0.6) {
		digits = int(c.g.Between(15, 22))
	}
	b := make([]byte, digits)
	b[0] = byte('1' + c.g.Intn(9))
	for i := 1; i < digits; i++ {
		b[i] = byte('0' + c.g.Intn(10))
	}
	return string(b)
}

// decimal returns a decimal in [lo, hi] with up to places decimals.
func (c *Walker) decimal(lo, hi int64, places int) string {
	whole := c.g.Between(lo, hi)
	frac := c.g.Between(0, pow10(places)-1)
	s := strconv.FormatInt(abs(whole), 10)
	if frac > 0 {
		s += "." + strings.TrimRight(fmt.Sprintf("%0*d", places, frac), "0")
	}
	if whole < 0 {
		s = "-" + s
	}
	return s
}

func (c *Walker) fraction(signed bool) string {
	var s string
	switch c.g.Intn(10) {
	case 0:
		s = "0"
	case 1:
		s = "1"
	default:
		s = c.decimal(0, 0, 4)
	}
	if signed && s != "0" && c.g.Chance(0.4) {
		s = "-" + s
	}
	return s
}

func (c *Walker) positiveDecimal() string {
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

func (c *Walker) accountOwner() string {
	switch c.g.Intn(5) {
	case 0:
		return ""
	case 1, 2:
		return random.Pick(c.g, c.u.Markets)
	default:
		return random.Pick(c.g, c.u.Parties)
	}
}

func (c *Walker) chainPubKey() string {
	b := make([]byte, 32)
	for i := 0; i < 32; i += 8 {
		v := c.g.Uint64()
		for j := 0; j < 8; j++ {
			b[i+j] = byte(v >> (8 * j))
		}
	}
	return base64.StdEncoding.EncodeToString(b)
}

func (c *Walker) url() string {
	switch c.g.Intn(3) {
	case 0:
		return "https://" + strings.ToLower(c.g.Faker().DomainName()) + "/"
	case 1:
		return "https://" + strings.ToLower(c.g.Faker().DomainName()) + "/avatar.png"
	}
	return "https://" + strings.ToLower(c.g.Faker().DomainName()) + "/" + strings.ToLower(c.g.Faker().Word())
}

func (c *Walker) nodeName() string {
	return c.g.Faker().Company() + " " + random.Pick(c.g, []string{"Validator", "Node", "Staking", "Labs"})
}

func (c *Walker) reference() string {
	return random.Pick(c.g, []string{"bot", "ui", "mm", "arb", "hedge", "api"}) + "-" + c.g.Hex(8)
}

func (c *Walker) instrumentName() string {
	base, quote := random.Pick(c.g, BaseSymbols), random.Pick(c.g, quoteSymbols)
	return fmt.Sprintf("%s/%s %s", base, quote, random.Pick(c.g, []string{"Perpetual", "Futures", "Spot", "Dec 2025"}))
}

func (c *Walker) instrumentCode() string {
	base, quote := random.Pick(c.g, BaseSymbols), random.Pick(c.g, quoteSymbols)
	return base + quote + random.Pick(c.g, []string{".PERP", ".FUT", "", ".Q4"})
}

func (c *Walker) assetName() string {
	return c.g.Faker().Adjective() + " " + random.Pick(c.g, []string{"Token", "Coin", "Dollar", "Credit"})
}

func (c *Walker) metadataTag() string {
	switch c.g.Intn(4) {
	case 0:
		return "base:" + random.Pick(c.g, BaseSymbols)
	case 1:
		return "quote:" + random.Pick(c.g, quoteSymbols)
	case 2:
		return "class:" + random.Pick(c.g, []string{"fx/crypto", "equities", "commodities"})
	}
	return "sector:" + random.Pick(c.g, []string{"defi", "l1", "l2", "ai"})
}

func (c *Walker) propertyName() string {
	switch c.g.Intn(3) {
	case 0:
		return "prices." + random.Pick(c.g, BaseSymbols) + ".value"
	case 1:
		return "trading.terminated"
	}
	return "core.time"
}

func (c *Walker) conditionValue() string {
	if c.g.Chance(0.5) {
		return strconv.FormatInt(c.futureTime().Unix(), 10)
	}
	return strconv.FormatInt(c.g.Between(0, 100_000), 10)
}

// text returns a sentence of minWords to maxWords words that fits the node's
// maxLength.
func (c *Walker) text(n *schemas.Node, minWords, maxWords int) string {
	s := strings.TrimSuffix(c.g.Faker().Sentence(int(c.g.Between(int64(minWords), int64(maxWords)))), ".")
	return fitLength(s, n)
}

func (c *Walker) paragraph(n *schemas.Node) string {
	s := c.g.Faker().Paragraph(int(c.g.Between(1, 3)), int(c.g.Between(2, 5)), int(c.g.Between(6, 14)), "\n\n")
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
