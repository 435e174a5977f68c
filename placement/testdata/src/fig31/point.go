// Package fig31 renders the thesis's Figure 3.1 (Rhodes'
// thesis, §3.1): Point.move reads and writes x, y and z; BigFoot places one
// coalesced write check of the three fields at the end.
package fig31

type Point struct{ x, y, z int }

func (p *Point) move(dx, dy, dz int) {
	p.x += dx // redcard "W p.x"
	p.y += dy // redcard "W p.y"
	p.z += dz // redcard "W p.z"
} // want "W p.x,p.y,p.z"
