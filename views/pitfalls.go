package views

import (
	"fmt"

	"github.com/distlock/fencing-demo/demo"
)

// verdictPitfall is the verdict of the pitfalls' own kinds in words.
func verdictPitfall(lang string, sc *demo.Scenario, v demo.Violation) (string, bool) {
	key := "verdict." + v.Kind.String()
	at := Clock(sc, v.At)
	switch v.Kind {
	case demo.TokenReused:
		return fmt.Sprintf(T(lang, key), v.Client, at, v.Token, v.Other), true
	case demo.DeadHolder:
		return fmt.Sprintf(T(lang, key), v.Client, at, v.Other, Clock(sc, int(v.Max)), Clock(sc, int(v.Token))), true
	case demo.ThunderingHerd, demo.Spread:
		return verdictBackoff(lang, sc, v), true
	}
	return "", false
}
