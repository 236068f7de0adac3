package testkit

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// emulateNetworkConditions is the DevTools command Network.emulateNetworkConditions,
// which this cdproto no longer generates (its successor, ...ByRule, leaves
// navigator.onLine and the online and offline events alone, which a page
// that says it is offline listens to).
var emulateNetworkConditions = cdp.Command[emulateParams, struct{}]{Method: "Network.emulateNetworkConditions"}

type emulateParams struct {
	Offline            bool    `json:"offline"`
	Latency            float64 `json:"latency"`
	DownloadThroughput float64 `json:"downloadThroughput"`
	UploadThroughput   float64 `json:"uploadThroughput"`
}

// EmulateNetwork sets the tab's network: offline, or online with latency
// added to every request (throughput unthrottled).
func EmulateNetwork(tb testing.TB, ctx context.Context, offline bool, latency time.Duration) {
	tb.Helper()
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		tb.Fatalf("Network.enable: %v", err)
	}
	p := emulateParams{Offline: offline, Latency: float64(latency.Milliseconds()), DownloadThroughput: -1, UploadThroughput: -1}
	if _, err := chromedp.Call(ctx, emulateNetworkConditions, p); err != nil {
		tb.Fatalf("Network.emulateNetworkConditions %+v: %v", p, err)
	}
}
