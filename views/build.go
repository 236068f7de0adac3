package views

import (
	"errors"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/distlock/fencing-demo/demo"
)

// A learner's build (demo.Build, written out by Build.String) rides in the
// address as one parameter, build, like a free-play history: compressed
// with a dictionary of what builds say most. A place with a build is a
// place in the built scenario (demo.Apply): its frames are the learner's
// programs played with the world's moves around them, and every link and
// form of its page carries the build on, so that Back, a reload, another
// replica, a shared link and the embed all show the same build. The built
// scenario knows its build (Scenario.Built), so Place needs no field of
// its own for it.

// BuildParam is the build's name in an address and a form.
const BuildParam = "build"

// builds is the build's codec.
var builds = newTextCodec("A:\nB:\nA: acquire 10\nA: check 2\nA: write $me\nB: acquire 10\nB: check 2\nB: write $me\n"+
	"set fencing on\nset fencing off\nA: release\nB: release\nA: renew 10\n"+
	"A: sql BEGIN\nA: sql COMMIT\nB: sql BEGIN\nB: sql COMMIT\nC: sql BEGIN\nC: sql COMMIT\nW1: sql BEGIN\nW2: sql BEGIN\n"+
	" sql SELECT balance FROM accounts WHERE id = 1 FOR UPDATE NOWAIT\n sql UPDATE accounts SET balance = $balance - 30 WHERE id = 1\n"+
	" sql SELECT id FROM jobs WHERE state = 'pending' ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED\n sql UPDATE jobs SET state = 'done' WHERE id = $id\n"+
	" sql SELECT quantity FROM inventory WHERE product_id = 123\n sql UPDATE inventory SET quantity = quantity - 1 WHERE product_id = 123 AND quantity > 0\n"+
	" sql INSERT INTO charges (request_id, order_id, amount) VALUES ('req-101', 7, 100) ON CONFLICT (request_id) DO NOTHING\n"+
	"script release\n| if redis.call(\"GET\", KEYS[1]) == ARGV[1] then\n|   return redis.call(\"DEL\", KEYS[1])\n| end\n| return 0\n"+
	"| return redis.call(\"PEXPIRE\", KEYS[1], ARGV[2])\n| return redis.call(\"INCR\", KEYS[1])\n", demo.MaxBuild)

// EncodeBuild writes a build's text for an address.
func EncodeBuild(text string) string { return builds.encode(text) }

// DecodeBuild reads what EncodeBuild wrote; any other text is an error,
// and so is a build longer than demo.MaxBuild.
func DecodeBuild(code string) (string, error) {
	text, err := builds.decode(code)
	if err != nil || !utf8.ValidString(text) || strings.ContainsAny(text, "\r\x00") {
		return "", errTextCode
	}
	return text, nil
}

// builtKept is how many built scenarios are kept: a class's builds of the
// moment, each a few tens of kilobytes.
const builtKept = 256

// built keeps the scenarios builds make, by the lab and the build's text:
// every request of a built place reads its build again, and Apply plays the
// scenario through to check it. Errors are kept too, so that a bad address
// asked again costs nothing. One build keeps one *demo.Scenario while it is
// kept, so its places compare equal and its answers are found again.
var built = func() *lru.Cache[builtKey, builtEntry] {
	c, _ := lru.New[builtKey, builtEntry](builtKept) // a size above 0 never fails
	return c
}()

type builtKey struct {
	lab  *demo.Scenario
	text string
}

type builtEntry struct {
	sc  *demo.Scenario
	err error
}

// Built is lab scenario sc with the build written as text applied
// (demo.Apply): a *demo.BuildError says what in the text is wrong.
func Built(sc *demo.Scenario, text string) (*demo.Scenario, error) {
	k := builtKey{sc, text}
	if e, ok := built.Get(k); ok {
		return e.sc, e.err
	}
	var e builtEntry
	b, err := demo.ParseBuild(text)
	if err == nil {
		e.sc, e.err = demo.Apply(sc, b)
	} else {
		e.err = err
	}
	built.Add(k, e)
	return e.sc, e.err
}

