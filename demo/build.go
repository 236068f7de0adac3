package demo

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// A build written out, one thing a line, so that it can ride in an address
// and be read back as it was:
//
//	A: acquire 10
//	A: write $me
//	B:
//	set fencing on
//	script release
//	| return redis.call("DEL", KEYS[1])
//
// "C: LINE" is a line of client C's program ("C:" alone, an empty
// program); "set NAME VALUE" a setting; "script NAME" a script, its text
// the lines after it, each after "| ". Clients, settings and scripts come
// in the order of their names, so one build has one text.

// String is b written out.
func (b Build) String() string {
	var s strings.Builder
	for _, c := range slices.Sorted(maps.Keys(b.Programs)) {
		if len(b.Programs[c]) == 0 {
			s.WriteString(c + ":\n")
		}
		for _, line := range b.Programs[c] {
			s.WriteString(c + ": " + line + "\n")
		}
	}
	for _, name := range slices.Sorted(maps.Keys(b.Settings)) {
		s.WriteString("set " + name + " " + b.Settings[name] + "\n")
	}
	for _, name := range slices.Sorted(maps.Keys(b.Scripts)) {
		s.WriteString("script " + name + "\n")
		for _, line := range strings.Split(strings.TrimRight(b.Scripts[name], "\n"), "\n") {
			s.WriteString(strings.TrimRight("| "+line, " ") + "\n")
		}
	}
	return s.String()
}

// ParseBuild reads a build written out by String; a line it cannot read is
// a *BuildError naming it.
func ParseBuild(text string) (Build, error) {
	b := Build{Programs: map[string][]string{}, Settings: map[string]string{}, Scripts: map[string]string{}}
	if len(text) > MaxBuild {
		return b, &BuildError{Part: "build", Msg: fmt.Sprintf("%d bytes, more than the %d a build may have", len(text), MaxBuild),
			JA: fmt.Sprintf("%d バイトあり、上限の %d を超えている", len(text), MaxBuild)}
	}
	script := "" // the script whose lines are being read
	for i, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		bad := func(msg, ja string) error {
			return &BuildError{Part: "build", Index: i + 1, Msg: fmt.Sprintf("%q: %s", line, msg), JA: fmt.Sprintf("%q: %s", line, ja)}
		}
		if rest, ok := strings.CutPrefix(line, "|"); ok && script != "" {
			b.Scripts[script] += strings.TrimPrefix(rest, " ") + "\n"
			continue
		}
		script = ""
		f := strings.Fields(line)
		switch {
		case line == "":
		case len(f) == 3 && f[0] == "set":
			b.Settings[f[1]] = f[2]
		case len(f) == 2 && f[0] == "script":
			script = f[1]
			b.Scripts[script] = ""
		case len(f) >= 1 && strings.HasSuffix(f[0], ":") && len(f[0]) > 1:
			c := strings.TrimSuffix(f[0], ":")
			if _, ok := b.Programs[c]; !ok {
				b.Programs[c] = nil
			}
			if len(f) > 1 {
				b.Programs[c] = append(b.Programs[c], strings.Join(f[1:], " "))
			}
		default:
			return b, bad(`want "CLIENT: ACTION", "set NAME VALUE" or "script NAME"`, `「クライアント: 操作」「set 名前 値」「script 名前」のどれでもない`)
		}
	}
	return b, nil
}

// With is b with client c's program set to lines, for a learner's edit.
func (b Build) With(c string, lines []string) Build {
	n := b.clone()
	n.Programs[c] = slices.Clone(lines)
	return n
}

// clone copies b, so that an edit leaves b as it was.
func (b Build) clone() Build {
	n := Build{Programs: map[string][]string{}, Settings: maps.Clone(b.Settings), Scripts: maps.Clone(b.Scripts)}
	for c, lines := range b.Programs {
		n.Programs[c] = slices.Clone(lines)
	}
	if n.Settings == nil {
		n.Settings = map[string]string{}
	}
	if n.Scripts == nil {
		n.Scripts = map[string]string{}
	}
	return n
}
