package tui

// drawings keeps parts of a screen drawn lately, by what each was drawn
// from. A screen is drawn again after every key, and most of its parts
// (the rules, the header) come out of the same inputs as the frame before:
// lipgloss spends far longer drawing them than a map takes to find them.
// The key must hold everything the drawing depends on besides the page's
// styles, which do not change once it is built.
type drawings[K comparable] struct{ drawn map[K]string }

// maxDrawings bounds the parts one drawings keeps; past it, it starts over.
const maxDrawings = 32

// get is the part drawn from k, drawn by draw the first time.
func (d *drawings[K]) get(k K, draw func() string) string {
	if v, ok := d.drawn[k]; ok {
		return v
	}
	if d.drawn == nil || len(d.drawn) >= maxDrawings {
		d.drawn = make(map[K]string, maxDrawings)
	}
	v := draw()
	d.drawn[k] = v
	return v
}
