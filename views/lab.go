package views

import (
	"errors"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/a-h/templ"

	"github.com/distlock/fencing-demo/demo"
)

// A lab's pages: the lab itself, where a learner builds a fix (each client's
// program from the palette's blocks, the settings, the scripts), the
// judge's answer on that build (judge.go), and the list of every lab. The
// build lives in the address (build.go); the lab's form posts it, and the
// answer is the lab page with the build in its address.

// Lab is the view model of a lab's page: the lab's scenario, the learner's
// build as they wrote it (kept whole, even where it does not apply), and
// the scenario it builds, or what is wrong with it.
type Lab struct {
	Page
	Sc    *demo.Scenario // the lab's own scenario
	Build demo.Build
	Text  string         // Build.String(), as the address writes it
	Built *demo.Scenario // nil when the build does not apply
	// Problem is what is wrong with the build, and Part where ("program
	// A", "setting fencing", "script release"; "" when the build applies).
	Problem demo.Text
	Part    string
}

// NewLab is the view model of lab sc's page with build b in lang: the build
// is applied (through Built's cache), and what is wrong with it, if
// anything, is kept to be shown beside the part it is in.
func NewLab(page Page, sc *demo.Scenario, b demo.Build) Lab {
	l := Lab{Page: page, Sc: sc, Build: b, Text: b.String()}
	var err error
	if l.Built, err = Built(sc, l.Text); err != nil {
		l.Problem = BuildWords(err)
		var be *demo.BuildError
		if errors.As(err, &be) {
			l.Part = be.Part
		}
	}
	return l
}

// URL is the lab's page with this build.
func (l Lab) URL() string { return LabURL(l.Sc.ID, l.Text, l.Lang, l.Present) }

// JudgeURL is the judge's answer on this build.
func (l Lab) JudgeURL() string { return JudgeURL(l.Sc.ID, l.Text, l.Lang) }

// Here is the built scenario's first frame, at the switch its build fixes:
// where "Play it as frames" leads; only for a build that applies.
func (l Lab) Here() Place {
	return Place{Place: demo.Place{Sc: l.Built, On: l.Built.Default, Step: 1}, Lang: l.Lang, Present: l.Present}
}

// Program is client c's program, a line an action, as its textarea holds it.
func (l Lab) Program(c string) string { return strings.Join(l.Build.Programs[c], "\n") }

// Rows is how tall client c's textarea is drawn: its lines and room for two
// more.
func (l Lab) Rows(c string) int { return max(len(l.Build.Programs[c])+2, 4) }

// BlockClients are the clients whose programs may use block b: its own
// client, or every client the learner writes.
func (l Lab) BlockClients(b demo.Block) []string {
	if b.Client != "" {
		return []string{b.Client}
	}
	return l.Sc.Lab.Clients
}

// Setting is the value setting s takes in this build: the build's, else
// what Apply takes when the build says nothing (the switch's default, a
// value's first).
func (l Lab) Setting(s demo.Setting) string {
	if v, ok := l.Build.Settings[s.Name]; ok {
		return v
	}
	if s.Name == l.Sc.Switch {
		return demo.OnOff(l.Sc.Default)
	}
	if len(s.Values) > 0 {
		return s.Values[0]
	}
	return ""
}

// ValueLabel is how a setting's value is shown: the switch's on and off in
// the page's words, any other value as it is.
func (l Lab) ValueLabel(s demo.Setting, v string) string {
	if s.Name == l.Sc.Switch {
		return T(l.Lang, v)
	}
	return v
}

// Script is the text of script name in this build: the build's, else the
// scenario's own.
func (l Lab) Script(name string) string {
	if s, ok := l.Build.Scripts[name]; ok {
		return s
	}
	s, _ := l.Sc.ScriptNamed(name)
	return s.Lua
}

// Wrong says whether the build's problem is in part ("program A", "setting
// fencing", "script release"), to mark that part.
func (l Lab) Wrong(part string) bool { return l.Part == part }

