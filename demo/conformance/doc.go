// Package conformance checks the demo's Redis family against real Redis. Its
// tests replay, for every Redis scenario in both switch positions, the
// script, the finder's traces and a sample of free-play histories, and
// every try of every Redis lab (package history): they send the command lines each frame's page prints to real
// redis-server processes started for the test, and compare every reply the
// page shows, and at every frame each node's keys, values and expiries,
// with the real ones. The package has no code of its own: the demo's model
// stays a pure simulation, and the real servers belong to the tests.
//
//	go test -run Conformance ./demo/conformance/
package conformance
