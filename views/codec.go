package views

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"errors"
	"io"
	"sync"
)

// textCodec writes a text for an address and reads it back: raw DEFLATE
// with a fixed dictionary of what such texts say most, then base64url
// without padding, which an address carries as it is. A free-play history
// (play) and a learner's build (build) ride this way. The dictionary is
// part of the address format: changing it would turn every link shared so
// far into a 400, so it is only ever appended to behind a new format mark.
type textCodec struct {
	dict  []byte
	max   int // bytes a text decodes to at most
	codes textCodes
	// writers keep flate's writers, with the dictionary: a page writes the
	// same text into many links, and a new writer's tables cost more than
	// the text it compresses.
	writers sync.Pool
}

func newTextCodec(dict string, max int) *textCodec {
	c := &textCodec{dict: []byte(dict), max: max, codes: textCodes{codes: map[string]string{}}}
	c.writers.New = func() any {
		w, err := flate.NewWriterDict(io.Discard, flate.BestCompression, c.dict)
		if err != nil {
			panic(err) // a level out of range: a mistake in the program
		}
		return w
	}
	return c
}

// errTextCode is a text that is no output of encode, or longer than max.
var errTextCode = errors.New("not a text this site writes")

// encode writes text for an address, from the codes written last when it
// was written lately: a page links to itself and its neighbours many times
// over, each with the same text.
func (c *textCodec) encode(text string) string {
	if text == "" {
		return ""
	}
	if code, ok := c.codes.get(text); ok {
		return code
	}
	var b bytes.Buffer
	w := c.writers.Get().(*flate.Writer)
	defer c.writers.Put(w)
	w.Reset(&b)
	_, _ = w.Write([]byte(text)) // a bytes.Buffer does not fail
	_ = w.Close()
	code := base64.RawURLEncoding.EncodeToString(b.Bytes())
	c.codes.put(text, code)
	return code
}

// decode reads what encode wrote; any other text is errTextCode, and so is
// one longer than max.
func (c *textCodec) decode(code string) (string, error) {
	if code == "" {
		return "", nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(code)
	if err != nil {
		return "", errTextCode
	}
	r := flate.NewReaderDict(bytes.NewReader(raw), c.dict)
	out, err := io.ReadAll(io.LimitReader(r, int64(c.max)+1))
	if err != nil || len(out) > c.max {
		return "", errTextCode
	}
	return string(out), nil
}

// textCodes is a small map of texts to their codes, emptied when full.
type textCodes struct {
	mu    sync.Mutex
	codes map[string]string
}

const maxTextCodes = 4096

func (c *textCodes) get(text string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	code, ok := c.codes[text]
	return code, ok
}

func (c *textCodes) put(text, code string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.codes) >= maxTextCodes {
		clear(c.codes)
	}
	c.codes[text] = code
}