// readBuild reads the build raw from an address into p, whose scenario is
// then the built one, at the switch's position the build fixes. A build
// that does not apply leaves p in the lab's own scenario; the error's way
// back is the lab with the learner's text (finished by ReadPlace, which
// knows the language), so that nothing the learner wrote is lost.
func readBuild(p *Place, raw string) *BadPlace {
	sc := p.Sc
	if sc.Lab == nil {
		return &BadPlace{Key: "err.build.nolab", Args: []any{sc.ID}}
	}
	text, err := DecodeBuild(raw)
	if err != nil {
		return &BadPlace{Key: "err.build.code", Args: []any{demo.MaxBuild}, lab: new(string)}
	}
	b, err := Built(sc, text)
	if err != nil {
		return &BadPlace{Key: "err.build", Args: []any{BuildWords(err)}, lab: &text}
	}
	p.Sc, p.On = b, b.Default
	return nil
}

// readSwitch reads the switch's position into p; with a build, the build
// fixes it, and an address that names the other position is wrong.
func readSwitch(p *Place, sw string) *BadPlace {
	switch {
	case sw == "":
	case sw != "on" && sw != "off":
		return &BadPlace{Key: "err.switch", Args: []any{p.Sc.Switch, sw}}
	case p.Sc.Built != "" && (sw == "on") != p.On:
		return &BadPlace{Key: "err.build.switch", Args: []any{p.Sc.SwitchLabel, demo.OnOff(p.On), sw}}
	default:
		p.On = sw == "on"
	}
	return nil
}

// BuildWords is what is wrong with a build, in both languages: the part
// (a client's program, a setting, a script) and its line where it has one,
// and the reason.
func BuildWords(err error) demo.Text {
	var be *demo.BuildError
	if !errors.As(err, &be) {
		return demo.Text{JA: err.Error(), EN: err.Error()}
	}
	en, ja := be.Part, partJA(be.Part)
	if be.Index > 0 {
		en += ", line " + strconv.Itoa(be.Index)
		ja += " の " + strconv.Itoa(be.Index) + " 行目"
	}
	return demo.Text{JA: ja + ": " + be.JA, EN: en + ": " + be.Msg}
}

// partJA is a build's part ("program A", "setting fencing", "script
// release", "build") in Japanese.
func partJA(part string) string {
	kind, name, _ := strings.Cut(part, " ")
	switch kind {
	case "program":
		return name + " のプログラム"
	case "setting":
		return "設定 " + name
	case "script":
		return "スクリプト " + name
	case "scripts":
		return "スクリプト"
	case "build":
		return "組み立て"
	}
	return part
}

// The lab's addresses.

// LabsURL lists every lab.
func LabsURL(lang string) string { return "/labs?" + LangParam + "=" + lang }

// LabURL is lab sc's page with the build written as text ("" for the
// starter).
func LabURL(id, text, lang string, present bool) string {
	u := "/scenarios/" + id + "/lab?" + LangParam + "=" + url.QueryEscape(lang)
	if text != "" {
		u += "&" + BuildParam + "=" + EncodeBuild(text)
	}
	if present {
		u += "&" + PresentParam + "=1"
	}
	return u
}

// JudgeURL is the judge's answer on the build written as text.
func JudgeURL(id, text, lang string) string {
	u, _ := url.Parse(LabURL(id, text, lang, false))
	u.Path += "/judge"
	return u.String()
}

// LabAction is where the lab's form posts (the judge's button, its own
// path under it).
func LabAction(id string) string { return "/scenarios/" + id + "/lab" }

// EditURL is the lab page of the place's build, where the learner changes
// it: for a place with no build, the lab's starter.
func (p Place) EditURL() string { return LabURL(p.Sc.ID, p.Sc.Built, p.Lang, p.Present) }

// buildField is the place's build as an address's field, "" for none.
func (p Place) buildField() string {
	if p.Sc.Built == "" {
		return ""
	}
	return "&" + BuildParam + "=" + EncodeBuild(p.Sc.Built)
}
