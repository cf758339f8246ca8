package review

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/goldtrace/goldtrace/internal/shareddata"
	"github.com/goldtrace/goldtrace/internal/toolschema"
	"github.com/goldtrace/goldtrace/trace"
)

// BenchmarkArgsCheck checks the arguments of tau-bench's book_reservation
// (nested lists of objects, enums, required fields), valid and with three
// problems, with internal/toolschema and with the reference, and compiles
// the schema with each:
//
//	go test ./review -run '^$' -bench ArgsCheck -benchmem
func BenchmarkArgsCheck(b *testing.B) {
	raw, err := os.ReadFile(filepath.Join(shareddata.Path(b, "tau-airline"), "airline_tools.json"))
	if err != nil {
		b.Fatal(err)
	}
	tools, err := trace.DecodeTools(raw, "tools")
	if err != nil {
		b.Fatal(err)
	}
	var params json.RawMessage
	for _, t := range tools {
		if t.Name == "book_reservation" {
			params = t.Parameters
		}
	}
	doc, err := decodeJSON(params)
	if err != nil {
		b.Fatal(err)
	}
	args := map[string]string{
		"valid": `{"user_id":"sara_doe_496","origin":"SFO","destination":"JFK","flight_type":"round_trip","cabin":"economy",
			"flights":[{"flight_number":"HAT001","date":"2024-05-01"},{"flight_number":"HAT002","date":"2024-05-08"}],
			"passengers":[{"first_name":"Sara","last_name":"Doe","dob":"1990-04-05"}],
			"payment_methods":[{"payment_id":"credit_card_123","amount":412}],"total_baggages":1,"nonfree_baggages":0,"insurance":"no"}`,
		"invalid": `{"user_id":"sara_doe_496","origin":"SFO","destination":"JFK","flight_type":"both_ways","cabin":"economy",
			"flights":[{"flight_number":"HAT001"}],"passengers":[{"first_name":"Sara","last_name":"Doe","dob":"1990-04-05"}],
			"payment_methods":[{"payment_id":"credit_card_123","amount":"412"}],"total_baggages":1,"nonfree_baggages":0,"insurance":"no"}`,
	}
	mine, err := toolschema.Compile(doc)
	if err != nil {
		b.Fatal(err)
	}
	ref, err := refCompile(doc)
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range []string{"valid", "invalid"} {
		inst, err := decodeJSON([]byte(args[name]))
		if err != nil {
			b.Fatal(err)
		}
		b.Run("validate/"+name+"/toolschema", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				mine.Validate(inst)
			}
		})
		b.Run("validate/"+name+"/reference", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = ref.Validate(inst)
			}
		})
	}
	b.Run("compile/toolschema", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := toolschema.Compile(doc); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("compile/reference", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := refCompile(doc); err != nil {
				b.Fatal(err)
			}
		}
	})
}
