package partition_test

import (
	"strings"
	"testing"

	"github.com/distlock/fencing-demo/demo/partition"
	"github.com/distlock/fencing-demo/internal/testkit"
	"github.com/distlock/fencing-demo/views"
)

// single-owner tells one Kafka story: the rebalance gives the partition to
// W2, whose producer's InitProducerId with the partition's transactional.id
// bumps the producer epoch, and the broker refuses the old producer's write
// with INVALID_PRODUCER_EPOCH. The consumer group's generation, another
// number, is named only for what it fences: offset commits.
func TestOneKafkaStory(t *testing.T) {
	f := testkit.LastFrame(t, "single-owner", true)
	var assigned, fenced bool
	for _, e := range f.Events {
		call, reply := e.Wire()
		switch e := e.(type) {
		case partition.Assigned:
			assigned = true
			if !strings.Contains(call, "InitProducerId(transactional.id="+partition.TransactionalID+")") || reply != "producer epoch 2" {
				t.Errorf("the rebalance reads %q => %q, want W2's InitProducerId answered with producer epoch 2", call, reply)
			}
		case partition.Produced:
			if !e.OK {
				fenced = true
				if !strings.HasPrefix(reply, "INVALID_PRODUCER_EPOCH") {
					t.Errorf("the fenced write is answered %q", reply)
				}
			}
		}
	}
	if !assigned || !fenced {
		t.Fatalf("single-owner on: a rebalance %v, a fenced write %v; want both", assigned, fenced)
	}
	sc := f.Scenario
	for _, want := range []string{"transactional.id", "INVALID_PRODUCER_EPOCH", "ProducerFencedException", "offset commits (ILLEGAL_GENERATION), not its writes"} {
		if !strings.Contains(sc.Lesson.EN, want) {
			t.Errorf("the lesson does not say %q", want)
		}
	}
	cited := map[string]bool{}
	for _, s := range sc.Sources {
		cited[s.URL] = true
	}
	for _, url := range []string{
		"https://cwiki.apache.org/confluence/display/KAFKA/KIP-98+-+Exactly+Once+Delivery+and+Transactional+Messaging",
		"https://cwiki.apache.org/confluence/display/KAFKA/KIP-588%3A+Allow+producers+to+recover+gracefully+from+transaction+timeouts",
	} {
		if !cited[url] {
			t.Errorf("the lesson does not cite %s", url)
		}
	}
	for _, lang := range []string{"ja", "en"} {
		if w := views.T(lang, "ev.partition-assigned"); !strings.Contains(w, "transactional.id") {
			t.Errorf("(%s) the rebalance's sentence %q does not say the producer takes over the transactional.id", lang, w)
		}
	}
}
