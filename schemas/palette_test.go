package schemas_test

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/chaindata/harness/schemas"
)

// Wire values of the IDs used below.
const (
	hex64      = "bf1e88d19db4b3ca0d1d5bdb73718a01686b18cf731ca26adedf3c8b83802bba"
	hex64Upper = "BF1E88D19DB4B3CA0D1D5BDB73718A01686B18CF731CA26ADEDF3C8B83802BBA"
)

// jsonString returns s as a JSON string.
func jsonString(s string) string { return strconv.Quote(s) }

// palette holds, for every scalar of common.json, JSON texts it must accept
// and JSON texts it must reject.
var palette = []struct {
	name           string
	valid, invalid []string
}{
	// 64-bit integers as digit strings.
	{"Uint64", []string{jsonString("0"), jsonString("1"), jsonString("42"), jsonString("9999999999999999999"), jsonString("10000000000000000000"), jsonString("18446744073709551609"), jsonString("18446744073709551615")},
		[]string{jsonString("-1"), jsonString("01"), jsonString("1.5"), jsonString(""), jsonString(" 1"), jsonString("+1"), jsonString("1e3"), jsonString("0x10"), jsonString("18446744073709551616"), jsonString("18446744073709551620"), jsonString("18446744073709552000"), jsonString("99999999999999999999"), jsonString("184467440737095516150"), `1`, `null`}},
	{"Int64", []string{jsonString("0"), jsonString("-7"), jsonString("12345"), jsonString("9223372036854775807"), jsonString("-9223372036854775808"), jsonString("-9223372036854775807"), jsonString("999999999999999999")},
		[]string{jsonString("-0"), jsonString("01"), jsonString("-01"), jsonString("1.5"), jsonString(""), jsonString("+7"), jsonString("9223372036854775808"), jsonString("-9223372036854775809"), jsonString("9999999999999999999"), jsonString("18446744073709551615"), `7`, `-7`}},
	{"BlockHeight", []string{jsonString("0"), jsonString("45120415")}, []string{jsonString("-1"), jsonString("045120415"), `45120415`}},
	{"Epoch", []string{jsonString("0"), jsonString("1298")}, []string{jsonString("-1"), jsonString("12.98"), `1298`}},
	{"Count", []string{jsonString("0"), jsonString("7")}, []string{jsonString("-3"), jsonString("07"), `7`}},
	{"DecayPower", []string{jsonString("1"), jsonString("3")}, []string{jsonString("-1"), jsonString("1.5"), `1`}},
	{"Rank", []string{jsonString("1"), jsonString("50")}, []string{jsonString("-1"), jsonString("first"), `1`}},
	{"OrderSize", []string{jsonString("0"), jsonString("2500"), jsonString("18446744073709551615")}, []string{jsonString("-2500"), jsonString("25.00"), jsonString("18446744073709551616"), `2500`}},
	{"DecimalPlaces", []string{jsonString("0"), jsonString("18")}, []string{jsonString("-1"), jsonString("6.0"), `6`}},
	{"UnsignedUnixSeconds", []string{jsonString("0"), jsonString("1741867200"), jsonString("18446744073709551615")}, []string{jsonString("-1741867200"), jsonString("2025-03-13"), `1741867200`}},
	{"UnsignedDurationSeconds", []string{jsonString("0"), jsonString("3600")}, []string{jsonString("-60"), jsonString("1h"), `3600`}},
	{"Nonce", []string{jsonString("0"), jsonString("7139274626518473152"), jsonString("18446744073709551615")}, []string{jsonString("-1"), jsonString("18446744073709551616"), `1`}},
	{"ChainId", []string{jsonString("1"), jsonString("42161")}, []string{jsonString("0x1"), jsonString("-1"), `1`}},
	{"SizeDelta", []string{jsonString("0"), jsonString("-250"), jsonString("40")}, []string{jsonString("+40"), jsonString("-0"), jsonString("2.5"), `-250`}},
	{"SignedDecimalPlaces", []string{jsonString("0"), jsonString("3"), jsonString("-1")}, []string{jsonString("-0"), jsonString("1.0"), `3`}},
	{"UnixNanos", []string{jsonString("0"), jsonString("1741953600000000000"), jsonString("-1")}, []string{jsonString("1741953600.5"), jsonString("2025-03-13T12:00:00Z"), jsonString("9223372036854775808"), `1741953600000000000`}},
	{"UnixSeconds", []string{jsonString("0"), jsonString("1742990400")}, []string{jsonString("1742990400000000000000"), jsonString("1742990400.0"), `1742990400`}},
	{"DurationSeconds", []string{jsonString("0"), jsonString("4320"), jsonString("-1")}, []string{jsonString("4320s"), jsonString("1h"), `4320`}},

	// 32-bit integers as JSON numbers.
	{"Int32", []string{`0`, `-2147483648`, `2147483647`, `3`},
		[]string{`2147483648`, `-2147483649`, `1.5`, jsonString("1"), `null`, `true`}},
	{"ResultCode", []string{`0`, `60`, `-1`, `2147483647`}, []string{`2147483648`, `0.5`, jsonString("0")}},
	{"KeyIndex", []string{`0`, `2`, `2147483647`}, []string{`-1`, `2147483648`, jsonString("2"), `1.5`}},
	{"SignatureVersion", []string{`0`, `1`}, []string{`-1`, jsonString("1"), `1.5`}},
	{"TxIndex", []string{`0`, `3`}, []string{`-1`, jsonString("0"), `0.5`}},
	{"StartRank", []string{`1`, `100`}, []string{`0`, `-1`, jsonString("1"), `1.5`}},
	{"ShareRatio", []string{`0`, `10`}, []string{`-1`, `2147483648`, jsonString("10"), `0.5`}},
	{"TransferInterval", []string{`1`, `7`, `2147483647`}, []string{`0`, `-1`, jsonString("1"), `2147483648`}},

	// Doubles as JSON numbers.
	{"Double", []string{`0`, `-5`, `0.016`, `1e-7`, `1.5e300`}, []string{jsonString("0.5"), `null`, `true`}},
	{"NonNegativeDouble", []string{`0`, `1.5`, `0.0000071`, `1e10`}, []string{`-0.1`, `-1e-9`, jsonString("1")}},
	{"Probability", []string{`0`, `1`, `0.95`, `1e-6`}, []string{`1.01`, `-0.01`, `2`, jsonString("0.5")}},

	// Amounts, prices and decimals as strings.
	{"Amount", []string{jsonString("0"), jsonString("1"), jsonString("10000000000000000000000")}, []string{jsonString(""), jsonString("-1"), jsonString("1.5"), jsonString("01"), jsonString("1e6"), `100`}},
	{"OptionalAmount", []string{jsonString(""), jsonString("0"), jsonString("250000000000")}, []string{jsonString("-1"), jsonString("1.5"), jsonString(" "), jsonString("00"), `0`}},
	{"Price", []string{jsonString("0"), jsonString("6498750000")}, []string{jsonString(""), jsonString("-1"), jsonString("64987.5"), jsonString("01"), `6498750000`}},
	{"OptionalPrice", []string{jsonString(""), jsonString("0"), jsonString("6498750000")}, []string{jsonString("-1"), jsonString("1.5"), jsonString("00"), `1`}},
	{"Decimal", []string{jsonString("0"), jsonString("-0.0125"), jsonString("1234.5"), jsonString("-3"), jsonString("0.000")}, []string{jsonString(""), jsonString(".5"), jsonString("1."), jsonString("+1"), jsonString("1e5"), jsonString("01.5"), jsonString("--1"), `0.5`}},
	{"OptionalDecimal", []string{jsonString(""), jsonString("-0.0005"), jsonString("0.001")}, []string{jsonString("abc"), jsonString("1."), jsonString("-"), `0`}},
	{"UnsignedDecimal", []string{jsonString("0"), jsonString("1234.5"), jsonString("0.0001")}, []string{jsonString("-1"), jsonString(""), jsonString(".5"), jsonString("1."), `1`}},
	{"OptionalUnsignedDecimal", []string{jsonString(""), jsonString("12.5"), jsonString("0")}, []string{jsonString("-1"), jsonString("1."), `1`}},
	{"Ratio", []string{jsonString("0"), jsonString("0.1"), jsonString("3"), jsonString("1.5")}, []string{jsonString(""), jsonString("-0.1"), jsonString("10%"), jsonString("0.1.1"), `0.1`}},
	{"OptionalRatio", []string{jsonString(""), jsonString("0.0025"), jsonString("1")}, []string{jsonString("-0.1"), jsonString("0.1.1"), jsonString("."), `0`}},
	{"Fraction", []string{jsonString("0"), jsonString("1"), jsonString("0.25"), jsonString("1.00"), jsonString("0.9999999"), jsonString("0.0")}, []string{jsonString("1.5"), jsonString("-0.1"), jsonString(""), jsonString("1.01"), jsonString("2"), jsonString(".5"), jsonString("-0"), `0.5`}},
	{"SignedFraction", []string{jsonString("-1"), jsonString("1"), jsonString("0"), jsonString("-0.0005"), jsonString("1.0"), jsonString("-1.00"), jsonString("0.9")}, []string{jsonString("-1.5"), jsonString("1.01"), jsonString(""), jsonString("+0.5"), jsonString("-1.1"), jsonString("2"), `0`}},
	{"PositiveDecimal", []string{jsonString("0.05"), jsonString("1.5"), jsonString("1"), jsonString("2"), jsonString("0.001")}, []string{jsonString("0"), jsonString("0.0"), jsonString("0.000"), jsonString("-0.5"), jsonString(""), jsonString("0."), jsonString("01"), `1`}},

	// Identifiers.
	{"PartyId", []string{jsonString(hex64)}, []string{jsonString(hex64Upper), jsonString(hex64[:63]), jsonString(hex64 + "a"), jsonString("0x" + hex64[:62]), jsonString(""), `1`}},
	{"MarketId", []string{jsonString(hex64)}, []string{jsonString(hex64Upper), jsonString(hex64[:63]), jsonString(""), jsonString(strings.Repeat("g", 64))}},
	{"OptionalMarketId", []string{jsonString(""), jsonString(hex64)}, []string{jsonString(hex64Upper), jsonString(hex64[:63]), jsonString(" ")}},
	{"AssetId", []string{jsonString(hex64)}, []string{jsonString(hex64Upper), jsonString(""), jsonString(hex64 + "0")}},
	{"OptionalAssetId", []string{jsonString(""), jsonString(hex64)}, []string{jsonString(hex64Upper), jsonString(hex64[:2])}},
	{"NodeId", []string{jsonString(hex64)}, []string{jsonString(hex64Upper), jsonString(""), jsonString(hex64[:32])}},
	{"GameId", []string{jsonString(hex64)}, []string{jsonString(hex64Upper), jsonString("")}},
	{"TeamId", []string{jsonString(hex64)}, []string{jsonString(hex64Upper), jsonString("")}},
	{"OrderId", []string{jsonString(hex64)}, []string{jsonString(hex64Upper), jsonString(""), jsonString(hex64[:63])}},
	{"OptionalOrderId", []string{jsonString(""), jsonString(hex64)}, []string{jsonString(hex64Upper), jsonString(hex64[:63])}},
	{"OptionalStopOrderId", []string{jsonString(""), jsonString(hex64)}, []string{jsonString(hex64Upper), jsonString(hex64[:63])}},
	{"TransferId", []string{jsonString(hex64)}, []string{jsonString(hex64Upper), jsonString("")}},
	{"ReferralCode", []string{jsonString(hex64)}, []string{jsonString(hex64Upper), jsonString(""), jsonString("FRIENDS2025")}},
	{"AccountOwner", []string{jsonString(""), jsonString(hex64)}, []string{jsonString(hex64Upper), jsonString("network"), jsonString("*")}},
	{"CorePubKey", []string{jsonString(hex64)}, []string{jsonString(hex64Upper), jsonString("")}},
	{"BlockHash", []string{jsonString(hex64)}, []string{jsonString(hex64Upper), jsonString("0x" + hex64)}},
	{"TxHash", []string{jsonString(hex64Upper)}, []string{jsonString(hex64), jsonString(hex64Upper[:63]), jsonString(""), jsonString("0x" + hex64Upper)}},
	{"PowTid", []string{jsonString(hex64Upper)}, []string{jsonString(hex64), jsonString(hex64Upper + "A")}},
	{"EthAddress", []string{jsonString("0xdAC17F958D2ee523a2206206994597C13D831ec7"), jsonString("0xdac17f958d2ee523a2206206994597c13d831ec7"), jsonString("0xDAC17F958D2EE523A2206206994597C13D831EC7")},
		[]string{jsonString("dAC17F958D2ee523a2206206994597C13D831ec7"), jsonString("0xdAC17F958D2ee523a2206206994597C13D831ec"), jsonString("0xdAC17F958D2ee523a2206206994597C13D831ec7a"), jsonString("0XdAC17F958D2ee523a2206206994597C13D831ec7"), jsonString("0xgAC17F958D2ee523a2206206994597C13D831ec7"), jsonString("")}},
	{"ChainPubKey", []string{jsonString("n8f3ZqQ2w9Lk0PbXyT7vR1aE4sGd6HjKm5NcUoVi8Bg="), jsonString("Qm9vdHN0cmFwS2V5Rm9yQXJjdGljU3Rha2VOb2RlMDE=")},
		[]string{jsonString("n8f3ZqQ2w9Lk0PbXyT7vR1aE4sGd6HjKm5NcUoVi8Bg"), jsonString("n8f3ZqQ2w9Lk0PbXyT7vR1aE4sGd6HjKm5NcUoVi8B=="), jsonString("n8f3ZqQ2w9Lk0PbXyT7vR1aE4sGd6HjKm5NcUoVi8B-="), jsonString(hex64), jsonString("")}},
	{"OptionalEthAddress", []string{jsonString(""), jsonString("0x2f8E4B6a1C9d3E7f5A0b8C2d6E4f1A3b5C7d9E0f")}, []string{jsonString("0x"), jsonString("2f8E4B6a1C9d3E7f5A0b8C2d6E4f1A3b5C7d9E0f"), jsonString(" "), `null`}},
	{"HexBytes", []string{jsonString("00"), jsonString("4d2f1e0a9b8c7d6e")}, []string{jsonString(""), jsonString("abc"), jsonString("ABCD"), jsonString("0x00"), jsonString("zz")}},
	{"SignatureAlgo", []string{jsonString("vega/ed25519"), jsonString("eth/secp256k1")}, []string{jsonString(""), `1`}},

	// Text with a shape.
	{"CountryCode", []string{jsonString("DE"), jsonString("NO")}, []string{jsonString("de"), jsonString("DEU"), jsonString(""), jsonString("D1"), jsonString("D")}},
	{"OptionalCountryCode", []string{jsonString(""), jsonString("DE")}, []string{jsonString("de"), jsonString("DEU"), jsonString(" "), `null`}},
	{"Url", []string{jsonString("https://nodeblocks.example.org/img/avatar-3.png"), jsonString("http://localhost:8080")}, []string{jsonString(""), jsonString("nodeblocks.example.org"), jsonString("not a url"), `1`}},
	{"OptionalUrl", []string{jsonString(""), jsonString("https://arcticstake.example.com")}, []string{jsonString("arcticstake.example.com"), jsonString(" "), `1`, `null`}},
	{"CoreVersion", []string{jsonString("v0.77.3"), jsonString("v0.78.0-preview.4"), jsonString("v1.0.0"), jsonString("v0.78.2-rc.1")}, []string{jsonString("0.77.3"), jsonString("v0.77"), jsonString("v01.2.3"), jsonString("v0.77.3+build.5"), jsonString("v0.77.3-"), jsonString("")}},
	{"NetworkParameterKey", []string{jsonString("spam.pow.difficulty"), jsonString("market.fee.factors.makerFee"), jsonString("validators.epoch.length"), jsonString("rewards.activityStreak.benefitTiers"), jsonString("blockchains.ethereumConfig")},
		[]string{jsonString(""), jsonString(".spam"), jsonString("spam..pow"), jsonString("spam.pow."), jsonString("1spam"), jsonString("spam pow"), jsonString("spam/pow")}},
	{"NetworkParameterValue", []string{jsonString(""), jsonString("24h0m0s"), jsonString(`{"tiers":[]}`), jsonString("0.0002")}, []string{`24`, `null`, `{}`}},
	{"GoDuration", []string{jsonString("10s"), jsonString("1h30m0s"), jsonString("1m0s"), jsonString("0"), jsonString("1.5h"), jsonString("500ms"), jsonString("300µs"), jsonString("2us"), jsonString("15ns")}, []string{jsonString(""), jsonString("10"), jsonString("-1s"), jsonString("1d"), jsonString("s"), jsonString("1h 30m"), jsonString("0s0")}},
	{"Timestamp", []string{jsonString("2024-03-01T12:00:00Z"), jsonString("2025-03-13T12:04:31Z")},
		[]string{jsonString("2024-03-01T12:00:00.5Z"), jsonString("2024-03-01T12:00:00+01:00"), jsonString("2024-03-01"), jsonString("2024-02-30T00:00:00Z"), jsonString("2024-03-01 12:00:00Z"), jsonString(""), `1709294400`}},

	// Free text: any string, never another type.
	{"NodeName", []string{jsonString("Nodeblocks Validator 3"), jsonString("")}, []string{`1`, `null`}},
	{"Reference", []string{jsonString("grid-bot-7/bid-12"), jsonString("")}, []string{`7`, `null`}},
	{"InstrumentName", []string{jsonString("BTC/USDT Futures (Mar 2025)")}, []string{`1`, `{}`}},
	{"InstrumentCode", []string{jsonString("BTCUSDT.MAR25")}, []string{`1`, `[]`}},
	{"QuoteName", []string{jsonString("USDT")}, []string{`1`, `true`}},
	{"AssetName", []string{jsonString("Tether USD")}, []string{`1`, `null`}},
	{"AssetSymbol", []string{jsonString("USDT")}, []string{`1`, `null`}},
	{"MetadataTag", []string{jsonString("base:BTC"), jsonString("perpetual")}, []string{`1`, `null`}},
	{"PropertyName", []string{jsonString("prices.BTC.value"), jsonString("vegaprotocol.builtin.timestamp")}, []string{`1`, `null`}},
	{"ContractAbi", []string{jsonString(`[{"inputs":[],"name":"latestAnswer","outputs":[{"type":"int256"}],"type":"function"}]`)}, []string{`[]`, `null`}},
	{"ContractMethod", []string{jsonString("latestAnswer")}, []string{`1`, `null`}},
	{"JsonPath", []string{jsonString("$[0]"), jsonString("$.price")}, []string{`0`, `null`}},
	{"ConditionValue", []string{jsonString("0"), jsonString("true"), jsonString("1743465600")}, []string{`0`, `true`, `null`}},
}

