// Command crop: crop in.png out.png x0 y0 x1 y1
package main

import (
	"image"
	"image/draw"
	"image/png"
	"os"
	"strconv"
)

func main() {
	f, _ := os.Open(os.Args[1])
	im, _ := png.Decode(f)
	n := func(i int) int { v, _ := strconv.Atoi(os.Args[i]); return v }
	r := image.Rect(n(3), n(4), n(5), n(6))
	out := image.NewRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
	draw.Draw(out, out.Bounds(), im, r.Min, draw.Src)
	g, _ := os.Create(os.Args[2])
	png.Encode(g, out)
	g.Close()
}
