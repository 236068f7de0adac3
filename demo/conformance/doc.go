// Package conformance checks the demo's Redis family against real Redis. Its
// tests play each scenario frame by frame, send every command the page shows
// to a real redis-server started for the test, and compare the real reply
// with the page's. The package has no code of its own: the demo's model stays
// a pure simulation, and the real servers belong to the tests.
//
//	go test -run Conformance ./demo/conformance/
package conformance
