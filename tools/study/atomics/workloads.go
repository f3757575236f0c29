package atomics

import (
	"math"
	"math/rand/v2"
)

// Image is a generated grayscale image of the kind the paper's histogram
// reads (natural photographs, 12-bit grayscale): large regions of nearly
// one level, so that neighbouring pixels, which one warp reads together,
// often fall into one bin. It is a smooth background (two gradients and a
// low-frequency wave) under random ellipses and rectangles of uniform
// level, with a little noise; the same seed gives the same image.
type Image struct {
	W, H   int
	Pixels []uint16 // row-major, 0..4095
}

// Levels is the number of grey levels of a generated image (12 bits).
const Levels = 4096

// NewImage draws a w×h image from seed.
func NewImage(w, h int, seed uint64) *Image {
	rng := rand.New(rand.NewPCG(seed, 0x6e617475)) // "natu"
	im := &Image{W: w, H: h, Pixels: make([]uint16, w*h)}
	gx, gy := rng.Float64()*1200-600, rng.Float64()*1200-600
	base := 1200 + rng.Float64()*1600
	fx, fy := (1+rng.Float64()*3)*2*math.Pi/float64(w), (1+rng.Float64()*3)*2*math.Pi/float64(h)
	level := make([]float64, w*h)
	for y := range h {
		for x := range w {
			level[y*w+x] = base + gx*float64(x)/float64(w) + gy*float64(y)/float64(h) +
				300*math.Sin(fx*float64(x))*math.Cos(fy*float64(y))
		}
	}
	// Objects: ellipses and rectangles of one level each, the later over
	// the earlier.
	for range 40 {
		cx, cy := rng.Float64()*float64(w), rng.Float64()*float64(h)
		rx, ry := (0.02+rng.Float64()*0.2)*float64(w), (0.02+rng.Float64()*0.2)*float64(h)
		v := rng.Float64() * (Levels - 1)
		ellipse := rng.IntN(2) == 0
		for y := max(0, int(cy-ry)); y < min(h, int(cy+ry)+1); y++ {
			for x := max(0, int(cx-rx)); x < min(w, int(cx+rx)+1); x++ {
				dx, dy := (float64(x)-cx)/rx, (float64(y)-cy)/ry
				if !ellipse || dx*dx+dy*dy <= 1 {
					level[y*w+x] = v
				}
			}
		}
	}
	for i, v := range level {
		v += rng.NormFloat64() * 6
		im.Pixels[i] = uint16(min(Levels-1, max(0, math.Round(v))))
	}
	return im
}

// Layout places the R copies (sub-histograms) of a voting space of n
// words in shared memory.
type Layout string

const (
	// Replication puts copy r at r*n (Gómez-Luna et al.'s R-per-block):
	// lanes voting for one bin in different copies are n words apart.
	Replication Layout = "replication"
	// Padding is Replication with one unused word after each copy.
	Padding Layout = "padding"
	// Stretching interleaves the copies (bin-stretching): bin b of copy r
	// is word b*R + r.
	Stretching Layout = "bin-stretching"
)

// Layouts are the three software techniques of §V.
var Layouts = []Layout{Replication, Padding, Stretching}

// Words is the shared memory a voting space of n bins in R copies takes.
func (l Layout) Words(n, r int) int {
	if l == Padding {
		return (n + 1) * r
	}
	return n * r
}

// Addr is the word of bin b in copy r.
func (l Layout) Addr(b, r, n, copies int) uint64 {
	switch l {
	case Padding:
		return uint64(r*(n+1) + b)
	case Stretching:
		return uint64(b*copies + r)
	}
	return uint64(r*n + b)
}

// Edges is a generated edge map of the kind the Hough transform's voting
// step reads (after edge detection and thresholding): the coordinates of
// its edge pixels in raster order. It draws straight segments and circles,
// with a few gaps, and scattered noise pixels.
func Edges(w, h int, seed uint64) [][2]int {
	rng := rand.New(rand.NewPCG(seed, 0x65646765)) // "edge"
	on := make([]bool, w*h)
	set := func(x, y int) {
		if x >= 0 && x < w && y >= 0 && y < h && rng.IntN(10) != 0 {
			on[y*w+x] = true
		}
	}
	for range 24 {
		x0, y0 := rng.Float64()*float64(w), rng.Float64()*float64(h)
		x1, y1 := rng.Float64()*float64(w), rng.Float64()*float64(h)
		n := int(math.Hypot(x1-x0, y1-y0)) + 1
		for i := 0; i <= n; i++ {
			t := float64(i) / float64(n)
			set(int(x0+t*(x1-x0)), int(y0+t*(y1-y0)))
		}
	}
	for range 8 {
		cx, cy, r := rng.Float64()*float64(w), rng.Float64()*float64(h), 10+rng.Float64()*float64(h)/4
		n := int(2*math.Pi*r) + 1
		for i := range n {
			a := 2 * math.Pi * float64(i) / float64(n)
			set(int(cx+r*math.Cos(a)), int(cy+r*math.Sin(a)))
		}
	}
	for range w * h / 200 {
		on[rng.IntN(w*h)] = true
	}
	var out [][2]int
	for i, v := range on {
		if v {
			out = append(out, [2]int{i % w, i / w})
		}
	}
	return out
}
