package schemas_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/chaindata/harness/schemas"
)

func TestParseProfile(t *testing.T) {
	tests := []struct {
		in      string
		want    schemas.Profile
		wantErr bool
	}{
		{"reference", schemas.Reference, false},
		{"spec", schemas.Spec, false},
		{"", "", true},
		{"Spec", "", true},
		{"strict", "", true},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := schemas.ParseProfile(tc.in)
			if (err != nil) != tc.wantErr || got != tc.want {
				t.Fatalf("ParseProfile(%q) = %q, %v; want %q, error %v", tc.in, got, err, tc.want, tc.wantErr)
			}
			if err != nil && !strings.Contains(err.Error(), "reference or spec") {
				t.Errorf("error %q does not say which profiles exist", err)
			}
		})
	}
	if got := schemas.Profiles(); len(got) != 2 || got[0] != schemas.Reference || got[1] != schemas.Spec {
		t.Errorf("Profiles() = %v, want [reference spec]", got)
	}
}

func TestLoadProfile(t *testing.T) {
	ref, err := schemas.LoadProfile("Transaction", schemas.Reference)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := schemas.LoadProfile("Transaction", schemas.Spec)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := schemas.LoadProfile("Transaction", schemas.Spec)
	tests := []struct {
		name string
		ok   bool
	}{
		{"Load is the reference profile", schemas.MustLoad("Transaction") == ref},
		{"a profile is compiled once", again == spec},
		{"profiles are compiled apart", ref != spec},
		{"reference validator says its profile", ref.Profile() == schemas.Reference},
		{"spec validator says its profile", spec.Profile() == schemas.Spec},
		{"both name their definition", ref.Name() == "Transaction" && spec.Name() == "Transaction"},
	}
	for _, tc := range tests {
		if !tc.ok {
			t.Errorf("%s: no", tc.name)
		}
	}
	if schemas.MustLoadProfile("Transaction", schemas.Spec) != spec {
		t.Error("MustLoadProfile gave another validator than LoadProfile")
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("MustLoadProfile did not panic on an unknown profile")
			}
		}()
		schemas.MustLoadProfile("Transaction", "strict")
	}()
	for _, bad := range []struct {
		name    string
		profile schemas.Profile
		want    string
	}{
		{"Transaction", "strict", `unknown profile "strict"`},
		{"Transactions", schemas.Spec, `no schema named "Transactions"`},
	} {
		if _, err := schemas.LoadProfile(bad.name, bad.profile); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("LoadProfile(%q, %q) = %v, want %q", bad.name, bad.profile, err, bad.want)
		}
	}
}

// TestValidateNamesTheProfile checks the convenience function and that a
// ValidationError says which profile it comes from.
func TestValidateNamesTheProfile(t *testing.T) {
	doc := encodeJSON(t, setAt(t, exampleDoc(t, "CoreSnapshot.json"), "/blockHash", json.Number("12")))
	for _, p := range schemas.Profiles() {
		t.Run(string(p), func(t *testing.T) {
			err := schemas.Validate("CoreSnapshot", p, doc)
			var verr *schemas.ValidationError
			if !errors.As(err, &verr) {
				t.Fatalf("got %v, want a *ValidationError", err)
			}
			if verr.Profile != p || verr.Schema != "CoreSnapshot" {
				t.Errorf("Profile %q Schema %q, want %q CoreSnapshot", verr.Profile, verr.Schema, p)
			}
			if want := fmt.Sprintf("does not match schema CoreSnapshot (profile %s): /blockHash: ", p); !strings.HasPrefix(err.Error(), want) {
				t.Errorf("Error() = %q, want it to start with %q", err, want)
			}
			if err := schemas.Validate("CoreSnapshot", p, []byte(`{`)); err == nil || errors.As(err, &verr) {
				t.Errorf("input that is not JSON: %v, want an error that is not a ValidationError", err)
			}
		})
	}
	if err := schemas.Validate("NoSuchSchema", schemas.Spec, []byte(`{}`)); err == nil {
		t.Error("an unknown schema validated")
	}
}

func TestExamplesValidateUnderEveryProfile(t *testing.T) {
	for _, ex := range examples(t) {
		for _, p := range schemas.Profiles() {
			if err := schemas.Validate(ex.def, p, ex.raw); err != nil {
				t.Errorf("%s (profile %s): a valid example is rejected: %v", ex.file, p, err)
			}
		}
	}
}

// edit changes a decoded document.
type edit func(t *testing.T, doc any) any

func set(path string, v any) edit {
	return func(t *testing.T, doc any) any { return setAt(t, doc, path, v) }
}