// TryURL is the lab's page with try t's build loaded into the editor.
func (l Lab) TryURL(t demo.Try) string { return LabURL(l.Sc.ID, t.Build.String(), l.Lang, l.Present) }

// editorWords are the words lab.js writes on the editor, in lang, as the
// form's data-* attributes: a message's arguments become %1 and %2.
func editorWords(lang string) templ.Attributes {
	a := templ.Attributes{}
	for key, msg := range map[string]string{
		"program": "lab.program", "addto": "lab.add.label", "up": "lab.up", "down": "lab.down",
		"remove": "lab.remove", "astext": "lab.astext", "aslist": "lab.aslist", "empty": "lab.empty",
		"added": "lab.added", "removed": "lab.removed", "moved": "lab.moved",
	} {
		a["data-"+key] = jsArgs(T(lang, msg))
	}
	return a
}

// jsArgs writes a message's fmt verbs (%s, %d, %[2]s) as lab.js's %1 and %2.
func jsArgs(msg string) string {
	n := 0
	return fmtVerb.ReplaceAllStringFunc(msg, func(v string) string {
		if m := fmtVerb.FindStringSubmatch(v); m[1] != "" {
			return "%" + m[1]
		}
		n++
		return "%" + strconv.Itoa(n)
	})
}

var fmtVerb = regexp.MustCompile(`%(?:\[(\d)\])?[sd]`)

// The fields of the lab's form: a textarea per client, a select per
// setting, a textarea per script, each under its name.
const (
	ProgramField = "program-"
	SettingField = "set-"
	ScriptField  = "script-"
	// DoField is the button pressed without JavaScript: DoJudge, DoPlay, or
	// none to keep the build in the address.
	DoField = "do"
	DoJudge = "judge"
	DoPlay  = "play"
)

// ReadBuildForm reads a build from the lab's form: each client's program a
// line an action (blank lines dropped), each setting's value, each
// script's text. A field of a client, setting or script the lab does not
// have is read all the same, so that applying the build says so.
func ReadBuildForm(form url.Values) demo.Build {
	b := demo.Build{Programs: map[string][]string{}, Settings: map[string]string{}, Scripts: map[string]string{}}
	for k := range form {
		v := strings.ReplaceAll(form.Get(k), "\r\n", "\n")
		switch {
		case strings.HasPrefix(k, ProgramField):
			lines := []string{}
			for _, line := range strings.Split(v, "\n") {
				if line = strings.Join(strings.Fields(line), " "); line != "" {
					lines = append(lines, line)
				}
			}
			b.Programs[strings.TrimPrefix(k, ProgramField)] = lines
		case strings.HasPrefix(k, SettingField):
			b.Settings[strings.TrimPrefix(k, SettingField)] = strings.TrimSpace(v)
		case strings.HasPrefix(k, ScriptField):
			b.Scripts[strings.TrimPrefix(k, ScriptField)] = strings.TrimRight(v, "\n")
		}
	}
	return b
}

// Labs is the view model of the list of every lab.
type Labs struct {
	Page
	Entries []*demo.Scenario
	Static  bool // in the static export, where no build can be judged
}

