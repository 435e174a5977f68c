package instrument

import (
	"encoding/json"
	"fmt"

	"github.com/bigfoot-go/bigfoot/placement"
)

// Facts carry effect summaries from one run of the instrumenter to the
// next within a build (docs/placement.md, "Effect summaries"): the driver
// instruments the standard library, the dependencies and the main modules
// in separate runs, each cached on its own, so a package's summaries are
// stored with its instrumented files and handed to every later run whose
// packages call into it. A fact is the JSON encoding of one package's
// placement.FuncSummaries; its keys (placement.SummaryKey) name the
// functions across programs.

// encodeExports encodes the summaries of each package s summarized.
func (s *summaries) encodeExports() map[string][]byte {
	out := map[string][]byte{}
	for path, sums := range s.exports {
		data, err := json.Marshal(sums)
		if err != nil {
			continue // not encodable: importers see unknown calls
		}
		out[path] = data
	}
	return out
}

// decodeFacts merges the summaries of facts into one table. When two facts
// summarize the same function (which a well-formed build never does), the
// table keeps what both allow.
func decodeFacts(facts [][]byte) (placement.FuncSummaries, error) {
	if len(facts) == 0 {
		return nil, nil
	}
	tab := placement.FuncSummaries{}
	for i, data := range facts {
		var sums placement.FuncSummaries
		if err := json.Unmarshal(data, &sums); err != nil {
			return nil, fmt.Errorf("bigfoot: decoding effect summaries (fact %d of %d): %w", i+1, len(facts), err)
		}
		for k, v := range sums {
			if old, ok := tab[k]; ok {
				v = mergeSummary(old, v)
			}
			tab[k] = v
		}
	}
	return tab, nil
}