func del(paths ...string) edit {
	return func(t *testing.T, doc any) any {
		for _, p := range paths {
			doc = deleteAt(t, doc, p)
		}
		return doc
	}
}

// setFrom sets path to the value at from in another example.
func setFrom(path, file, from string) edit {
	return func(t *testing.T, doc any) any {
		src := exampleDoc(t, file)
		for _, tok := range pointerTokens(from) {
			src = src.(map[string]any)[tok]
		}
		return setAt(t, doc, path, src)
	}
}

// profileCase is one document checked under both profiles.
type profileCase struct {
	name    string
	schema  string
	file    string // example to start from; "" uses doc
	doc     string
	edits   []edit
	refOK   bool   // valid under Reference
	specOK  bool   // valid under Spec
	specAt  string // for a document Spec rejects: a violation at this path
	specHas string // ... breaking this rule ("" for any)
}

func (c profileCase) build(t *testing.T) []byte {
	t.Helper()
	var doc any
	if c.file != "" {
		doc = exampleDoc(t, c.file)
	} else {
		doc = mustDecode(t, c.doc)
	}
	for _, e := range c.edits {
		doc = e(t, doc)
	}
	return encodeJSON(t, doc)
}

func checkProfileCases(t *testing.T, tests []profileCase) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc := tc.build(t)
			ref := violationsOf(t, schemas.MustLoad(tc.schema), doc)
			if (len(ref) == 0) != tc.refOK {
				t.Errorf("reference: valid = %v, want %v: %v", len(ref) == 0, tc.refOK, ref)
			}
			spec, err := schemas.LoadProfile(tc.schema, schemas.Spec)
			if err != nil {
				t.Fatal(err)
			}
			got := violationsOf(t, spec, doc)
			switch {
			case tc.specOK && len(got) > 0:
				t.Errorf("spec: rejected, want valid: %v", got)
			case !tc.specOK && len(got) == 0:
				t.Errorf("spec: accepted, want a violation at %q", tc.specAt)
			case !tc.specOK && tc.specHas == "" && !hasViolation(got, tc.specAt):
				t.Errorf("spec: no violation at %q: %v", tc.specAt, got)
			case !tc.specOK && tc.specHas != "" && !hasViolation(got, tc.specAt, tc.specHas):
				t.Errorf("spec: no %s at %q: %v", tc.specHas, tc.specAt, got)
			}
		})
	}
}

const futureField = "someFutureField"