// labWords are the lab's and the judge's words.
var labWords = map[string][2]string{
	"labs":                   {"演習", "Labs"},
	"labs.intro":             {"演習では、壊れた対策を自分で直す。クライアントのプログラムをブロックから組み、資源の規則や設定を選び、判定 (反例探索) が範囲内のすべての履歴を試して、直ったことを証明するか、最短の壊し方をコマ送りで見せる。", "In a lab you fix a broken design yourself: arrange each client's program from blocks, choose the resource's rule and the settings, and the judge (the counterexample finder) tries every history within its bounds, then proves your fix or plays the shortest way to break it as frames."},
	"labs.open":              {"演習を開く", "Open the lab"},
	"labs.all":               {"演習の一覧", "All labs"},
	"labs.link":              {"演習: 対策を自分で組み立て、判定に証明させる", "Labs: build the fix yourself, and let the judge prove it"},
	"lab.title":              {"演習", "Lab"},
	"lab.goal":               {"課題", "Your task"},
	"lab.watch":              {"先にシナリオを見る", "Watch the scenario first"},
	"lab.starter":            {"最初の状態からやり直す", "Start over from the starter"},
	"lab.program":            {"%s のプログラム", "%s's program"},
	"lab.program.help":       {"1 行に 1 つの操作を順に書く ($me はこのクライアント自身の名前)。", "One action a line, in order ($me is this client's own name)."},
	"lab.blocks":             {"プログラムを組み立てるブロック (要らないものも混じっている)", "The blocks programs are made of (some are distractors)"},
	"lab.block":              {"ブロック", "Block"},
	"lab.block.does":         {"すること", "What it does"},
	"lab.block.for":          {"使えるプログラム", "For"},
	"lab.add.label":          {"%[1]s のプログラムの最後に %[2]s を追加", "Add %[2]s to the end of %[1]s's program"},
	"lab.up":                 {"上へ", "Up"},
	"lab.down":               {"下へ", "Down"},
	"lab.remove":             {"削除", "Remove"},
	"lab.astext":             {"テキストで編集", "Edit as text"},
	"lab.aslist":             {"ブロックで編集", "Edit as blocks"},
	"lab.empty":              {"(操作なし: このクライアントは何もしない)", "(no actions: this client does nothing)"},
	"lab.settings":           {"設定", "Settings"},
	"lab.script":             {"スクリプト %s (Lua)", "Script %s (Lua)"},
	"lab.judge":              {"この対策を判定する", "Judge my fix"},
	"lab.judge.wait":         {"判定が範囲内のすべての履歴を試している…", "The judge is trying every history within its bounds…"},
	"lab.judge.hint":         {"組み立てたら「この対策を判定する」を押す。判定は、A と B が自分のプログラムを実行する間の止まり・クラッシュ・時間の進み方をすべて試す。", "When your build is ready, press \"Judge my fix\": the judge tries every way the clients' programs can interleave with pauses, crashes and time passing."},
	"lab.play":               {"コマ送りで見る", "Play it as frames"},
	"lab.check":              {"組み立てを確かめる", "Check the build"},
	"lab.ok":                 {"この組み立ては再生できる: %d コマ (各クライアントのプログラム、続いて外界の手)。", "The build plays: %d frames (each client's program, then the world's moves)."},
	"lab.bad":                {"この組み立ては再生できない。%s", "The build does not play. %s"},
	"lab.share":              {"この組み立てへのリンク", "Link to this build"},
	"lab.save":               {"シナリオとして保存", "Save as a scenario"},
	"lab.save.help":          {"あなたの組み立てを 1 つのシナリオとして書いたもの (各クライアントのプログラムと外界の手、判定の約束と範囲)。ファイル %[1]s として保存すれば、`go run . check -scenarios %[1]s` が演習の判定と同じように判定する (成り立てば終了コード 0、破れるか仕事が終わらなければ 1、読めなければ 2)。", "Your build written as one scenario: each client's program and the world's moves, with the judge's promises and bounds. Save it as %[1]s, and `go run . check -scenarios %[1]s` judges it as the lab's judge does (exit 0 when it holds, 1 when a history breaks it or the work never gets done, 2 when it does not load)."},
	"lab.save.back":          {"組み立てのコマに戻る", "Back to your build's frames"},
	"lab.tries":              {"文献で論じられる試み (ネタバレ: 模範解答も含む)", "Tries the texts discuss (spoilers: the reference solutions are among them)"},
	"lab.static":             {"演習 (対策を自分で組み立てて判定させる) には、このデモのサーバーが要る。この静的な写しには組み立てを判定するサーバーが無い。", "Labs (build the fix yourself and have it judged) need the demo's server: this static copy has no server to judge a build."},
	"lab.link":               {"演習: この対策を自分で組み立てる", "Lab: build this fix yourself"},
	"lab.yours":              {"あなたの組み立てのコマ", "The frames of your build"},
	"lab.edit":               {"組み立てを直す", "Edit the build"},
	"lab.fixed":              {"組み立てで固定", "set by your build"},
	"lab.moved":              {"%[1]s を %[2]d 行目へ移した", "Moved %[1]s to line %[2]d"},
	"lab.added":              {"%[1]s を %[2]d 行目に追加した", "Added %[1]s as line %[2]d"},
	"lab.removed":            {"%s を削除した", "Removed %s"},
	"judge.title":            {"判定", "The judge's answer"},
	"judge.broken":           {"破れる: %[1]d 手の履歴が「%[2]s」を破る。", "Broken: a history of %[1]d actions breaks \"%[2]s\"."},
	"judge.shortest":         {"破る最短の履歴:", "The shortest history that breaks it:"},
	"judge.holds":            {"範囲内のすべての履歴で成り立つ", "Holds for every history within the bounds"},
	"judge.holds.what":       {"「%s」を破る履歴は一つも無い。", "no history breaks \"%s\"."},
	"judge.bounds":           {"範囲: %s", "The bounds: %s"},
	"judge.states":           {"(異なる状態 %d 個をすべて試した)", "(%d distinct states, every one tried)"},
	"judge.holdsto":          {"深さ %d まで成り立つ", "Holds up to depth %d"},
	"judge.holdsto.what":     {"%[1]d 手までのどの履歴も「%[2]s」を破らない。ただし、範囲内のすべての履歴を試す前に探索が止まった。", "no history of up to %[1]d steps breaks \"%[2]s\", but the search stopped before it had tried every history within the bounds."},
	"judge.cut.states":       {"探索の予算 (異なる状態 %d 個) が尽きた。", "Its budget ran out after %d distinct states."},
	"judge.cut.time":         {"探索の時間が尽きた。サーバーが混んでいるのかもしれない。もう一度押せば、続きから調べ直す。", "Its time ran out: the server may be busy. Press the button again to have it searched again."},
	"judge.never":            {"何も破らないが、仕事が終わらない: 範囲内のどの履歴も「%s」に届かない。誰も先へ進めない対策は、対策ではない。", "Nothing breaks it, but the work never gets done: no history within the bounds gets to \"%s\". A fix that stops everyone is no fix."},
	"judge.neverto":          {"深さ %[1]d まで何も破らないが、%[1]d 手までのどの履歴も「%[2]s」に届かない。", "Nothing breaks it up to depth %[1]d, but no history of up to %[1]d steps gets to \"%[2]s\"."},
	"judge.closest":          {"いちばん近づいた履歴:", "The closest it came:"},
	"judge.play.closest":     {"いちばん近づいた履歴をコマ送りで見る", "Play the closest as frames"},
	"judge.goal":             {"そして「%s」も起こりうる。", "And \"%s\" can happen."},
	"judge.example":          {"そうなる履歴をコマ送りで見る", "Play a history where it does"},
	"judge.back":             {"演習に戻る", "Back to the lab"},
	"err.build":              {"このアドレスの組み立ては再生できない。%s", "The build in this address does not play. %s"},
	"err.build.code":         {"このアドレスの組み立ては、このサイトが書いたものではないか、%d バイトを超えている。コピーの途中で切れたのかもしれない。", "The build in this address is not one this site writes, or is longer than %d bytes: it may have been cut off when it was copied."},
	"err.build.nolab":        {"シナリオ %s には演習が無いので、組み立ては渡せない。", "Scenario %s has no lab, so it takes no build."},
	"err.build.switch":       {"%[1]s はこの組み立てで %[2]s に決まっている。アドレスの %[3]q とは合わない。", "%[1]s is %[2]s in this build; the address says %[3]q."},
	"err.build.switch.fixed": {"この組み立てでは %s は組み立てで決まっている。変えるには組み立てを直す。", "In this build %s is set by the build: edit the build to change it."},
}
