// Package jsondiff compares a value decoded into a generated type with the
// JSON it was decoded from.
package jsondiff

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
)

// Same checks that a decoded value, encoded again, says what the wire
// said: a field the generated type lacks, misnames or decodes to another
// value shows up as a difference, named by its JSON path. A member that is
// null on one side and absent on the other is no difference: the schemas
// accept null wherever a sub-object may be absent (a real gateway writes
// null, the mock leaves it out), and a generated type may keep either.
func Same(wire []byte, decoded any) error {
	again, err := json.Marshal(decoded)
	if err != nil {
		return fmt.Errorf("encode the decoded value again: %w", err)
	}
	var a, b any
	if err := json.Unmarshal(wire, &a); err != nil {
		return fmt.Errorf("the body is not JSON: %w", err)
	}
	if err := json.Unmarshal(again, &b); err != nil {
		return fmt.Errorf("the decoded value encodes to invalid JSON: %w", err)
	}
	if d := difference(a, b, ""); d != "" {
		return fmt.Errorf("the decoded value differs from the wire: %s", d)
	}
	return nil
}

// difference describes the first place where wire and decoded differ, ""
// when they are equal.
func difference(wire, decoded any, path string) string {
	switch w := wire.(type) {
	case map[string]any:
		d, ok := decoded.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: an object became %v", orRoot(path), short(decoded))
		}
		keys := make([]string, 0, len(w)+len(d))
		for k := range w {
			keys = append(keys, k)
		}
		for k := range d {
			if _, ok := w[k]; !ok {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			wv, inWire := w[k]
			dv, inDecoded := d[k]
			switch {
			case wv == nil && dv == nil:
				continue
			case !inDecoded:
				return fmt.Sprintf("%s/%s: lost in decoding (was %v)", path, k, short(wv))
			case !inWire:
				return fmt.Sprintf("%s/%s: added in decoding (%v)", path, k, short(dv))
			}
			if s := difference(wv, dv, path+"/"+k); s != "" {
				return s
			}
		}
		return ""
	case []any:
		d, ok := decoded.([]any)
		if !ok || len(d) != len(w) {
			return fmt.Sprintf("%s: an array of %d became %v", orRoot(path), len(w), short(decoded))
		}
		for i := range w {
			if s := difference(w[i], d[i], path+"/"+strconv.Itoa(i)); s != "" {
				return s
			}
		}
		return ""
	}
	if !reflect.DeepEqual(wire, decoded) {
		return fmt.Sprintf("%s: %v became %v", orRoot(path), short(wire), short(decoded))
	}
	return ""
}

func orRoot(path string) string {
	if path == "" {
		return "/"
	}
	return path
}

func short(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 80 {
		return string(b[:77]) + "..."
	}
	return string(b)
}