// TestSpecProfileAcceptsWhatTheSpecDoesNotState: fields the spec does not
// show may be missing or anything, unknown fields and command kinds are
// allowed, and our own oneOfs and rules are not enforced.
func TestSpecProfileAcceptsWhatTheSpecDoesNotState(t *testing.T) {
	amendAmm := `{"nonce": "1", "blockHeight": "2", "amendAmm": {"marketId": "` + btcPerp + `", "slippageTolerance": "0.005"}}`
	checkProfileCases(t, []profileCase{
		{name: "transaction with only block, code, command and a cursor", schema: "Transaction",
			doc: `{"block": "45120415", "code": 0, "command": ` + amendAmm + `, "cursor": "45120415.3"}`, specOK: true},
		{name: "transaction without a cursor either", schema: "Transaction",
			doc: `{"block": "45120415", "code": 0, "command": {}}`, specOK: true},
		{name: "a listing of such transactions", schema: "ListTransactionsResponse",
			doc: `{"transactions": [{"block": "45120415", "code": 0, "command": ` + amendAmm + `}]}`, specOK: true},
		{name: "transaction without createdAt, version and pow (an older explorer)", schema: "Transaction",
			file: "Transaction.json", edits: []edit{del("/createdAt", "/version", "/pow")}, specOK: true},
		{name: "unknown field on a Game", schema: "Game", file: "Game.individual.json", edits: []edit{set("/"+futureField, "x")}, specOK: true},
		{name: "unknown field on a CoreSnapshot", schema: "CoreSnapshot", file: "CoreSnapshot.json", edits: []edit{set("/"+futureField, "x")}, specOK: true},
		{name: "unknown field on an EthereumKeyRotation", schema: "EthereumKeyRotation", file: "EthereumKeyRotation.json", edits: []edit{set("/"+futureField, "x")}, specOK: true},
		{name: "unknown field on a NetworkParameter", schema: "NetworkParameter", file: "NetworkParameter.json", edits: []edit{set("/"+futureField, "x")}, specOK: true},
		{name: "unknown field on a Transaction", schema: "Transaction", file: "Transaction.json", edits: []edit{set("/"+futureField, "x")}, specOK: true},
		{name: "unknown field on a Command", schema: "Command", file: "Command.amendAmm.json", edits: []edit{set("/"+futureField, map[string]any{})}, specOK: true},
		{name: "unknown field deep in a command", schema: "Command", file: "Command.amendAmm.json", edits: []edit{set("/amendAmm/"+futureField, "x")}, specOK: true},
		{name: "unknown field in a page", schema: "ListCoreSnapshotsResponse", file: "ListCoreSnapshotsResponse.json",
			edits: []edit{set("/"+futureField, "x"), set("/coreSnapshots/"+futureField, "x"), set("/coreSnapshots/pageInfo/"+futureField, "x")}, specOK: true},
		{name: "command of a future kind", schema: "Command", doc: `{"nonce": "1", "blockHeight": "2", "someFutureCommand": {}}`, specOK: true},
		{name: "transaction with a command of a future kind", schema: "ListTransactionsResponse", file: "ListTransactionsResponse.json",
			edits: []edit{set("/transactions/0/command", mustDecodeAny(`{"nonce": "1", "blockHeight": "2", "someFutureCommand": {"x": 1}}`))}, specOK: true},
		{name: "command nonce that is not a uint64", schema: "Command", file: "Command.amendAmm.json", edits: []edit{set("/nonce", "abc")}, specOK: true},
		{name: "proposal change of a future kind", schema: "ProposalChange", doc: `{"enactmentTimestamp": "1742040000", "updateSomethingNew": {}}`, specOK: true},
		{name: "game with both individual and team", schema: "Game", file: "Game.individual.json",
			edits: []edit{set("/team", mustDecodeAny(`{"team": []}`))}, specOK: true},
		{name: "game with neither individual nor team", schema: "Game", file: "Game.individual.json", edits: []edit{del("/individual")}, specOK: true},
		{name: "stop order with price and trailing offset", schema: "StopOrderSetup", file: "StopOrderSetup.price.json",
			edits: []edit{set("/trailingPercentOffset", "0.05")}, specOK: true},
		{name: "governance transfer both one-off and recurring", schema: "NewTransferConfiguration", file: "NewTransferConfiguration.oneOff.json",
			edits: []edit{setFrom("/recurring", "NewTransferConfiguration.recurring.json", "/recurring")}, specOK: true},
		{name: "transaction type that does not match its command", schema: "Transaction", file: "Transaction.json",
			edits: []edit{set("/type", "Amend AMM")}, specOK: true},
		{name: "failed transaction without an error", schema: "Transaction", file: "Transaction.failed.json", edits: []edit{del("/error")}, specOK: true},
		{name: "successful transaction with an error", schema: "Transaction", file: "Transaction.json", edits: []edit{set("/error", "boom")}, specOK: true},
		{name: "market update without the fields 2.11 does not show", schema: "UpdateMarketConfiguration", file: "UpdateMarketConfiguration.simple.json",
			edits: []edit{del("/simple", "/metadata")}, specOK: true},
		{name: "perpetual update without marginFundingFactor", schema: "UpdatePerpetualProduct", file: "UpdatePerpetualProduct.json",
			edits: []edit{del("/marginFundingFactor")}, specOK: true},
		{name: "transaction signature of any shape", schema: "Transaction", file: "Transaction.json", edits: []edit{set("/signature", "x")}, specOK: true},
	})
}

