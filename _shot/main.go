// Command _shot takes full-page screenshots: _shot WxH[m] outprefix URL...
package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/chromedp/chromedp"
)

func main() {
	mobile := strings.HasSuffix(os.Args[1], "m")
	wh := strings.Split(strings.TrimSuffix(os.Args[1], "m"), "x")
	w, _ := strconv.Atoi(wh[0])
	h, _ := strconv.Atoi(wh[1])
	dir, _ := os.MkdirTemp("", "shot")
	defer os.RemoveAll(dir)
	opts := []chromedp.ExecAllocatorOption{chromedp.ExecPath("/usr/bin/chromium"), chromedp.Flag("headless", true), chromedp.Flag("no-sandbox", true), chromedp.Flag("disable-gpu", true), chromedp.Flag("hide-scrollbars", true), chromedp.Flag("disable-quic", true), chromedp.UserDataDir(dir)}
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 120*time.Second)
	defer cancel()
	var vo []chromedp.EmulateViewportOption
	if mobile {
		vo = append(vo, chromedp.EmulateMobile)
	}
	for i, u := range os.Args[3:] {
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(int64(w), int64(h), vo...), chromedp.Navigate(u), chromedp.Sleep(400*time.Millisecond)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		buf, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		out := fmt.Sprintf("%s%d.png", os.Args[2], i)
		os.WriteFile(out, buf, 0o644)
		fmt.Println(out, u)
	}
}
