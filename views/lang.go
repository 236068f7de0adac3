package views

import "golang.org/x/text/language"

// The site's languages. The language of a page is worked out here and only
// here: the explicit choice in the URL or the form, else the browser's.

var langMatcher = language.NewMatcher([]language.Tag{language.English, language.Japanese})

// ReadLang picks the page's language: explicit (a lang parameter) when it is
// one of ours, else what acceptLanguage (the browser's Accept-Language
// header) prefers, else English. An explicit value that is not ours is an
// error (a *BadPlace), with the browser's language chosen all the same.
func ReadLang(explicit, acceptLanguage string) (string, error) {
	lang, bad := readLang(explicit, acceptLanguage)
	if bad != nil {
		return lang, bad
	}
	return lang, nil
}

func readLang(explicit, acceptLanguage string) (string, *BadPlace) {
	switch explicit {
	case "ja", "en":
		return explicit, nil
	case "":
		return AcceptLang(acceptLanguage), nil
	}
	return AcceptLang(acceptLanguage), &BadPlace{Key: "err.lang", Args: []any{explicit}}
}

// AcceptLang is the language an Accept-Language header prefers among ours.
func AcceptLang(header string) string {
	tags, _, err := language.ParseAcceptLanguage(header)
	if err != nil || len(tags) == 0 {
		return "en"
	}
	_, i, conf := langMatcher.Match(tags...)
	if conf != language.No && i == 1 {
		return "ja"
	}
	return "en"
}

// OtherLang is the language a page's language link switches to.
func OtherLang(lang string) string {
	if lang == "ja" {
		return "en"
	}
	return "ja"
}