// TestSpecProfileEnforcesWhatTheSpecStates: the spec's own fields keep
// their types, patterns, enumerations and required status, and its oneOfs
// and limits hold.
func TestSpecProfileEnforcesWhatTheSpecStates(t *testing.T) {
	checkProfileCases(t, []profileCase{
		{name: "block as a boolean", schema: "Transaction", file: "Transaction.json",
			edits: []edit{set("/block", true)}, specAt: "/block", specHas: "invalid_type"},
		{name: "block that is not a uint64", schema: "Transaction", file: "Transaction.json",
			edits: []edit{set("/block", "-1")}, specAt: "/block", specHas: "pattern"},
		{name: "block as a negative JSON integer", schema: "Transaction", file: "Transaction.json",
			edits: []edit{set("/block", json.Number("-1"))}, specAt: "/block", specHas: "number_gte"},
		{name: "code as a string that is not a number", schema: "Transaction", file: "Transaction.json",
			edits: []edit{set("/code", "zero")}, specAt: "/code", specHas: "pattern"},
		{name: "snapshot blockHeight (a string in the spec) as a JSON integer", schema: "CoreSnapshot", file: "CoreSnapshot.json",
			edits: []edit{set("/blockHeight", json.Number("12"))}, specAt: "/blockHeight", specHas: "invalid_type"},
		{name: "snapshot blockHeight that is not a number", schema: "CoreSnapshot", file: "CoreSnapshot.json",
			edits: []edit{set("/blockHeight", "twelve")}, specAt: "/blockHeight", specHas: "pattern"},
		{name: "signature value that is not hex", schema: "Signature", file: "Signature.json",
			edits: []edit{set("/value", "zz")}, specAt: "/value", specHas: "pattern"},
		{name: "signature value of an odd number of hex digits", schema: "Signature", file: "Signature.json",
			edits: []edit{set("/value", "abc")}, specAt: "/value", specHas: "pattern"},
		{name: "country that is not an ISO 3166-1 alpha-2 code", schema: "AnnounceNode", file: "AnnounceNode.json",
			edits: []edit{set("/country", "Germany")}, specAt: "/country"},
		{name: "avatarUrl that is not a URL", schema: "AnnounceNode", file: "AnnounceNode.json",
			edits: []edit{set("/avatarUrl", "not a url")}, specAt: "/avatarUrl"},
		{name: "amount that is not a number", schema: "NewTransferConfiguration", file: "NewTransferConfiguration.oneOff.json",
			edits: []edit{set("/amount", "lots")}, specAt: "/amount", specHas: "pattern"},
		{name: "price that is not an unsigned integer", schema: "OrderSubmission", file: "OrderSubmission.json",
			edits: []edit{set("/price", "1.5")}, specAt: "/price", specHas: "pattern"},
		{name: "fraction above 1", schema: "LiquidationStrategy", file: "LiquidationStrategy.json",
			edits: []edit{set("/disposalFraction", "1.5")}, specAt: "/disposalFraction", specHas: "pattern"},
		{name: "transaction without a command", schema: "Transaction", file: "Transaction.json",
			edits: []edit{del("/command")}, specAt: "/command", specHas: "required"},
		{name: "transaction without a block", schema: "ListTransactionsResponse", file: "ListTransactionsResponse.json",
			edits: []edit{del("/transactions/0/block")}, specAt: "/transactions/0/block", specHas: "required"},
		{name: "unknown DispatchMetric in a game", schema: "Game", file: "Game.individual.json",
			edits: []edit{set("/individual/individual/0/rewardMetric", "DISPATCH_METRIC_POPULARITY")}, specAt: "/individual/individual/0/rewardMetric", specHas: "enum"},
		{name: "game without an epoch", schema: "Game", file: "Game.individual.json", edits: []edit{del("/epoch")}, specAt: "/epoch", specHas: "required"},
		{name: "snapshot without blockHash", schema: "CoreSnapshot", file: "CoreSnapshot.json", edits: []edit{del("/blockHash")}, specAt: "/blockHash", specHas: "required"},
		{name: "snapshot in a page without blockHash", schema: "ListCoreSnapshotsResponse", file: "ListCoreSnapshotsResponse.json",
			edits: []edit{del("/coreSnapshots/edges/0/node/blockHash")}, specAt: "/coreSnapshots/edges/0/node/blockHash", specHas: "required"},
		{name: "page without pageInfo", schema: "ListCoreSnapshotsResponse", file: "ListCoreSnapshotsResponse.json",
			edits: []edit{del("/coreSnapshots/pageInfo")}, specAt: "/coreSnapshots/pageInfo", specHas: "required"},
		{name: "key rotation to an address that is not Ethereum's", schema: "EthereumKeyRotation", file: "EthereumKeyRotation.json",
			edits: []edit{set("/newAddress", "0x1234")}, specAt: "/newAddress", specHas: "pattern"},
		{name: "network parameter value as a number", schema: "NetworkParameter", file: "NetworkParameter.json",
			edits: []edit{set("/value", json.Number("15"))}, specAt: "/value", specHas: "invalid_type"},
		{name: "instrument with both future and perpetual", schema: "InstrumentConfiguration", file: "InstrumentConfiguration.future.json",
			edits: []edit{setFrom("/perpetual", "InstrumentConfiguration.perpetual.json", "/perpetual")}, specAt: "", specHas: "number_one_of"},
		{name: "instrument without a product", schema: "InstrumentConfiguration", file: "InstrumentConfiguration.future.json",
			edits: []edit{del("/future")}, specAt: "", specHas: "number_one_of"},
		{name: "data source both external and internal", schema: "DataSourceDefinition", file: "DataSourceDefinition.external.json",
			edits: []edit{setFrom("/internal", "DataSourceDefinition.internal.json", "/internal")}, specAt: "", specHas: "number_one_of"},
		{name: "oracle signer with both kinds", schema: "Signer", file: "Signer.ethAddress.json",
			edits: []edit{setFrom("/pubKey", "Signer.pubKey.json", "/pubKey")}, specAt: "", specHas: "number_one_of"},
		{name: "new asset with both sources", schema: "AssetDetails", file: "AssetDetails.erc20.json",
			edits: []edit{setFrom("/builtinAsset", "AssetDetails.builtinAsset.json", "/builtinAsset")}, specAt: "", specHas: "number_one_of"},
		{name: "market with both risk models", schema: "NewMarketConfiguration", file: "NewMarketConfiguration.simple.json",
			edits: []edit{setFrom("/logNormal", "NewMarketConfiguration.logNormal.json", "/logNormal")}, specAt: "", specHas: "number_one_of"},
		{name: "amendAmm without its market", schema: "Command", file: "Command.amendAmm.json",
			edits: []edit{del("/amendAmm/marketId")}, specAt: "/amendAmm/marketId", specHas: "required"},
		{name: "limit order without a price", schema: "OrderSubmission", doc: orderWith(`"type": "TYPE_LIMIT", "timeInForce": "TIME_IN_FORCE_GTC"`),
			specAt: "/price"},
		{name: "proposal title above 100 characters", schema: "ProposalRationale", doc: `{"title": "` + strings.Repeat("t", 101) + `", "description": ""}`,
			specAt: "/title", specHas: "string_lte"},
		{name: "sub-object of the wrong type", schema: "Command", file: "Command.amendAmm.json",
			edits: []edit{set("/amendAmm/concentratedLiquidityParameters", "x")}, specAt: "/amendAmm/concentratedLiquidityParameters"},
		{name: "error body without details", schema: "Error", file: "Error.json", edits: []edit{del("/details")}, specAt: "/details", specHas: "required"},
		{name: "error detail without @type", schema: "Error", file: "Error.json", edits: []edit{del("/details/0/@type")}, specAt: "/details/0/@type", specHas: "required"},
	})
}

