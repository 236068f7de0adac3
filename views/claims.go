package views

import (
	"encoding/json"

	"github.com/a-h/templ"

	"github.com/distlock/fencing-demo/demo"
)

// The facts each sentence the page writes from the model asserts
// (demo.Claim). With Page.Audit on, every such sentence carries its claims
// in a data-claims attribute, and the truth test holds them to the frame
// (package demo/truth) in every frame a learner can reach; a visitor's page
// leaves them out.

// FindingClaims are the facts the finding's words assert: its family's
// words for its kind, or the kind's own.
func FindingClaims(f demo.Frame, v demo.Violation) []demo.Claim {
	if c := demo.WordsFor(f.Scenario, v.Kind).Claims; c != nil {
		return c(&f, v)
	}
	return nil
}

// EventClaims are the facts Describe's sentence for e asserts.
func EventClaims(f demo.Frame, e demo.Event) []demo.Claim {
	h := e.Header()
	var cs []demo.Claim
	switch e := e.(type) {
	case demo.WriteResult:
		if !e.OK {
			return []demo.Claim{{Fact: demo.FencedOff, Client: h.Client, Token: e.Token, At: h.At}}
		}
		cs = append(cs, demo.Claim{Fact: demo.Landed, Client: h.Client, Value: e.Value, At: h.At})
		for _, v := range f.Violations {
			if v.Client != h.Client || v.At != h.At {
				continue
			}
			switch v.Kind {
			case demo.StaleWrite:
				cs = append(cs, demo.Claim{Fact: demo.Destroyed, Client: h.Client, Other: v.Other, Value: e.Before, At: h.At})
			case demo.LateWrite:
				cs = append(cs, demo.Claim{Fact: demo.LeaseOver, Client: h.Client, At: h.At}, demo.Claim{Fact: demo.NothingNewerLost, Client: h.Client, At: h.At})
			}
		}
	case demo.SkippedWrite:
		cs = append(cs, demo.Claim{Fact: demo.BelievesNot, Client: h.Client, At: h.At})
	case demo.ClientChange:
		if e.What == demo.Resumed && resumedBelieving(f, e) {
			cs = append(cs, demo.Claim{Fact: demo.Believes, Client: h.Client, At: h.At})
		}
	}
	if c, ok := e.(demo.Claimed); ok {
		cs = append(cs, c.Claims()...)
	}
	return cs
}

// BeliefClaims are the facts Believes' words for c assert at frame f.
func BeliefClaims(f demo.Frame, c demo.Client) []demo.Claim {
	switch {
	case c.Crashed:
		return []demo.Claim{{Fact: demo.Dead, Client: c.Name}}
	case !c.Holds:
		return []demo.Claim{{Fact: demo.BelievesNot, Client: c.Name, At: demo.Currently}}
	case c.Token > 0:
		return []demo.Claim{{Fact: demo.Believes, Client: c.Name, At: demo.Currently}, {Fact: demo.TokenGiven, Client: c.Name, Token: c.Token}}
	}
	return []demo.Claim{{Fact: demo.Believes, Client: c.Name, At: demo.Currently}}
}

// claimsAttr is the data-claims attribute of a sentence, on an audited page.
func claimsAttr(p Page, cs []demo.Claim) templ.Attributes {
	if !p.Audit {
		return templ.Attributes{}
	}
	b, _ := json.Marshal(cs)
	return templ.Attributes{"data-claims": string(b)}
}
