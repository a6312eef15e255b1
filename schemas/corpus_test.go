package schemas_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/chaindata/harness/schemas"
)

// corpusEnv, when set, names a directory into which the schema tests write
// every document they validate in the Reference profile, with the harness
// validator's verdict: one NDJSON file per test, each line
// {"schema": name, "valid": verdict, "doc": document}. make check-export
// feeds them to other validators (ajv, Python's jsonschema) through
// harness schemas --bundle and harness schemas NAME, which must agree.
const corpusEnv = "HARNESS_SCHEMA_CORPUS"

// validateDoc validates doc with v, and records it in the test's corpus
// file when corpusEnv is set.
func validateDoc(t testing.TB, v *schemas.Validator, doc []byte) error {
	t.Helper()
	err := v.Validate(doc)
	recordCorpus(t, v, doc, err == nil)
	return err
}

// recordCorpus appends one document and its verdict to the test's corpus
// file when corpusEnv is set. Documents of the Spec profile, and input that
// is not JSON, are left out.
func recordCorpus(t testing.TB, v *schemas.Validator, doc []byte, valid bool) {
	t.Helper()
	dir := os.Getenv(corpusEnv)
	if dir == "" || v.Profile() != schemas.Reference || !json.Valid(doc) {
		return
	}
	line, err := json.Marshal(struct {
		Schema string          `json:"schema"`
		Valid  bool            `json:"valid"`
		Doc    json.RawMessage `json:"doc"`
	}{v.Name(), valid, doc})
	if err != nil {
		t.Fatalf("corpus: %v", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, corpusFile(t.Name())), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatalf("corpus: %v", err)
	}
	_, err = f.Write(append(line, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatalf("corpus: %v", err)
	}
}

var unsafeFileChars = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// corpusFile names a test's corpus file: readable, short, and distinct for
// every subtest (a parallel subtest writes only its own).
func corpusFile(test string) string {
	sum := sha256.Sum256([]byte(test))
	name := unsafeFileChars.ReplaceAllString(test, "_")
	if len(name) > 80 {
		name = name[:80]
	}
	return name + "-" + hex.EncodeToString(sum[:4]) + ".ndjson"
}

// TestCorpusRecordsWhatItIsGiven checks the corpus writer on a valid and an
// invalid document, and that it stays silent without corpusEnv.
func TestCorpusRecordsWhatItIsGiven(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(corpusEnv, dir)
	v := schemas.MustLoad("Uint64")
	if err := validateDoc(t, v, []byte(`"42"`)); err != nil {
		t.Fatal(err)
	}
	if got := violationsOf(t, v, []byte(`"-1"`)); len(got) == 0 {
		t.Fatal(`"-1" accepted`)
	}
	recordCorpus(t, schemas.MustLoadProfile("Uint64", schemas.Spec), []byte(`"7"`), true)
	data, err := os.ReadFile(filepath.Join(dir, corpusFile(t.Name())))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"schema":"Uint64","valid":true,"doc":"42"}` + "\n" + `{"schema":"Uint64","valid":false,"doc":"-1"}` + "\n"
	if string(data) != want {
		t.Errorf("corpus file:\n%s\nwant:\n%s", data, want)
	}
	t.Setenv(corpusEnv, "")
	validateDoc(t, v, []byte(`"43"`))
	if again, _ := os.ReadFile(filepath.Join(dir, corpusFile(t.Name()))); string(again) != want {
		t.Error("a document was recorded without the variable")
	}
}