func mustDecodeAny(s string) any {
	v, err := decodeJSON([]byte(s))
	if err != nil {
		panic(err)
	}
	return v
}

// TestReferenceProfileIsTheFilesAsWritten checks that the profiles changed
// nothing of the reference: the Reference profile and the files compiled
// without their x-spec-* annotations give the same verdict, with the same
// violations, on every example, every mutation of it and every optional
// sub-object set to null or left out.
func TestReferenceProfileIsTheFilesAsWritten(t *testing.T) {
	if testing.Short() {
		t.Skip("validates thousands of documents")
	}
	counts := &tally{n: map[string]int{}}
	t.Run("examples", func(t *testing.T) {
		for _, ex := range examples(t) {
			t.Run(ex.file, func(t *testing.T) {
				t.Parallel()
				ref := schemas.MustLoad(ex.def)
				files, err := schemas.LoadWithoutAnnotations(ex.def)
				if err != nil {
					t.Fatal(err)
				}
				docs := [][]byte{ex.raw}
				var sites []site
				walkDoc(schemas.MustLookup(ex.def), ex.doc, "", func(s site) { sites = append(sites, s) })
				for _, m := range mutations {
					for _, s := range sites {
						if broken, ok := m.apply(s); ok {
							docs = append(docs, encodeJSON(t, setAt(t, ex.doc, s.path, broken)))
						}
					}
				}
				for _, s := range sites {
					if _, ok := s.value.(map[string]any); ok && s.nullable {
						docs = append(docs, encodeJSON(t, setAt(t, ex.doc, s.path, nil)), encodeJSON(t, deleteAt(t, ex.doc, s.path)))
					}
				}
				for _, doc := range docs {
					got, want := errString(ref.Validate(doc)), errString(files.Validate(doc))
					if got != want {
						t.Errorf("%s\nreference profile: %s\nfiles as written:  %s", doc, got, want)
					}
				}
				counts.add("documents", len(docs))
			})
		}
	})
	if n := counts.get("documents"); n < 3000 {
		t.Errorf("only %d documents compared", n)
	}
}

func errString(err error) string {
	if err == nil {
		return "valid"
	}
	return err.Error()
}

