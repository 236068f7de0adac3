package main

import (
	"fmt"
	"strconv"
	"time"
)

// envFloat and envBool read a default from the environment, like envInt.
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

func envOr(getenv func(string) string, key, def string) string {
	if v := getenv(key); v != "" {
		return v
	}
	return def
}

// envInt and envDuration read a default from the environment; a value that
// does not parse is reported rather than silently ignored.
func envInt(getenv func(string) string, key string, def int, errs *[]error) int {
	v := getenv(key)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		*errs = append(*errs, fmt.Errorf("%s=%q is not a whole number", key, v))
		return def
	}
	return n
}

func envDuration(getenv func(string) string, key string, def time.Duration, errs *[]error) time.Duration {
	v := getenv(key)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		*errs = append(*errs, fmt.Errorf("%s=%q is not a duration such as 30m", key, v))
		return def
	}
	return d
}
