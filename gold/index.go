package gold

import "sort"

// Index finds a dataset's records by id: their position in the file. An
// exported dataset is sorted by id, and predictions usually come in the
// gold's order, so while ids arrive in increasing order it keeps no map:
// a lookup tries the position after the last one found, then a binary
// search, and after a few such misses the map. The first id added out of
// order builds the map too. Not safe for concurrent use (a lookup moves
// the hint).
type Index struct {
	ids    []string // by position
	lines  []int    // each record's line, by position
	byID   map[string]int
	next   int
	misses int
}

// mapAfterMisses is how many lookups off the hint make the map: lookups in
// another order than the records' are then one map access each.
const mapAfterMisses = 64

// add records id at the next position, or says on which line it was first.
func (x *Index) add(id string, line int) (firstLine int, dup bool) {
	if x.byID == nil && (len(x.ids) == 0 || x.ids[len(x.ids)-1] < id) {
		x.ids, x.lines = append(x.ids, id), append(x.lines, line)
		return 0, false
	}
	x.buildMap()
	if prev, ok := x.byID[id]; ok {
		return x.lines[prev], true
	}
	x.byID[id] = len(x.ids)
	x.ids, x.lines = append(x.ids, id), append(x.lines, line)
	return 0, false
}

// Len is how many records the index holds.
func (x *Index) Len() int { return len(x.ids) }

// Lookup returns the position of the record with id.
func (x *Index) Lookup(id string) (int, bool) {
	if x.next < len(x.ids) && x.ids[x.next] == id {
		x.next++
		return x.next - 1, true
	}
	if x.misses++; x.misses == mapAfterMisses {
		x.buildMap()
	}
	var i int
	if x.byID != nil {
		var ok bool
		if i, ok = x.byID[id]; !ok {
			return 0, false
		}
	} else if i = sort.SearchStrings(x.ids, id); i == len(x.ids) || x.ids[i] != id {
		return 0, false
	}
	x.next = i + 1
	return i, true
}

func (x *Index) buildMap() {
	if x.byID != nil {
		return
	}
	x.byID = make(map[string]int, len(x.ids)+len(x.ids)/4)
	for i, k := range x.ids {
		x.byID[k] = i
	}
}
