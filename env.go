package main

import (
	"fmt"
	"strconv"
)

// envFloat and envBool read a default from the environment, like envInt; a
// value that does not parse is reported rather than silently ignored.
func envFloat(getenv func(string) string, key string, def float64, errs *[]error) float64 {
	v := getenv(key)
	if v == "" {
		return def
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		*errs = append(*errs, fmt.Errorf("%s=%q is not a number", key, v))
		return def
	}
	return f
}

func envBool(getenv func(string) string, key string, errs *[]error) bool {
	v := getenv(key)
	if v == "" {
		return false
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		*errs = append(*errs, fmt.Errorf("%s=%q is not true or false", key, v))
		return false
	}
	return b
}
