package hall

import (
	"fmt"
	"regexp"
	"strconv"
)

// HAProxyConfig is docs/haproxy.cfg (text) as it stands, with its bind line
// on port bind of 127.0.0.1 and its servers a, b and c on the ports of
// replicas: what the replicas test and the hostile load run.
func HAProxyConfig(text string, bind int, replicas []int) (string, error) {
	re := regexp.MustCompile(`(?m)^(\s*bind) :8080`)
	if !re.MatchString(text) {
		return "", fmt.Errorf("docs/haproxy.cfg has no bind :8080 line")
	}
	text = re.ReplaceAllString(text, "${1} 127.0.0.1:"+strconv.Itoa(bind))
	for i, name := range []string{"a", "b", "c"} {
		re := regexp.MustCompile(`(?m)^(\s*server ` + name + ` )127\.0\.0\.1:808[123]`)
		if !re.MatchString(text) || i >= len(replicas) {
			return "", fmt.Errorf("docs/haproxy.cfg has no server %s line on 127.0.0.1:808x", name)
		}
		text = re.ReplaceAllString(text, "${1}127.0.0.1:"+strconv.Itoa(replicas[i]))
	}
	return text, nil
}