// TestSpecProfileMutations runs the mutations of the examples under the
// Spec profile: an unknown property is accepted everywhere; a value of the
// wrong type or a misspelt enumeration value is rejected at a field the
// spec shows, and accepted at one it does not.
func TestSpecProfileMutations(t *testing.T) {
	if testing.Short() {
		t.Skip("validates thousands of documents")
	}
	counts := &tally{n: map[string]int{}}
	for _, ex := range examples(t) {
		t.Run(ex.file, func(t *testing.T) {
			t.Parallel()
			v, err := schemas.LoadProfile(ex.def, schemas.Spec)
			if err != nil {
				t.Fatal(err)
			}
			var sites []site
			walkDoc(schemas.MustLookup(ex.def), ex.doc, "", func(s site) { sites = append(sites, s) })
			for _, m := range mutations {
				for _, s := range sites {
					broken, ok := m.apply(s)
					if !ok {
						continue
					}
					// At a field the spec types uint64 or int64 a number
					// and a digit string are the two encodings of a value
					// (TestSpecIntegerEncodings): the wrong type there is
					// a boolean.
					integerSite := s.specType == "uint64" || s.specType == "int64"
					if m.name == "wrongly typed value" && integerSite {
						broken = true
						if s.spec {
							counts.add("wrongly typed integer", 1)
						}
					}
					got := violationsOf(t, v, encodeJSON(t, setAt(t, ex.doc, s.path, broken)))
					wantRejected := s.spec && m.name != "unknown property in a closed object"
					counts.add(fmt.Sprintf("%s/%v", m.name, wantRejected), 1)
					switch {
					case !wantRejected && len(got) > 0:
						t.Errorf("%s at %q (spec field: %v): rejected, want accepted: %v", m.name, s.path, s.spec, got)
					case wantRejected && len(got) == 0:
						t.Errorf("%s at %q: accepted, want %s", m.name, s.path, m.want)
					case wantRejected && !m.check(s, got):
						t.Errorf("%s at %q: want %s, got %v", m.name, s.path, m.want, got)
					}
				}
			}
		})
	}
	t.Cleanup(func() {
		// Each kind of verdict must have been reached often.
		for _, key := range []string{
			"unknown property in a closed object/false",
			"wrongly typed value/true", "wrongly typed value/false",
			"misspelt enum value/true", "misspelt enum value/false",
			"wrongly typed integer",
		} {
			if n := counts.get(key); n < 10 {
				t.Errorf("%s: only %d mutations ran", key, n)
			}
		}
	})
}