func TestPalette(t *testing.T) {
	for _, tc := range palette {
		t.Run(tc.name, func(t *testing.T) {
			v, err := schemas.Load(tc.name)
			if err != nil {
				t.Fatal(err)
			}
			if len(tc.valid) == 0 || len(tc.invalid) == 0 {
				t.Fatal("a palette row needs valid and invalid values")
			}
			for _, doc := range tc.valid {
				if err := validateDoc(t, v, []byte(doc)); err != nil {
					t.Errorf("%s rejected: %v", doc, err)
				}
			}
			for _, doc := range tc.invalid {
				got := violationsOf(t, v, []byte(doc))
				if len(got) == 0 {
					t.Errorf("%s accepted", doc)
				} else if !hasViolation(got, "") {
					t.Errorf("%s: violations are not at the root: %v", doc, got)
				}
			}
		})
	}
}

// TestPaletteHasARowForEveryScalar makes a scalar added to common.json fail
// until it has a row above.
func TestPaletteHasARowForEveryScalar(t *testing.T) {
	rows := map[string]bool{}
	for _, tc := range palette {
		if rows[tc.name] {
			t.Errorf("%s has two rows", tc.name)
		}
		rows[tc.name] = true
	}
	scalars := 0
	for _, name := range schemas.Names() {
		n := schemas.MustLookup(name)
		if n.File != "common.json" || n.Resolve().HasType("object") {
			continue
		}
		scalars++
		if !rows[name] {
			t.Errorf("scalar %s has no palette row", name)
		}
		delete(rows, name)
	}
	for name := range rows {
		t.Errorf("palette row %s is not a scalar of common.json", name)
	}
	if scalars < 80 {
		t.Errorf("only %d scalars in common.json", scalars)
	}
}