// TestConcurrentProfiles loads and uses both profiles of many definitions
// from many goroutines at once, so that -race sees any shared state.
func TestConcurrentProfiles(t *testing.T) {
	exs := examples(t)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := range exs {
				ex := exs[(i+w*11)%len(exs)]
				p := schemas.Profiles()[(i+w)%2]
				if err := schemas.Validate(ex.def, p, ex.raw); err != nil {
					errs <- fmt.Errorf("worker %d: %s (profile %s): %v", w, ex.file, p, err)
					return
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestSpecProfileLeavesToTheReference: a document that departs from the
// reference only where the reference alone decides (docs/schemas.md, "What
// the spec states") fails the Reference profile and passes the Spec
// profile: letter case, hex and base64 where the spec says "string", the
// bounds and sign of numbers whose type or text does not give them, the
// JSON type of the fields the spec types uint64 or int64.
func TestSpecProfileLeavesToTheReference(t *testing.T) {
	const upperHex = "8D1C5F0E3B7A9D2C6F4E8B1A5D9C3F7E2B6A0D4C8F1E5B9A3D7C2F6E0B4A8D1C"
	const aboveUint64 = "18446744073709551616"
	leave := func(name, schema, file string, edits ...edit) profileCase {
		return profileCase{name: name, schema: schema, file: file, edits: edits, specOK: true}
	}
	checkProfileCases(t, []profileCase{
		// IDs, keys and hashes: "string" in the spec.
		leave("snapshot blockHash in upper-case hex", "CoreSnapshot", "CoreSnapshot.json", set("/blockHash", upperHex)),
		leave("snapshot blockHash that is not hex", "CoreSnapshot", "CoreSnapshot.json", set("/blockHash", "block-45120000")),
		leave("chainPubKey that is not base64", "AnnounceNode", "AnnounceNode.json", set("/chainPubKey", "tendermint/PubKeyEd25519:abc")),
		leave("corePubKey in upper-case hex", "AnnounceNode", "AnnounceNode.json", set("/corePubKey", upperHex)),
		leave("node ID in upper-case hex", "AnnounceNode", "AnnounceNode.json", set("/id", upperHex)),
		leave("rotation nodeId of another length", "EthereumKeyRotation", "EthereumKeyRotation.json", set("/nodeId", "node-7")),
		leave("game ID and reward asset in upper-case hex", "Game", "Game.individual.json", set("/id", upperHex), set("/rewardAssetId", upperHex)),
		leave("party in a game in upper-case hex", "Game", "Game.individual.json", set("/individual/individual/0/individual", upperHex)),
		leave("referral code that is not hex", "ApplyReferralCode", "ApplyReferralCode.json", set("/id", "SUMMER-2024")),
		leave("transfer ID that is not hex", "CancelTransferConfiguration", "CancelTransferConfiguration.json", set("/transferId", "transfer-1")),
		leave("market and order IDs of a cancellation in upper-case hex", "OrderCancellation", "OrderCancellation.json", set("/marketId", upperHex), set("/orderId", upperHex)),
		leave("transfer destination that is no hex ID", "NewTransferConfiguration", "NewTransferConfiguration.oneOff.json", set("/destination", "party:alice")),
		leave("coreVersion without the v", "CoreSnapshot", "CoreSnapshot.json", set("/coreVersion", "0.78.2")),
		leave("network parameter key of any text", "NetworkParameter", "NetworkParameter.json", set("/key", "Market fee factors / maker fee")),
		leave("staleness tolerance that is not a Go duration", "CompositePriceConfiguration", "CompositePriceConfiguration.json", set("/sourceStalenessTolerance/0", "PT1M")),
		// Addresses and keys the spec does not call an Ethereum address.
		leave("node ethereumAddress as a 64-byte public key", "AnnounceNode", "AnnounceNode.json", set("/ethereumAddress", "0x"+strings.Repeat("ab", 64))),
		leave("submitterAddress of any text", "AnnounceNode", "AnnounceNode.json", set("/submitterAddress", "submitter-1")),
		leave("ERC-20 contractAddress of any text", "Erc20Asset", "Erc20Asset.json", set("/contractAddress", "usdt.contract")),
		leave("oracle signer ethAddress of any text", "SignerEthAddress", "SignerEthAddress.json", set("/address", "signer-1")),
		// Signature: hex-encoded bytes, of either case; an algorithm name.
		leave("signature value in upper-case hex", "Signature", "Signature.json", set("/value", "4D2F1E0A")),
		leave("signature value of no bytes", "Signature", "Signature.json", set("/value", "")),
		leave("signature algo empty", "Signature", "Signature.json", set("/algo", "")),
		// Numbers carried as strings: whole numbers without the uint64
		// bound, decimals of either sign.
		leave("game epoch, participants and rank beyond uint64", "Game", "Game.individual.json",
			set("/epoch", aboveUint64), set("/participants", aboveUint64), set("/individual/individual/0/rank", aboveUint64)),
		leave("snapshot blockHeight beyond uint64", "CoreSnapshot", "CoreSnapshot.json", set("/blockHeight", aboveUint64)),
		leave("ERC-20 chainId beyond uint64", "Erc20Asset", "Erc20Asset.json", set("/chainId", aboveUint64)),
		leave("amounts with a fraction or a sign", "NewTransferConfiguration", "NewTransferConfiguration.oneOff.json", set("/amount", "-12.5")),
		leave("reward earned with a fraction", "Game", "Game.individual.json", set("/individual/individual/0/rewardEarned", "1250.5")),
		leave("volume below zero", "Game", "Game.individual.json", set("/individual/individual/0/volume", "-3")),
		leave("slippage tolerance and commitment below zero", "AmendAmm", "AmendAmm.json", set("/slippageTolerance", "-0.01"), set("/commitmentAmount", "-1.5")),
		// Numbers whose bounds the spec does not give.
		leave("transferInterval 0", "DispatchStrategy", "DispatchStrategy.json", set("/transferInterval", json.Number("0"))),
		leave("scalingFactor below zero", "TargetStakeParameters", "TargetStakeParameters.json", set("/scalingFactor", json.Number("-0.5"))),
		leave("corePubKeyIndex below zero and beyond int32", "AnnounceNode", "AnnounceNode.json", set("/corePubKeyIndex", json.Number("-3000000000"))),
		leave("startRank 0", "DispatchStrategy", "DispatchStrategy.json", set("/rankTable/0/startRank", json.Number("0"))),
		// uint64 and int64: a digit string or a JSON integer.
		leave("transaction block as a JSON integer", "Transaction", "Transaction.json", set("/block", json.Number("45120415"))),
		leave("transaction code as a digit string", "Transaction", "Transaction.json", set("/code", "0")),
		leave("transaction code beyond int32", "Transaction", "Transaction.failed.json", set("/code", json.Number("3000000000"))),
		leave("rotation blockHeight as a JSON integer", "EthereumKeyRotation", "EthereumKeyRotation.json", set("/blockHeight", json.Number("38211954"))),
		leave("fromEpoch as a JSON integer, corePubKeyIndex as a digit string", "AnnounceNode", "AnnounceNode.json",
			set("/fromEpoch", json.Number("1284")), set("/corePubKeyIndex", "2")),
		leave("signature version as a digit string", "Signature", "Signature.json", set("/version", "1")),
		leave("rank table as digit strings", "DispatchStrategy", "DispatchStrategy.json", set("/rankTable/0/startRank", "1"), set("/rankTable/0/shareRatio", "10")),
		leave("order size and expiry as JSON integers", "OrderSubmission", "OrderSubmission.json", set("/size", json.Number("5")), set("/expiresAt", json.Number("1704781983000000000"))),
		// What both profiles accept.
		{name: "EIP-55 mixed-case Ethereum address", schema: "EthereumKeyRotation", file: "EthereumKeyRotation.json",
			edits: []edit{set("/newAddress", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed")}, refOK: true, specOK: true},
	})
}

// TestSpecIntegerEncodings sets every value of every example that the spec
// types uint64 or int64 to each encoding of values at and beyond the
// type's bounds: the Spec profile gives a digit string and the JSON integer
// of the same value the same verdict (valid for the example's own value and
// for 0, which the rules between fields read as unset either way), and
// takes nothing beyond the range, no fraction and no other type; the
// Reference profile only the encoding the real network writes.
func TestSpecIntegerEncodings(t *testing.T) {
	bounds := map[string][]string{
		"uint64": {"0", "18446744073709551615"},
		"int64":  {"0", "-9223372036854775808", "9223372036854775807"},
	}
	beyond := map[string][2]string{
		"uint64": {"-1", "18446744073709551616"},
		"int64":  {"-9223372036854775809", "9223372036854775808"},
	}
	counts := map[string]int{}
	for _, ex := range examples(t) {
		var sites []site
		walkDoc(schemas.MustLookup(ex.def), ex.doc, "", func(s site) {
			if s.spec && (s.specType == "uint64" || s.specType == "int64") {
				sites = append(sites, s)
			}
		})
		if len(sites) == 0 {
			continue
		}
		spec := schemas.MustLoadProfile(ex.def, schemas.Spec)
		ref := schemas.MustLoad(ex.def)
		verdicts := func(s site, v any) (specErr, refErr []schemas.Violation) {
			doc := encodeJSON(t, setAt(t, ex.doc, s.path, v))
			return violationsOf(t, spec, doc), violationsOf(t, ref, doc)
		}
		for _, s := range sites {
			counts[s.specType]++
			own := fmt.Sprint(s.value)
			_, refString := s.value.(string)
			for _, b := range append([]string{own}, bounds[s.specType]...) {
				str, strRef := verdicts(s, b)
				num, numRef := verdicts(s, json.Number(b))
				if (len(str) == 0) != (len(num) == 0) {
					t.Errorf("%s %s (%s): spec verdicts differ: %q gives %v, %s gives %v", ex.file, s.path, s.specType, b, str, b, num)
				}
				if (b == own || b == "0") && len(str) > 0 {
					t.Errorf("%s %s = %q (%s): spec rejects it: %v", ex.file, s.path, b, s.specType, str)
				}
				if len(str) == 0 {
					counts["accepted both ways"]++
				}
				// The reference takes one encoding only.
				if refString && len(numRef) == 0 || !refString && len(strRef) == 0 {
					t.Errorf("%s %s = %s: the reference takes both encodings", ex.file, s.path, b)
				}
			}
			for _, b := range beyond[s.specType] {
				if got, _ := verdicts(s, b); !hasViolation(got, s.path, "pattern") {
					t.Errorf("%s %s = %q (%s): spec gives %v, want a pattern violation there", ex.file, s.path, b, s.specType, got)
				}
				if got, _ := verdicts(s, json.Number(b)); !hasViolation(got, s.path, "number_gte", "number_lte") {
					t.Errorf("%s %s = %s (%s): spec gives %v, want a bound violation there", ex.file, s.path, b, s.specType, got)
				}
			}
			for _, bad := range []any{json.Number("1.5"), true, "12.0", "012", "1e3"} {
				if got, _ := verdicts(s, bad); !hasViolation(got, s.path, "invalid_type", "pattern") {
					t.Errorf("%s %s = %#v (%s): spec gives %v, want a violation there", ex.file, s.path, bad, s.specType, got)
				}
			}
		}
	}
	for key, least := range map[string]int{"uint64": 10, "int64": 10, "accepted both ways": 100} {
		if counts[key] < least {
			t.Errorf("%s: %d, want at least %d", key, counts[key], least)
		}
	}
}