// The digit-string palette entries share the patterns of Uint64 and Int64,
// which TestSpecFieldsHaveTheirWireKinds relies on to tell their wire kind.
var (
	uint64Family = []string{"Uint64", "BlockHeight", "Epoch", "Count", "DecayPower", "Rank", "OrderSize",
		"DecimalPlaces", "UnsignedUnixSeconds", "UnsignedDurationSeconds", "Nonce", "ChainId"}
	int64Family = []string{"Int64", "SizeDelta", "SignedDecimalPlaces", "UnixNanos", "UnixSeconds", "DurationSeconds"}
)

func TestDigitStringFamiliesSharePatterns(t *testing.T) {
	tests := []struct {
		family []string
		typ    string
	}{
		{uint64Family, "uint64"},
		{int64Family, "int64"},
	}
	for _, tc := range tests {
		want := schemas.MustLookup(tc.family[0]).Pattern
		for _, name := range tc.family {
			n := schemas.MustLookup(name)
			if n.Pattern != want {
				t.Errorf("%s pattern %q differs from %s's", name, n.Pattern, tc.family[0])
			}
			if !n.HasType("string") {
				t.Errorf("%s is not a string", name)
			}
		}
	}
}

// TestDigitStringPatternsMatchTheIntegerRange checks the Uint64 and Int64
// patterns against strconv on the boundaries and on random digit strings:
// a value matches exactly when it is canonical (no sign on 0, no leading
// zero) and fits the type.
func TestDigitStringPatternsMatchTheIntegerRange(t *testing.T) {
	canonical := regexp.MustCompile(`^(0|-?[1-9][0-9]*)$`)
	tests := []struct {
		name   string
		fits   func(string) bool
		signed bool
	}{
		{"Uint64", func(s string) bool { _, err := strconv.ParseUint(s, 10, 64); return err == nil }, false},
		{"Int64", func(s string) bool { _, err := strconv.ParseInt(s, 10, 64); return err == nil }, true},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			re := regexp.MustCompile(schemas.MustLookup(tc.name).Pattern)
			var inputs []string
			for _, b := range []string{"18446744073709551615", "9223372036854775807", "9223372036854775808"} {
				n, _ := strconv.ParseUint(b, 10, 64)
				for d := uint64(0); d < 3; d++ {
					inputs = append(inputs, strconv.FormatUint(n-d, 10), "-"+strconv.FormatUint(n-d, 10))
				}
			}
			inputs = append(inputs, "18446744073709551616", "18446744073709551625", "-9223372036854775809", "0", "-0", "00", "-1")
			// Random prefixes of the boundaries with random tails reach every
			// branch of the patterns.
			for i := 0; i < 20000; i++ {
				b := []string{"18446744073709551615", "9223372036854775807"}[i%2]
				keep := rng.IntN(len(b) + 1)
				s := b[:keep]
				for len(s) < len(b)+rng.IntN(3)-1 {
					s += strconv.Itoa(rng.IntN(10))
				}
				if s == "" {
					continue
				}
				if rng.IntN(4) == 0 {
					s = "-" + s
				}
				inputs = append(inputs, s)
			}
			for _, s := range inputs {
				want := canonical.MatchString(s) && tc.fits(s)
				if got := re.MatchString(s); got != want {
					t.Errorf("%s: pattern matches = %v, want %v", s, got, want)
				}
			}
		})
	}
}

func ExampleValidator_Validate() {
	v := schemas.MustLoad("Fraction")
	for _, doc := range []string{`"0.25"`, `"1.5"`} {
		fmt.Println(doc, v.Validate([]byte(doc)) == nil)
	}
	// Output:
	// "0.25" true
	// "1.5" false
}
